//===- TFuseOps.h - tfuse operations ----------------------------*- C++ -*-===//
//
// The tfuse operations, their enums and shape helpers shared by verifiers and
// passes.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEOPS_H
#define TFUSE_DIALECT_TFUSE_TFUSEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseEnums.h.inc"
#include "tfuse/Support/CheckedInt.h"

#include <optional>
#include <string>

namespace mlir::tfuse {

/// Formats a shape as `[2, 64, 1024]` for diagnostics and reports.
std::string formatShape(ArrayRef<int64_t> shape);

/// The numpy broadcast of two shapes (trailing-aligned, size-1 stretches), or
/// nullopt when they are incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b);

/// What kind of kernel an op is, for the cost model and reports.
enum class OpClass {
  Contraction, ///< matmul and attention: may run on tensor cores
  Elementwise, ///< one output element from one element of each input
  Reduction,   ///< reduce, softmax, normalisations: rows reduced in a kernel
  Layout,      ///< data movement: transpose, slice, split, concat, gather
  View,        ///< reinterpretation without a kernel (reshape)
  Constant,    ///< materialised by the compiler, no kernel
  Optimizer,   ///< parameter updates (adamw, sgd): never fused with others
  Collective,  ///< all_reduce, reduce_scatter, all_gather: never in a kernel
};

/// The most ranks a collective's group_size may name (2^20): far past any
/// interconnect, and small enough for the ring arithmetic of CommCost.h.
inline constexpr int64_t kMaxGroupSize = int64_t(1) << 20;

/// "contraction", "elementwise", ... as printed in reports.
StringRef stringifyOpClass(OpClass opClass);

/// "f32", "bf16", "f16", "i32", "i64" as reports and plans name them.
std::string formatElementType(Type type);

/// Bytes of a tensor value: elements times the element size, checked.
CheckedInt getCheckedTensorBytes(Value value);

/// Bytes of an operand or result of a verified tfuse op, whose element count
/// the verifier bounded by kMaxTensorElements (so the product fits).
int64_t getTensorBytes(Value value);

/// The cost interface's verifier: every operand and result has at most
/// kMaxTensorElements elements, and the op's bytes read, bytes written, their
/// sum and its FLOPs fit in int64; else an error at the op.
LogicalResult verifyCostFits(Operation *op);

/// The same bound for the arguments of `func`, which no tfuse op verifies
/// when nothing uses them: an error at the function for the first too large.
LogicalResult verifyArgumentSizes(func::FuncOp func);

} // namespace mlir::tfuse

#include "tfuse/Dialect/TFuse/TFuseInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tfuse/Dialect/TFuse/TFuseOps.h.inc"

namespace mlir::tfuse {

/// Clones `fusion`'s body in front of it, replaces its results and erases it
/// (tfuse-unfuse, and the reports' unfused baseline).
void inlineFusion(FusionOp fusion);

} // namespace mlir::tfuse

#endif // TFUSE_DIALECT_TFUSE_TFUSEOPS_H
