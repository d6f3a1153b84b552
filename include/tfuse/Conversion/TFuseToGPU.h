//===- TFuseToGPU.h - kernels for tfuse ops ---------------------*- C++ -*-===//
//
// Emitters that build one gpu.func per kernel from upstream dialects (arith,
// math, vector, memref, scf, gpu). Every buffer is a flat, contiguous
// memref<N x T> argument, passed as a bare pointer: first the kernel's
// inputs, then its outputs.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_TFUSETOGPU_H
#define TFUSE_CONVERSION_TFUSETOGPU_H

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <array>
#include <string>

namespace mlir::tfuse {

/// The geometry of an emitted kernel; the plan builder turns it into the
/// bundle's KernelLaunch.
struct EmittedKernel {
  std::string name;     ///< the gpu.func symbol (the PTX entry)
  std::string templateName; ///< loop, row_reduction, layout
  std::array<int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  int64_t sharedBytes = 0;
};

/// A kernel computing the ops of `fusion` (kind loop or row_reduction) from
/// its inputs into its results. Fails with a diagnostic on ops or shapes the
/// templates do not cover.
FailureOr<EmittedKernel> emitFusionKernel(gpu::GPUModuleOp module,
                                         FusionOp fusion, StringRef name);

/// A copy kernel for a layout op: `tfuse.transpose` or a box of the input
/// (`tfuse.slice`, one piece of `tfuse.split`): output element at
/// coordinates c reads the input at perm(c) + offsets.
FailureOr<EmittedKernel> emitCopyKernel(gpu::GPUModuleOp module, Location loc,
                                       RankedTensorType input,
                                       RankedTensorType output,
                                       ArrayRef<int64_t> perm,
                                       ArrayRef<int64_t> offsets,
                                       StringRef name);

} // namespace mlir::tfuse

#endif // TFUSE_CONVERSION_TFUSETOGPU_H
