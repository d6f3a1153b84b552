#!/usr/bin/env bash
# On the GPU machine, after bench/compile-train-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run, then
#   PHASE=check: every small training step with --check (each step against
#     the CPU reference), and compute-sanitizer memcheck on the small bf16
#     fused steps;
#   PHASE=bench: the full-size steps with --bench (fused, unfused,
#     recompute=full) and the PyTorch peers of the same steps
#     (bench/train_peers.py: eager / torch.compile, math / SDPA).
# Logs and JSON go to $OUT; a table is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
REPS=${REPS:-10}
mkdir -p "$OUT/train"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
export TFUSE_RUN OUT
if [ "${PHASE:-check}" = check ]; then
  ls -d "$ROOT"/bundles/train/*.small.* | xargs -P 4 -I{} bash -c \
    'b={}; n=$(basename $b); timeout 300 $TFUSE_RUN $b --check --json $OUT/train/check.$n.json >$OUT/train/check.$n.log 2>&1; echo "$n rc=$?"' |
    sort | tee "$OUT/check-summary.txt"
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for bundle in "$ROOT"/bundles/train/*.bf16.small.fused; do
    n=$(basename "$bundle")
    timeout 200 "$sanitizer" --tool memcheck --error-exitcode 9 "$TFUSE_RUN" "$bundle" --check \
      >"$OUT/train/memcheck.$n.log" 2>&1
    echo "$n memcheck rc=$?"
  done | tee "$OUT/memcheck-summary.txt"
  for log in "$OUT"/train/check.*.log; do
    echo "== $(basename "$log"): $(grep -E '^check:|error' "$log" | tail -1)"
  done
else
  for bundle in "$ROOT"/bundles/train/*.bf16.fused "$ROOT"/bundles/train/*.bf16.unfused \
                "$ROOT"/bundles/train/*.bf16.full.fused; do
    n=$(basename "$bundle")
    timeout 120 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" \
      --json "$OUT/train/bench.$n.json" >"$OUT/train/bench.$n.log" 2>&1 ||
      echo "bench $n failed: $(tail -2 "$OUT/train/bench.$n.log")"
  done
  PYTHONUNBUFFERED=1 timeout 360 python3 "$ROOT/bench/train_peers.py" \
    "$OUT/train/peers.json" >"$OUT/train/peers.log" 2>&1 ||
    { echo "peers failed:"; tail -5 "$OUT/train/peers.log"; }
  python3 - "$OUT/train" <<'PY' | tee "$OUT/table.txt"
import glob, json, os, sys
d = sys.argv[1]
print("%-26s %8s %10s %10s %6s" % ("tfuse step", "steps", "pred ms", "meas ms", "m/p"))
for f in sorted(glob.glob(os.path.join(d, "bench.*.json"))):
    t = json.load(open(f))["totals"]
    n = os.path.basename(f)[6:-5]
    print("%-26s %8d %10.3f %10.3f %6.2f" % (n, len(json.load(open(f))["steps"]),
          t["predicted_us"] / 1e3, t["plan_median_us"] / 1e3,
          t["plan_median_us"] / t["predicted_us"]))
p = os.path.join(d, "peers.json")
if os.path.exists(p):
    peers = json.load(open(p))
    print("PyTorch %s (%s), ms / peak GiB" % (peers["torch"], peers["device"]))
    for name, row in peers["layers"].items():
        print("%-12s " % name + "  ".join(
            "%s %s" % (v, "%.3f / %.2f" % (r["ms"], r["peak_bytes"] / 2**30)
                       if "ms" in r else "error") for v, r in row.items()))
PY
fi
# Few files come back from the GPU machine: one archive.
tar czf "$OUT/train.tgz" -C "$OUT" train && rm -rf "$OUT/train"
