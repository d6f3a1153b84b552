#!/usr/bin/env bash
# Installs what is missing (apt), builds, and runs every test: the lit suite
# and the GoogleTest unit tests, through ctest. GPU tests skip without a GPU.
#
#   scripts/test.sh              the release build in build/
#   scripts/test.sh --sanitize   the same tests on the ASan + UBSan build in
#                                build-sanitize/ (clang-22), which also
#                                replays every fuzz target's seed corpus and
#                                regressions once
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
case "${1:-}" in
"") ;;
--sanitize) sanitize=1 ;;
*)
  echo "usage: scripts/test.sh [--sanitize]" >&2
  exit 2
  ;;
esac
tfuse_install_deps
if [ -n "${sanitize:-}" ]; then
  tfuse_build_sanitize
  tfuse_sanitizer_env
  cd "$TFUSE_SANITIZE_BUILD"
else
  tfuse_build
  cd "$TFUSE_BUILD"
fi
ctest --output-on-failure -j2
