#!/usr/bin/env bash
# Installs what is missing (apt), builds, and runs the main job on the
# built-in BERT-Large example: the traffic report of the layer on an A40, an
# L40S and an H200 before and after fusion, the fusions chosen for the A40
# with their reasons, the bundle tfuse-compile writes for the H200, and a
# check that fusion preserved the results (CPU reference on the reduced
# layer, bit for bit).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tfuse_install_deps
tfuse_build >/dev/null
bin="$TFUSE_BUILD/bin"
example="$TFUSE_ROOT/examples/bert-large.bf16.mlir"
small="$TFUSE_ROOT/examples/bert-large.bf16.small.mlir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== $example, unfused: bytes and predicted time per target"
"$bin/tfuse-opt" "$example" --tfuse-decompose-attention -o /dev/null \
  --tfuse-traffic-report='targets=a40,l40s,h200' | sed -n '/^function totals/,$p'
echo
echo "== fused for the A40 (tfuse-fuse{target=a40}): fusions and totals"
"$bin/tfuse-opt" "$example" --tfuse-decompose-attention --tfuse-fuse=target=a40 \
  -o /dev/null --tfuse-traffic-report='targets=a40,l40s,h200' |
  sed -n "/^function totals/,/^fusion decisions/p" | sed "$ d"
echo
echo "== tfuse-compile --target=h200: the bundle"
"$bin/tfuse-compile" "$example" --target=h200 -o "$work/bundle"
ls -l "$work/bundle"
echo
echo "== reference digests of the reduced layer: unfused, fused (must match)"
"$bin/tfuse-opt" "$small" --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null
"$bin/tfuse-opt" "$small" --tfuse-decompose-attention --tfuse-fuse=target=a40 \
  --tfuse-evaluate=seed=1 -o /dev/null
