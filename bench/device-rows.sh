#!/usr/bin/env bash
# On the GPU machine, after bench/compile-bundles.sh (ROWS_ONLY=1 for just
# the row cases and small examples) ran here and bundles/ was carried:
# --check and --bench of the row-kernel cases (bench/row_cases.py) to test
# the cost model's one-pass row rule, and --check of the small examples.
# Prints a table of measured vs predicted per row length last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
mkdir -p "$OUT/rows"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/rows/gpu.txt"
for bundle in "$ROOT"/bundles/rows/*; do
  name=$(basename "$bundle")
  timeout 120 "$TFUSE_RUN" "$bundle" --check --bench --reps 50 \
    --json "$OUT/rows/$name.json" >"$OUT/rows/$name.log" 2>&1
  echo "$name rc=$?" >>"$OUT/rows/summary.txt"
done
ls -d "$ROOT"/bundles/examples/*.small.* ${EXTRA_BUNDLES:-} 2>/dev/null |
  xargs -P 4 -I{} bash -c 'b={}; n=$(basename $b); timeout 300 '"$TFUSE_RUN"' $b --check \
    --json '"$OUT"'/rows/check.$n.json >'"$OUT"'/rows/check.$n.log 2>&1; echo "check $n rc=$?"' |
  sort >>"$OUT/rows/summary.txt"
python3 - "$OUT/rows" <<'PY' | tee "$OUT/rows-table.txt"
import glob, json, os, sys
print(f"{'case':34} {'pred us':>9} {'meas us':>9} {'meas/pred':>9} {'GB/s':>7} {'2-pass pred':>11}")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "softmax_bias_*.json"))):
    r = json.load(open(path))
    for s in (r.get("bench") or {}).get("steps", []):
        pred, meas = s["predicted_us"], s["measured_us"]
        bw = r["target"]["achievable_bandwidth_gbps"] * 1e3
        two = pred + s["bytes"] / 2 / bw  # the rule replaced: the row input read twice
        print(f"{os.path.basename(path)[:-5]:34} {pred:9.2f} {meas:9.2f} {meas / pred:9.3f} "
              f"{s['bytes'] / meas / 1e3:7.0f} {two:11.2f}")
PY
tar czf "$OUT/rows-logs.tgz" -C "$OUT" rows && rm -rf "$OUT/rows/"*.log
cat "$OUT/rows/summary.txt"
