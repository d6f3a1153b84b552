//===- TFuseToGPU.cpp - pick the kernel template of a fusion ----*- C++ -*-===//
//
// Dispatches a tfuse.fusion to the emitter of its kind.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

using namespace mlir;
using namespace mlir::tfuse;

FailureOr<EmittedKernel> mlir::tfuse::emitFusionKernel(gpu::GPUModuleOp module,
                                                       FusionOp fusion,
                                                       StringRef name) {
  switch (fusion.getKind()) {
  case FusionKind::loop:
    return kernel::emitLoopKernel(module, fusion, name);
  case FusionKind::row_reduction:
    return kernel::emitRowKernel(module, fusion, name);
  case FusionKind::multi_tensor:
    return kernel::emitMultiTensorKernel(module, fusion, name);
  case FusionKind::gemm_epilogue:
    break;
  }
  return fusion.emitOpError()
         << "gemm_epilogue fusions run as cuBLASLt calls, not kernels";
}
