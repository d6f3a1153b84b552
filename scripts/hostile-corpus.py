#!/usr/bin/env python3
"""Generates hostile inputs for every tfuse tool, runs them and classifies.

    scripts/hostile-corpus.py [--build DIR] [--count N] [--seed S]
                              [--out DIR] [--timeout SEC] [--jobs J]
                              [--category NAME ...]

Cases are drawn deterministically from the seed: case i of a run with seed S
is always the same case, so a failure is reproduced by its seed and index
(the summary prints the command line to run again). The categories, each a
generator of inputs and the tool runs over them:

  mlir-mutant    truncated, spliced and mutated copies of examples/*.mlir and
                 the test inputs, through tfuse-opt (report, fuse, evaluate)
                 and tfuse-compile
  huge-sizes     valid graphs at batch 2^31, 4e9, 2^40, 2^62, dimensions near
                 INT64_MAX and zero-size dimensions
  target-json    GPU target files out of range: denormal, huge, negative,
                 overflowing numbers, wrong types, unknown sm_arch, thousands
                 of keys, deep nesting, huge files
  hf-config      Hugging Face configs with fields near 2^31 / 2^62, zero,
                 negative, non-divisible heads, missing or mistyped fields
  onnx           ONNX models written by a small protobuf encoder (no onnx
                 package needed): duplicate producers, wrong operand counts,
                 negative splits, bad attributes, huge shapes, external data,
                 truncated and bit-flipped protobuf
  bundle         mutants of a bundle compiled at the start: wrong counts,
                 offsets near INT64_MAX, negative values, mismatched params,
                 hash mismatches, missing files, torn bundles; tfuse-run
                 --validate, and a plain run (no GPU here: it must refuse)
  output-paths   every output option pointed at an input (same name, another
                 spelling, a symlink, a hard link), into a read-only folder,
                 or under a small file-size limit (ulimit -f), over an
                 earlier good output

Each run gets --timeout seconds (30) and is classified as
  refused        non-zero exit with a diagnostic and no crash marker
  ok             exit 0 and every output it wrote checks out
  crash          a signal, "LLVM ERROR", an assertion, a stack dump or a
                 sanitizer report
  hang           the timeout
  wrong-success  exit 0 but an output is missing or wrong: JSON that does
                 not parse (or holds inf / nan), MLIR that tfuse-opt does not
                 re-parse, negative or zero byte counts for a non-empty graph,
                 a bundle tfuse-run --validate refuses
  input-changed  an input's sha256 differs after the run
  output-lost    an earlier good bundle at the output path is neither intact
                 nor replaced by a complete valid one
--out DIR gets summary.json and summary.txt (per category: cases, refusals,
successes, and every failure with its command line) and the cases' files.
The exit status is 1 when any case failed.
"""

import argparse
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATEGORIES = ["mlir-mutant", "huge-sizes", "target-json", "hf-config", "onnx",
              "bundle", "output-paths"]
CRASH_MARKERS = ["LLVM ERROR", "Assertion", "Stack dump", "PLEASE submit",
                 "AddressSanitizer", "UndefinedBehaviorSanitizer",
                 "LeakSanitizer", "runtime error:", "Segmentation fault",
                 "terminate called", "std::bad_alloc"]
INT64_MAX = 2**63 - 1
HUGE = [2**31, 4_000_000_000, 2**32 + 1, 2**40, 2**40 + 1, 2**62,
        INT64_MAX, INT64_MAX - 1, 2**63, 0, 1]


# --------------------------------------------------------------------------
# Running and checking
# --------------------------------------------------------------------------

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree_hash(path):
    """The sha256 of a file, or of every file under a folder (by name)."""
    if os.path.isfile(path):
        return sha256(path)
    if not os.path.isdir(path):
        return None
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            h.update(os.path.relpath(full, path).encode() + b"\0")
            h.update(sha256(full).encode())
    return h.hexdigest()


def strict_json(text):
    """json.loads that rejects NaN / Infinity (not JSON)."""
    def bad_constant(name):
        raise ValueError("non-JSON constant " + name)
    return json.loads(text, parse_constant=bad_constant)


