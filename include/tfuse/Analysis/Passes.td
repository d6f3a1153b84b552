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
    stream i of `seed`), runs the ops with the CPU reference semantics of
    lib/Reference, and prints one line per result:

    ```
    @layer result 0: [2, 64, 1024] bf16 sum=-1.234567e+01 max_abs=3.500000e+00 hash=0x1234abcd5678ef90
    ```

    The hash is FNV-1a over the result's bytes in its element type, so two
    graphs that print the same hash computed bit-identical results: a test
    shows a transformation preserves semantics by comparing the lines before
    and after it. The IR is left unchanged.
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "0",
           "Seed of the random inputs">,
    Option<"function", "function", "std::string", "\"\"",
           "Evaluate only this function (default: all)">
  ];
}

#endif // TFUSE_ANALYSIS_PASSES_TD
