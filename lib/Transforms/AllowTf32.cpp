//===- AllowTf32.cpp - the tfuse-allow-tf32 pass ----------------*- C++ -*-===//
//
// Marks every f32 tfuse.matmul `tf32`, as PyTorch's allow_tf32 does for
// every f32 matrix product of a program.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Transforms/Passes.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEALLOWTF32
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

struct TFuseAllowTf32Pass
    : mlir::tfuse::impl::TFuseAllowTf32Base<TFuseAllowTf32Pass> {
  void runOnOperation() override {
    getOperation()->walk([](MatmulOp matmul) {
      if (matmul.getLhs().getType().getElementType().isF32())
        matmul.setTf32(true);
    });
  }
};

} // namespace
