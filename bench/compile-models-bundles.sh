#!/usr/bin/env bash
# Compiles, here (LLVM/MLIR on this machine only), the whole-model bundles
# bench/device-models.sh checks on the GPU machine: every supported Hugging
# Face family (the configs of test/tools/tfuse-import/Inputs) imported with
# --embeddings --lm-head --no-dropout, two layers, batch 2, sequence 64, in
# f32 and bf16 (each ending with the head's softmax, and again at the logits:
# <config>-logits-<dtype>; ViT from its pixel patches, sequence 197, to
# last_hidden_state and again to the pooler: <config>-pooler-<dtype>), for
# the target (h200 unless TFUSE_BENCH_TARGET says
# otherwise), into bundles/models/<config>-<dtype> (ignored by git; carried
# with `carry: ["bundles"]`). Variants made from those configs: Mistral with
# a sliding window of 32 (< seq, so the window mask runs), LLaMA-2 with
# llama3 rope scaling and Qwen2 with yarn rope scaling.
#
# Each bundle also holds what bench/hf_compare.py needs to rebuild the same
# model with transformers: hf-config.json (the config imported), tfuse-args.txt
# (the argument list of the imported file's header: index, shape, tfuse.name)
# and hf-compare.json (dtype, batch, seq, layers, import flags).
#
# With ONNX_SRC=DIR (the .onnx files bench/onnx_compare.py export wrote on the
# GPU machine) it compiles those instead, into bundles/onnx/<name>, each with
# its model.onnx copied in (see docs/import.md, "Checked against
# transformers").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
import="$root/build/bin/tfuse-import"
compile="$root/build/bin/tfuse-compile"
inputs="$root/test/tools/tfuse-import/Inputs"
target=${TFUSE_BENCH_TARGET:-h200}
batch=2 seq=64 layers=2

# write_sidecars MLIR BUNDLE: the argument list of the imported file.
args_of() {
  sed -n 's|^//   %arg\([0-9]*\) *\(\[[^]]*\]\) *\(.*\)$|\1\t\2\t\3|p' "$1"
}

if [ -n "${ONNX_SRC:-}" ]; then
  out="$root/bundles/onnx"
  rm -rf "$out" && mkdir -p "$out"
  status=0
  for model in "$ONNX_SRC"/*.onnx; do
    name=$(basename "$model" .onnx)
    mkdir -p "$out/src"
    if "$import" --onnx "$model" -o "$out/src/$name.mlir" \
        2>"$out/src/$name.err" &&
      "$compile" "$out/src/$name.mlir" --target="$target" -o "$out/$name"; then
      cp "$model" "$out/$name/model.onnx"
      args_of "$out/src/$name.mlir" >"$out/$name/tfuse-args.txt"
      echo "$name: compiled"
    else
      status=1
      echo "$name: FAILED: $(head -c 600 "$out/src/$name.err")"
    fi
  done
  rm -rf "$out/src"
  du -sh "$out"
  exit $status
fi

out="$root/bundles/models"
rm -rf "$out" && mkdir -p "$out/src"
src="$out/src"
cp "$inputs"/{bert-large-uncased,roberta-base,gpt2,Llama-2-7b-hf}.json "$src/"
cp "$inputs"/{Mistral-7B-v0.1,Qwen2-0.5B,gemma-2b}.json "$src/"
cp "$inputs"/{Phi-3-mini-4k-instruct,phi-2,vit-base-patch16-224}.json "$src/"
sed 's/"sliding_window": 4096/"sliding_window": 32/' \
  "$inputs/Mistral-7B-v0.1.json" >"$src/Mistral-window32.json"
sed 's/"rope_scaling": null/"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 1024}/' \
  "$inputs/Llama-2-7b-hf.json" >"$src/Llama-rope-llama3.json"
sed 's/"rope_theta": 1000000.0,/"rope_theta": 1000000.0, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},/' \
  "$inputs/Qwen2-0.5B.json" >"$src/Qwen2-rope-yarn.json"
grep -q '"sliding_window": 32' "$src/Mistral-window32.json"
grep -q llama3 "$src/Llama-rope-llama3.json"
grep -q yarn "$src/Qwen2-rope-yarn.json"

# compile_config CONFIG HEAD: the f32 and bf16 bundles of one config, ending
# with the head's softmax (HEAD=softmax) or at the logits (HEAD=logits); a
# ViT config (no LM head, its sequence implied: no --seq) from the pixel
# patches to last_hidden_state (HEAD=hidden) or to ViTPooler's output
# (HEAD=pooler: <config>-pooler-<dtype>).
compile_config() {
  local config=$1 head=$2 family flags dtype name seqflag actual
  family=$(basename "$config" .json)
  flags="--embeddings --lm-head --no-dropout"
  seqflag="--seq $seq"
  case $head in
  logits)
    family="$family-logits"
    flags="$flags --logits"
    ;;
  hidden | pooler)
    flags="--embeddings --no-dropout"
    seqflag=""
    if [ "$head" = pooler ]; then
      family="$family-pooler"
      flags="$flags --pooler"
    fi
    ;;
  esac
  for dtype in f32 bf16; do
    name="$family-$dtype"
    # shellcheck disable=SC2086
    "$import" --hf-config "$config" --batch $batch $seqflag \
      --layers $layers --dtype $dtype $flags -o "$src/$name.mlir"
    "$compile" "$src/$name.mlir" --target="$target" -o "$out/$name" >/dev/null
    cp "$config" "$out/$name/hf-config.json"
    args_of "$src/$name.mlir" >"$out/$name/tfuse-args.txt"
    # The sequence of the graph, from its header (ViT implies its own).
    actual=$(sed -n 's|^// Imported by .*, sequence \([0-9]*\), .*|\1|p' \
      "$src/$name.mlir")
    printf '{"family": "%s", "dtype": "%s", "batch": %d, "seq": %d, "layers": %d, "flags": "%s"}\n' \
      "$family" "$dtype" $batch "$actual" $layers "$flags" >"$out/$name/hf-compare.json"
    echo "$name: $(wc -l <"$out/$name/tfuse-args.txt") arguments"
  done
}
for config in "$src"/*.json; do
  if grep -q '"model_type": "vit"' "$config"; then
    compile_config "$config" hidden
    compile_config "$config" pooler
  else
    compile_config "$config" softmax
    compile_config "$config" logits
  fi
done
rm -rf "$src"
du -sh "$out"
