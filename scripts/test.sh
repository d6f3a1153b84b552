#!/usr/bin/env bash
# Installs what is missing (apt), builds, and runs every test: the lit suite
# and the GoogleTest unit tests, through ctest. GPU tests skip without a GPU.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tfuse_install_deps
tfuse_build
cd "$TFUSE_BUILD"
ctest --output-on-failure -j2
