//===- Unfuse.cpp - the tfuse-unfuse pass -----------------------*- C++ -*-===//
//
// Inlines every tfuse.fusion region in front of the fusion op.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEUNFUSE
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

void inlineFusion(FusionOp fusion) {
  OpBuilder builder(fusion);
  IRMapping mapping;
  mapping.map(fusion.getBody().getArguments(), fusion.getInputs());
  for (Operation &op : fusion.getBody().front().without_terminator())
    builder.clone(op, mapping);
  SmallVector<Value> results;
  for (Value value : fusion.getYield().getValues())
    results.push_back(mapping.lookup(value));
  fusion->replaceAllUsesWith(results);
  fusion->erase();
}

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
