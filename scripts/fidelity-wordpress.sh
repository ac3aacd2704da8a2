#!/usr/bin/env bash
# Prepares WordPress for the fidelity benchmark (bench/README.md, "Fidelity on held-out requests";
# the app is bench/fidelity/apps/wordpress.ts). Idempotent; run as root:
#
#   bash scripts/fidelity-wordpress.sh          # install if needed, build the seed if it is missing or stale
#   bash scripts/fidelity-wordpress.sh --force  # build the seed again
#
# 1. Installs Debian's wordpress (6.1), mariadb-server, php-cli and php-mysql (no recommends: no
#    theme, no translations; the REST API needs neither). Debian's policy-rc.d, where it forbids
#    starting services, keeps the apache2 that wordpress depends on from starting: the benchmark
#    runs WordPress under `php -S` (bench/fidelity/apps/wordpress-router.php).
# 2. Starts MariaDB if it is not running; creates the database user capstate_wp (a throwaway
#    local password), who owns the database capstate_fidelity_wp (each start of the app drops it
#    and restores the seed into it).
# 3. Writes /etc/wordpress/config-capstate-fidelity.php, which Debian's wp-config.php loads when
#    $_SERVER['WORDPRESS_CONFIG'] is `capstate-fidelity` (the router sets it): that database,
#    WP_HOME/WP_SITEURL http://127.0.0.1:$CAPSTATE_WORDPRESS_PORT (default 8391; every link in
#    every answer names it, so the capture and the truth run on the same port),
#    WP_ENVIRONMENT_TYPE local (application passwords over plain HTTP), WP-Cron off, no outgoing
#    HTTP. The salts are drawn once and kept beside the seed.
# 4. Builds the seed $SEED (default /var/lib/capstate-fidelity/wordpress-seed.sql, a mysqldump):
#    wp_install, the default content removed and ids counted from 1 again, pretty permalinks
#    (/%postname%/), the admin's application password set to a known throwaway value, three
#    authors, four categories, five tags, fourteen posts (eleven published, one sticky, two
#    drafts, one private), three pages and seven comments (one a reply, one held), all with
#    fixed dates. A stamp next to the seed holds this script's sha256: editing the script builds
#    the seed again.
set -euo pipefail

SEED=${CAPSTATE_WORDPRESS_SEED:-/var/lib/capstate-fidelity/wordpress-seed.sql}
PORT=${CAPSTATE_WORDPRESS_PORT:-8391}
DB=capstate_fidelity_wp
DBUSER=capstate_wp
# A throwaway local password, for a database that only ever holds the seed.
DBPASS=capstate-fidelity-wp
CONF=/etc/wordpress/config-capstate-fidelity.php
SALTS=$(dirname "$SEED")/wordpress-salts.php
FORCE=${1:-}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' ok installed$'; }
missing=()
for p in wordpress mariadb-server php-cli php-mysql; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# MariaDB: started by hand where no init system starts it (containers).
if ! mysqladmin ping --silent >/dev/null 2>&1; then
  /etc/init.d/mariadb start >/dev/null || { mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld && (mysqld_safe >/dev/null 2>&1 &); }
  for _ in $(seq 60); do mysqladmin ping --silent >/dev/null 2>&1 && break; sleep 0.5; done
  mysqladmin ping --silent >/dev/null
