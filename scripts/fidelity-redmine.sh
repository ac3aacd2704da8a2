#!/usr/bin/env bash
# Prepares Redmine for the fidelity benchmark (bench/README.md, "Fidelity on held-out requests";
# the app is bench/fidelity/apps/redmine.ts). Idempotent; run as root:
#
#   bash scripts/fidelity-redmine.sh          # install if needed, build the seed if it is missing or stale
#   bash scripts/fidelity-redmine.sh --force  # build the seed again
#
# 1. Installs Debian's redmine and redmine-sqlite (debconf answered: dbconfig-common with SQLite).
# 2. Creates a Redmine instance of its own, `capstate-fidelity` (redmine-instances), whose
#    database.yml names the SQLite file in $CAPSTATE_FIDELITY_DB, so every start of the app can
#    run on a fresh copy of the seed.
# 3. Builds the seed database $SEED (default /var/lib/redmine/capstate-fidelity/seed.sqlite3):
#    migrations, the default data in English, the REST API on, the admin's API key set to a
#    known throwaway value, three public projects, two users, versions, a category and twelve
#    issues across trackers, statuses and priorities, all with fixed timestamps and dates (so a
#    seed built on another day or machine answers the same). A stamp next to the seed holds this
#    script's sha256: editing the script builds the seed again.
set -euo pipefail

INSTANCE=capstate-fidelity
SEED=${CAPSTATE_REDMINE_SEED:-/var/lib/redmine/$INSTANCE/seed.sqlite3}
CONF=/etc/redmine/$INSTANCE
REDMINE=/usr/share/redmine
FORCE=${1:-}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' ok installed$'; }
if ! installed redmine || ! installed redmine-sqlite; then
  debconf-set-selections <<'EOF'
redmine redmine/instances/default/dbconfig-install boolean true
redmine redmine/instances/default/database-type select sqlite3
EOF
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q redmine redmine-sqlite
fi

"$REDMINE/bin/redmine-instances" create "$INSTANCE" >/dev/null
# The database is whatever file the process is started with (ERB in database.yml).
cat >"$CONF/database.yml" <<'EOF'
# capstate fidelity benchmark (scripts/fidelity-redmine.sh): each start names its own copy of the seed.
production:
  adapter: sqlite3
  database: <%= ENV.fetch('CAPSTATE_FIDELITY_DB') %>
  encoding: utf8
  timeout: 5000
