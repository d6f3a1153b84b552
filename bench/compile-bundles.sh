#!/usr/bin/env bash
# Compiles, on this machine (LLVM/MLIR here, none on the GPU machine), every
# bundle the device scripts run: the examples (fused and unfused, bf16 and
# f32, full size and small) and the benchmark cases, into bundles/ (ignored by
# git; carried to the GPU machine with `carry: ["bundles"]`).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compile="$root/build/bin/tfuse-compile"
out="$root/bundles"
target=${TFUSE_BENCH_TARGET:-h200}
# ROBUST_ONLY=1: only the long-row and 64-bit-index cases
# (bench/robust_cases.py, run by bench/device-robust.sh), into bundles/robust.
if [ "${ROBUST_ONLY:-0}" = 1 ]; then
  rm -rf "$out/robust" && mkdir -p "$out/robust"
  python3 "$root/bench/robust_cases.py" "$out/robust/src"
  for src in "$out"/robust/src/*.mlir; do
    "$compile" "$src" --target="$target" -o "$out/robust/$(basename "$src" .mlir)"
  done
  rm -rf "$out/robust/src"
  du -sh "$out/robust"
  exit 0
fi
# MEASURE_ONLY=1: the full-size GPT-2 and BERT-Large bf16 layers, fused, into
# bundles/measure (bench/device-measure.sh times them for the report's
# measured= view).
if [ "${MEASURE_ONLY:-0}" = 1 ]; then
  rm -rf "$out/measure" && mkdir -p "$out/measure"
  for model in gpt2 bert-large; do
    "$compile" --quiet "$root/examples/$model.bf16.mlir" --target="$target" \
      -o "$out/measure/$model.bf16.fused"
  done
  du -sh "$out/measure"
  exit 0
fi
rm -rf "$out" && mkdir -p "$out/examples" "$out/cases" "$out/rows"
python3 "$root/bench/row_cases.py" "$out/rows/src"
for src in "$out"/rows/src/*.mlir; do
  "$compile" "$src" --target="$target" -o "$out/rows/$(basename "$src" .mlir)"
done
rm -rf "$out/rows/src"
# ROWS_ONLY=1: the row cases and the small examples (bench/device-rows.sh).
sizes=("" ".small")
[ "${ROWS_ONLY:-0}" = 1 ] && sizes=(".small")
for model in bert-large gpt2 llama-7b; do
  for dtype in bf16 f32; do
    for size in "${sizes[@]}"; do
      src="$root/examples/$model.$dtype$size.mlir"
      "$compile" "$src" --target="$target" -o "$out/examples/$model.$dtype$size.fused"
      "$compile" "$src" --target="$target" --no-fuse -o "$out/examples/$model.$dtype$size.unfused"
    done
  done
done
[ "${ROWS_ONLY:-0}" = 1 ] && { du -sh "$out"; exit 0; }
python3 "$root/bench/cases.py" "$out/cases/src"
for src in "$out"/cases/src/*.mlir; do
  name=$(basename "$src" .mlir)
  "$compile" "$src" --target="$target" -o "$out/cases/$name.fused"
  "$compile" "$src" --target="$target" --no-fuse -o "$out/cases/$name.unfused"
done
du -sh "$out"
