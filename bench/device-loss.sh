#!/usr/bin/env bash
# On the GPU machine, after bench/compile-loss-bundles.sh ran here and
# bundles/loss was carried: builds tfuse-run, checks every check.* bundle
# (the LM head's training step with the cross-entropy loss, step by step
# against the CPU reference), times the bench.* bundle, and times PyTorch's
# cross-entropy (bf16 logits under autocast, and torch.compile of it),
# forward + backward of the loss alone, on the same logits in the same run.
# Logs and JSON go to $OUT/loss; a table is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
REPS=${REPS:-20}
res="$OUT/loss"
mkdir -p "$res"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$res/gpu.txt"
for bundle in "$ROOT"/bundles/loss/check.*; do
  n=$(basename "$bundle")
  timeout 300 "$TFUSE_RUN" "$bundle" --check --json "$res/$n.json" >"$res/$n.log" 2>&1
  echo "$n rc=$? $(grep -E "^check:" "$res/$n.log" | tail -1)"
done | tee "$res/check-summary.txt"
for bundle in "$ROOT"/bundles/loss/bench.*; do
  n=$(basename "$bundle")
  timeout 300 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" --json "$res/$n.json" \
    >"$res/$n.log" 2>&1 || echo "bench $n failed: $(tail -2 "$res/$n.log")"
done
python3 - "$res" <<'PY' 2>&1 | tee "$res/table.txt"
import glob, json, os, sys
res = sys.argv[1]
peer = {}
try:
    import torch
    import torch.nn.functional as F
    def timed(fn, reps=20):
        for _ in range(3):
            fn()
        times = []
        for _ in range(reps):
            s, e = torch.cuda.Event(True), torch.cuda.Event(True)
            s.record(); fn(); e.record(); torch.cuda.synchronize()
            times.append(s.elapsed_time(e) * 1e3)
        return sorted(times)[len(times) // 2]
    rows, vocab = 32 * 512, 30522
    x = torch.randn(rows, vocab, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, vocab, (rows,), device="cuda")
    def step(loss_fn):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(x, labels)
        loss.backward()
        x.grad = None
    peer["eager"] = timed(lambda: step(F.cross_entropy))
    compiled = torch.compile(F.cross_entropy)
    peer["torch.compile"] = timed(lambda: step(compiled))
except Exception as exc:
    print("PyTorch not timed:", exc)
for path in sorted(glob.glob(os.path.join(res, "*.json"))):
    r = json.load(open(path))
    name = os.path.basename(path)[:-5]
    steps = r.get("steps", [])
    ok = (r.get("check") or {}).get("passed")
    loss = [st for st in steps if st.get("name", "").startswith("row_reduction")]
    pred = sum(st.get("predicted_us", 0) for st in loss)
    meas = sum((st.get("measured_us") or 0) for st in loss)
    total = sum((st.get("measured_us") or 0) for st in steps)
    print(f"{name:28} check={ok} row kernels: predicted {pred:8.1f} us measured {meas:8.1f} us; step {total:8.1f} us")
    for st in loss:
        print(f"  {st.get('name'):24} {st.get('predicted_us', 0):8.1f} {st.get('measured_us') or 0:8.1f}")
for k, v in peer.items():
    print(f"PyTorch cross_entropy fwd+bwd, 16384 x 30522 bf16, {k}: {v:8.1f} us")
PY
tar czf "$OUT/loss.tgz" -C "$OUT" loss
