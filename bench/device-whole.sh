#!/usr/bin/env bash
# On the GPU machine, after bench/compile-whole-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run and times each whole-model training
# step (--bench: the plan as a CUDA graph, and each step alone). Logs and
# JSON go to $OUT.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
REPS=${REPS:-10}
mkdir -p "$OUT/whole"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
for bundle in "$ROOT"/bundles/whole/*; do
  n=$(basename "$bundle")
  timeout 240 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" \
    --json "$OUT/whole/bench.$n.json" >"$OUT/whole/bench.$n.log" 2>&1 ||
    echo "bench $n failed: $(tail -3 "$OUT/whole/bench.$n.log")"
  echo "== $n"; grep -iE "plan|graph|median|peak" "$OUT/whole/bench.$n.log" | head -8
done
