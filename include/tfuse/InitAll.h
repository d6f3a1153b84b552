//===- InitAll.h - register everything tfuse tools need ---------*- C++ -*-===//
//
// One place that lists the dialects and passes of the tfuse tools.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_INITALL_H
#define TFUSE_INITALL_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "tfuse/Analysis/Passes.h"
#include "tfuse/Conversion/Passes.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Transforms/Passes.h"

namespace mlir::tfuse {

/// The tfuse dialect and the upstream dialects that lowering produces.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<TFuseDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, scf::SCFDialect, memref::MemRefDialect,
                  vector::VectorDialect, gpu::GPUDialect, NVVM::NVVMDialect,
                  nvgpu::NVGPUDialect, LLVM::LLVMDialect>();
}

/// The tfuse passes and the upstream ones tests combine them with.
inline void registerAllPasses() {
  registerTFuseTransformsPasses();
  registerTFuseAnalysisPasses();
  registerTFuseConversionPasses();
  registerCanonicalizerPass();
  registerCSEPass();
}

} // namespace mlir::tfuse

#endif // TFUSE_INITALL_H
