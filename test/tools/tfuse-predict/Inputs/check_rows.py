"""Checks the arithmetic of every row tfuse-predict --format=json prints:
steps/s = 1 / step time, tokens/s = batch x seq x steps/s, model TFLOP/s =
model FLOPs x steps/s / GPUs, the step is embeddings + layers x layer +
head + optimizer (or the whole step + optimizer; the optimizer's share on
one GPU under ZeRO) + the exposed communication,
memory_gb = memory_bytes / 1e9 and fits = memory <= capacity.
Prints one line per row; raises on the first row that disagrees."""

import json
import sys


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-30)


def pipelined(r):
    """A pipelined step: its bubble is (stages - 1) / micro-batches of its
    compute, and the step holds compute, bubble and sends."""
    p = r["parallel"]
    stages, micro = p["pipeline"], p["micro_batches"]
    bubble_ok = close(p["bubble_ms"],
                      p["pipeline_compute_ms"] * (stages - 1) / micro)
    parts = p["pipeline_compute_ms"] + p["bubble_ms"] + p["send_ms"]
    return bubble_ok and r["step_ms"] >= parts * (1 - 1e-9)


def main():
    rows = json.load(sys.stdin)["rows"]
    for index, r in enumerate(rows):
        step_s = r["step_ms"] / 1e3
        parts = r["parts_us"]
        parallel = r["parallel"]
        optimizer = parts["optimizer"]
        if parallel["zero"] > 0:
            optimizer /= parallel["data"]
        composed = (parts["embeddings"] + r["layers"] * parts["layer"] +
                    parts["head"] + parts["whole"] + optimizer +
                    parallel["exposed_communication_ms"] * 1e3)
        if (r["graph"] == "whole") != (parts["whole"] > 0):
            raise SystemExit("row %d: graph %s with parts %s" %
                             (index, r["graph"], parts))
        checks = {
            "steps/s": close(r["steps_per_s"], 1 / step_s),
            "tokens/s": close(r["tokens_per_s"],
                              r["batch"] * r["seq"] * r["steps_per_s"]),
            "TFLOP/s": close(r["model_tflops_per_s"],
                             r["model_flops"] * r["steps_per_s"] / 1e12 /
                             parallel["gpus"]),
            "gpus": parallel["gpus"] == parallel["tensor"] *
            parallel["pipeline"] * parallel["data"],
            "exposed": parallel["exposed_communication_ms"] <=
            parallel["communication_ms"] * (1 + 1e-9),
            "step": close(composed, r["step_ms"] * 1e3)
            if parallel["pipeline"] == 1 else pipelined(r),
            "memory": close(r["memory_gb"], r["memory_bytes"] / 1e9),
            "fits": r["fits"] == (r["memory_gb"] <= r["capacity_gb"]),
            "state": r["state_bytes"] <= r["memory_bytes"],
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise SystemExit("row %d (%s %s): %s disagree" %
                             (index, r["target"], r["variant"], ", ".join(bad)))
        print("row %d %s %s %s %s: consistent" %
              (index, r["target"], r["variant"], r["recompute"], r["graph"]))


if __name__ == "__main__":
    main()
