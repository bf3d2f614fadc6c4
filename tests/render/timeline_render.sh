#!/usr/bin/env bash
# The timeline's SVG and HTML as a person sees them: rendered by a real browser (headless chromium),
# then checked on the image: its size, not blank, and one band of "loading weights" blue per unit
# that loaded weights (8: prefill and decode, 4 nodes each). The files are the golden ones of
# tests/golden/timeline, which TimelineView.* pins to the renderer's output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../golden/timeline
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

svg_height=$(grep -o 'height="[0-9]*"' "$golden/slow-rank.svg" | head -1 | tr -dc 0-9)
shoot "$golden/slow-rank.svg" "$out/svg.png" "$svg_height"
python3 "$here/png_bands.py" "$out/svg.png" --width 960 --min-height "$svg_height" --colour '#3182bd' --bands 8

shoot "$golden/slow-rank.html" "$out/html.png" 800
python3 "$here/png_bands.py" "$out/html.png" --width 960 --min-height 800 --colour '#3182bd' --bands 8

# Two runs in one chart: 8 + 8 rows with weights.
vs_height=$(grep -o 'height="[0-9]*"' "$golden/slow-rank-vs-failed.svg" | head -1 | tr -dc 0-9)
shoot "$golden/slow-rank-vs-failed.svg" "$out/vs.png" "$vs_height"
python3 "$here/png_bands.py" "$out/vs.png" --width 960 --min-height "$vs_height" --colour '#3182bd' --bands 16
echo "timeline renders: ok"
