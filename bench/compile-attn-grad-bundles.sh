#!/usr/bin/env bash
# Compiles, on this machine, the bundles bench/device-attn-grad.sh runs on
# the GPU machine (carry: ["bundles"]): the training step of attention alone
# (`tfuse-compile --train --fused-attention`, loss seed: the output's
# gradient is an argument) for shapes covering what tfuse.attention_grad's
# kernels take (ragged lengths, causal, grouped-query, masks, Sq != Sk,
# head dims 16..128, f16), checked step by step against the CPU reference;
# the REFERENCE.md §3b attention points (forward + backward, no dropout)
# timed; and the example layers' training steps with the fused backward.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compile="$root/build/bin/tfuse-compile"
out="$root/bundles/attn-grad"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out/src"
# name batch heads kv_heads sq sk d dv dtype causal mask(none|row|head)
# [dropout p]
gen() {
  python3 - "$@" <<'PY'
import sys
name, b, h, hk, sq, sk, d, dv, dt, causal, mask = sys.argv[1:12]
dropout = float(sys.argv[12]) if len(sys.argv) > 12 else 0.0
b, h, hk, sq, sk, d, dv = map(int, (b, h, hk, sq, sk, d, dv))
t = lambda *s: "tensor<" + "x".join(map(str, s)) + "x" + dt + ">"
args = [f"%q: {t(b, h, sq, d)}", f"%k: {t(b, hk, sk, d)}", f"%v: {t(b, hk, sk, dv)}"]
types = [t(b, h, sq, d), t(b, hk, sk, d), t(b, hk, sk, dv)]
operands = "%q, %k, %v"
if mask != "none":
    shape = (b, 1, 1, sk) if mask == "row" else (1, h, sq, sk)
    args.append(f"%m: {t(*shape)}")
    types.append(t(*shape))
    operands += " mask %m"
scale = 1.0 / d ** 0.5
c = " causal" if causal == "1" else ""
if dropout > 0:
    c += f" dropout_p = {dropout:e} seed = 11"
out = t(b, h, sq, dv)
print(f"""func.func @attn({", ".join(args)}) -> {out} {{
  %o = tfuse.attention {operands} scale = {scale:.9e}{c} : ({", ".join(types)}) -> {out}
  return %o : {out}
}}""")
PY
}
case_() { # name, then gen's arguments
  local name=$1
  gen "$@" >"$out/src/$name.mlir"
  # The mask is an input: no gradient (as PyTorch's attn_mask).
  local nograd=()
  [ "${11}" != none ] && nograd=(--no-grad=3)
  "$compile" --quiet --train --fused-attention "$out/src/$name.mlir" \
    --target="$target" -o "$out/$name" "${nograd[@]}"
}
# Checked (small): name b h hkv sq sk d dv dtype causal mask
case_ check.d64.ragged      2 4 4 80 80 64 64 bf16 0 none
case_ check.d64.causal.gqa  2 4 2 80 80 64 64 bf16 1 none
case_ check.d128.causal.97  1 2 2 97 97 128 128 bf16 1 none
case_ check.d64.rowmask     2 2 2 128 128 64 64 bf16 0 row
case_ check.d64.headbias    1 4 4 64 64 64 64 bf16 1 head
case_ check.sq33.sk130      2 2 1 33 130 64 64 bf16 0 none
case_ check.d80.dv48        1 2 2 70 70 80 48 bf16 0 none
case_ check.d16.f16         1 2 2 40 40 16 16 f16 1 none
case_ check.d96.gqa4        1 8 2 64 64 96 96 bf16 0 none
case_ check.decode          2 4 4 1 300 128 128 bf16 0 none
case_ check.d128.long       1 1 1 1024 1024 128 128 bf16 1 none
# Dropout regenerated from the reference's Philox stream in all three
# kernels: Sk a multiple of 4 (calls shared between lanes), 2 mod 4 (one
# call per key pair), odd (one per key), GQA, masks.
case_ check.d64.dropout          2 4 4 80 80 64 64 bf16 0 none 0.1
case_ check.sk70.drop            1 2 2 70 70 64 64 bf16 0 none 0.1
case_ check.d64.causal.gqa.drop  2 4 2 96 96 64 64 bf16 1 none 0.1
case_ check.d128.causal.gqa.drop 1 4 2 97 97 128 128 bf16 1 none 0.2
case_ check.sk71.rowmask.drop    2 2 2 33 71 64 64 bf16 0 row 0.1
case_ check.d64.headbias.f16.drop 1 4 4 64 64 64 64 f16 1 head 0.5
# Timed (REFERENCE.md §3b: 16k tokens per call), forward + backward.
for d in 64 128; do
  for s in 512 2048 8192; do
    bsz=$((16384 / s)) heads=$((2048 / d))
    for c in 0 1; do
      case_ "bench.d$d.s$s.c$c" "$bsz" "$heads" "$heads" "$s" "$s" "$d" "$d" bf16 "$c" none
    done
  done
done
# Dropout 0.1 (as BERT and GPT-2 train): what the Philox draws cost.
for point in "64 512 0" "64 2048 0" "128 2048 1"; do
  set -- $point
  bsz=$((16384 / $2)) heads=$((2048 / $1))
  case_ "bench.d$1.s$2.c$3.p10" "$bsz" "$heads" "$heads" "$2" "$2" "$1" "$1" bf16 "$3" none 0.1
done
# The example layers' training steps with the fused backward.
nograd() { [ "$1" = bert-large ] && echo --no-grad=1; }
for model in bert-large gpt2 llama-7b; do
  "$compile" --quiet --train --loss=mse --fused-attention "$root/examples/$model.bf16.mlir" \
    --target="$target" -o "$out/layer.$model.bf16.fused" $(nograd $model)
  "$compile" --quiet --train --loss=mse --fused-attention "$root/examples/$model.bf16.small.mlir" \
    --target="$target" -o "$out/check.layer.$model.bf16.small" $(nograd $model)
done
ls "$out" | grep -v src | wc -l
