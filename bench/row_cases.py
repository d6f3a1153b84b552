#!/usr/bin/env python3
"""Writes the row-kernel cases of bench/device-rows.sh: softmax(x + b) over
rows of growing length, every tensor 256 MiB of f32, and the A40 shape the
two cost-model rules disagreed on (64 x 16384 f32). The cost model of
docs/cost-model.md reads a row once (registers); the rule it replaced read it
twice once a row passed half an SM's shared memory (114 KiB on the H200:
rows of 32768 f32 and longer)."""
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
cases = [(64, 16384)] + [((1 << 26) // n, n) for n in (4096, 16384, 32768, 65536, 131072)]
for rows, n in cases:
    with open(os.path.join(out, f"softmax_bias_{rows}x{n}.mlir"), "w") as f:
        f.write(f"""func.func @softmax_bias(%x: tensor<{rows}x{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{rows}x{n}xf32> {{
  %0 = tfuse.add %x, %b : (tensor<{rows}x{n}xf32>, tensor<{n}xf32>) -> tensor<{rows}x{n}xf32>
  %1 = tfuse.softmax %0 axis = 1 : tensor<{rows}x{n}xf32>
  return %1 : tensor<{rows}x{n}xf32>
}}
""")
