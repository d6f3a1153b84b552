# Shared by the scripts in this folder: dependency installation and the build.
# Sourced, not run.

TFUSE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TFUSE_BUILD=${TFUSE_BUILD:-$TFUSE_ROOT/build}
# The ASan + UBSan build with the libFuzzer targets (scripts/test.sh
# --sanitize, scripts/fuzz.sh).
TFUSE_SANITIZE_BUILD=${TFUSE_SANITIZE_BUILD:-$TFUSE_ROOT/build-sanitize}

# Debian 12 packages the build and the tests need.
TFUSE_PACKAGES="cmake ninja-build g++ python3 llvm-22-dev llvm-22-tools \
libmlir-22-dev mlir-22-tools nlohmann-json3-dev libzstd-dev libgtest-dev \
libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx clang-format-22 clang-22 libclang-rt-22-dev"

tfuse_install_deps() {
  local missing=()
  for pkg in $TFUSE_PACKAGES; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "tfuse: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# ccache, where installed, for every compile.
tfuse_launcher_flags() {
  command -v ccache >/dev/null &&
    echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
  return 0
}

tfuse_build() {
  # shellcheck disable=SC2046
  cmake -G Ninja -S "$TFUSE_ROOT" -B "$TFUSE_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit $(tfuse_launcher_flags) \
    >/dev/null &&
    ninja -C "$TFUSE_BUILD"
}

# The same configuration with clang, ASan, UBSan and the fuzz targets.
tfuse_build_sanitize() {
  # shellcheck disable=SC2046
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$TFUSE_ROOT" \
    -B "$TFUSE_SANITIZE_BUILD" -DCMAKE_BUILD_TYPE=Release -DTFUSE_SANITIZE=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit $(tfuse_launcher_flags) \
    >/dev/null &&
    ninja -C "$TFUSE_SANITIZE_BUILD"
}

# How the sanitized binaries run: any finding is fatal, leaks included
# (scripts/lsan.supp lists the only allocations LeakSanitizer may ignore).
tfuse_sanitizer_env() {
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS=suppressions=$TFUSE_ROOT/scripts/lsan.supp:print_suppressions=0
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
}
