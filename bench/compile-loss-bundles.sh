#!/usr/bin/env bash
# Compiles, on this machine, the bundles of the cross-entropy loss that
# bench/device-loss.sh checks and times on the GPU machine (carry:
# ["bundles/loss"]): an LM head's training step (`tfuse-compile --train
# --loss=cross-entropy`: logits = h x W, the mean cross-entropy against i32
# labels, the gradients of h and W) for vocabularies that take the
# register-resident row kernel (BERT's 30522) and the looping one (GPT-2's
# 50257, LLaMA-3's 128256), bf16 and f32, ragged row counts.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compile="$root/build/bin/tfuse-compile"
out="$root/bundles/loss"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out/src"
# name batch seq hidden vocab dtype
head() {
  local name=$1 b=$2 s=$3 d=$4 v=$5 dt=$6
  local h="tensor<${b}x${s}x${d}x${dt}>" w="tensor<${d}x${v}x${dt}>"
  local y="tensor<${b}x${s}x${v}x${dt}>"
  cat >"$out/src/$name.mlir" <<MLIR
func.func @head(%h: $h, %w: $w) -> $y {
  %y = tfuse.matmul %h, %w : ($h, $w) -> $y
  return %y : $y
}
MLIR
  "$compile" --train --loss=cross-entropy "$out/src/$name.mlir" \
    --target="$target" -o "$out/$name" >"$out/src/$name.log"
}
head check.bert.bf16 4 128 64 30522 bf16
head check.gpt2.f32 2 33 128 50257 f32
head check.llama3.bf16 1 17 64 128256 bf16
# test/gpu/cross-entropy-step.test's bundles: the MLP's step (256 classes,
# f32) and the loss fused with a residual gradient.
"$compile" --train --loss=cross-entropy \
  "$root/test/tools/tfuse-compile/Inputs/train-mlp.mlir" --target="$target" \
  -o "$out/check.mlp.f32" >"$out/src/check.mlp.f32.log"
"$compile" "$root/test/Transforms/fuse-cross-entropy.mlir" --target="$target" \
  -o "$out/check.fused" >"$out/src/check.fused.log"
# Timed: BERT-Large's MLM head at b32 s512 (16384 rows of 30522 bf16 logits).
head bench.bert-large.b32s512 32 512 1024 30522 bf16
echo "bundles in $out: $(ls -d "$out"/check.* "$out"/bench.* | wc -l)"
