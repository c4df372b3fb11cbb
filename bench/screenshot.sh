#!/usr/bin/env bash
# Renders a run's report.html in headless Chromium (Debian's `chromium`
# package) and writes a PNG beside it, to look at the charts as a reader
# would.   bench/screenshot.sh chainperf-reports/RUN_ID/report.html [height]
set -euo pipefail
html=${1:?usage: bench/screenshot.sh REPORT.html [height]}
height=${2:-6000}
command -v chromium >/dev/null || { echo "chromium missing: apt-get install chromium" >&2; exit 2; }
out="${html%.html}.png"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,"$height" \
  --screenshot="$out" "file://$(realpath "$html")" 2>/dev/null
echo "$out"
