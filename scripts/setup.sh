#!/usr/bin/env bash
# The one set-up, for a newcomer and for CI (.ci/run calls it): the system packages the
# tests need, then npm ci (which builds), `capstate` on PATH (scripts/link-cli.sh), then the
# main job on the bundled Grafana capture.
# `--no-demo` stops after the install.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests open stores with the sqlite3 command (views must work without capstate), drive
# Debian's Chromium (playwright-core downloads no browser), headless and, for BS-4, headed on
# an Xvfb display, and start throwaway PostgreSQL servers (issue 20) from Debian's binaries.
# sqlite-utils (with Debian's python3) reads every fixture's store as another client would (issue 46).
# zsh and fish check the completion scripts parse; x11-utils (xwininfo) lets `capstate record`'s test close its window (issue 46).
need=()
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
command -v sqlite-utils >/dev/null 2>&1 || need+=(sqlite-utils)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v zsh >/dev/null 2>&1 || need+=(zsh)
command -v fish >/dev/null 2>&1 || need+=(fish)
command -v xwininfo >/dev/null 2>&1 || need+=(x11-utils)
if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: the tests need ${need[*]} (Debian package names); install them with your system's package manager" >&2
  elif [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
  else
    echo "setup: the tests need ${need[*]}; run: sudo apt-get install -y ${need[*]}" >&2
  fi
fi

npm ci
# The README calls `capstate` by name: put it on PATH (a wrapper around ./capstate).
bash scripts/link-cli.sh
if [ "${1:-}" != "--no-demo" ]; then
  npm run demo
  # Issue 46: the demo ends with what to do next, not with its last fact.
  echo
  echo "next: ./capstate serve --http 3000 --db demo.sqlite  (then open http://127.0.0.1:3000/: the recorded app, answered by the model)"
  echo "  or: ./capstate load YOUR-APP.har                   (a capture of your own app; the README says how to record one)"
fi