def walk_numbers(value, key=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk_numbers(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from walk_numbers(v, key)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield key, value


class Runner:
    def __init__(self, build, timeout):
        self.bin = os.path.join(os.path.abspath(build), "bin")
        self.timeout = timeout
        self.has_run = os.path.exists(self.tool("tfuse-run"))

    def tool(self, name):
        return os.path.join(self.bin, name)

    def run(self, cmd, cwd=None, fsize=None, timeout=None):
        """(rc, stdout, stderr, timed_out, seconds); rc < 0 is a signal."""
        def limits():
            os.setsid()
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if fsize is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        start = time.time()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                preexec_fn=limits)
        try:
            out, err = proc.communicate(timeout=timeout or self.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            timed_out = True
        return (proc.returncode, out.decode("utf-8", "replace"),
                err.decode("utf-8", "replace"), timed_out, time.time() - start)

    # Output checks: each returns "" when the output is good, else why not.
    def check_mlir(self, path):
        if not os.path.isfile(path):
            return "no output file " + path
        rc, _, err, timed_out, _ = self.run(
            [self.tool("tfuse-opt"), path, "-o", "/dev/null"])
        if rc != 0 or timed_out:
            return "the output MLIR does not re-parse: " + err.strip()[-300:]
        return ""

    def check_json_text(self, text, what, nonempty=True):
        try:
            data = strict_json(text)
        except ValueError as e:
            return f"{what} is not JSON: {e}"
        for key, number in walk_numbers(data):
            lowered = key.lower()
            if isinstance(number, float) and number != number:
                return f"{what}: {key} is nan"
            if ("bytes" in lowered or "flops" in lowered or
                    lowered.endswith("_us")) and number < 0:
                return f"{what}: {key} = {number} is negative"
        if nonempty:
            totals = [n for k, n in walk_numbers(data)
                      if k in ("total_bytes", "bytes_total", "arena_bytes")]
            if totals and all(n == 0 for n in totals) and \
                    "arena_bytes" not in text:
                return f"{what}: every byte total is 0 for a non-empty graph"
        return ""

    def check_json(self, path, nonempty=True):
        if not os.path.isfile(path):
            return "no output file " + path
        with open(path, encoding="utf-8", errors="replace") as f:
            return self.check_json_text(f.read(), path, nonempty)

    def check_bundle(self, path):
        plan = os.path.join(path, "plan.json")
        why = self.check_json(plan)
        if why:
            return why
        with open(plan) as f:
            data = json.load(f)
        for buffer in data.get("buffers", []):
            if buffer.get("bytes", 1) <= 0 and buffer.get("shape") and \
                    0 not in buffer["shape"]:
                return f"plan.json: buffer {buffer.get('id')} has " \
                       f"{buffer.get('bytes')} bytes"
        if self.has_run:
            rc, _, err, timed_out, _ = self.run(
                [self.tool("tfuse-run"), path, "--validate"])
            if rc != 0 or timed_out:
                return "tfuse-run --validate refuses the bundle: " + \
                    err.strip()[-300:]
        return ""

    def check_text(self, text, what):
        if re.search(r"(?<![\w.])-?(inf|nan)(?![\w])", text, re.I):
            return f"{what} holds inf or nan"
        return ""


class Case:
    """One tool run: the command, the files it reads, what it writes."""

    def __init__(self, category, name, cmd, inputs=(), outputs=(), cwd=None,
                 fsize=None, stdout_json=False, stdout_text=False,
                 previous_bundle=None, nonempty=True):
        self.category = category
        self.name = name
        self.cmd = cmd
        self.inputs = list(inputs)
        # (kind, path): kind is mlir, json, bundle or any (not checked).
        self.outputs = list(outputs)
        self.cwd = cwd
        self.fsize = fsize
        self.stdout_json = stdout_json
        self.stdout_text = stdout_text
        self.previous_bundle = previous_bundle
        self.nonempty = nonempty


def execute(runner, case):
    before = {p: tree_hash(p) for p in case.inputs}
    previous = tree_hash(case.previous_bundle) if case.previous_bundle else None
    rc, out, err, timed_out, seconds = runner.run(case.cmd, cwd=case.cwd,
                                                  fsize=case.fsize)
    result = {"category": case.category, "name": case.name,
              "command": " ".join(shlex_quote(c) for c in case.cmd),
              "cwd": case.cwd, "rc": rc, "seconds": round(seconds, 2),
              "stderr": err[-2000:]}
    if case.fsize is not None:
        result["command"] = f"(ulimit -f {case.fsize // 512}; " + \
            result["command"] + ")"
    problems = []
    if timed_out:
        verdict = "hang"
    elif rc < 0 or any(m in err or m in out for m in CRASH_MARKERS):
        verdict = "crash"
    elif rc != 0:
        verdict = "refused"
        if "error" not in err.lower():
            problems.append("refused without a diagnostic")
    else:
        verdict = "ok"
        for kind, path in case.outputs:
            why = ""
            if kind == "mlir":
                why = runner.check_mlir(path)
            elif kind == "json":
                why = runner.check_json(path, case.nonempty)
            elif kind == "bundle":
                why = runner.check_bundle(path)
            if why:
                problems.append(why)
        if case.stdout_json:
            why = runner.check_json_text(out, "stdout", case.nonempty)
            if why:
                problems.append(why)
        if case.stdout_text:
            why = runner.check_text(out, "stdout")
            if why:
                problems.append(why)
        if problems:
            verdict = "wrong-success"
    for path, digest in before.items():
        if tree_hash(path) != digest:
            verdict = "input-changed"
            problems.append(f"input {path} changed")
    if previous is not None and tree_hash(case.previous_bundle) != previous:
        why = runner.check_bundle(case.previous_bundle)
        if why:
            verdict = "output-lost"
            problems.append("the earlier bundle was replaced by a bad one: " +
                            why)
    if verdict == "refused" and problems:
        verdict = "silent-refusal"
    result["verdict"] = verdict
    result["problems"] = problems
    return result


def shlex_quote(text):
    if re.fullmatch(r"[\w@%+=:,./-]+", text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


# --------------------------------------------------------------------------
# Generators
# --------------------------------------------------------------------------

def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def mlir_sources():
    paths = []
    for folder in ["examples", "test"]:
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            if "fuzz" in dirpath:
                continue
            for name in files:
                full = os.path.join(dirpath, name)
                if name.endswith(".mlir") and os.path.getsize(full) < 64_000:
                    paths.append(full)
    return sorted(paths)


NUMBER = re.compile(r"(?<![\w.%#])\d+(?![\w.])")
TOKENS = ["tfuse.add", "tfuse.softmax", "tensor<", ">", "(", ")", ":", ",",
          "{", "}", "%0", "%arg0", "axis = 7", "xf32", "xbf16", "xi64", "x0x",
          "func.func", "return", "\"", "#loc", "dense<", "tfuse.fusion loop",
          "tfuse.yield", "^bb0(", "-1", "9223372036854775807", "0x7fc00000",
          "!tfuse.", "@", "\0", "\xff", "tensor<?x4xf32>"]


def mutate_text(rng, text):
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        choice = rng.randrange(9)
        if choice == 0 and text:  # truncate
            text = text[:rng.randrange(len(text))]
        elif choice == 1 and lines:  # delete a line
            del lines[rng.randrange(len(lines))]
            text = "".join(lines)
        elif choice == 2 and lines:  # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
            text = "".join(lines)
        elif choice in (3, 4):  # replace a number by a hostile one
            matches = list(NUMBER.finditer(text))
            if matches:
                m = rng.choice(matches)
                value = str(rng.choice(HUGE + [-1, 3, 7, 1023, 65537]))
                text = text[:m.start()] + value + text[m.end():]
        elif choice == 5:  # insert a token
            pos = rng.randrange(len(text) + 1)
            text = text[:pos] + rng.choice(TOKENS) + text[pos:]
        elif choice == 6 and text:  # delete a span
            pos = rng.randrange(len(text))
            text = text[:pos] + text[pos + rng.randint(1, 40):]
        elif choice == 7:  # swap element types
            text = text.replace(rng.choice(["xf32", "xbf16", "xf16"]),
                                rng.choice(["xf64", "xi32", "xi1", "xf16",
                                            "xbf16", "xf32"]))
        else:  # splice two halves
            if lines:
                i, j = sorted(rng.randrange(len(lines) + 1) for _ in range(2))
                lines = lines[:i] + lines[j:] + lines[i:j]
                text = "".join(lines)
        lines = text.splitlines(keepends=True)
    return text


def opt_cases(runner, category, name, path, work, rng, evaluate=True):
    """The tfuse-opt runs over one MLIR file (one of them, picked)."""
    opt = runner.tool("tfuse-opt")
    out = os.path.join(work, "out.mlir")
    report = os.path.join(work, "report.json")
    target = rng.choice(["h200", "a40", "l4"])
    variants = [
        ([opt, path, "-o", out,
          f"--tfuse-traffic-report=targets={target} format=json "
          f"output={report}"], [("mlir", out), ("json", report)], False),
        ([opt, path, "-o", out, f"--tfuse-fuse=target={target}"],
         [("mlir", out)], False),
        ([opt, path, "-o", "/dev/null",
          f"--tfuse-traffic-report=targets={target}"], [], True),
        ([opt, path, "-o", out, "--tfuse-fuse", "--tfuse-lower-to-gpu"],
         [("any", out)], False),
    ]
    if evaluate:
        # Its stdout is not checked for inf or nan: those are values the
        # reference computes from random inputs (an AdamW update's sqrt of a
        # negative second moment is nan), not a cost model's numbers.
        variants.append(([opt, path, "-o", "/dev/null",
                          "--tfuse-evaluate=max-memory-mb=64"], [], False))
    cmd, outputs, text = rng.choice(variants)
    return Case(category, name, cmd, [path], outputs, stdout_text=text)


def compile_case(runner, category, name, path, work, rng, target=None):
    bundle = os.path.join(work, "bundle")
    cmd = [runner.tool("tfuse-compile"), path, "-o", bundle, "--quiet",
           "--target", target or rng.choice(["h200", "a40", "l4"])]
    if rng.random() < 0.3:
        cmd.append("--no-fuse")
    if rng.random() < 0.3:
        cmd.append("--fused-attention")
    inputs = [path] + ([target] if target and os.path.isfile(target) else [])
    return Case(category, name, cmd, inputs, [("bundle", bundle)])


def gen_mlir_mutant(runner, rng, work, index, sources):
    src = rng.choice(sources)
    text = mutate_text(rng, read(src))
    path = write(os.path.join(work, "in.mlir"), text)
    name = f"{os.path.relpath(src, ROOT)} mutant"
    if rng.random() < 0.2 and len(text) < 20000:
        return compile_case(runner, "mlir-mutant", name, path, work, rng)
    return opt_cases(runner, "mlir-mutant", name, path, work, rng,
                     evaluate=len(text) < 8000)


def shape(dims, dtype="f32"):
    return "tensor<" + "".join(f"{d}x" for d in dims) + dtype + ">"


def huge_graph(rng):
    """A valid graph (if its sizes fit) with one hostile dimension."""
    big = rng.choice(HUGE)
    small = rng.choice([1, 4, 64, 768, 50257])
    dtype = rng.choice(["f32", "bf16", "f16"])
    kind = rng.randrange(6)
    if kind == 0:  # elementwise chain
        dims = rng.choice([[big], [big, small], [small, big], [2, big, 4]])
        t = shape(dims, dtype)
        body = (f"  %0 = tfuse.exp %x : {t}\n"
                f"  %1 = tfuse.add %0, %x : ({t}, {t}) -> {t}\n"
                f"  %2 = tfuse.gelu %1 approximate = tanh : {t}\n")
        return f"func.func @f(%x: {t}) -> {t} {{\n{body}  return %2 : {t}\n}}\n"
    if kind == 1:  # row op
        dims = rng.choice([[big, small], [small, big], [big, 1], [1, big]])
        t = shape(dims, dtype)
        op = rng.choice(["softmax", "rms"])
        if op == "softmax":
            body = f"  %0 = tfuse.softmax %x axis = 1 : {t}\n"
        else:
            g = shape([dims[1]], dtype)
            return (f"func.func @f(%x: {t}, %g: {g}) -> {t} {{\n"
                    f"  %0 = tfuse.rms_norm %x gamma %g eps = 1.0e-05 : "
                    f"({t}, {g}) -> {t}\n  return %0 : {t}\n}}\n")
        return f"func.func @f(%x: {t}) -> {t} {{\n{body}  return %0 : {t}\n}}\n"
    if kind == 2:  # matmul + bias + gelu
        m, k, n = (rng.choice([big, small, 64]) for _ in range(3))
        a, b, c, bias = (shape([m, k], dtype), shape([k, n], dtype),
                         shape([m, n], dtype), shape([n], dtype))
        return (f"func.func @f(%a: {a}, %b: {b}, %bias: {bias}) -> {c} {{\n"
                f"  %0 = tfuse.matmul %a, %b : ({a}, {b}) -> {c}\n"
                f"  %1 = tfuse.add %0, %bias : ({c}, {bias}) -> {c}\n"
                f"  %2 = tfuse.gelu %1 approximate = tanh : {c}\n"
                f"  return %2 : {c}\n}}\n")
    if kind == 3:  # attention
        b, h, s, d = (rng.choice([big, 1, 2, 64]) for _ in range(4))
        t = shape([b, h, s, d], dtype)
        return (f"func.func @f(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
                f"  %0 = tfuse.attention %q, %k, %v scale = 0.125 causal : "
                f"({t}, {t}, {t}) -> {t}\n  return %0 : {t}\n}}\n")
    if kind == 4:  # an example at a hostile batch
        src = rng.choice(sorted(p for p in os.listdir(
            os.path.join(ROOT, "examples")) if p.endswith(".small.mlir")))
        text = read(os.path.join(ROOT, "examples", src))
        return re.sub(r"(?<=[<x ])2x64x", f"{big}x64x", text)
    # zero-size and one-size dimensions through a split and a concat-free path
    dims = [rng.choice([0, 1, big]), rng.choice([0, 2, 4])]
    t = shape(dims, dtype)
    return (f"func.func @f(%x: {t}) -> {t} {{\n"
            f"  %0 = tfuse.relu %x : {t}\n"
            f"  %1 = tfuse.mul %0, %x : ({t}, {t}) -> {t}\n"
            f"  return %1 : {t}\n}}\n")


def gen_huge_sizes(runner, rng, work, index):
    path = write(os.path.join(work, "huge.mlir"), huge_graph(rng))
    if rng.random() < 0.35:
        return compile_case(runner, "huge-sizes", "huge graph", path, work,
                            rng)
    return opt_cases(runner, "huge-sizes", "huge graph", path, work, rng)


TARGET_VALUES = [5e-324, 1e-310, 0, -1, -0.0, 1e308, "1e999", "-1e999",
                 "NaN", "Infinity", 2**63, 2**64, -2**63, 1e-30, 1e30, 7,
                 "\"12\"", "null", "true", "[]", "{}", "\"\"", 0.5]
SM_ARCHES = ["sm_35", "sm_61", "sm_999", "sm_", "sm_90a", "SM_90", "compute_90",
             "sm_-1", "sm_9000000000000000000", "", "sm_80\u0000", "sm_100"]


def json_literal(value):
    return value if isinstance(value, str) else json.dumps(value)


def gen_target_json(runner, rng, work, index):
    base_name = rng.choice(sorted(os.listdir(os.path.join(ROOT, "targets"))))
    base = strict_json(read(os.path.join(ROOT, "targets", base_name)))
    kind = rng.randrange(7)
    fields = {k: json.dumps(v) for k, v in base.items()}
    if kind <= 2:  # numbers out of range
        numeric = [k for k, v in base.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for key in rng.sample(numeric, min(len(numeric), rng.randint(1, 2))):
            fields[key] = json_literal(rng.choice(TARGET_VALUES))
        text = "{" + ", ".join(f"{json.dumps(k)}: {v}"
                               for k, v in fields.items()) + "}"
    elif kind == 3:  # sm_arch
        fields["sm_arch"] = json.dumps(rng.choice(SM_ARCHES))
        text = "{" + ", ".join(f"{json.dumps(k)}: {v}"
                               for k, v in fields.items()) + "}"
    elif kind == 4:  # thousands of unknown keys
        extra = ", ".join(f'"unknown_{i}": {i}'
                          for i in range(rng.choice([2000, 20000])))
        text = json.dumps(base)[:-1] + ", " + extra + "}"
    elif kind == 5:  # deep nesting / huge strings / a removed field
        choice = rng.randrange(4)
        if choice == 0:
            depth = rng.choice([1000, 100000])
            text = json.dumps(base)[:-1] + ', "deep": ' + "[" * depth + \
                "]" * depth + "}"
        elif choice == 1:
            text = json.dumps(base)[:-1] + ', "name2": "' + \
                "x" * rng.choice([10**5, 5 * 10**6]) + '"}'
        elif choice == 2:
            key = rng.choice(sorted(base))
            del fields[key]
            text = "{" + ", ".join(f"{json.dumps(k)}: {v}"
                                   for k, v in fields.items()) + "}"
        else:
            text = " " * 3_000_000 + json.dumps(base)
    else:  # text mutants
        text = mutate_text(rng, json.dumps(base, indent=2))
    path = write(os.path.join(work, "target.json"), text)
    mlir = os.path.join(ROOT, "test/tools/tfuse-opt/Inputs/valid.mlir")
    if rng.random() < 0.3:
        small = os.path.join(ROOT, "test/tools/tfuse-compile/Inputs/"
                             "softmax-bias.mlir")
        case = compile_case(runner, "target-json", "target mutant", small,
                            work, rng, target=path)
        return case
    report = os.path.join(work, "report.json")
    opt = runner.tool("tfuse-opt")
    if rng.random() < 0.5:
        return Case("target-json", "target mutant",
                    [opt, mlir, "-o", "/dev/null",
                     f"--tfuse-traffic-report=targets={path} format=json "
                     f"output={report}"], [mlir, path], [("json", report)])
    out = os.path.join(work, "fused.mlir")
    return Case("target-json", "target mutant",
                [opt, mlir, "-o", out, f"--tfuse-fuse=target={path}"],
                [mlir, path], [("mlir", out)])


HF_VALUES = [2**31, 2**31 - 1, 2**32, 2**62, 2**63 - 1, 2**63, 0, -1, -2**31,
             3, 7, 1.5, "12", None, True, [], {}, 1e308, 1e-300]


def gen_hf_config(runner, rng, work, index):
    folder = os.path.join(ROOT, "test/tools/tfuse-import/Inputs")
    base_name = rng.choice(sorted(p for p in os.listdir(folder)
                                  if p.endswith(".json") and
                                  p != "malformed.json"))
    base = strict_json(read(os.path.join(folder, base_name)))
    numeric = [k for k, v in base.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
    kind = rng.randrange(5)
    if kind <= 1 and numeric:
        for key in rng.sample(numeric, min(len(numeric), rng.randint(1, 2))):
            base[key] = rng.choice(HF_VALUES)
        text = json.dumps(base)
    elif kind == 2 and base:
        del base[rng.choice(sorted(base))]
        text = json.dumps(base)
    elif kind == 3:  # heads that do not divide, layer counts of 2^31
        for key in base:
            if "head" in key and isinstance(base[key], int):
                base[key] = rng.choice([5, 7, 13, 2**31])
            if "layer" in key and isinstance(base[key], int):
                base[key] = rng.choice([2**31, 10**9, 0])
        text = json.dumps(base)
    else:
        text = mutate_text(rng, json.dumps(base, indent=2))
    path = write(os.path.join(work, "config.json"), text)
    out = os.path.join(work, "model.mlir")
    cmd = [runner.tool("tfuse-import"), "--hf-config", path, "-o", out,
           "--dtype", rng.choice(["bf16", "f32", "f16"])]
    if rng.random() < 0.4:
        cmd += ["--batch", str(rng.choice(HUGE[:6] + [1, 2, -1])),
                "--seq", str(rng.choice([1, 64, 2**31, 2**40, 128, 0]))]
    else:
        cmd += ["--batch", "1", "--seq", str(rng.choice([8, 64]))]
    if rng.random() < 0.3:
        cmd += ["--layers", str(rng.choice([1, 2, 2**31, 0]))]
    if rng.random() < 0.3:
        cmd.append("--lm-head")
    if rng.random() < 0.2:
        cmd.append("--print-params")
    return Case("hf-config", f"{base_name} mutant", cmd, [path],
                [("mlir", out)], stdout_text=True)


# A minimal protobuf writer for ONNX's ModelProto (onnx/onnx.proto field
# numbers): enough to write graphs the importer must check, and to break them.
def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, value, wire=None):
    if isinstance(value, bytes):
        return varint(number << 3 | 2) + varint(len(value)) + value
    if isinstance(value, str):
        return field(number, value.encode())
    if isinstance(value, float):
        return varint(number << 3 | 5) + struct.pack("<f", value)
    return varint(number << 3) + varint(value)


def onnx_dims(dims):
    shape = b"".join(field(1, field(1, d) if isinstance(d, int)
                               else field(2, d)) for d in dims)
    return field(1, field(1, 1) + field(2, shape))  # TypeProto.tensor_type


def onnx_value(name, dims):
    return field(1, name) + field(2, onnx_dims(dims))


def onnx_attr(name, value):
    if isinstance(value, float):
        return field(1, name) + field(2, value) + field(20, 1)
    if isinstance(value, int):
        return field(1, name) + field(3, value) + field(20, 2)
    if isinstance(value, str):
        return field(1, name) + field(4, value.encode()) + field(20, 3)
    return field(1, name) + b"".join(field(8, v) for v in value) + \
        field(20, 7)


def onnx_node(op, inputs, outputs, name, attrs=()):
    return (b"".join(field(1, i) for i in inputs) +
            b"".join(field(2, o) for o in outputs) + field(3, name) +
            field(4, op) + b"".join(field(5, onnx_attr(k, v))
                                    for k, v in attrs))


def onnx_tensor(name, dims, values=None, external=None, dtype=1):
    body = b"".join(field(1, d) for d in dims) + field(2, dtype) + \
        field(8, name)
    if external is not None:
        body += field(13, field(1, "location") + field(2, external)) + \
            field(14, 1)
    elif dtype == 7:
        body += field(7, b"".join(varint(v) for v in values))
    else:
        body += field(9, b"".join(struct.pack("<f", v) for v in values))
    return body


def onnx_model(nodes, inputs, outputs, inits=(), opset=17):
    graph = (b"".join(field(1, n) for n in nodes) + field(2, "g") +
             b"".join(field(5, t) for t in inits) +
             b"".join(field(11, v) for v in inputs) +
             b"".join(field(12, v) for v in outputs))
    return (field(1, 8) + field(2, "hostile-corpus") + field(7, graph) +
            field(8, field(1, "") + field(2, opset)))


def onnx_graph(rng, work):
    """A small valid-looking graph with one hostile change."""
    b = rng.choice([2, 1, 2**31, 2**40, 2**62, 0, -3, "batch"])
    n = rng.choice([4, 8, 0, 2**40])
    x = onnx_value("x", [b, n])
    y = onnx_value("y", [b, n])
    kind = rng.randrange(10)
    nodes = [onnx_node("Relu", ["x"], ["r"], "relu0"),
             onnx_node("Add", ["r", "x"], ["y"], "add0")]
    inits = []
    if kind == 0:  # a tensor produced twice
        nodes.append(onnx_node("Relu", ["x"], ["r"], "relu_again"))
    elif kind == 1:  # wrong operand counts
        nodes[0] = onnx_node("Relu", ["x"] * rng.choice([0, 2, 3]), ["r"],
                             "relu0")
    elif kind == 2:  # negative / overflowing split
        sizes = rng.choice([[-1, 5], [2**62, 2**62, 8 - 2**63], [0, 4], [9]])
        inits.append(onnx_tensor("sizes", [len(sizes)], sizes, dtype=7))
        nodes = [onnx_node("Split", ["x", "sizes"], ["s0", "s1"], "split0",
                           [("axis", 1)]),
                 onnx_node("Relu", ["s0"], ["y"], "relu0")]
    elif kind == 3:  # bad attributes
        attr = rng.choice([("axis", 2**40), ("axis", -2**63), ("axis", 1.5),
                           ("axis", "one"), ("epsilon", -1.0)])
        nodes = [onnx_node(rng.choice(["Softmax", "LayerNormalization",
                                       "Concat", "Transpose"]),
                           ["x"], ["y"], "bad_attr", [attr])]
    elif kind == 4:  # huge initializer declared, no data
        inits.append(onnx_tensor("w", [n, 2**40], []))
        nodes = [onnx_node("MatMul", ["x", "w"], ["y"], "mm0")]
    elif kind == 5:  # external data: a file outside the model
        target = rng.choice(["weights.bin", "../../../etc/passwd",
                             os.path.join(work, "model.onnx"), "/dev/zero"])
        inits.append(onnx_tensor("w", [n, n], external=target))
        nodes = [onnx_node("MatMul", ["x", "w"], ["y"], "mm0")]
    elif kind == 6:  # a cycle
        nodes = [onnx_node("Relu", ["y"], ["r"], "relu0"),
                 onnx_node("Add", ["r", "x"], ["y"], "add0")]
    elif kind == 7:  # reshape to a huge or negative shape
        dims = rng.choice([[2**62, 4], [-1, -1], [0, -1], [2**63 - 1]])
        inits.append(onnx_tensor("shape", [len(dims)], dims, dtype=7))
        nodes = [onnx_node("Reshape", ["x", "shape"], ["y"], "reshape0")]
    elif kind == 8:  # an output nobody produces, an unknown opset
        nodes = nodes[:1]
    opset = rng.choice([17, 13, 1, 99, -1]) if kind == 9 else 17
    return onnx_model(nodes, [x], [y], inits, opset)


def gen_onnx(runner, rng, work, index):
    path = os.path.join(work, "model.onnx")
    folder = os.path.join(ROOT, "test/tools/tfuse-import/Inputs/onnx")
    if rng.random() < 0.6:
        data = onnx_graph(rng, work)
        name = "generated graph"
    else:
        name = rng.choice(sorted(p for p in os.listdir(folder)
                                 if p.endswith(".onnx")))
        data = bytearray(read(os.path.join(folder, name), "rb"))
        name += " byte mutant"
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.3:
                data = data[:rng.randrange(len(data) + 1)]
            elif data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data)
    if rng.random() < 0.2:  # truncated protobuf
        data = data[:rng.randrange(len(data) + 1)]
    write(path, data)
    write(os.path.join(work, "weights.bin"), b"\0" * 64)
    out = os.path.join(work, "model.mlir")
    cmd = [runner.tool("tfuse-import"), "--onnx", path, "-o", out]
    if rng.random() < 0.3:
        cmd += ["--dim", f"batch={rng.choice([1, 2**31, 2**62, 0])}"]
    return Case("onnx", name, cmd, [path, os.path.join(work, "weights.bin")],
                [("mlir", out)])


class BundleSource:
    """A bundle compiled once per run, the parent of every bundle mutant."""

    def __init__(self, runner, out):
        self.path = os.path.join(out, "reference-bundle")
        src = os.path.join(ROOT, "test/tools/tfuse-compile/Inputs/"
                           "softmax-bias.mlir")
        shutil.rmtree(self.path, ignore_errors=True)  # from this build
        rc, _, err, _, _ = runner.run(
            [runner.tool("tfuse-compile"), src, "-o", self.path, "--quiet"],
            timeout=120)
        if rc != 0:
            sys.exit("cannot compile the reference bundle: " + err)
        self.plan = read(os.path.join(self.path, "plan.json"))


PLAN_VALUES = [-1, 0, 2**31, 2**62, INT64_MAX, INT64_MAX - 255, 2**63, 2**64,
               -2**63, 1.5, "\"x\"", "null", "[]", "1e999", "3"]


def gen_bundle(runner, rng, work, index, source):
    bundle = os.path.join(work, "bundle")
    shutil.copytree(source.path, bundle)
    plan_path = os.path.join(bundle, "plan.json")
    plan = source.plan
    kind = rng.randrange(8)
    if kind <= 2:  # a number replaced
        matches = list(re.finditer(r'(?<=: )-?\d+(\.\d+)?', plan))
        for m in sorted(rng.sample(matches, min(len(matches),
                                                rng.randint(1, 2))),
                        key=lambda m: -m.start()):
            plan = plan[:m.start()] + json_literal(
                rng.choice(PLAN_VALUES)) + plan[m.end():]
    elif kind == 3:  # a list shortened or lengthened
        matches = list(re.finditer(r"\[([^\[\]]*)\]", plan))
        if matches:
            m = rng.choice(matches)
            items = [s for s in m.group(1).split(",") if s.strip()]
            if items and rng.random() < 0.5:
                items.pop(rng.randrange(len(items)))
            else:
                items.append(rng.choice([" 0", " 99", ' "read"', " -1"]))
            plan = plan[:m.start(1)] + ",".join(items) + plan[m.end(1):]
    elif kind == 4:  # a string replaced
        matches = list(re.finditer(r'(?<=: )"[^"]*"', plan))
        m = rng.choice(matches)
        plan = plan[:m.start()] + json.dumps(rng.choice(
            ["read", "write", "read_write", "", "../plan.json", "kernels.ptx",
             "fnv1a64:0000000000000000", "f64", "temp", "output", "input",
             "sm_999", "x" * 5000])) + plan[m.end():]
    elif kind == 5:  # a torn bundle: the PTX changed or removed
        ptx = os.path.join(bundle, "kernels.ptx")
        if rng.random() < 0.5:
            os.remove(ptx)
        else:
            text = read(ptx)
            write(ptx, mutate_text(rng, text) if rng.random() < 0.5 else
                  text + "\n// another compile\n")
    elif kind == 6:  # PTX mutants with a matching hash
        ptx = os.path.join(bundle, "kernels.ptx")
        text = mutate_text(rng, read(ptx))
        write(ptx, text)
        digest = fnv1a64(text.encode())
        plan = re.sub(r'"ptx_hash": "[^"]*"',
                      f'"ptx_hash": "fnv1a64:{digest:016x}"', plan)
    else:
        plan = mutate_text(rng, plan)
    if plan is not source.plan:
        write(plan_path, plan)
    tool = runner.tool("tfuse-run")
    cmd = [tool, bundle] + rng.choice([["--validate"], [], ["--check"],
                                       ["--bench", "--reps", "1"]])
    return Case("bundle", f"plan mutant {kind}", cmd, [bundle])


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def gen_output_paths(runner, rng, work, index, source):
    """An output option aimed at an input, a read-only dir, or a full disk."""
    mlir = write(os.path.join(work, "in.mlir"),
                 read(os.path.join(ROOT, "test/tools/tfuse-compile/Inputs/"
                                   "softmax-bias.mlir")))
    target = write(os.path.join(work, "a40.json"),
                   read(os.path.join(ROOT, "targets/a40.json")))
    config = write(os.path.join(work, "gpt2.json"),
                   read(os.path.join(ROOT, "test/tools/tfuse-import/Inputs/"
                                     "gpt2.json")))
    victims = {"mlir": mlir, "target": target, "config": config}
    victim_kind = rng.choice(sorted(victims))
    victim = victims[victim_kind]
    spelling = rng.randrange(5)
    if spelling == 0:
        aim = victim
    elif spelling == 1:
        aim = os.path.join(work, "sub", "..", os.path.basename(victim))
        os.makedirs(os.path.join(work, "sub"), exist_ok=True)
    elif spelling == 2:
        aim = os.path.join(work, "link-" + os.path.basename(victim))
        os.symlink(victim, aim)
    elif spelling == 3:
        aim = os.path.join(work, "hard-" + os.path.basename(victim))
        os.link(victim, aim)
    else:
        aim = "./" + os.path.basename(victim)
    opt, comp, imp = (runner.tool(t) for t in
                      ("tfuse-opt", "tfuse-compile", "tfuse-import"))
    inputs = [mlir, target, config]
    fsize = None
    previous = None
    mode = rng.randrange(4)
    if mode == 3:  # read-only folder or a tiny file-size limit
        ro = os.path.join(work, "ro")
        os.makedirs(ro)
        read_only = rng.random() < 0.5
        aim = os.path.join(ro if read_only else work, "out")
        if read_only and os.geteuid() == 0:
            # Permissions do not stop root: a path under a regular file
            # cannot be created either.
            aim = os.path.join(write(os.path.join(work, "file"), "x"), "out")
        if not read_only:
            fsize = rng.choice([0, 512, 4096, 65536])
        if rng.random() < 0.5 and not os.path.isfile(os.path.dirname(aim)):
            shutil.copytree(source.path, aim)
            previous = aim
        if read_only:
            os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    fuse = f"--tfuse-fuse=target={target}"
    choices = [
        [opt, mlir, "-o", aim, fuse],
        [opt, mlir, "-o", "/dev/null", f"--log-actions-to={aim}", fuse],
        [opt, mlir, "-o", "/dev/null", f"--mlir-generate-reproducer={aim}", fuse],
        [opt, mlir, "-o", "/dev/null",
         f"--mlir-pass-pipeline-crash-reproducer={aim}", fuse],
        [opt, mlir, "-o", "/dev/null", f"--remarks-output-file={aim}",
         "--remark-format=yaml", "--remark-policy=all", fuse],
        [opt, mlir, "-o", "/dev/null", f"--profile-actions-to={aim}", fuse],
        [opt, mlir, "-o", "/dev/null", f"--mlir-print-ir-tree-dir={aim}",
         "--mlir-print-ir-after-all", fuse],
        [opt, mlir, "-o", "/dev/null", f"--info-output-file={aim}",
         "--mlir-timing", fuse],
        [opt, mlir, "-o", "/dev/null",
         f"--tfuse-traffic-report=targets={target} format=json "
         f"output={aim}"],
        [opt, mlir, "-o", aim, f"--tfuse-fuse=target={target}"],
        [comp, mlir, "-o", aim, "--target", target, "--quiet"],
        [comp, mlir, "-o", os.path.join(work, "bundle-out"),
         "--dump-dir", os.path.dirname(aim) if spelling != 4 else ".",
         "--target", target, "--quiet"],
    ]
    importer = [imp, "--hf-config", config, "--batch", "1", "--seq", "8",
                "--dtype", "f32"]
    if victim_kind == "config":  # only the importer reads it
        choices = [importer + ["-o", aim],
                   importer + ["-o", os.path.join(work, "m.mlir"),
                               f"--info-output-file={aim}"]]
    cmd = rng.choice(choices)
    outputs = []
    # The tools run in `work`: a relative output path ("./a40.json") is
    # checked and prepared there, never in this script's own directory.
    def in_work(path):
        return os.path.join(work, path)
    if previous is None and cmd[0] == comp and rng.random() < 0.5 and \
            not os.path.exists(in_work(cmd[3])) and \
            os.path.isdir(os.path.dirname(in_work(cmd[3]))):
        shutil.copytree(source.path, in_work(cmd[3]))
        previous = in_work(cmd[3])
    if cmd[0] == comp:
        outputs = [("bundle", in_work(cmd[3]))]
    elif cmd[0] == imp:
        outputs = [("mlir", in_work(cmd[cmd.index("-o") + 1]))]
    return Case("output-paths", f"output aimed at {victim_kind} "
                f"(spelling {spelling}, mode {mode})", cmd, inputs, outputs,
                cwd=work, fsize=fsize, previous_bundle=previous)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def make_case(runner, seed, index, categories, out, sources, source):
    rng = random.Random(f"{seed}:{index}")
    category = categories[index % len(categories)]
    work = os.path.join(out, "cases", f"{index:05d}-{category}")
    if os.path.exists(work):
        for dirpath, dirnames, _ in os.walk(work):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o755)
        shutil.rmtree(work)
    os.makedirs(work)
    if category == "mlir-mutant":
        case = gen_mlir_mutant(runner, rng, work, index, sources)
    elif category == "huge-sizes":
        case = gen_huge_sizes(runner, rng, work, index)
    elif category == "target-json":
        case = gen_target_json(runner, rng, work, index)
    elif category == "hf-config":
        case = gen_hf_config(runner, rng, work, index)
    elif category == "onnx":
        case = gen_onnx(runner, rng, work, index)
    elif category == "bundle":
        case = gen_bundle(runner, rng, work, index, source)
    else:
        case = gen_output_paths(runner, rng, work, index, source)
    case.index = index
    case.work = work
    return case


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--count", type=int, default=700)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first case (to rerun one)")
    parser.add_argument("--out", default=None)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--category", action="append", choices=CATEGORIES)
    parser.add_argument("--keep", action="store_true",
                        help="keep the files of cases that passed")
    args = parser.parse_args()
    runner = Runner(args.build, args.timeout)
    for tool in ("tfuse-opt", "tfuse-compile", "tfuse-import"):
        if not os.path.exists(runner.tool(tool)):
            sys.exit(f"no {runner.tool(tool)}: build first")
    categories = args.category or CATEGORIES
    if not runner.has_run and "bundle" in categories:
        categories = [c for c in categories if c != "bundle"]
        print("no tfuse-run in the build: skipping the bundle category")
    out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="hostile-"))
    os.makedirs(out, exist_ok=True)
    sources = mlir_sources()
    source = BundleSource(runner, out)

    start = time.time()
    results = []

    def one(index):
        case = make_case(runner, args.seed, index, categories, out, sources,
                         source)
        result = execute(runner, case)
        result["index"] = index
        result["rerun"] = (f"scripts/hostile-corpus.py --seed {args.seed} "
                           f"--first {index} --count 1" +
                           "".join(f" --category {c}" for c in categories))
        if result["verdict"] in ("ok", "refused") and not args.keep:
            for dirpath, dirnames, _ in os.walk(case.work):
                for d in dirnames:
                    os.chmod(os.path.join(dirpath, d), 0o755)
            shutil.rmtree(case.work, ignore_errors=True)
        return result

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(one, range(args.first,
                                          args.first + args.count)):
            results.append(result)
            if result["verdict"] not in ("ok", "refused"):
                print(f"[{result['index']}] {result['category']}: "
                      f"{result['verdict']}: {result['command']}\n    " +
                      "; ".join(result["problems"]) +
                      ("\n    " + result["stderr"].strip()[-400:]
                       if result["verdict"] == "crash" else ""),
                      flush=True)

    summary = {"seed": args.seed, "first": args.first, "count": args.count,
               "build": os.path.abspath(args.build),
               "seconds": round(time.time() - start, 1), "categories": {}}
    failures = [r for r in results if r["verdict"] not in ("ok", "refused")]
    for category in categories:
        mine = [r for r in results if r["category"] == category]
        counts = {}
        for r in mine:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        summary["categories"][category] = {"cases": len(mine), **counts}
    summary["failures"] = failures
    summary["results"] = [
        {k: (v[-300:] if k == "stderr" else v) for k, v in r.items()}
        for r in results if r not in failures]
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    lines = [f"hostile corpus: seed {args.seed}, cases {args.first}.."
             f"{args.first + args.count - 1}, {summary['seconds']} s, "
             f"build {summary['build']}",
             f"{'category':<14} {'cases':>6} {'refused':>8} {'ok':>6} "
             f"{'failed':>7}"]
    for category, c in summary["categories"].items():
        failed = c["cases"] - c.get("refused", 0) - c.get("ok", 0)
        lines.append(f"{category:<14} {c['cases']:>6} {c.get('refused', 0):>8}"
                     f" {c.get('ok', 0):>6} {failed:>7}")
    total = len(results)
    lines.append(f"{'total':<14} {total:>6} "
                 f"{sum(r['verdict'] == 'refused' for r in results):>8} "
                 f"{sum(r['verdict'] == 'ok' for r in results):>6} "
                 f"{len(failures):>7}")
    for r in failures:
        lines.append(f"\n[{r['index']}] {r['category']} {r['verdict']}: "
                     f"{r['name']}\n  cd {r['cwd'] or '.'} && {r['command']}"
                     f"\n  " + "; ".join(r["problems"]) +
                     f"\n  rerun: {r['rerun']}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    print(f"(files under {out})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
