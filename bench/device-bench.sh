#!/usr/bin/env bash
# The H200 benchmark, in one run of under 10 minutes on the GPU machine, after
# bench/compile-bundles.sh ran here and bundles/ was carried:
#  1. builds tfuse-run (no LLVM there);
#  2. re-checks the bundles named in $RECHECK (default: none) with --check;
#  3. times every benchmark case, fused and unfused, and the example layers
#     (bf16, fused and unfused) with tfuse-run --bench;
#  4. times the same cases in PyTorch eager and torch.compile and measures
#     the copy bandwidth (bench/peers.py);
#  5. prints one table (bench/summarize.py) and writes everything to $OUT.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
REPS=${REPS:-10}
mkdir -p "$OUT/runs"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/runs/gpu.txt"

for name in ${RECHECK:-}; do
  echo "$ROOT/bundles/examples/$name"
done | xargs -r -P 4 -I{} bash -c \
  'b={}; n=$(basename $b); timeout 300 '"$TFUSE_RUN"' $b --check --json '"$OUT"'/runs/check.$n.json >'"$OUT"'/runs/check.$n.log 2>&1; echo "check $n rc=$?"' |
  sort | tee "$OUT/runs/recheck.txt"

for bundle in "$ROOT"/bundles/cases/*.fused "$ROOT"/bundles/cases/*.unfused \
              "$ROOT"/bundles/examples/*.bf16.fused "$ROOT"/bundles/examples/*.bf16.unfused; do
  name=$(basename "$bundle")
  timeout 120 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" \
    --json "$OUT/runs/bench.$name.json" >"$OUT/runs/bench.$name.log" 2>&1 ||
    echo "bench $name failed: $(tail -2 "$OUT/runs/bench.$name.log")"
done
PYTHONUNBUFFERED=1 timeout 300 python3 "$ROOT/bench/peers.py" "$OUT/runs/peers.json" \
  >"$OUT/runs/peers.log" 2>&1 || { echo "peers failed:"; tail -5 "$OUT/runs/peers.log"; }
python3 "$ROOT/bench/summarize.py" "$OUT/runs" "$OUT/summary.json" | tee "$OUT/table.txt"
tar czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