EOF
[ -s "$CONF/secret_key.txt" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$CONF/secret_key.txt"

stamp=$(sha256sum "$0" | cut -d' ' -f1)
if [ "$FORCE" != --force ] && [ -s "$SEED" ] && [ "$(cat "$SEED.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "redmine seed is current: $SEED"
  exit 0
fi

mkdir -p "$(dirname "$SEED")"
tmp="$SEED.building"
rm -f "$tmp"
export REDMINE_INSTANCE=$INSTANCE RAILS_ENV=production CAPSTATE_FIDELITY_DB=$tmp TZ=UTC
cd "$REDMINE"
bin/rake db:migrate >/dev/null
REDMINE_LANG=en bin/rake redmine:load_default_data >/dev/null
bin/rails runner - <<'RUBY'
# The seed: fixed names, dates and timestamps, so every build of it answers the same.
T = Time.utc(2026, 11, 2, 9, 0, 0)
at = ->(h) { T + h * 3600 }

Setting.rest_api_enabled = '1'
Setting.default_language = 'en'
Setting.host_name = '127.0.0.1'

admin = User.find_by!(login: 'admin')
admin.update_columns(must_change_passwd: false, created_on: T, updated_on: T, last_login_on: nil, passwd_changed_on: T)
key = admin.api_key # creates the token
Token.where(user_id: admin.id, action: 'api').update_all(value: 'cafe0000f1de11700000000000000000000044aa', created_on: T, updated_on: T)

users = [%w[alice Alice Adams], %w[bob Bob Brown]].map do |login, first, last|
  u = User.new(firstname: first, lastname: last, mail: "#{login}@example.test", language: 'en')
  u.login = login
  u.password = u.password_confirmation = "#{login}-password-1"
  u.save!
  u.update_columns(created_on: T, updated_on: T, passwd_changed_on: T)
  u
end
alice, bob = users

manager, developer, reporter = %w[Manager Developer Reporter].map { |n| Role.find_by!(name: n) }
trackers = Tracker.order(:position).to_a # Bug, Feature, Support
st = IssueStatus.order(:position).index_by(&:name) # New, In Progress, Resolved, Feedback, Closed, Rejected
pr = IssuePriority.order(:position).index_by(&:name) # Low, Normal, High, Urgent, Immediate

projects = [
  ['Aurora', 'aurora', 'The web shop front end.', nil],
  ['Borealis', 'borealis', 'Billing and invoices.', nil],
  ['Aurora mobile', 'aurora-mobile', 'The shop app, a subproject of Aurora.', 'aurora'],
].map do |name, ident, desc, parent|
  p = Project.new(name: name, identifier: ident, description: desc, is_public: true)
  p.trackers = trackers
  p.enabled_module_names = Redmine::AccessControl.available_project_modules
  p.save!
  p.set_parent!(Project.find_by!(identifier: parent)) if parent
  p.update_columns(created_on: T, updated_on: T)
  Member.create!(project: p, user: alice, roles: [developer])
  Member.create!(project: p, user: bob, roles: [p.identifier == 'borealis' ? manager : reporter])
  p
end
aurora, borealis, mobile = projects

v10 = Version.create!(project: aurora, name: '1.0', status: 'open', effective_date: Date.new(2026, 12, 20), sharing: 'none')
v09 = Version.create!(project: aurora, name: '0.9', status: 'open', effective_date: Date.new(2026, 11, 1), sharing: 'none')
Version.create!(project: borealis, name: '2026.12', status: 'open', effective_date: Date.new(2026, 12, 31), sharing: 'none')
cat = IssueCategory.create!(project: aurora, name: 'Checkout', assigned_to: alice)

User.current = admin
bug, feature, support = trackers
# subject, project, tracker, status, priority, assignee, version, category, start, due, done, estimate
[
  ['Cart total ignores discounts', aurora, bug, 'New', 'High', alice, v10, cat, 3, 18, 0, 4.0],
  ['Add wish list', aurora, feature, 'In Progress', 'Normal', alice, v10, nil, 1, 25, 40, 16.0],
  ['Checkout button misaligned on small screens', aurora, bug, 'Resolved', 'Low', bob, v10, cat, 2, nil, 90, nil],
  ['Remove the old banner', aurora, feature, 'Closed', 'Low', nil, v09, nil, 0, 1, 100, 1.0],
  ['Invoice PDF has the wrong VAT number', borealis, bug, 'New', 'Urgent', bob, nil, nil, 4, 10, 0, 2.0],
  ['Export invoices as CSV', borealis, feature, 'Feedback', 'Normal', alice, nil, nil, 5, nil, 20, 8.0],
  ['Customer cannot download receipts', borealis, support, 'In Progress', 'Immediate', bob, nil, nil, 6, 8, 50, nil],
  ['Duplicate invoice numbers in October', borealis, bug, 'Rejected', 'High', nil, nil, nil, 1, nil, 0, nil],
  ['Push notifications for order status', mobile, feature, 'New', 'Normal', nil, nil, nil, 7, nil, 0, 12.0],
  ['App crashes on login with an empty password', mobile, bug, 'New', 'Urgent', alice, nil, nil, 8, 9, 0, 3.0],
  ['How do I reset my password?', mobile, support, 'Closed', 'Normal', bob, nil, nil, 2, nil, 100, nil],
  ['Search results are slow', aurora, support, 'Feedback', 'High', bob, nil, nil, 9, nil, 10, nil],
].each_with_index do |(subject, project, tracker, status, priority, assignee, version, category, start, due, done, est), i|
  issue = Issue.new(project: project, tracker: tracker, author: admin, subject: subject,
                    description: "#{subject}. Seeded for the capstate fidelity benchmark.",
                    priority: pr.fetch(priority), assigned_to: assignee, fixed_version: version, category: category,
                    start_date: Date.new(2026, 11, 1) + start, due_date: due && Date.new(2026, 11, 1) + due,
                    done_ratio: done, estimated_hours: est)
  issue.status = st.fetch(status)
  issue.save!
  t = at.(i + 1)
  issue.update_columns(created_on: t, updated_on: t + 1800, closed_on: issue.closed? ? t + 1800 : nil)
end
v09.update!(status: 'closed') # closed after its issue was planned in it
Version.update_all(created_on: T, updated_on: T)
Project.where(id: projects.map(&:id)).update_all(created_on: T, updated_on: T)
puts "seeded: #{Project.count} projects, #{Issue.count} issues (#{Issue.open.count} open), #{User.where(type: 'User').count} users"
RUBY
chmod 0644 "$tmp"
mv "$tmp" "$SEED"
echo "$stamp" >"$SEED.stamp"
echo "redmine seed built: $SEED"
