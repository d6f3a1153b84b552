#!/usr/bin/env bash
# On the GPU machine (it has PyTorch and transformers, this one does not):
# exports the small BERT, GPT-2 and LLaMA models of bench/onnx_compare.py
# with both of PyTorch's ONNX exporters and brings the files back as
# $OUT/onnx-exports.tgz, with the versions of the packages that made them.
# Here, test/tools/tfuse-import/Inputs/onnx/exported/ keeps them as the lit
# tests' inputs (issue 14, "ONNX as PyTorch writes it").
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
OUT=${OUT:-/tmp/tfuse-out}
mkdir -p "$OUT"
work=/tmp/onnx-exports
rm -rf "$work"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for m in torch transformers onnx onnxruntime onnxscript; do
    "$PY" -c "import $m; print('$m', $m.__version__)" 2>&1 | tail -n 1
  done
} | tee "$OUT/versions.txt"
PYTHONUNBUFFERED=1 timeout 200 "$PY" "$ROOT/bench/onnx_compare.py" export \
  --out-dir "$work" >"$OUT/export.log" 2>&1
echo "export rc=$?"
cp "$OUT/versions.txt" "$work/" 2>/dev/null
tar czf "$OUT/onnx-exports.tgz" -C /tmp onnx-exports
grep -v '^ \|^Traceback' "$OUT/export.log" | tail -n 20
ls -la "$work"
