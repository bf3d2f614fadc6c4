# shellcheck shell=bash
# Sourced by the render tests: finds chromium (CI must have it; elsewhere the test is skipped, exit 77),
# makes $out (removed on exit) and defines shoot FILE PNG HEIGHT and svg_height FILE.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  [ "${CI:-}" = true ] && { echo "CI must have chromium (.ci/install-deps)" >&2; exit 1; }
  echo "chromium is not installed: skipped (apt-get install chromium)"; exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Its own profile directory, no GPU and no sandbox (root in CI); --virtual-time-budget lets the page
# settle before the shot. A hung browser is killed by the timeout.
shoot() {  # FILE PNG HEIGHT
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$out/profile" --virtual-time-budget=2000 \
    --window-size="960,$3" --screenshot="$2" "file://$1" >"$out/browser.log" 2>&1 ||
    { cat "$out/browser.log" >&2; exit 1; }
  [ -s "$2" ] || { echo "no screenshot of $1" >&2; cat "$out/browser.log" >&2; exit 1; }
}

svg_height() {  # FILE: the height its <svg> declares
  grep -o 'height="[0-9]*"' "$1" | head -1 | tr -dc 0-9
}
