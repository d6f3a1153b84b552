//===- LowerToGPU.cpp - the tfuse-lower-to-gpu pass -------------*- C++ -*-===//
//
// Emits every function's kernels into a gpu.module of its own and records on
// each top-level op the kernel or GEMM that computes it.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Conversion/TFuseToGPU.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSELOWERTOGPU
#include "tfuse/Conversion/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

struct TFuseLowerToGPUPass
    : mlir::tfuse::impl::TFuseLowerToGPUBase<TFuseLowerToGPUPass> {
  void runOnOperation() override;
};

void TFuseLowerToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  OpBuilder b(&getContext());
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      funcs.push_back(func);
  for (func::FuncOp func : funcs) {
    // Kernel ids restart at 0 in every function: one gpu.module each.
    auto kernels = gpu::GPUModuleOp::create(
        b, func.getLoc(), (func.getSymName() + "_kernels").str());
    symbols.insert(kernels, std::next(func->getIterator()));
    FailureOr<std::vector<ScheduledKernel>> emitted =
        emitFunctionKernels(func, kernels);
    if (failed(emitted))
      return signalPassFailure();

    llvm::MapVector<Operation *, SmallVector<Attribute>> launchedBy;
    for (const ScheduledKernel &kernel : *emitted) {
      if (!kernel.launch) {
        kernel.cost.op->setAttr("tfuse.gemm", b.getStringAttr(kernel.cost.id));
        continue;
      }
      launchedBy[kernel.cost.op].push_back(SymbolRefAttr::get(
          kernels.getNameAttr(),
          {FlatSymbolRefAttr::get(&getContext(), kernel.launch->name)}));
    }
    for (auto &[op, launches] : launchedBy)
      op->setAttr("tfuse.kernels", b.getArrayAttr(launches));
  }
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
}

} // namespace
