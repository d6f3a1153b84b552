#!/usr/bin/env python3
"""Compares two `tfuse-opt --tfuse-evaluate` digests to a tolerance.

    compare_digests.py A B [--rtol R] [--pair I:J ...]

Each result I of A is compared with result I of B, or with result J of B
where `--pair I:J` says so. Two graphs that compute the same function but
round differently (an exact tfuse.attention against the ops it stands for,
each rounding to the element type) print different hashes; their digests
must still agree: the shapes and types exactly, `max_abs` to R relative and
`sum` to R * max_abs * elements. Prints one line per result and exits 1 on
the first that differs.
"""

import argparse
import re
import sys

LINE = re.compile(r"^@(\S+) result (\d+): \[([0-9, ]*)\] (\S+) "
                  r"sum=(\S+) max_abs=(\S+) hash=\S+$")


def read(path):
    results = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                shape = [int(d) for d in m.group(3).split(",") if d.strip()]
                results[int(m.group(2))] = (m.group(1), shape, m.group(4),
                                            float(m.group(5)),
                                            float(m.group(6)))
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--pair", action="append", default=[])
    args = parser.parse_args()
    a, b = read(args.a), read(args.b)
    if not a:
        print(f"no results in {args.a}")
        return 1
    pairs = {i: i for i in a}
    for pair in args.pair:
        i, j = pair.split(":")
        pairs[int(i)] = int(j)
    for i in sorted(pairs):
        j = pairs[i]
        if i not in a or j not in b:
            print(f"result {i}: missing (against {j})")
            return 1
        fa, sa, ta, suma, maxa = a[i]
        fb, sb, tb, sumb, maxb = b[j]
        elements = 1
        for d in sa:
            elements *= d
        scale = max(maxa, maxb)
        if (fa, sa, ta) != (fb, sb, tb) or \
                abs(maxa - maxb) > args.rtol * scale or \
                abs(suma - sumb) > args.rtol * scale * elements:
            print(f"result {i}: differs from result {j}: sum {suma} against "
                  f"{sumb}, max_abs {maxa} against {maxb}")
            return 1
        print(f"result {i}: same as result {j} to {args.rtol}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
