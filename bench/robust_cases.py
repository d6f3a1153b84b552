#!/usr/bin/env python3
"""Writes the cases of bench/device-robust.sh: rows longer than one block's
registers hold (the looping row kernel: softmax(x + b) over vocabularies of
32000, 50257, 128256 and 256000, bf16 and f32; layer_norm and rms_norm over
rows of 128256), and an elementwise add over 2^31 + 1 elements, which
indexes in 64 bits. 1024 rows each, so that the CPU reference of --check
finishes in minutes."""
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rows = 1024


def write(name, text):
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write(text)


for n in (32000, 50257, 128256, 256000):
    for t in ("bf16", "f32"):
        x, b = f"tensor<{rows}x{n}x{t}>", f"tensor<{n}x{t}>"
        write(f"softmax_bias_{t}_{rows}x{n}", f"""func.func @softmax_bias(%x: {x}, %b: {b}) -> {x} {{
  %0 = tfuse.add %x, %b : ({x}, {b}) -> {x}
  %1 = tfuse.softmax %0 axis = 1 : {x}
  return %1 : {x}
}}
""")
n = 128256
for t in ("bf16", "f32"):
    x, g = f"tensor<{rows}x{n}x{t}>", f"tensor<{n}x{t}>"
    write(f"layer_norm_{t}_{rows}x{n}", f"""func.func @layer_norm(%x: {x}, %r: {x}, %g: {g}, %b: {g}) -> {x} {{
  %0 = tfuse.add %x, %r : ({x}, {x}) -> {x}
  %1 = tfuse.layer_norm %0 gamma %g beta %b eps = 1.0e-05 : ({x}, {g}, {g}) -> {x}
  return %1 : {x}
}}
""")
    write(f"rms_norm_{t}_{rows}x{n}", f"""func.func @rms_norm(%x: {x}, %g: {g}) -> {x} {{
  %0 = tfuse.rms_norm %x gamma %g eps = 1.0e-06 : ({x}, {g}) -> {x}
  return %0 : {x}
}}
""")
x = "tensor<2147483649xf32>"
write("add_f32_2147483649", f"""func.func @huge_add(%x: {x}, %y: {x}) -> {x} {{
  %0 = tfuse.add %x, %y : ({x}, {x}) -> {x}
  return %0 : {x}
}}
""")
