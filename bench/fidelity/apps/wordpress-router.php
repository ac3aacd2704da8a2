<?php
// The router of `php -S` for WordPress in the fidelity benchmark (bench/fidelity/apps/wordpress.ts):
// the session page at /capstate-fidelity-session.html (the file in CAPSTATE_WORDPRESS_SESSION,
// so the page and the API share an origin); the files WordPress ships as they are; every other
// path (the REST API under /wp-json/, pretty permalinks) through index.php, as Apache's
// rewrite rules would send it.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path === '/capstate-fidelity-session.html') {
  header('Content-Type: text/html; charset=utf-8');
  readfile(getenv('CAPSTATE_WORDPRESS_SESSION'));
  return true;
}
if ($path !== '/' && is_file($_SERVER['DOCUMENT_ROOT'] . $path) && !str_ends_with($path, '.php')) {
  return false;
}
// Debian's wp-config.php loads /etc/wordpress/config-capstate-fidelity.php (scripts/fidelity-wordpress.sh).
$_SERVER['WORDPRESS_CONFIG'] = 'capstate-fidelity';
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $_SERVER['DOCUMENT_ROOT'] . '/index.php';
$_SERVER['PHP_SELF'] = '/index.php';
chdir($_SERVER['DOCUMENT_ROOT']);
require $_SERVER['DOCUMENT_ROOT'] . '/index.php';
