//===- Autodiff.cpp - the tfuse-autodiff pass -------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Wiring only: parse the options and build each function's training step
// (Gradients/TrainingStep.cpp; the rules live in Gradients/*Gradients.cpp).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Transforms/Autodiff.h"
#include "tfuse/Transforms/Passes.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEAUTODIFF
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

struct TFuseAutodiffPass
    : mlir::tfuse::impl::TFuseAutodiffBase<TFuseAutodiffPass> {
  using TFuseAutodiffBase::TFuseAutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AutodiffOptions options;
    std::optional<LossKind> lossKind = parseLossKind(loss);
    if (!lossKind) {
      module.emitError() << "tfuse-autodiff: unknown loss '" << loss
                         << "' (expected seed, mse or cross-entropy)";
      return signalPassFailure();
    }
    std::optional<RecomputePolicy> policy = parseRecomputePolicy(recompute);
    if (!policy) {
      module.emitError() << "tfuse-autodiff: unknown recompute policy '"
                         << recompute
                         << "' (expected none, norms-and-elementwise or full)";
      return signalPassFailure();
    }
    options.loss = *lossKind;
    options.recompute = *policy;
    options.noGrad.assign(noGrad.begin(), noGrad.end());
    options.fusedAttention = fusedAttention;

    SmallVector<func::FuncOp> forwards;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(getTrainingStepAttrName()) &&
          (function.empty() || func.getSymName() == function))
        forwards.push_back(func);
    if (!function.empty() && forwards.empty()) {
      module.emitError() << "tfuse-autodiff: no function '" << function
                         << "' with a body";
      return signalPassFailure();
    }
    for (func::FuncOp forward : forwards)
      if (failed(buildTrainingStep(forward, options)))
        return signalPassFailure();
  }
};

} // namespace
