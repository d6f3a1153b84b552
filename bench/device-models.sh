#!/usr/bin/env bash
# On the GPU machine, after bench/compile-models-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run and runs every bundle of
# bundles/models with --check (every step against the CPU reference: the
# gather, concat, strided-row, rope and window-mask kernels included).
# Logs and JSON go to $OUT/models; a summary is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
mkdir -p "$OUT/models"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/models/gpu.txt"
status=0
for bundle in "$ROOT"/bundles/models/*; do
  name=$(basename "$bundle")
  timeout "${CHECK_TIMEOUT:-300}" "$TFUSE_RUN" "$bundle" --check \
    --json "$OUT/models/$name.json" >"$OUT/models/$name.log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "$name rc=$rc $(grep -m1 -i 'check' "$OUT/models/$name.log" | head -c 200)" \
    | tee -a "$OUT/models/summary.txt"
done
tar czf "$OUT/models-logs.tgz" -C "$OUT" models
exit $status
