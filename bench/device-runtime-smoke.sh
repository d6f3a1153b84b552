#!/usr/bin/env bash
#===- device-runtime-smoke.sh - Build and smoke-test tfuse-run on a GPU ---===#
#
# Part of the tfuse project.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===-----------------------------------------------------------------------===#
#
# Run from the repository root on a machine with an NVIDIA GPU, CMake and the
# CUDA toolkit (no LLVM needed):
#
#   OUT=/some/dir bash bench/device-runtime-smoke.sh
#
# 1. configures with -DTFUSE_ENABLE_MLIR=OFF and builds tfuse-run (Ninja if
#    present, else Make);
# 2. runs test/gpu/Inputs/axpy-bundle with --check --bench --json
#    $OUT/smoke.json (PTX JIT path);
# 3. runs it again from a cubin assembled here (cubin path), saving outputs;
# 4. runs a copy whose reference graph is deliberately wrong and expects the
#    check to fail, naming step 2 (exit 1);
# 5. runs compute-sanitizer --tool memcheck on a --check run.
# Exits non-zero if any of these does not behave as expected.
#
#===-----------------------------------------------------------------------===#

set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/build-device-smoke}
BUILD=${BUILD:-/tmp/tfuse-runtime-build}
WORK=$(mktemp -d /tmp/tfuse-smoke-XXXXXX)
BUNDLE=$ROOT/test/gpu/Inputs/axpy-bundle
mkdir -p "$OUT"
failures=0
step() { echo; echo "=== $* ==="; }
fail() { echo "SMOKE FAILURE: $*"; failures=$((failures + 1)); }

step "machine"
nvidia-smi -L || true
command -v nvcc && nvcc --version | tail -1
cmake --version | head -1

step "configure and build tfuse-run"
if command -v ninja >/dev/null 2>&1; then
  generator=Ninja
else
  generator="Unix Makefiles"
fi
cuda_root=()
[ -d /usr/local/cuda ] && cuda_root=(-DCUDAToolkit_ROOT=/usr/local/cuda)
cmake -G "$generator" -S "$ROOT" -B "$BUILD" -DTFUSE_ENABLE_MLIR=OFF \
  -DTFUSE_ENABLE_UNIT_TESTS=OFF -DCMAKE_BUILD_TYPE=Release "${cuda_root[@]}" \
  || { echo "configure failed"; exit 1; }
cmake --build "$BUILD" --target tfuse-run -j "$(nproc)" \
  || { echo "build failed"; exit 1; }
RUN=$BUILD/bin/tfuse-run

step "check + bench (PTX, JIT)"
"$RUN" "$BUNDLE" --check --bench --reps 20 --json "$OUT/smoke.json" \
  || fail "tfuse-run --check --bench exited $?"

step "check from a cubin, saving outputs"
cp -r "$BUNDLE" "$WORK/cubin-bundle"
nvcc -cubin -arch=sm_90 -O3 -o "$WORK/cubin-bundle/kernels.sm_90.cubin" \
  "$BUNDLE/kernels.cu" || fail "nvcc -cubin failed"
python3 - "$WORK/cubin-bundle/plan.json" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
cubin = os.path.join(os.path.dirname(sys.argv[1]), "kernels.sm_90.cubin")
# The content hash plan.json records for each module file (docs/bundle.md).
h = 0xcbf29ce484222325
for c in open(cubin, "rb").read():
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
p["module"]["cubin"] = "kernels.sm_90.cubin"
p["module"]["cubin_hash"] = "fnv1a64:%016x" % h
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
"$RUN" "$WORK/cubin-bundle" --check --save-outputs "$WORK/outputs" \
  || fail "tfuse-run on the cubin bundle exited $?"
ls -l "$WORK/outputs"
python3 -c "
import numpy as np, sys
s = np.load('$WORK/outputs/output_1.npy'); y = np.load('$WORK/outputs/output_0.npy')
print('output_1', s.dtype, s.shape, 'output_0', y.dtype, y.shape)
" || fail "saved outputs do not load with numpy"

step "a wrong reference must fail the check at step 2"
cp -r "$BUNDLE" "$WORK/wrong-bundle"
sed -i 's/"kind": "sum"/"kind": "max"/' "$WORK/wrong-bundle/plan.json"
"$RUN" "$WORK/wrong-bundle" --check > "$WORK/wrong.log" 2>&1
code=$?
cat "$WORK/wrong.log"
[ "$code" = 1 ] || fail "expected exit 1 for a failed check, got $code"
grep -q "check failed at step 2 ('scale_row_sum')" "$WORK/wrong.log" \
  || fail "the failed check does not name step 2"

step "compute-sanitizer memcheck"
if command -v compute-sanitizer >/dev/null 2>&1; then
  compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$RUN" "$BUNDLE" --check --jit || fail "memcheck exited $?"
else
  echo "compute-sanitizer not found; skipped"
fi

rm -rf "$WORK"
step "done: $failures failure(s)"
[ "$failures" = 0 ]
