# Writes the optimizer inputs of the MLP's training step as .npy files:
# exp_avg_sq must be non-negative (a square), lr 1e-3, step 3 (and 1, the
# first step, where SGD's buffer is the gradient).
import os
import random
import struct
import sys


def npy(path, shape, values):
    dims = "(%s)" % "".join("%d," % d for d in shape) if shape else "()"
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % dims
    header += " " * ((64 - (11 + len(header)) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


out = sys.argv[1]
random.seed(1)
for name, shape in [("v1", [256, 512]), ("v2", [512]), ("v3", [512, 256])]:
    count = 1
    for d in shape:
        count *= d
    npy(os.path.join(out, name + ".npy"), shape,
        [random.uniform(0, 0.1) ** 2 for _ in range(count)])
npy(os.path.join(out, "lr.npy"), [], [1e-3])
npy(os.path.join(out, "step3.npy"), [], [3.0])
npy(os.path.join(out, "step1.npy"), [], [1.0])
