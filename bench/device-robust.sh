#!/usr/bin/env bash
# On the GPU machine, after `ROBUST_ONLY=1 bench/compile-bundles.sh` ran here
# and bundles/ was carried: --check and --bench of the long-row cases (the
# looping row kernel) and of the 2^31 + 1-element add (64-bit indices), from
# bench/robust_cases.py. Logs and JSON go to $OUT/robust; a table of check
# result, predicted and measured time and achieved bandwidth is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
mkdir -p "$OUT/robust"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/robust/gpu.txt"
touch "$OUT/robust/summary.txt"
# The CPU reference is the slow part: the row cases two at a time; the huge
# add (3 x 8.6 GB on the GPU, its reference in host memory) alone, last.
# ONLY=rows or ONLY=huge runs one part (each fits one 10-minute command);
# the table covers what $OUT/robust/summary.txt lists.
ONLY=${ONLY:-all}
[ "$ONLY" = huge ] || ls -d "$ROOT"/bundles/robust/* | grep -v add_f32_2147483649 |
  xargs -P "${JOBS:-2}" -I{} bash -c 'b={}; n=$(basename $b); timeout '"${CASE_TIMEOUT:-300}"' '"$TFUSE_RUN"' $b \
    --check --bench --reps 20 --json '"$OUT"'/robust/$n.json >'"$OUT"'/robust/$n.log 2>&1; echo "$n rc=$?"' |
  sort >>"$OUT/robust/summary.txt"
huge="$ROOT/bundles/robust/add_f32_2147483649"
if [ "$ONLY" != rows ] && [ -d "$huge" ]; then
  timeout "${HUGE_TIMEOUT:-480}" "$TFUSE_RUN" "$huge" --check --bench --reps 5 \
    --json "$OUT/robust/add_f32_2147483649.json" >"$OUT/robust/add_f32_2147483649.log" 2>&1
  echo "add_f32_2147483649 rc=$?" >>"$OUT/robust/summary.txt"
fi
python3 - "$OUT/robust" <<'PY' | tee "$OUT/robust-table.txt"
import glob, json, os, re, sys
d = sys.argv[1]
rcs = dict(re.findall(r"^(\S+) rc=(\d+)", open(os.path.join(d, "summary.txt")).read(), re.M))
print(f"{'case':34} {'rc':>3} {'pred us':>9} {'meas us':>9} {'meas/pred':>9} {'GB/s':>7}")
for name in sorted(rcs):
    path = os.path.join(d, name + ".json")
    steps = []
    if os.path.exists(path):
        try:
            steps = [s for s in json.load(open(path)).get("steps", [])
                     if "measured_us" in s]
        except ValueError:
            pass
    if not steps:
        print(f"{name:34} {rcs[name]:>3} {'-':>9} {'-':>9} {'-':>9} {'-':>7}")
    for s in steps:
        pred, meas = s["predicted_us"], s["measured_us"]
        print(f"{name:34} {rcs[name]:>3} {pred:9.2f} {meas:9.2f} {meas / pred:9.3f} "
              f"{s['bytes'] / meas / 1e3:7.0f}")
PY
tar czf "$OUT/robust-logs.tgz" -C "$OUT" robust
