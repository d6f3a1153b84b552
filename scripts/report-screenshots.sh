#!/usr/bin/env bash
# Renders the HTML traffic report in a real browser (headless Chromium from
# Debian's `chromium` package) at 1400 and 800 px wide and writes the
# screenshots to docs/images/. Kept out of CI: it needs a browser. Usage:
#   scripts/report-screenshots.sh [MEASURED_RESULTS.json]
# With a tfuse-run --json --bench results file of examples/gpt2.bf16.mlir
# compiled for the H200, the page also shows measured against predicted.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v chromium >/dev/null || { echo "needs chromium (apt-get install chromium)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
opt=$TFUSE_BUILD/bin/tfuse-opt
graph=$TFUSE_ROOT/examples/gpt2.bf16.mlir
measured=""
[ $# -ge 1 ] && measured=" measured=$(realpath "$1")"
# As tfuse-compile does: decompose attention, then fuse.
"$opt" "$graph" --tfuse-decompose-attention --tfuse-fuse=target=h200 -o "$out/fused.mlir"
"$opt" "$out/fused.mlir" -o /dev/null --tfuse-traffic-report="targets=h200,a40,l40s \
format=html sweep-bandwidth=400:4800:400 output=$out/report.html$measured"
python3 "$TFUSE_ROOT/test/Analysis/Inputs/check_html_labels.py" "$out/report.html"
mkdir -p "$TFUSE_ROOT/docs/images"
for width in 1400 800; do
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=$width,3000 \
    --screenshot="$TFUSE_ROOT/docs/images/report-$width.png" \
    "file://$out/report.html" 2>/dev/null
  echo "docs/images/report-$width.png"
done
