#!/usr/bin/env bash
# On the GPU machine, after bench/compile-bundles.sh ran here and bundles/ was
# carried: builds tfuse-run, runs every example bundle (BERT-Large, GPT-2,
# LLaMA-7B; bf16 and f32; fused and unfused; full size and small) and every
# benchmark case with --check, then compute-sanitizer memcheck on the small
# examples. Logs and JSON go to $OUT; a table is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
mkdir -p "$OUT/check"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

run_check() { # bundle -> one summary line
  local bundle=$1 name
  name=$(basename "$bundle")
  timeout ${CHECK_TIMEOUT:-420} "$TFUSE_RUN" "$bundle" --check --json "$OUT/check/$name.json" \
    >"$OUT/check/$name.log" 2>&1
  echo "$name rc=$?"
}
export -f run_check
export TFUSE_RUN OUT
# The CPU reference is the slow part: several bundles at once.
# BUNDLES (names under bundles/, e.g. "examples/gpt2.bf16.fused") narrows
# the set; MEMCHECK=0 skips compute-sanitizer.
if [ -n "${BUNDLES:-}" ]; then
  for b in $BUNDLES; do echo "$ROOT/bundles/$b"; done
else
  ls -d "$ROOT"/bundles/examples/* "$ROOT"/bundles/cases/*.fused
fi | xargs -P "${JOBS:-4}" -I{} bash -c 'run_check {}' | sort >"$OUT/check-summary.txt"

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
touch "$OUT/memcheck-summary.txt"
[ "${MEMCHECK:-1}" = 1 ] && for bundle in "$ROOT"/bundles/examples/*.small.*; do
  name=$(basename "$bundle")
  "$sanitizer" --tool memcheck --error-exitcode 9 "$TFUSE_RUN" "$bundle" --check \
    >"$OUT/check/$name.memcheck.log" 2>&1
  echo "$name memcheck rc=$?" >>"$OUT/memcheck-summary.txt"
done
for log in "$OUT"/check/*.log; do
  grep -q "rc=0" <(grep "^$(basename "$log" .log) rc=" "$OUT/check-summary.txt") ||
    { echo "== $(basename "$log")"; tail -8 "$log"; }
done >"$OUT/failures.txt" 2>/dev/null
tar czf "$OUT/check-logs.tgz" -C "$OUT" check && rm -rf "$OUT/check"
echo "== failures (last lines of each failing log)"; head -c 6000 "$OUT/failures.txt"
echo "== memcheck (small shapes)"; cat "$OUT/memcheck-summary.txt"
echo "== --check at full size (rc=0: every step within tolerance)"
cat "$OUT/check-summary.txt"
