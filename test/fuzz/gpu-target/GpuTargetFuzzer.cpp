//===- GpuTargetFuzzer.cpp - fuzz the GPU target file loader ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for targets/*.json: parseGpuTarget, the loader every tool
// reads target files with, then the roofline model on the accepted target
// (a target the loader accepts must give finite, non-negative times).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/CostModel.h"
#include "tfuse/Target/GpuTarget.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace mlir::tfuse;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  TargetLoadResult result = parseGpuTarget(text, "fuzz.json");
  (void)result.formatDiagnostics();
  if (result.hasErrors() != !result.target) {
    std::fprintf(stderr, "a target with errors, or none without:\n%s",
                 result.formatDiagnostics().c_str());
    std::abort();
  }
  if (!result.target)
    return 0;
  const GpuTarget &target = *result.target;
  for (ComputeClass computeClass :
       {ComputeClass::Fp32Simt, ComputeClass::Fp16Tensor,
        ComputeClass::Bf16Tensor}) {
    KernelWork work;
    work.dramBytes = int64_t(1) << 30;
    work.l2Bytes = int64_t(1) << 20;
    work.flops = int64_t(1) << 40;
    work.computeClass = computeClass;
    KernelTime time = predictKernelTime(work, target);
    for (double us :
         {time.memoryUs, time.computeUs, time.launchUs, time.totalUs})
      if (!std::isfinite(us) || us < 0) {
        std::fprintf(stderr, "predicted time %g us for an accepted target\n",
                     us);
        std::abort();
      }
    (void)fitsInL2(work.dramBytes, target);
  }
  return 0;
}
