#!/usr/bin/env bash
# Compiles, on this machine, the embedding-gradient bundles that
# bench/device-gather-grad.sh runs on the GPU machine, into
# bundles/gather-grad (carry: ["bundles"]): the functions of
# test/gpu/Inputs/gather-grad.mlir (f32, crowded bf16, odd f16 rows, and
# BERT-Large's word table at b32 s512 for timing), the three-table training
# step of test/gpu/Inputs/embedding.mlir and a tiny GPT-2's whole step with
# its LM head tied to the word table (what test/gpu/gather-grad.test runs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/build/bin"
out="$root/bundles/gather-grad"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out"
for fn in f32 crowded odd bert_words; do
  "$bin/tfuse-compile" --quiet "$root/test/gpu/Inputs/gather-grad.mlir" \
    --function=$fn --target="$target" -o "$out/$fn"
done
"$bin/tfuse-opt" "$root/test/gpu/Inputs/embedding.mlir" --tfuse-autodiff \
  -o "$out/embed_train.mlir"
"$bin/tfuse-compile" --quiet "$out/embed_train.mlir" --function=embed_train \
  --target="$target" -o "$out/embed_train"
"$bin/tfuse-import" --hf-config "$root/test/tools/tfuse-predict/Inputs/tiny-gpt2.json" \
  --batch 2 --seq 16 --dtype bf16 --embeddings --lm-head --logits -o "$out/gpt2.mlir"
"$bin/tfuse-compile" --quiet "$out/gpt2.mlir" --train --loss=mse \
  --target="$target" -o "$out/gpt2_tied"
rm -f "$out"/*.mlir "$out"/*/report.json
du -sh "$out"
