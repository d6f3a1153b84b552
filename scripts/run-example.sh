#!/usr/bin/env bash
# Installs what is missing (apt), builds, and runs the main job on a built-in
# example: the BERT-Large encoder layer is verified, its attention decomposed,
# and the reduced layer evaluated with the CPU reference before and after
# decomposition (identical digests mean identical results, bit for bit).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tfuse_install_deps
tfuse_build >/dev/null
opt="$TFUSE_BUILD/bin/tfuse-opt"
example="$TFUSE_ROOT/examples/bert-large.bf16.mlir"
small="$TFUSE_ROOT/examples/bert-large.bf16.small.mlir"

echo "== $example: attention decomposed"
"$opt" "$example" --tfuse-decompose-attention
echo "== $small: reference digests before and after decomposition"
"$opt" "$small" --tfuse-evaluate=seed=1 -o /dev/null
"$opt" "$small" --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null
