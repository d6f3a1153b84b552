//===- FusionPlanner.h - choose which ops to fuse, and say why --*- C++ -*-===//
//
// Groups the ops of a function into the kernels code generation can emit
// (loop, row-reduction, GEMM-epilogue), merging a producer into a consumer
// only when that is legal and the cost model of the target predicts the
// fused kernel to be faster. Every merge considered is recorded as a
// decision with its rule or its numbers.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_FUSIONPLANNER_H
#define TFUSE_TRANSFORMS_FUSIONPLANNER_H

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Target/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tfuse {

/// The cost of a set of ops run as one kernel, or as separate kernels.
struct GroupCost {
  int64_t bytes = 0;
  int64_t flops = 0;
  double timeUs = 0;
};

/// `a` and `b` together (two kernels run one after the other), or nothing
/// when their bytes or FLOPs overflow int64.
std::optional<GroupCost> addGroupCosts(const GroupCost &a, const GroupCost &b);

/// One group of ops that becomes one tfuse.fusion (one kernel).
struct FusionGroup {
  FusionKind kind = FusionKind::loop;
  /// Members in program order.
  SmallVector<Operation *> ops;
  /// Unfused: every member its own kernel. Fused: one kernel.
  GroupCost unfused, fused;
};

/// One merge the planner considered.
struct FusionDecision {
  bool fused = false;
  FusionKind kind = FusionKind::loop;
  Operation *producer = nullptr; ///< the op considered for the kernel
  Operation *consumer = nullptr; ///< the kernel's anchor op
  /// Legality rule that refused the merge ("" when legal).
  std::string rule;
  /// One sentence: why fused or not, with the numbers.
  std::string reason;
  /// Cost of the two kernels apart and of the merged kernel.
  GroupCost apart, merged;
};

struct FusionPlan {
  std::vector<FusionGroup> groups;
  std::vector<FusionDecision> decisions;
};

/// Plans the fusions of `func`'s top-level ops for `target`; fails, with an
/// error at the op, when the costs of the kernels it compares overflow int64.
/// The copies of recomputed producers are inserted into `func` already,
/// each next to its original.
FailureOr<FusionPlan> planFusion(func::FuncOp func, const GpuTarget &target);

/// Rewrites every group of `plan` into a tfuse.fusion with its bookkeeping
/// attributes, and records the decisions on `func` (attribute
/// `tfuse.fusion_decisions`).
void materializeFusionPlan(func::FuncOp func, const FusionPlan &plan,
                           const GpuTarget &target);

/// What tfuse-fuse does, for a target already loaded: plans, remarks and
/// rewrites every function of `module`.
LogicalResult fuseModule(ModuleOp module, const GpuTarget &target);

/// "tfuse.gelu at file.mlir:3:8".
std::string describeOp(Operation *op);

} // namespace mlir::tfuse

#endif // TFUSE_TRANSFORMS_FUSIONPLANNER_H
