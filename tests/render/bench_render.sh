#!/usr/bin/env bash
# The bench chart's SVG and HTML as a person sees them: rendered by headless chromium, then checked on
# the image: its size, not blank, and one band of p50 blue per row and level (6: two rows at
# concurrency 1, 2 and 4; the TTFT and ITL bars of a level share its band). The files are the golden
# ones of tests/golden/bench, which BenchChart.* pins to the renderer's output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../golden/bench
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  [ "${CI:-}" = true ] && { echo "CI must have chromium (.ci/install-deps)" >&2; exit 1; }
  echo "chromium is not installed: skipped (apt-get install chromium)"; exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

shoot() {  # FILE PNG HEIGHT
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$out/profile" --virtual-time-budget=2000 \
    --window-size="960,$3" --screenshot="$2" "file://$1" >"$out/browser.log" 2>&1 ||
    { cat "$out/browser.log" >&2; exit 1; }
  [ -s "$2" ] || { echo "no screenshot of $1" >&2; cat "$out/browser.log" >&2; exit 1; }
}

svg_height=$(grep -o 'height="[0-9]*"' "$golden/record.svg" | head -1 | tr -dc 0-9)
shoot "$golden/record.svg" "$out/svg.png" "$svg_height"
python3 "$here/png_bands.py" "$out/svg.png" --width 960 --min-height "$svg_height" --colour '#3182bd' --bands 6

shoot "$golden/record.html" "$out/html.png" 1000
python3 "$here/png_bands.py" "$out/html.png" --width 960 --min-height 1000 --colour '#3182bd' --bands 6
echo "bench chart renders: ok"
