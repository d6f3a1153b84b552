#!/usr/bin/env bash
# On the GPU machine, after bench/compile-gather-grad-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run, then checks every bundle of
# bundles/gather-grad step by step against the CPU reference (the
# scatter-add with its atomic-order allowance, docs/bundle.md "Checking"),
# runs compute-sanitizer memcheck on the small ones, and times each bundle
# (--bench; bert_words is BERT-Large's word-table gradient at b32 s512,
# whose predicted time is in its plan.json; tfuse-run's random ids fall in
# [0, 1024), so its 16384 positions hit 1024 rows, 16 each: more atomic
# contention than real text spread over the vocabulary). Logs and JSON go to
# $OUT/gather-grad; a summary is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
REPS=${REPS:-20}
mkdir -p "$OUT/gather-grad"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for bundle in "$ROOT"/bundles/gather-grad/*/; do
  n=$(basename "$bundle")
  log=$OUT/gather-grad/$n
  timeout 300 "$TFUSE_RUN" "$bundle" --check --json "$log.check.json" >"$log.check.log" 2>&1
  echo "$n check rc=$? $(grep -E '^check:' "$log.check.log" | tail -1)"
  if [ "$n" != bert_words ]; then
    timeout 200 "$sanitizer" --tool memcheck --error-exitcode 9 "$TFUSE_RUN" "$bundle" \
      >"$log.memcheck.log" 2>&1
    echo "$n memcheck rc=$?"
  fi
  timeout 120 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" --json "$log.bench.json" \
    >"$log.bench.log" 2>&1
  echo "$n bench rc=$? $(grep '^whole plan' "$log.bench.log" | head -1)"
done | tee "$OUT/gather-grad-summary.txt"
