//===- CostModel.cpp - roofline time of one kernel on a GPU -----*- C++ -*-===//
//
// Implements the formulas of docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/CostModel.h"

#include <algorithm>

using namespace mlir::tfuse;

const char *mlir::tfuse::stringifyComputeClass(ComputeClass computeClass) {
  switch (computeClass) {
  case ComputeClass::Fp32Simt:
    return "fp32";
  case ComputeClass::Fp16Tensor:
    return "fp16_tensor";
  case ComputeClass::Bf16Tensor:
    return "bf16_tensor";
  case ComputeClass::Tf32Tensor:
    return "tf32_tensor";
  }
  return "?";
}

const char *mlir::tfuse::stringifyBound(Bound bound) {
  switch (bound) {
  case Bound::Memory:
    return "memory";
  case Bound::Compute:
    return "compute";
  case Bound::Launch:
    return "launch";
  case Bound::None:
    return "none";
  }
  return "?";
}

double mlir::tfuse::getPeakTflops(const GpuTarget &target,
                                  ComputeClass computeClass) {
  switch (computeClass) {
  case ComputeClass::Fp32Simt:
    return target.fp32Tflops;
  case ComputeClass::Fp16Tensor:
    return target.fp16TensorTflops;
  case ComputeClass::Bf16Tensor:
    return target.bf16TensorTflops;
  case ComputeClass::Tf32Tensor:
    return target.tf32TensorTflops;
  }
  return target.fp32Tflops;
}

double mlir::tfuse::getIntegerOpsPerUs(const GpuTarget &target) {
  // SMs x ops a clock x clocks a microsecond.
  return target.smCount * kInt32OpsPerSmPerClock * target.boostClockMhz;
}

bool mlir::tfuse::fitsInL2(int64_t bytes, const GpuTarget &target) {
  return static_cast<double>(bytes) <=
         kL2ResidentFraction * target.l2CacheMB * 1024 * 1024;
}

KernelTime mlir::tfuse::predictKernelTime(const KernelWork &work,
                                          const GpuTarget &target) {
  KernelTime time;
  if (!work.launchesKernel)
    return time;
  // GB/s = 1e3 bytes per microsecond; TFLOP/s = 1e6 FLOP per microsecond.
  double bandwidth = target.achievableBandwidthGBps() * 1e3;
  time.memoryUs = work.dramBytes / bandwidth +
                  work.l2Bytes / (kL2BandwidthMultiplier * bandwidth);
  // Tensor-core work runs at the fraction of the peak GEMMs (or the
  // flash-attention kernels) were measured to reach (docs/cost-model.md,
  // calibration).
  double peak = getPeakTflops(target, work.computeClass);
  if (work.computeClass != ComputeClass::Fp32Simt)
    peak *= work.flashAttention
                ? target.attentionEfficiency.value_or(target.gemmEfficiency)
                : target.gemmEfficiency *
                      (work.unalignedGemm ? target.gemmUnalignedFactor : 1.0);
  time.computeUs = work.flops / (peak * 1e6);
  double integerRate = getIntegerOpsPerUs(target);
  if (work.integerOps > 0 && integerRate > 0) {
    time.integerUs = work.integerOps / integerRate;
    time.computeUs += time.integerUs;
  }
  time.launchUs = target.kernelLaunchOverheadUs;
  double busy = std::max(time.memoryUs, time.computeUs);
  time.totalUs = time.launchUs + busy;
  if (time.launchUs > busy)
    time.bound = Bound::Launch;
  else
    time.bound =
        time.memoryUs >= time.computeUs ? Bound::Memory : Bound::Compute;
  return time;
}
