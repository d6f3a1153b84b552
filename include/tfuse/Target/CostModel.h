//===- CostModel.h - roofline time of one kernel on a GPU -------*- C++ -*-===//
//
// The roofline model of docs/cost-model.md: a kernel takes its launch
// overhead plus the larger of its memory time and its compute time. MLIR-free,
// so the runtime can print the same predictions next to its measurements.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TARGET_COSTMODEL_H
#define TFUSE_TARGET_COSTMODEL_H

#include "tfuse/Target/GpuTarget.h"

#include <cstdint>

namespace mlir::tfuse {

/// Which peak a kernel's arithmetic runs at.
enum class ComputeClass {
  Fp32Simt,   ///< CUDA cores in f32: elementwise, reductions, f32 matmul
  Fp16Tensor, ///< tensor cores, f16 inputs, f32 accumulation
  Bf16Tensor, ///< tensor cores, bf16 inputs, f32 accumulation
  Tf32Tensor, ///< tensor cores, f32 inputs rounded to TF32, f32 accumulation
};

/// What limits a kernel's predicted time.
enum class Bound { Memory, Compute, Launch, None };

const char *stringifyComputeClass(ComputeClass computeClass);
const char *stringifyBound(Bound bound);

/// The work of one kernel, as the cost model sees it.
struct KernelWork {
  /// Bytes that come from or go to device memory.
  int64_t dramBytes = 0;
  /// Bytes read from data that is still resident in L2 (written by the
  /// previous kernel and small enough to stay there).
  int64_t l2Bytes = 0;
  int64_t flops = 0;
  ComputeClass computeClass = ComputeClass::Fp32Simt;
  /// A flash-attention kernel: its tensor-core work runs at the target's
  /// attention efficiency instead of the GEMM one.
  bool flashAttention = false;
  /// A library GEMM off cuBLASLt's 16-byte-aligned kernels: it runs at the
  /// target's gemm efficiency times its unaligned factor.
  bool unalignedGemm = false;
  /// Integer instructions (issue slots of one lane) on the CUDA cores:
  /// dropout's Philox draws, which no FLOP count covers.
  int64_t integerOps = 0;
  /// False for views and constants: no kernel, no time.
  bool launchesKernel = true;
};

struct KernelTime {
  double memoryUs = 0;
  /// FLOPs at their class's rate plus the integer work (integerUs): the
  /// same warps issue both.
  double computeUs = 0;
  double integerUs = 0;
  double launchUs = 0;
  double totalUs = 0;
  Bound bound = Bound::None;
};

/// Reads of data still in L2 run at this multiple of the achievable DRAM
/// bandwidth (the figure XLA's GPU cost model uses).
constexpr double kL2BandwidthMultiplier = 2.5;

/// The part of L2 an intermediate may occupy and still be counted as
/// resident for the next kernel (the rest holds that kernel's streams).
constexpr double kL2ResidentFraction = 0.5;

/// 32-bit integer add, multiply-add and logic instructions a multiprocessor
/// completes per clock (CUDA C++ Programming Guide, "Arithmetic
/// Instructions": 64 for compute capability 8.0 through 9.0).
constexpr double kInt32OpsPerSmPerClock = 64;

/// 32-bit integer instructions `target` completes a microsecond.
double getIntegerOpsPerUs(const GpuTarget &target);

/// Peak TFLOP/s of `computeClass` on `target`.
double getPeakTflops(const GpuTarget &target, ComputeClass computeClass);

/// launch + max(dram / bw + l2 / (2.5 bw), flops / peak + integer ops /
/// integer rate), in microseconds.
KernelTime predictKernelTime(const KernelWork &work, const GpuTarget &target);

/// Whether an intermediate of `bytes` counts as L2-resident on `target`.
bool fitsInL2(int64_t bytes, const GpuTarget &target);

} // namespace mlir::tfuse

#endif // TFUSE_TARGET_COSTMODEL_H
