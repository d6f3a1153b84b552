#!/usr/bin/env bash
# On the GPU machine, after bench/compile-models-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run, runs the bundles of bundles/models
# with --check (every step against the CPU reference: the gather, concat,
# strided-row, rope and window-mask kernels included; the bf16 bundles only
# unless CHECK_DTYPES says otherwise), then bench/hf_compare.py (every bundle
# against the transformers class of its config), then, where the carried
# bundles/onnx exists, bench/onnx_compare.py compare (against onnxruntime),
# and bench/onnx_compare.py export (the ONNX files for the next step here).
#
# $OUT/models gets at most 8 files (what the device tool brings back):
# summary.txt (GPU, --check results), hf-compare.{txt,json,log},
# onnx-compare.txt, onnx-exports.tgz and models-logs.tgz (every log). The
# whole run stops starting new work TOTAL_BUDGET_S (default 540) seconds
# after it began (the --check pass 300 s before that); the comparison table
# is printed last. SKIP_CHECK=1 leaves the --check pass out, HF_ONLY=a,b
# compares only those configs (bundle names without -f32/-bf16),
# SKIP_EXPORT=1 leaves the ONNX export out.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
PY=${PYTHON:-/opt/torch/.venv/bin/python3}
start=$(date +%s)
deadline=$((start + ${TOTAL_BUDGET_S:-540}))
logs=/tmp/tfuse-models-logs
rm -rf "$logs" && mkdir -p "$OUT/models" "$logs"
summary="$OUT/models/summary.txt"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$summary"
status=0
for bundle in "$ROOT"/bundles/models/*; do
  name=$(basename "$bundle")
  case " ${CHECK_DTYPES:-bf16} " in
    *" ${name##*-} "*) ;;
    *) continue ;;
  esac
  [ -n "${SKIP_CHECK:-}" ] && continue
  left=$((deadline - 300 - $(date +%s)))  # keep 5 minutes for the comparison
  if [ $left -le 10 ]; then
    echo "$name --check skipped: out of time" | tee -a "$summary"
    continue
  fi
  timeout $((left < ${CHECK_TIMEOUT:-300} ? left : ${CHECK_TIMEOUT:-300})) \
    "$TFUSE_RUN" "$bundle" --check --json "$logs/$name.json" \
    >"$logs/$name.log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "$name --check rc=$rc $(grep -m1 -i 'check' "$logs/$name.log" | head -c 200)" \
    | tee -a "$summary"
done

if [ -d "$ROOT/bundles/onnx" ]; then
  PYTHONUNBUFFERED=1 "$PY" "$ROOT/bench/onnx_compare.py" compare \
    --tfuse-run "$TFUSE_RUN" --bundles "$ROOT/bundles/onnx" \
    --log-dir "$logs" >"$logs/onnx-compare.out" 2>&1 || status=1
  cp "$logs/onnx-compare.txt" "$OUT/models/" 2>/dev/null
fi
PYTHONUNBUFFERED=1 "$PY" "$ROOT/bench/hf_compare.py" --tfuse-run "$TFUSE_RUN" \
  --bundles "$ROOT/bundles/models" --log-dir "$logs" \
  --deadline $((deadline - 100)) --only "${HF_ONLY:-}" \
  >"$logs/hf-compare.out" 2>&1 || status=1
for f in hf-compare.txt hf-compare.json hf-compare.log; do
  cp "$logs/$f" "$OUT/models/" 2>/dev/null
done

if [ -z "${SKIP_EXPORT:-}" ]; then
  PYTHONUNBUFFERED=1 timeout 90 "$PY" "$ROOT/bench/onnx_compare.py" export \
    --out-dir "$logs/onnx-exports" >"$logs/onnx-export.out" 2>&1
  echo "onnx export rc=$? $(tail -n 1 "$logs/onnx-export.out")" | tee -a "$summary"
  [ -d "$logs/onnx-exports" ] &&
    tar czf "$OUT/models/onnx-exports.tgz" -C "$logs" onnx-exports
fi
tar czf "$OUT/models/models-logs.tgz" -C "$(dirname "$logs")" "$(basename "$logs")"
echo "elapsed $(($(date +%s) - start)) s" | tee -a "$summary"
echo
cat "$summary"
[ -f "$logs/onnx-compare.txt" ] && cat "$logs/onnx-compare.txt"
echo
echo "HF comparison (tfuse-run vs transformers; -logits bundles: the logits, -pooler: ViT's pooler_output, other vit: last_hidden_state, others: their softmax):"
cat "$logs/hf-compare.txt" 2>/dev/null || tail -n 30 "$logs/hf-compare.out"
exit $status
