#!/usr/bin/env bash
# Puts `capstate` on PATH as the README writes it (issue 46): a small wrapper that runs this
# checkout's ./capstate (the built CLI with its Node flags), written into the folder given as
# $1, else /usr/local/bin when this user may write there, else ~/.local/bin. A wrapper rather
# than `npm link`: no global npm prefix to own, no second build, and it follows the checkout.
# A `capstate` there that this script did not write is left alone.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
marker='# written by capstate scripts/link-cli.sh'
dir="${1:-}"
if [ -z "$dir" ]; then
  if [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then dir=/usr/local/bin; else dir="$HOME/.local/bin"; fi
fi
mkdir -p "$dir"
target="$dir/capstate"
if [ -e "$target" ] && ! grep -qF "$marker" "$target"; then
  echo "setup: $target exists and was not written by capstate's setup; left as it is (run ./capstate from $here)" >&2
  exit 0
fi
printf '#!/usr/bin/env bash\n%s\nexec %q "$@"\n' "$marker" "$here/capstate" >"$target"
chmod +x "$target"
echo "setup: capstate is on PATH as $target (it runs $here/capstate)" >&2
case ":$PATH:" in
*":$dir:"*) ;;
*) echo "setup: $dir is not on your PATH; add it: export PATH=\"$dir:\$PATH\"" >&2 ;;
esac
