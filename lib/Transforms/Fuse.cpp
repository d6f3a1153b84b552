//===- Fuse.cpp - the tfuse-fuse pass ---------------------------*- C++ -*-===//
//
// Wiring only: load the target, plan each function's fusions, emit the
// decisions as remarks, rewrite.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Transforms/FusionPlanner.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/Remarks.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEFUSE
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

void remarkDecision(func::FuncOp func, const FusionDecision &decision) {
  auto opts = remark::RemarkOpts::name(decision.fused ? "fused" : "not-fused")
                  .category("tfuse-fuse")
                  .subCategory(stringifyFusionKind(decision.kind))
                  .function(func.getSymName());
  Location loc = decision.producer->getLoc();
  if (decision.fused)
    remark::passed(loc, opts) << decision.reason;
  else
    remark::missed(loc, opts)
        << (decision.rule.empty() ? decision.reason
                                  : decision.rule + ": " + decision.reason);
}

struct TFuseFusePass : mlir::tfuse::impl::TFuseFuseBase<TFuseFusePass> {
  using TFuseFuseBase::TFuseFuseBase;

  void runOnOperation() override {
    FailureOr<std::vector<GpuTarget>> targets =
        resolveTargets(getOperation().getLoc(), {target.getValue()});
    if (failed(targets))
      return signalPassFailure();
    if (failed(fuseModule(getOperation(), targets->front())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::tfuse::fuseModule(ModuleOp module,
                                      const GpuTarget &target) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FailureOr<FusionPlan> plan = planFusion(func, target);
    if (failed(plan))
      return failure();
    for (const FusionDecision &decision : plan->decisions)
      remarkDecision(func, decision);
    materializeFusionPlan(func, *plan, target);
  }
  return success();
}
