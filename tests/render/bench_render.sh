#!/usr/bin/env bash
# The bench chart's SVG and HTML as a person sees them: rendered by headless chromium, then checked on
# the image: its size, not blank, and one band of p50 blue per row and level (6: two rows at
# concurrency 1, 2 and 4; the TTFT and ITL bars of a level share its band); and a sweep's Pareto chart,
# every config's colour on it. The files are the golden ones of tests/golden/bench, which BenchChart.*
# and SweepChart.* pin to the renderers' output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../golden/bench
# shellcheck source=chromium.sh
. "$here/chromium.sh"

svg_height=$(svg_height "$golden/record.svg")
shoot "$golden/record.svg" "$out/svg.png" "$svg_height"
python3 "$here/png_bands.py" "$out/svg.png" --width 960 --min-height "$svg_height" --colour '#3182bd' --bands 6

shoot "$golden/record.html" "$out/html.png" 1000
python3 "$here/png_bands.py" "$out/html.png" --width 960 --min-height 1000 --colour '#3182bd' --bands 6

# The sweep's Pareto chart: each config's colour (legend, marks, lines) on the image, SVG and HTML.
sweep_height=$(svg_height "$golden/sweep.svg")
shoot "$golden/sweep.svg" "$out/sweep.png" "$sweep_height"
shoot "$golden/sweep.html" "$out/sweep-html.png" 1000
for colour in '#1b9e77' '#d95f02' '#7570b3'; do
  python3 "$here/png_bands.py" "$out/sweep.png" --width 960 --min-height "$sweep_height" --colour "$colour" --min-pixels 150
  python3 "$here/png_bands.py" "$out/sweep-html.png" --width 960 --min-height 1000 --colour "$colour" --min-pixels 150
done
echo "bench chart renders: ok"
