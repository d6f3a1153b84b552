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

#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfuse {

/// The geometry of an emitted kernel; the plan builder turns it into the
/// bundle's KernelLaunch.
struct EmittedKernel {
  std::string name;         ///< the gpu.func symbol (the PTX entry)
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
/// The flash-attention kernel of `op`, which checkAttentionKernel accepts.
FailureOr<EmittedKernel> emitAttentionKernel(gpu::GPUModuleOp module,
                                             AttentionOp op, StringRef name);

/// Kernel `piece` of the flash-attention backward of `op`
/// (checkAttentionGradKernel accepts it): 0 gives dQ, 1 dK and dV.
FailureOr<EmittedKernel> emitAttentionGradKernel(gpu::GPUModuleOp module,
                                                 AttentionGradOp op,
                                                 unsigned piece,
                                                 StringRef name);

/// A tfuse.rope that a copy kernel applies to what it copies: the output
/// coordinates are the rope's (positions along rank - 2, rotary dims a
/// prefix of the last); the frequencies are the kernel's second argument.
struct CopyRotation {
  RankedTensorType invFreq;
  double attentionScaling = 1.0;
};

FailureOr<EmittedKernel>
emitCopyKernel(gpu::GPUModuleOp module, Location loc, RankedTensorType input,
               RankedTensorType output, ArrayRef<int64_t> perm,
               ArrayRef<int64_t> offsets, StringRef name,
               const CopyRotation *rotation = nullptr);

/// The embedding-lookup kernel of `op`: result rows copied from the table
/// rows its indices select, clamped into the table.
FailureOr<EmittedKernel> emitGatherKernel(gpu::GPUModuleOp module, GatherOp op,
                                          StringRef name);

/// Kernel `piece` of the table gradient `op` (getGatherGradKernelCount
/// pieces, tfuse/Analysis/KernelCost.h): 0 zeroes the f32 accumulator, 1
/// adds every gradient row into it with atomics, 2 (bf16/f16 tables) rounds
/// it into the result.
FailureOr<EmittedKernel> emitGatherGradKernel(gpu::GPUModuleOp module,
                                              GatherGradOp op, unsigned piece,
                                              StringRef name);

/// The copy kernel of `op`: every result element read from the input that
/// holds it.
FailureOr<EmittedKernel> emitConcatKernel(gpu::GPUModuleOp module, ConcatOp op,
                                          StringRef name);

/// One kernel of a function's schedule (scheduleKernels) after code
/// generation: `cost` names it (loop_0, gemm_1, ...) and the top-level op it
/// computes; `launch` is its gpu.func, absent for a GEMM (a library call).
struct ScheduledKernel {
  KernelCost cost;
  std::optional<EmittedKernel> launch;
};

/// Wraps the standalone elementwise and row ops of `func` into one-op
/// fusions (splat constants move inside), then emits one gpu.func into
/// `kernels` for every kernel of its schedule, named by the kernel's id.
/// Returns the schedule in execution order; fails with a diagnostic on an op
/// no emitter covers. tfuse-compile's plan and tfuse-lower-to-gpu both lower
/// through this.
FailureOr<std::vector<ScheduledKernel>>
emitFunctionKernels(func::FuncOp func, gpu::GPUModuleOp kernels);

} // namespace mlir::tfuse

#endif // TFUSE_CONVERSION_TFUSETOGPU_H
