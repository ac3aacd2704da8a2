#!/usr/bin/env bash
# Prepares the Django REST framework app of the fidelity benchmark (bench/README.md, "Django REST
# framework (django-rest)"; the app is bench/fidelity/apps/django-rest.ts, its project
# bench/fidelity/apps/django-rest/). Idempotent; run as root:
#
#   bash scripts/fidelity-django-rest.sh
#
# Installs Debian's python3-django (3.2), python3-djangorestframework (3.14) and
# python3-django-filters (23.1), no recommends. Nothing else: the database is SQLite (Python's
# own sqlite3), and each start of the app builds its seed into its work directory (`migrate`,
# then `loaddata` of the project's fixture), so there is no seed to keep here.
set -euo pipefail

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' ok installed$'; }
missing=()
for p in python3-django python3-djangorestframework python3-django-filters; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
/usr/bin/python3 -c 'import django, rest_framework, django_filters; print("django", django.get_version(), "| djangorestframework", rest_framework.VERSION, "| django-filter", django_filters.__version__)'
