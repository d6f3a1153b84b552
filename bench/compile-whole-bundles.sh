#!/usr/bin/env bash
# Compiles, on this machine, whole-model training steps for
# bench/device-whole.sh (carry: ["bundles"]): BERT-Large b32 s512 (fused and
# unfused) and GPT-3 1.3B b8 s2048 (fused), bf16, from token ids to the
# logits with a mean-squared loss over them (tfuse-compile --train
# --loss=mse), the LM head untied (a gather's table gradient is not built;
# tfuse-predict prices the same graph) and the mask and gathered tables
# without gradients. No optimizer: tfuse-predict adds the AdamW kernel,
# measured on its own in session 8.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/build/bin"
out="$root/bundles/whole"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out/src"
python3 - "$root" "$out/src" <<'PY'
import json, sys
root, src = sys.argv[1], sys.argv[2]
bert = json.load(open(root + "/test/tools/tfuse-import/Inputs/bert-large-uncased.json"))
bert["tie_word_embeddings"] = False
json.dump(bert, open(src + "/bert.json", "w"))
gpt = {"model_type": "gpt2", "n_layer": 24, "n_embd": 2048, "n_head": 16,
       "n_positions": 2048, "vocab_size": 50257, "activation_function": "gelu_new",
       "layer_norm_epsilon": 1e-5, "attn_pdrop": 0.1, "resid_pdrop": 0.1,
       "embd_pdrop": 0.1, "tie_word_embeddings": False}
json.dump(gpt, open(src + "/gpt3-1.3b.json", "w"))
PY
"$bin/tfuse-import" --hf-config "$out/src/bert.json" --batch 32 --seq 512 --dtype bf16 \
  --embeddings --lm-head --logits -o "$out/src/bert.mlir"
"$bin/tfuse-import" --hf-config "$out/src/gpt3-1.3b.json" --batch 8 --seq 2048 --dtype bf16 \
  --embeddings --lm-head --logits -o "$out/src/gpt.mlir"
# BERT: 2 attention_mask, 3 word and 4 token-type tables; GPT: 1 wte.
"$bin/tfuse-compile" --quiet --train --loss=mse --no-grad=2,3,4 "$out/src/bert.mlir" \
  --target="$target" -o "$out/bert-large.b32s512.bf16.fused"
"$bin/tfuse-compile" --quiet --train --loss=mse --no-grad=2,3,4 "$out/src/bert.mlir" \
  --target="$target" --no-fuse -o "$out/bert-large.b32s512.bf16.unfused"
"$bin/tfuse-compile" --quiet --train --loss=mse --no-grad=1 "$out/src/gpt.mlir" \
  --target="$target" -o "$out/gpt3-1.3b.b8s2048.bf16.fused"
rm -rf "$out/src" "$out"/*/report.json
du -sh "$out"
