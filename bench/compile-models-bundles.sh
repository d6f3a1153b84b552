#!/usr/bin/env bash
# Compiles, here (LLVM/MLIR on this machine only), the whole-model bundles
# bench/device-models.sh checks on the GPU machine: every supported Hugging
# Face family (the configs of test/tools/tfuse-import/Inputs) imported with
# --embeddings --lm-head, two layers, small batch and sequence, for the
# target (h200 unless TFUSE_BENCH_TARGET says otherwise), into bundles/models
# (ignored by git; carried with `carry: ["bundles"]`). Mistral also at a
# sequence longer than a (shrunk) sliding window, so the window mask runs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
import="$root/build/bin/tfuse-import"
compile="$root/build/bin/tfuse-compile"
inputs="$root/test/tools/tfuse-import/Inputs"
out="$root/bundles/models"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out/src"
for config in bert-large-uncased roberta-base gpt2 Llama-2-7b-hf \
    Mistral-7B-v0.1 Qwen2-0.5B gemma-2b Phi-3-mini-4k-instruct; do
  "$import" --hf-config "$inputs/$config.json" --batch 2 --seq 64 --layers 2 \
    --dtype bf16 --no-dropout --embeddings --lm-head -o "$out/src/$config.mlir"
done
sed 's/"sliding_window": 4096/"sliding_window": 32/' \
  "$inputs/Mistral-7B-v0.1.json" >"$out/src/mistral-window32.json"
"$import" --hf-config "$out/src/mistral-window32.json" --batch 2 --seq 64 \
  --layers 2 --dtype bf16 --embeddings --lm-head \
  -o "$out/src/Mistral-window32.mlir"
for src in "$out"/src/*.mlir; do
  "$compile" "$src" --target="$target" -o "$out/$(basename "$src" .mlir)"
done
rm -rf "$out/src"
du -sh "$out"
