# Shared by the scripts in this folder: dependency installation and the build.
# Sourced, not run.

TFUSE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TFUSE_BUILD=${TFUSE_BUILD:-$TFUSE_ROOT/build}

# Debian 12 packages the build and the tests need.
TFUSE_PACKAGES="cmake ninja-build g++ python3 llvm-22-dev llvm-22-tools \
libmlir-22-dev mlir-22-tools nlohmann-json3-dev libzstd-dev libgtest-dev \
libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx clang-format-22"

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

tfuse_build() {
  cmake -G Ninja -S "$TFUSE_ROOT" -B "$TFUSE_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null &&
    ninja -C "$TFUSE_BUILD"
}
