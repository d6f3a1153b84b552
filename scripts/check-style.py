#!/usr/bin/env python3
"""Checks the house style of every tracked C++ and TableGen file.

Each file opens with the LLVM header line, 80 columns wide and naming the
file: `//===- Name.cpp - what it holds ----...---===//` (headers end in
a mode line such as `-*- C++ -*-===//`). With clang-format-22 installed, the C++ files must also
be formatted as `.clang-format` says; without it that part is skipped, saying
so. Exits non-zero listing every file that is off.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ("*.cpp", "*.h", "*.td", "*.cu")
CLANG_FORMAT = "clang-format-22"


def tracked_files():
    out = subprocess.run(["git", "ls-files", "--", *SOURCES], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    return [f for f in out.splitlines() if os.path.exists(os.path.join(ROOT, f))]


def header_problem(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        first = f.readline().rstrip("\n")
    name = os.path.basename(path)
    if not re.fullmatch(r"//===- " + re.escape(name) + r" - .+ -*(\*- [\w+]+ -\*-)?===//",
                        first):
        return "first line is not `//===- %s - <what it holds> ---===//`" % name
    if len(first) != 80:
        return "header line is %d columns, not 80" % len(first)
    if path.endswith(".h") and not first.endswith("-*- C++ -*-===//"):
        return "a header's first line ends in `-*- C++ -*-===//`"
    return None


def main():
    files = tracked_files()
    problems = []
    for path in files:
        problem = header_problem(path)
        if problem:
            problems.append("%s:1: %s" % (path, problem))
    cxx = [f for f in files if not f.endswith(".td")]
    if shutil.which(CLANG_FORMAT):
        for path in cxx:
            result = subprocess.run([CLANG_FORMAT, "--dry-run", "-Werror", path],
                                    cwd=ROOT, capture_output=True, text=True)
            if result.returncode != 0:
                problems.append("%s: not formatted (run %s -i %s)" %
                                (path, CLANG_FORMAT, path))
    else:
        print("check-style: %s not found, formatting not checked" % CLANG_FORMAT)
    for problem in problems:
        print(problem)
    print("check-style: %d files, %d problems" % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