fi
mysql -u root <<SQL
CREATE USER IF NOT EXISTS '$DBUSER'@'localhost' IDENTIFIED BY '$DBPASS';
ALTER USER '$DBUSER'@'localhost' IDENTIFIED BY '$DBPASS';
GRANT ALL PRIVILEGES ON \`$DB\`.* TO '$DBUSER'@'localhost';
FLUSH PRIVILEGES;
SQL

mkdir -p "$(dirname "$SEED")"
if [ ! -s "$SALTS" ]; then
  {
    echo '<?php'
    for k in AUTH_KEY SECURE_AUTH_KEY LOGGED_IN_KEY NONCE_KEY AUTH_SALT SECURE_AUTH_SALT LOGGED_IN_SALT NONCE_SALT; do
      echo "define('$k', '$(head -c 48 /dev/urandom | base64 | tr -d '\n/+=')');"
    done
  } >"$SALTS"
  chmod 0644 "$SALTS"
fi
cat >"$CONF" <<EOF
<?php
// capstate fidelity benchmark (scripts/fidelity-wordpress.sh); loaded by Debian's wp-config.php
// when \$_SERVER['WORDPRESS_CONFIG'] is capstate-fidelity (bench/fidelity/apps/wordpress-router.php).
define('DB_NAME', '$DB');
define('DB_USER', '$DBUSER');
define('DB_PASSWORD', '$DBPASS');
define('DB_HOST', 'localhost');
// Every link in every answer names this origin: the capture and the truth run on the same port.
define('WP_HOME', 'http://127.0.0.1:' . (getenv('CAPSTATE_WORDPRESS_PORT') ?: '8391'));
define('WP_SITEURL', WP_HOME);
// Application passwords need HTTPS, or a local environment.
define('WP_ENVIRONMENT_TYPE', 'local');
// Nothing runs on a clock or reaches out: no WP-Cron, no updates, no outgoing HTTP.
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('WP_DEBUG', false);
require '$SALTS';
EOF
chmod 0644 "$CONF"

stamp=$(sha256sum "$0" | cut -d' ' -f1)
if [ "$FORCE" != --force ] && [ -s "$SEED" ] && [ "$(cat "$SEED.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "wordpress seed is current: $SEED"
  exit 0
fi

mysql -u root -e "DROP DATABASE IF EXISTS \`$DB\`; CREATE DATABASE \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;"
CAPSTATE_WORDPRESS_PORT=$PORT TZ=UTC php -d display_errors=stderr -d error_reporting=E_ALL\&~E_DEPRECATED\&~E_NOTICE -- <<'PHP'
<?php
// The seed: fixed names, dates and values, so every build of it answers the same.
$_SERVER['WORDPRESS_CONFIG'] = 'capstate-fidelity';
$_SERVER['HTTP_HOST'] = '127.0.0.1:' . getenv('CAPSTATE_WORDPRESS_PORT');
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
define('WP_INSTALLING', true);
// No mail leaves the machine (wp_install mails the admin; there is no MTA).
function wp_mail() { return true; }
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/user.php';
global $wpdb, $wp_rewrite;

$t0 = '2024-02-01 09:00:00';
wp_install('Fidelity blog', 'admin', 'admin@example.test', true, '', 'admin-password-1');

// The default post, page, privacy page and comment go; ids count from 1 again.
foreach (['posts', 'postmeta', 'comments', 'commentmeta', 'term_relationships'] as $t) {
  $wpdb->query("TRUNCATE TABLE {$wpdb->$t}");
}
update_option('blogdescription', 'A seeded blog for the capstate fidelity benchmark');
update_option('timezone_string', 'UTC');
update_option('gmt_offset', 0);
update_option('wp_page_for_privacy_policy', 0);
update_option('sticky_posts', []);
update_option('fresh_site', 0);
$wp_rewrite->set_permalink_structure('/%postname%/');
$wp_rewrite->flush_rules(false);

$wpdb->update($wpdb->users, ['user_registered' => $t0, 'display_name' => 'Site Admin'], ['ID' => 1]);
update_user_meta(1, 'first_name', 'Site');
update_user_meta(1, 'last_name', 'Admin');
update_user_meta(1, 'nickname', 'Site Admin');

// The admin's application password: a throwaway local value, hashed as WordPress does, with a
// fixed uuid and time, so every seed authorizes the same Basic header.
update_user_meta(1, '_application_passwords', [[
  'uuid' => '6f1c3a52-5e0d-4c3e-9a7b-000000000001',
  'app_id' => '',
  'name' => 'capstate fidelity',
  'password' => wp_hash_password('capstateFidelity0000WpAp'),
  'created' => strtotime('2024-02-01 09:00:00 UTC'),
  'last_used' => null,
  'last_ip' => null,
]]);
update_option('using_application_passwords', 1);

$users = [];
foreach ([
  ['alice', 'Alice', 'Adams', 'author', 'Writes the release notes.'],
  ['bob', 'Bob', 'Brown', 'author', 'Writes the guides.'],
  ['carol', 'Carol', 'Chen', 'editor', 'Edits everything.'],
] as [$login, $first, $last, $role, $bio]) {
  $id = wp_insert_user([
    'user_login' => $login,
    'user_pass' => "$login-password-1",
    'user_email' => "$login@example.test",
    'first_name' => $first,
    'last_name' => $last,
    'display_name' => "$first $last",
    'nickname' => $first,
    'description' => $bio,
    'role' => $role,
    'user_registered' => $t0,
  ]);
  if (is_wp_error($id)) throw new Exception($id->get_error_message());
  $users[$login] = $id;
}

$cat = ['uncategorized' => 1];
foreach ([['News', 'news', 'What happens on the project.', null], ['Guides', 'guides', 'How to do things.', null], ['Releases', 'releases', 'New versions.', 'news']] as [$name, $slug, $desc, $parent]) {
  $r = wp_insert_term($name, 'category', ['slug' => $slug, 'description' => $desc, 'parent' => $parent ? $cat[$parent] : 0]);
  if (is_wp_error($r)) throw new Exception($r->get_error_message());
  $cat[$slug] = $r['term_id'];
}
$tag = [];
foreach (['php', 'javascript', 'performance', 'security', 'howto'] as $slug) {
  $r = wp_insert_term($slug === 'howto' ? 'How-to' : ucfirst($slug), 'post_tag', ['slug' => $slug]);
  if (is_wp_error($r)) throw new Exception($r->get_error_message());
  $tag[$slug] = $r['term_id'];
}

$author = ['admin' => 1] + $users;
// title, slug, author, status, date, categories, tags
$posts = [
  ['Welcome to the fidelity blog', 'welcome', 'admin', 'publish', '2024-03-01 09:00:00', ['news'], []],
  ['Release 1.0 is out', 'release-1-0', 'alice', 'publish', '2024-03-04 10:00:00', ['releases'], ['php']],
  ['Getting started with the API', 'getting-started', 'bob', 'publish', '2024-03-06 11:30:00', ['guides'], ['howto', 'javascript']],
  ['Caching for speed', 'caching-for-speed', 'alice', 'publish', '2024-03-09 08:15:00', ['guides'], ['performance', 'php']],
  ['Security update 1.0.1', 'security-update-1-0-1', 'carol', 'publish', '2024-03-12 16:00:00', ['releases', 'news'], ['security']],
  ['Writing a plugin', 'writing-a-plugin', 'bob', 'publish', '2024-03-15 09:45:00', ['guides'], ['php', 'howto']],
  ['Our roadmap for spring', 'roadmap-spring', 'admin', 'publish', '2024-03-18 13:00:00', ['news'], []],
  ['Profiling slow queries', 'profiling-slow-queries', 'alice', 'publish', '2024-03-21 10:30:00', ['guides'], ['performance']],
  ['Release 1.1 is out', 'release-1-1', 'carol', 'publish', '2024-03-25 12:00:00', ['releases'], ['php', 'javascript']],
  ['Meet the team', 'meet-the-team', 'bob', 'publish', '2024-03-28 15:20:00', ['news'], []],
  ['Hardening your install', 'hardening-your-install', 'alice', 'publish', '2024-04-02 09:10:00', ['guides'], ['security', 'howto']],
  ['Release 1.2 notes', 'release-1-2-notes', 'carol', 'draft', '2024-04-05 10:00:00', ['releases'], []],
  ['A theming guide', 'theming-guide', 'bob', 'draft', '2024-04-06 11:00:00', ['guides'], ['howto']],
  ['Budget for next year', 'budget', 'admin', 'private', '2024-04-07 17:00:00', ['uncategorized'], []],
];
foreach ($posts as $i => [$title, $slug, $who, $status, $date, $cats, $tags]) {
  $id = wp_insert_post([
    'post_title' => $title,
    'post_name' => $slug,
    'post_author' => $author[$who],
    'post_status' => $status,
    'post_date' => $date,
    'post_date_gmt' => $date,
    'post_content' => "<!-- wp:paragraph -->\n<p>$title. Post " . ($i + 1) . " of the seeded fidelity blog.</p>\n<!-- /wp:paragraph -->",
    'post_excerpt' => '',
    'post_category' => array_map(fn($c) => $cat[$c], $cats),
    'tags_input' => array_map(fn($t) => $tag[$t], $tags),
    'comment_status' => 'open',
    'ping_status' => 'closed',
  ], true);
  if (is_wp_error($id)) throw new Exception($id->get_error_message());
  if ($id !== $i + 1) throw new Exception("post $title got id $id");
}
stick_post(1);

// title, slug, parent, order, date
foreach ([
  ['About', 'about', 0, 1, '2024-02-02 09:00:00'],
  ['Contact', 'contact', 0, 3, '2024-02-02 09:30:00'],
  ['The team', 'team', 15, 2, '2024-02-03 09:00:00'],
] as [$title, $slug, $parent, $order, $date]) {
  $id = wp_insert_post([
    'post_type' => 'page',
    'post_title' => $title,
    'post_name' => $slug,
    'post_parent' => $parent,
    'menu_order' => $order,
    'post_author' => 1,
    'post_status' => 'publish',
    'post_date' => $date,
    'post_date_gmt' => $date,
    'post_content' => "<!-- wp:paragraph -->\n<p>The $slug page.</p>\n<!-- /wp:paragraph -->",
    'comment_status' => 'closed',
    'ping_status' => 'closed',
  ], true);
  if (is_wp_error($id)) throw new Exception($id->get_error_message());
}

// post, parent comment, user (0: a guest), guest name, approved, date, text
foreach ([
  [3, 0, 0, 'Dana', '1', '2024-03-07 08:00:00', 'Very clear, thank you.'],
  [3, 1, 'bob', '', '1', '2024-03-07 09:00:00', 'Glad it helped, Dana.'],
  [2, 0, 0, 'Eve', '1', '2024-03-05 12:00:00', 'Congratulations on the release!'],
  [4, 0, 'alice', '', '1', '2024-03-10 07:30:00', 'A follow-up post on caching headers is coming.'],
  [8, 0, 0, 'Frank', '1', '2024-03-22 18:00:00', 'Which profiler do you use?'],
  [3, 0, 0, 'Grace', '0', '2024-03-08 10:00:00', 'Buy cheap watches here.'],
  [11, 0, 0, 'Heidi', '1', '2024-04-03 14:00:00', 'Do these steps apply to multisite too?'],
] as [$post, $parent, $who, $name, $approved, $date, $text]) {
  $u = $who ? get_userdata($author[$who]) : null;
  $id = wp_insert_comment([
    'comment_post_ID' => $post,
    'comment_parent' => $parent,
    'user_id' => $u ? $u->ID : 0,
    'comment_author' => $u ? $u->display_name : $name,
    'comment_author_email' => $u ? $u->user_email : strtolower($name) . '@example.test',
    'comment_author_url' => '',
    'comment_author_IP' => '',
    'comment_agent' => '',
    'comment_approved' => $approved,
    'comment_date' => $date,
    'comment_date_gmt' => $date,
    'comment_content' => $text,
    'comment_type' => 'comment',
  ]);
  if (!$id) throw new Exception("comment on $post not created");
}

wp_update_term_count_now(array_values($cat), 'category');
wp_update_term_count_now(array_values($tag), 'post_tag');
clean_post_cache(1);
file_put_contents('php://stderr', sprintf("seeded: %d posts, %d pages, %d comments, %d users\n",
  $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type = 'post'"),
  $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type = 'page'"),
  $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->comments}"),
  $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->users}")));
PHP

tmp="$SEED.building"
mysqldump -u root --skip-dump-date --skip-comments --single-transaction "$DB" >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$SEED"
echo "$stamp" >"$SEED.stamp"
echo "wordpress seed built: $SEED"
