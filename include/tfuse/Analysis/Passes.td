//===- Passes.td - tfuse analysis passes -------------------*- tablegen -*-===//
//
// Passes that inspect a graph and print what they find; they never change it.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_ANALYSIS_PASSES_TD
#define TFUSE_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TFuseEvaluate : Pass<"tfuse-evaluate", "::mlir::ModuleOp"> {
  let summary = "Evaluate every function on seeded random inputs with the CPU "
                "reference and print a digest of each result";
  let description = [{
    Fills each argument of each function with deterministic random values
    (floats uniform in [-1, 1), indices uniform in [0, 1024); argument i uses
    stream i of `seed`), turns the function into the reference graph a
    bundle's steps carry (tfuse/Analysis/ReferenceGraph.h, fusions inlined),
    evaluates it with the interpreter `tfuse-run --check` uses (the CPU
    reference semantics of lib/Reference), and prints one line per result:

    ```
    @layer result 0: [2, 64, 1024] bf16 sum=-1.234567e+01 max_abs=3.500000e+00 hash=0x1234abcd5678ef90
    ```

    The hash is FNV-1a over the result's bytes in its element type, so two
    graphs that print the same hash computed bit-identical results: a test
    shows a transformation preserves semantics by comparing the lines before
    and after it. The IR is left unchanged.

    The reference keeps every value of the graph, as doubles: a function
    needs 8 bytes per element of its arguments, of every op's results and of
    its returned values. A function whose estimate exceeds `max-memory-mb`
    (default 8192 MiB) is refused with the figure, before anything is
    allocated.
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "0",
           "Seed of the random inputs">,
    Option<"maxMemoryMB", "max-memory-mb", "uint64_t", "8192",
           "Refuse functions whose reference values need more MiB">,
    Option<"function", "function", "std::string", "\"\"",
           "Evaluate only this function (default: all)">
  ];
}

def TFuseTrafficReport : Pass<"tfuse-traffic-report", "::mlir::ModuleOp"> {
  let summary = "Report the memory traffic and roofline time of every op on "
                "one or more GPU targets";
  let description = [{
    For every op of every function: its class, operand and result shapes,
    the bytes it reads and writes and the FLOPs it performs when it runs as
    its own kernel, its arithmetic intensity, and per target the predicted
    time and what bounds it (memory, compute or launch). Then totals, the
    share of time that is bandwidth-bound, a comparison of every target
    against the first one (how much of the difference its memory system and
    its peak FLOP/s would each explain), and optionally a bandwidth sweep.
    The model and its formulas are in docs/cost-model.md; the JSON schema is
    in docs/report-schema.md.

    ```
    tfuse-opt layer.mlir -o /dev/null \
      --tfuse-traffic-report='targets=a40,l40s format=json output=r.json'
    ```

    A target is a name from the targets/ directory (a40, l40s, h200, ...) or
    the path of a JSON file in the same schema. With `measured=results.json`
    (written by `tfuse-run --json --bench` for a bundle compiled from the same
    IR), every measured kernel is shown next to its prediction; the results'
    target must be one of `targets`. The IR is left unchanged.
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "GPU targets: names (a40, l40s, h200, ...) or paths to JSON "
               "target files; the first is the baseline of comparisons">,
    Option<"format", "format", "std::string", "\"text\"",
           "text, json or html">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the report (- for stdout)">,
    Option<"sweepBandwidth", "sweep-bandwidth", "std::string", "\"\"",
           "START:STOP:STEP in GB/s: predicted time at each datasheet "
           "bandwidth, everything else held">,
    ListOption<"measured", "measured", "std::string",
               "Results files of `tfuse-run --json --bench`: each kernel's "
               "measured time, achieved GB/s and prediction error, matched "
               "to the report's kernels by id">
  ];
}

#endif // TFUSE_ANALYSIS_PASSES_TD
