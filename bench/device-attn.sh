#!/usr/bin/env bash
# On the GPU machine, after bench/compile-attn-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run, runs every bundle of bundles/attn
# with --check (the fused attention kernel against the exact CPU reference),
# benches the large cases (name ending in a size of 2048) and times PyTorch
# SDPA's flash backend on the same shapes (LARGE_CHECK=0: no --check of those). Logs and JSON go to $OUT; a table
# is printed last.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
mkdir -p "$OUT/attn"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/attn/gpu.txt"
for bundle in "$ROOT"/bundles/attn/*; do
  name=$(basename "$bundle")
  flags=(--check)
  # LARGE_CHECK=0: time the large cases without the (slow) CPU reference.
  case $name in *q2048k2048*)
    flags=(--bench --reps 20)
    [ "${LARGE_CHECK:-1}" = 1 ] && flags+=(--check) ;;
  # Full-size layers: timed, and checked unless FULL_CHECK=0.
  *.bf16.fused-attention | *.bf16.decomposed-attention)
    flags=(--bench --reps 10)
    [ "${FULL_CHECK:-1}" = 1 ] && flags+=(--check) ;;
  esac
  timeout "${CHECK_TIMEOUT:-150}" "$TFUSE_RUN" "$bundle" "${flags[@]}" \
    --json "$OUT/attn/$name.json" >"$OUT/attn/$name.log" 2>&1
  echo "$name rc=$?" | tee -a "$OUT/attn/summary.txt"
done
python3 - "$ROOT" "$OUT/attn" <<'PY' 2>&1 | tee "$OUT/attn-table.txt"
import glob, json, os, re, sys
root, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "bench"))
import attn_cases
sdpa = {}
try:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    for c in attn_cases.CASES:
        dtype, b, h, kv, sq, sk, d, dv, causal = c[:9]
        if sq != 2048:
            continue
        t = torch.bfloat16 if dtype == "bf16" else torch.float16
        q = torch.randn(b, h, sq, d, device="cuda", dtype=t)
        k = torch.randn(b, h, sk, d, device="cuda", dtype=t)
        v = torch.randn(b, h, sk, dv, device="cuda", dtype=t)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            for _ in range(3):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            times = []
            for _ in range(20):
                s, e = torch.cuda.Event(True), torch.cuda.Event(True)
                s.record(); F.scaled_dot_product_attention(q, k, v, is_causal=causal); e.record()
                torch.cuda.synchronize(); times.append(s.elapsed_time(e) * 1e3)
        sdpa[attn_cases.name(c)] = sorted(times)[len(times) // 2]
except Exception as exc:  # no torch: the table without SDPA
    print("SDPA not timed:", exc)
print(f"{'bundle':50} {'check':>6} {'max abs err':>11} {'pred us':>8} {'meas us':>8} {'TFLOP/s':>7} {'SDPA us':>8} {'SDPA TF/s':>9} {'all steps us':>12}")
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    r = json.load(open(path))
    name = os.path.basename(path)[:-5]
    ok = (r.get("check") or {}).get("passed")
    steps = r.get("steps", [])
    att = [s for s in steps if s.get("name", "").startswith("attention")]
    err = max([((s.get("check") or {}).get("max_abs_error") or 0) for s in att] or [0])
    # A variant of a case is named <case>.<variant>.
    m = re.match(r"attn-\w+-b(\d+)h(\d+)kv\d+-q(\d+)k(\d+)-d(\d+)v(\d+)(-causal)?", name)
    case = name.split(".")[0]
    pred = sum(s.get("predicted_us", 0) for s in att)
    meas = sum((s.get("measured_us") or 0) for s in att)
    tf = stf = ""
    if m and meas:
        b, h, sq, sk, d, dv = map(int, m.groups()[:6])
        flops = 2 * b * h * sq * sk * (d + dv) * (0.5 if m.group(7) else 1)
        tf = f"{flops / meas / 1e6:7.0f}"
        if case in sdpa:
            stf = f"{flops / sdpa[case] / 1e6:9.0f}"
    print(f"{name:50} {str(ok):>6} {err:11.3g} {pred:8.1f} {meas:8.1f} {tf:>7} "
          f"{sdpa.get(case, 0):8.1f} {stf:>9} "
          f"{sum((s.get('measured_us') or 0) for s in steps):12.1f}")
PY
tar czf "$OUT/attn-logs.tgz" -C "$OUT" attn
