#!/usr/bin/env bash
# On the GPU machine, after `MEASURE_ONLY=1 bench/compile-bundles.sh` ran here
# and bundles/ was carried: times every bundle of bundles/measure with
# `tfuse-run --bench --json` (the results the traffic report's measured=
# option reads) and checks it. Results go to $OUT/measure; a line per bundle
# is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
mkdir -p "$OUT/measure"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/measure/gpu.txt"
for bundle in "$ROOT"/bundles/measure/*; do
  name=$(basename "$bundle")
  timeout "${MEASURE_TIMEOUT:-240}" "$TFUSE_RUN" "$bundle" --bench --reps 20 \
    --json "$OUT/measure/$name.json" >"$OUT/measure/$name.log" 2>&1
  echo "$name rc=$? $(grep -m1 -i 'plan' "$OUT/measure/$name.log" | head -c 160)"
done
