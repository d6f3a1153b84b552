#!/usr/bin/env bash
# Compiles, on this machine, the training-step bundles that
# bench/device-train.sh runs on the GPU machine: each example layer's step
# (`tfuse-compile --train --loss=mse`: forward, mean-squared loss, backward
# to every float argument) into bundles/train (carry: ["bundles"]).
#   full size, bf16: fused and unfused, timed against PyTorch
#     (bench/train_peers.py), and fused with recompute=full;
#   small (batch 2, sequence 64), bf16 and f32: fused and unfused, checked
#     step by step against the CPU reference.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compile="$root/build/bin/tfuse-compile"
out="$root/bundles/train"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out"
train() { # source name [flags...]
  local src=$1 name=$2
  shift 2
  "$compile" --quiet --train --loss=mse "$root/examples/$src.mlir" \
    --target="$target" -o "$out/$name" "$@"
}
for model in bert-large gpt2 llama-7b; do
  train "$model.bf16" "$model.bf16.fused"
  train "$model.bf16" "$model.bf16.unfused" --no-fuse
  train "$model.bf16" "$model.bf16.full.fused" --recompute=full
  for dtype in bf16 f32; do
    train "$model.$dtype.small" "$model.$dtype.small.fused"
    train "$model.$dtype.small" "$model.$dtype.small.unfused" --no-fuse
  done
done
# The summaries (predicted phases and memory) for the notes.
for model in bert-large gpt2 llama-7b; do
  "$compile" --train --loss=mse "$root/examples/$model.bf16.mlir" \
    --target="$target" -o "$out/summary.tmp"
done >"$out/summaries.txt"
rm -rf "$out/summary.tmp"
du -sh "$out"
