//===- Unfuse.cpp - the tfuse-unfuse pass -----------------------*- C++ -*-===//
//
// Inlines every tfuse.fusion region in front of the fusion op.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Transforms/Passes.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEUNFUSE
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

struct TFuseUnfusePass : mlir::tfuse::impl::TFuseUnfuseBase<TFuseUnfusePass> {
  void runOnOperation() override {
    SmallVector<FusionOp> fusions;
    getOperation()->walk([&](FusionOp fusion) { fusions.push_back(fusion); });
    for (FusionOp fusion : fusions)
      inlineFusion(fusion);
    getOperation()->walk([](func::FuncOp func) {
      func->removeAttr(TFuseDialect::getFusionDecisionsAttrName());
    });
  }
};

} // namespace
