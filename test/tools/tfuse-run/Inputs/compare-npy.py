#!/usr/bin/env python3
"""compare-npy.py EXPECTED_DIR ACTUAL_DIR: every EXPECTED_DIR/NAME.npy must
equal ACTUAL_DIR/NAME.npy exactly (dtype, shape, values); prints a count."""
import os
import sys

import numpy as np

expected, actual = sys.argv[1:3]
names = sorted(f for f in os.listdir(expected) if f.endswith(".npy"))
for name in names:
    e, a = np.load(os.path.join(expected, name)), \
        np.load(os.path.join(actual, name))
    if e.dtype != a.dtype or e.shape != a.shape or not np.array_equal(e, a):
        sys.exit(f"{name}: expected {e.dtype}{list(e.shape)}, got "
                 f"{a.dtype}{list(a.shape)}"
                 + ("" if e.shape != a.shape else
                    f", {int(np.sum(e != a))} elements differ"))
print(f"{len(names)} arrays equal")
