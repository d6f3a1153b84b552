#!/usr/bin/env bash
# Compiles, here (LLVM/MLIR on this machine only), the fused-attention
# bundles bench/device-attn.sh runs on the GPU machine: the cases of
# bench/attn_cases.py and the small LLaMA-7B example, with --fused-attention,
# into bundles/attn (ignored by git; carried with `carry: ["bundles"]`).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compile="$root/build/bin/tfuse-compile"
out="$root/bundles/attn"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out"
python3 "$root/bench/attn_cases.py" "$out/src"
for src in "$out"/src/*.mlir; do
  "$compile" "$src" --target="$target" --fused-attention -o "$out/$(basename "$src" .mlir)"
done
rm -rf "$out/src"
# The bf16 examples with the fused kernel: the small ones are --check'ed,
# the full-size ones (ALL_EXAMPLES=1) too, with a longer timeout.
sizes=(".small")
[ "${ALL_EXAMPLES:-0}" = 1 ] && sizes+=("")
for model in bert-large gpt2 llama-7b; do
  for size in "${sizes[@]}"; do
    "$compile" --quiet "$root/examples/$model.bf16$size.mlir" --target="$target" \
      --fused-attention -o "$out/$model.bf16$size.fused-attention"
  done
done
du -sh "$out"
