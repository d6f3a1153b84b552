//===- ReferenceEvaluator.h - run tfuse IR on the CPU reference -*- C++ -*-===//
//
// Evaluates tfuse functions with the MLIR-free reference semantics of
// lib/Reference, so that tests can compare graphs before and after a rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_ANALYSIS_REFERENCEEVALUATOR_H
#define TFUSE_ANALYSIS_REFERENCEEVALUATOR_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "tfuse/Reference/Reference.h"

#include <vector>

namespace mlir::tfuse {

/// The reference dtype of a tensor type's element type; fails (with a
/// diagnostic at `loc`) for element types the reference does not know.
FailureOr<ref::DType> toReferenceDType(Location loc, Type elementType);

/// Evaluates `func` on `arguments` (one per function argument, of matching
/// shapes) and returns the values of its `func.return`. Emits a diagnostic at
/// the offending op and fails on ops that have no reference semantics.
FailureOr<std::vector<ref::Tensor>>
evaluateFunction(func::FuncOp func, ArrayRef<ref::Tensor> arguments);

} // namespace mlir::tfuse

#endif // TFUSE_ANALYSIS_REFERENCEEVALUATOR_H
