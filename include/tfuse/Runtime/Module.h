//===- Module.h - The bundle's kernels, loaded on the GPU -------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares KernelModule: the bundle's kernels loaded into the
// current context, with the function of every kernel step resolved and its
// launch configuration checked against the compiled kernel.
//
// The cubin is loaded when the plan has one and its architecture equals the
// device's compute capability (the architecture is read from the file name,
// "kernels.sm_90.cubin", or else taken from the plan's target); otherwise
// the PTX is JIT-compiled by the driver, and a JIT failure is reported with
// the driver's error log.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_MODULE_H
#define TFUSE_RUNTIME_MODULE_H

#include "tfuse/Bundle/Plan.h"
#include "tfuse/Runtime/Device.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tfuse::rt {

class KernelModule {
public:
  /// Loads the module of `plan` for `device`. With `forcePtx`, ignores the
  /// cubin.
  static std::unique_ptr<KernelModule> load(const Plan &plan,
                                            const DeviceInfo &device,
                                            bool forcePtx, std::string &error);
  ~KernelModule();
  KernelModule(const KernelModule &) = delete;
  KernelModule &operator=(const KernelModule &) = delete;

  /// The function of kernel step `step` (null for other steps).
  CUfunction function(size_t step) const { return functions[step]; }
  /// "cubin kernels.sm_90.cubin" or "PTX kernels.ptx (JIT)".
  const std::string &source() const { return loadedFrom; }
  /// Why the cubin was not used, when it was not; empty otherwise.
  const std::string &note() const { return loadNote; }

private:
  KernelModule() = default;

  CUmodule module = nullptr;
  std::vector<CUfunction> functions;
  std::string loadedFrom;
  std::string loadNote;
};

/// The architecture in a cubin's file name ("kernels.sm_90a.cubin" ->
/// "sm_90a"); empty when there is none.
std::string cubinArchFromName(const std::string &fileName);

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_MODULE_H
