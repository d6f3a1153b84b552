#!/usr/bin/env bash
# Builds tfuse-run without LLVM/MLIR (the GPU machine has cmake, nvcc and the
# CUDA libraries only) into $BUILD (default /tmp/tfuse-runtime-build).
# Sourced by the device scripts; sets TFUSE_RUN to the binary.
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-/tmp/tfuse-runtime-build}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake "${generator[@]}" -S "$ROOT" -B "$BUILD" -DTFUSE_ENABLE_MLIR=OFF \
  -DTFUSE_ENABLE_UNIT_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >"$BUILD.cmake.log" 2>&1 ||
  { cat "$BUILD.cmake.log"; exit 1; }
cmake --build "$BUILD" --target tfuse-run -j "$(nproc)" >"$BUILD.build.log" 2>&1 ||
  { tail -50 "$BUILD.build.log"; exit 1; }
TFUSE_RUN=$BUILD/bin/tfuse-run
