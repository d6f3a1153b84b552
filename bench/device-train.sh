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
  # CHECK_GLOB narrows the set (default every small step).
  ls -d "$ROOT"/bundles/train/${CHECK_GLOB:-*.small.*} | xargs -P 4 -I{} bash -c \
    'b={}; n=$(basename $b); timeout 300 $TFUSE_RUN $b --check --json $OUT/train/check.$n.json >$OUT/train/check.$n.log 2>&1; echo "$n rc=$?"' |
    sort | tee "$OUT/check-summary.txt"
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for bundle in "$ROOT"/bundles/train/${MEMCHECK_GLOB:-*.bf16.small.fused}; do
    n=$(basename "$bundle")
    timeout 200 "$sanitizer" --tool memcheck --error-exitcode 9 "$TFUSE_RUN" "$bundle" --check \
      >"$OUT/train/memcheck.$n.log" 2>&1
    echo "$n memcheck rc=$?"
  done | tee "$OUT/memcheck-summary.txt"
  for log in "$OUT"/train/check.*.log; do
    echo "== $(basename "$log"): $(grep -E '^check:|error' "$log" | tail -1)"
  done
else
  # BENCH_GLOB narrows the timed set (default every full-size step).
  for bundle in $(ls -d "$ROOT"/bundles/train/${BENCH_GLOB:-*.bf16.*} | grep -v small); do
    n=$(basename "$bundle")
    timeout 120 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" \
      --json "$OUT/train/bench.$n.json" >"$OUT/train/bench.$n.log" 2>&1 ||
      echo "bench $n failed: $(tail -2 "$OUT/train/bench.$n.log")"
  done
  # The flash steps again with cuBLASLt's first-ranked GEMM algorithms (what
  # autotuning buys), then every GEMM of the flash steps against
  # torch.matmul of the same shape (bench/gemm_peers.py).
  # SKIP_GEMM=1 skips both.
  for bundle in "$ROOT"/bundles/train/*.bf16.flash; do
    [ "${SKIP_GEMM:-0}" = 1 ] && break
    n=$(basename "$bundle")
    timeout 120 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" --gemm-heuristic \
      --json "$OUT/train/bench.$n.heuristic.json" >"$OUT/train/bench.$n.heuristic.log" 2>&1 ||
      echo "bench $n --gemm-heuristic failed: $(tail -2 "$OUT/train/bench.$n.heuristic.log")"
  done
  [ "${SKIP_GEMM:-0}" = 1 ] || timeout 200 python3 "$ROOT/bench/gemm_peers.py" "$OUT/train/gemm-peers.json" \
    "$OUT"/train/bench.*.bf16.flash.json >"$OUT/gemm-peers.txt" 2>&1 ||
    { echo "gemm peers failed:"; tail -5 "$OUT/gemm-peers.txt"; }
  tail -1 "$OUT/gemm-peers.txt"
  # The optimizer steps: the MLP's AdamW and SGD steps checked on steps 1
  # and 3 (inputs as test/gpu/optimizer-step.test gives them), the LLaMA
  # block's f32 step with AdamW timed.
  t=$ROOT/bundles/train
  python3 "$t/optimizer-inputs.py" "$OUT/train"
  for fuse in fused unfused; do
    for s in 1 3; do
      echo "opt.mlp-adamw.$fuse step $s: $("$TFUSE_RUN" "$t/opt.mlp-adamw.$fuse" --check \
        --input 6="$OUT/train/v1.npy" --input 8="$OUT/train/v2.npy" --input 10="$OUT/train/v3.npy" \
        --input 11="$OUT/train/lr.npy" --input 12="$OUT/train/step$s.npy" 2>&1 | grep -E '^check:|rror' | tail -1)"
      echo "opt.mlp-sgd.$fuse step $s: $("$TFUSE_RUN" "$t/opt.mlp-sgd.$fuse" --check \
        --input 8="$OUT/train/lr.npy" --input 9="$OUT/train/step$s.npy" 2>&1 | grep -E '^check:|rror' | tail -1)"
    done
  done | tee "$OUT/optimizer-check.txt"
  timeout 120 "$TFUSE_RUN" "$t/opt.llama-7b.f32.adamw" --bench --reps 5 \
    --json "$OUT/train/bench.opt.llama-7b.f32.adamw.json" >"$OUT/train/bench.opt.llama.log" 2>&1 ||
    echo "bench opt.llama-7b.f32.adamw failed: $(tail -2 "$OUT/train/bench.opt.llama.log")"
  # SKIP_PEERS=1 leaves the PyTorch peers to a separate call.
  [ "${SKIP_PEERS:-0}" = 1 ] || PYTHONUNBUFFERED=1 timeout 360 python3 "$ROOT/bench/train_peers.py" \
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
f = os.path.join(d, "bench.opt.llama-7b.f32.adamw.json")
if os.path.exists(f):
    for st in json.load(open(f))["steps"]:
        if "multi_tensor" in st["name"]:
            print("tfuse %s: predicted %.3f ms, measured %.3f ms, %d bytes" % (
                st["name"], st["predicted_us"] / 1e3, st["measured_us"] / 1e3, st["bytes"]))
p = os.path.join(d, "peers.json")
if os.path.exists(p):
    peers = json.load(open(p))
    print("PyTorch %s (%s), ms / peak GiB" % (peers["torch"], peers["device"]))
    if "adamw" in peers:
        print("torch AdamW over the same weights:", peers["adamw"])
    for name, row in peers["layers"].items():
        print("%-12s " % name + "  ".join(
            "%s %s" % (v, "%.3f / %.2f" % (r["ms"], r["peak_bytes"] / 2**30)
                       if "ms" in r else "error") for v, r in row.items()))
PY
fi
# Few files come back from the GPU machine: one archive.
tar czf "$OUT/train.tgz" -C "$OUT" train && rm -rf "$OUT/train"
