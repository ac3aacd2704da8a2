#!/usr/bin/env bash
# Installs what the fidelity benchmark's Alertmanager app needs (bench/README.md, "Fidelity on
# held-out requests"): Debian's prometheus-alertmanager (bookworm: 0.25.0). Idempotent. The
# package's own service is stopped and disabled: the benchmark starts the binary itself, with its
# own config, storage and port, each run (bench/fidelity/apps/alertmanager.ts), and the service
# would hold 9093/9094 and keep state in /var/lib/prometheus/alertmanager for nothing.
set -euo pipefail

pkg=prometheus-alertmanager
if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg"
fi

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
if [ -d /run/systemd/system ]; then
  "${sudo[@]}" systemctl disable --now "$pkg" >/dev/null 2>&1 || true
else
  # No systemd running (a container): stop a SysV-started daemon, drop the boot links.
  "${sudo[@]}" service "$pkg" stop >/dev/null 2>&1 || true
  "${sudo[@]}" systemctl disable "$pkg" >/dev/null 2>&1 || "${sudo[@]}" update-rc.d "$pkg" disable >/dev/null 2>&1 || true
fi

/usr/bin/prometheus-alertmanager --version 2>&1 | head -1
