#!/usr/bin/env bash
# On the GPU machine, after bench/compile-attn-grad-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run, then
#   every check.* bundle with --check (the flash-attention forward with its
#     log-sum-exp, delta, and both backward kernels against the CPU
#     reference), compute-sanitizer memcheck on two of them;
#   every bench.* bundle (attention alone, forward + backward, REFERENCE.md
#     §3b's points) and layer.* bundle (the example layers' training steps)
#     with --bench, and PyTorch SDPA's flash backend, forward + backward, on
#     the same attention shapes in the same run.
# Logs and JSON go to $OUT (attn-grad.tgz); a table is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
REPS=${REPS:-20}
res="$OUT/attn-grad"
mkdir -p "$res"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$res/gpu.txt"
export TFUSE_RUN res
ls -d "$ROOT"/bundles/attn-grad/check.* | xargs -P 4 -I{} bash -c \
  'b={}; n=$(basename $b); timeout 300 $TFUSE_RUN $b --check --json $res/$n.json >$res/$n.log 2>&1; echo "$n rc=$? $(grep -E "^check:" $res/$n.log | tail -1)"' |
  sort | tee "$res/check-summary.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for n in check.d64.causal.gqa check.d128.causal.97 check.sq33.sk130; do
  timeout 200 "$sanitizer" --tool memcheck --error-exitcode 9 "$TFUSE_RUN" \
    "$ROOT/bundles/attn-grad/$n" --check >"$res/memcheck.$n.log" 2>&1
  echo "$n memcheck rc=$?"
done | tee "$res/memcheck-summary.txt"
for bundle in "$ROOT"/bundles/attn-grad/bench.* "$ROOT"/bundles/attn-grad/layer.*; do
  n=$(basename "$bundle")
  timeout 120 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" --json "$res/$n.json" \
    >"$res/$n.log" 2>&1 || echo "bench $n failed: $(tail -2 "$res/$n.log")"
done
python3 - "$res" <<'PY' 2>&1 | tee "$res/table.txt"
import glob, json, os, re, sys
res = sys.argv[1]
sdpa = {}
try:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    def timed(fn, reps=20):
        for _ in range(3):
            fn()
        times = []
        for _ in range(reps):
            s, e = torch.cuda.Event(True), torch.cuda.Event(True)
            s.record(); fn(); e.record(); torch.cuda.synchronize()
            times.append(s.elapsed_time(e) * 1e3)
        return sorted(times)[len(times) // 2]
    for path in glob.glob(os.path.join(res, "bench.*.json")):
        name = os.path.basename(path)[:-5]
        d, s, c = map(int, re.match(r"bench\.d(\d+)\.s(\d+)\.c(\d)", name).groups())
        dropped = re.search(r"\.p(\d+)$", name)
        p = int(dropped.group(1)) / 100 if dropped else 0.0
        b, h = 16384 // s, 2048 // d
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16,
                               requires_grad=True) for _ in range(3))
        g = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(c), dropout_p=p))
            both = timed(lambda: torch.autograd.backward(
                F.scaled_dot_product_attention(q, k, v, is_causal=bool(c), dropout_p=p), g))
        sdpa[name] = (fwd, both)
except Exception as exc:
    print("SDPA not timed:", exc)
print(f"{'bundle':34} {'check':>6} {'max err/allow':>13} {'pred us':>8} {'fwd us':>8} {'bwd us':>8} {'fwd+bwd':>8} {'TFLOP/s':>7} {'SDPA fwd':>8} {'SDPA f+b':>8} {'SDPA TF/s':>9}")
for path in sorted(glob.glob(os.path.join(res, "*.json"))):
    r = json.load(open(path))
    name = os.path.basename(path)[:-5]
    steps = r.get("steps", [])
    ok = (r.get("check") or {}).get("passed")
    worst = max([((st.get("check") or {}).get("error_over_allowance") or 0) for st in steps] or [0])
    pred = sum(st.get("predicted_us", 0) for st in steps)
    fwd = sum((st.get("measured_us") or 0) for st in steps if st.get("name", "").startswith("attention_") and not st["name"].startswith("attention_grad"))
    bwd = sum((st.get("measured_us") or 0) for st in steps if st.get("name", "").startswith("attention_grad"))
    total = sum((st.get("measured_us") or 0) for st in steps)
    tf = sf = ""
    m = re.match(r"bench\.d(\d+)\.s(\d+)\.c(\d)", name)
    if m and total:
        d, s, c = map(int, m.groups())
        # 2 products forward, 5 backward (one recomputes S), halved causal.
        flops = 16384 * s * (2048 // d) * d * 2 * 7 * (0.5 if c else 1)
        tf = f"{flops / total / 1e6:7.0f}"
        if name in sdpa:
            sf = f"{flops / sdpa[name][1] / 1e6:9.0f}"
    sp = sdpa.get(name, (0, 0))
    print(f"{name:34} {str(ok):>6} {worst:13.3g} {pred:8.1f} {fwd:8.1f} {bwd:8.1f} {total:8.1f} {tf:>7} {sp[0]:8.1f} {sp[1]:8.1f} {sf:>9}")
PY
tar czf "$OUT/attn-grad.tgz" -C "$OUT" attn-grad
cat "$res/check-summary.txt" "$res/memcheck-summary.txt"
