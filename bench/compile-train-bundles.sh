#!/usr/bin/env bash
# Compiles, on this machine, the training-step bundles that
# bench/device-train.sh runs on the GPU machine: each example layer's step
# (`tfuse-compile --train --loss=mse`: forward, mean-squared loss, backward
# to every float argument) into bundles/train (carry: ["bundles"]).
#   full size, bf16: fused and unfused, timed against PyTorch
#     (bench/train_peers.py), and fused with recompute=full; "flash" ones
#     with --fused-attention (flash forward and backward kernels, what
#     PyTorch's SDPA peer runs), fused, and with recompute=full;
#   small (batch 2, sequence 64), bf16 and f32: fused and unfused, and bf16
#     flash, checked step by step against the CPU reference.
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
# BERT's attention mask (argument 1) is an input, not a parameter: no
# gradient, as in PyTorch.
nograd() { [ "$1" = bert-large ] && echo --no-grad=1; }
for model in bert-large gpt2 llama-7b; do
  train "$model.bf16" "$model.bf16.fused" $(nograd $model)
  train "$model.bf16" "$model.bf16.unfused" --no-fuse $(nograd $model)
  train "$model.bf16" "$model.bf16.full.fused" --recompute=full $(nograd $model)
  train "$model.bf16" "$model.bf16.flash" --fused-attention $(nograd $model)
  train "$model.bf16" "$model.bf16.full.flash" --fused-attention --recompute=full $(nograd $model)
  train "$model.bf16.small" "$model.bf16.small.flash" --fused-attention $(nograd $model)
  for dtype in bf16 f32; do
    train "$model.$dtype.small" "$model.$dtype.small.fused" $(nograd $model)
    train "$model.$dtype.small" "$model.$dtype.small.unfused" --no-fuse $(nograd $model)
  done
done
# The flash steps priced for the H100 SXM as well (h100-*: the same kernels,
# the h100-sxm target's fusion decisions and predictions), so that a run on
# an H100 compares against its own card's prices.
for model in bert-large gpt2 llama-7b; do
  "$compile" --quiet --train --loss=mse "$root/examples/$model.bf16.mlir" \
    --target=h100-sxm --fused-attention $(nograd $model) -o "$out/h100-$model.bf16.flash"
done
# Mid-size steps (batch 2, sequence 512: 1024 rows, enough for the
# two-stage column sums of the bias and norm-weight gradients), checked.
mkdir -p "$out/src"
for model in bert-large gpt2; do
  PYTHONPATH="$root/examples" python3 -c "
import generate, sys
build = {'bert-large': generate.bert_large_layer, 'gpt2': generate.gpt2_block}['$model']
open(sys.argv[1], 'w').write(build('bf16', 2, 512))" "$out/src/$model.bf16.mid.mlir"
  "$compile" --quiet --train --loss=mse "$out/src/$model.bf16.mid.mlir" $(nograd $model) \
    --target="$target" -o "$out/$model.bf16.mid.small.fused"
done
# Optimizer steps: the MLP of test/gpu/optimizer-step.test with AdamW (bf16
# model weight) and SGD (Nesterov), checked; the LLaMA-7B block's f32 step
# with AdamW over its nine weights (202 M parameters), timed (its
# multi_tensor kernel against torch's fused AdamW, bench/train_peers.py).
opt="$root/build/bin/tfuse-opt"
"$opt" "$root/test/gpu/Inputs/mlp.mlir" --tfuse-autodiff=loss=mse \
  --tfuse-apply-optimizer="function=mlp_train params=1,2,3 model-weight=bf16" -o "$out/src/adamw.mlir"
"$opt" "$root/test/gpu/Inputs/mlp.mlir" --tfuse-autodiff=loss=mse \
  --tfuse-apply-optimizer="function=mlp_train params=1,2,3 optimizer=sgd nesterov=true weight-decay=0.01" -o "$out/src/sgd.mlir"
"$opt" "$root/examples/llama-7b.f32.mlir" --tfuse-autodiff=loss=mse \
  --tfuse-apply-optimizer="function=llama_7b_block_train params=1,2,3,4,5,6,7,8,9" -o "$out/src/llama-adamw.mlir"
for name in adamw sgd; do
  for fuse in fused unfused; do
    flag=""; [ $fuse = unfused ] && flag=--no-fuse
    "$compile" --quiet "$out/src/$name.mlir" --function=mlp_train --target="$target" $flag -o "$out/opt.mlp-$name.$fuse"
  done
done
"$compile" --quiet "$out/src/llama-adamw.mlir" --function=llama_7b_block_train --target="$target" -o "$out/opt.llama-7b.f32.adamw"
cp "$root/test/gpu/Inputs/optimizer-inputs.py" "$out/"
rm -rf "$out/src"
# The summaries (predicted phases and memory) for the notes.
for model in bert-large gpt2 llama-7b; do
  for attention in "" --fused-attention; do
    "$compile" --train --loss=mse "$root/examples/$model.bf16.mlir" $(nograd $model) \
      $attention --target="$target" -o "$out/summary.tmp"
  done
done >"$out/summaries.txt"
rm -rf "$out/summary.tmp"
du -sh "$out"
