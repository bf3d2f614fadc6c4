#!/usr/bin/env bash
# The timeline's SVG and HTML as a person sees them: rendered by a real browser (headless chromium),
# then checked on the image: its size, not blank, and one band of "loading weights" blue per unit
# that loaded weights (8: prefill and decode, 4 nodes each). The files are the golden ones of
# tests/golden/timeline, which TimelineView.* pins to the renderer's output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../golden/timeline
# shellcheck source=chromium.sh
. "$here/chromium.sh"

svg_height=$(svg_height "$golden/slow-rank.svg")
shoot "$golden/slow-rank.svg" "$out/svg.png" "$svg_height"
python3 "$here/png_bands.py" "$out/svg.png" --width 960 --min-height "$svg_height" --colour '#3182bd' --bands 8

shoot "$golden/slow-rank.html" "$out/html.png" 800
python3 "$here/png_bands.py" "$out/html.png" --width 960 --min-height 800 --colour '#3182bd' --bands 8

# Two runs in one chart: 8 + 8 rows with weights.
vs_height=$(svg_height "$golden/slow-rank-vs-failed.svg")
shoot "$golden/slow-rank-vs-failed.svg" "$out/vs.png" "$vs_height"
python3 "$here/png_bands.py" "$out/vs.png" --width 960 --min-height "$vs_height" --colour '#3182bd' --bands 16
echo "timeline renders: ok"
