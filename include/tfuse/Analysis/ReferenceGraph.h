//===- ReferenceGraph.h - tfuse ops as a reference graph --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one translation of tfuse ops into the graphs of the MLIR-free reference
// interpreter (tfuse/Reference/Interpreter.h): `--tfuse-evaluate` builds a
// whole function's graph with it, and a bundle's plan.json carries one graph
// per step (docs/bundle.md, "ops: the reference graph of a step"). The op
// names and attributes are exactly those the interpreter reads, so what is
// evaluated at compile time and what the runtime checks against cannot drift
// apart.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_ANALYSIS_REFERENCEGRAPH_H
#define TFUSE_ANALYSIS_REFERENCEGRAPH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "tfuse/Reference/Interpreter.h"

#include "llvm/Support/JSON.h"

#include <vector>

namespace mlir::tfuse {

/// The reference dtype of a tensor type's element type; fails (with a
/// diagnostic at `loc`) for element types the reference does not know.
FailureOr<ref::DType> toReferenceDType(Location loc, Type elementType);

/// Builds the graph that computes `yields` from `arguments` with `ops`, in
/// order. Graph values are numbered as in plan.json: `arguments` first (a
/// value given twice keeps its first number), then each op's results. A
/// `tfuse.fusion` in `ops` is inlined: its block arguments take the numbers
/// of its operands, its body ops become graph ops and its results are the
/// values its `tfuse.yield` gives. Every operand of `ops` must be an argument
/// or a result of an earlier op, and so must every yield.
///
/// A step of a bundle is `(step inputs, {op}, step outputs)`; for a fusion
/// step, `(body arguments, body ops without the yield, yielded values)`
/// numbers the values exactly as plan.json always has.
///
/// When `sources` is given, it receives the op each graph op was built from
/// (for an inlined fusion, the op of its body), to locate the interpreter's
/// "op N (...)" errors with locatedGraphError. Fails with a diagnostic at the
/// offending op for ops without reference semantics, element types the
/// reference does not know and constants that are not dense.
FailureOr<ref::RefGraph>
buildReferenceGraph(ValueRange arguments, ArrayRef<Operation *> ops,
                    ValueRange yields,
                    SmallVectorImpl<Operation *> *sources = nullptr);

/// The graph of a function's body: its arguments, every op but the
/// terminator, and the terminator's operands.
FailureOr<ref::RefGraph>
buildReferenceGraph(func::FuncOp func,
                    SmallVectorImpl<Operation *> *sources = nullptr);

/// Reports an error of the interpreter on a graph built with `sources`: an
/// "op N (name): message" error is emitted at sources[N] as an op error with
/// the message, anything else at `fallback`.
InFlightDiagnostic locatedGraphError(StringRef error,
                                     ArrayRef<Operation *> sources,
                                     Location fallback);

/// Evaluates the body of `func` on `arguments` (one per function argument, of
/// its type) with the reference interpreter and returns the values of its
/// terminator; every error is a diagnostic at the op that caused it.
FailureOr<std::vector<ref::Tensor>>
evaluateFunction(func::FuncOp func, ArrayRef<ref::Tensor> arguments);

} // namespace mlir::tfuse

#endif // TFUSE_ANALYSIS_REFERENCEGRAPH_H
