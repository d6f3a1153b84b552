//===- Module.cpp - The bundle's kernels, loaded on the GPU -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the loading of the bundle's cubin or PTX and the
// resolution and checking of every kernel step's function.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Module.h"

#include <vector>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

std::string mlir::tfuse::rt::cubinArchFromName(const std::string &fileName) {
  size_t slash = fileName.find_last_of('/');
  std::string base =
      slash == std::string::npos ? fileName : fileName.substr(slash + 1);
  size_t pos = base.find("sm_");
  if (pos == std::string::npos)
    return "";
  size_t end = pos + 3;
  while (end < base.size() && base[end] >= '0' && base[end] <= '9')
    ++end;
  if (end == pos + 3)
    return "";
  if (end < base.size() && (base[end] == 'a' || base[end] == 'f'))
    ++end;
  return base.substr(pos, end - pos);
}

namespace {

/// "sm_90a" -> 90.
int archNumber(const std::string &arch) {
  int n = 0;
  for (size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i)
    n = n * 10 + (arch[i] - '0');
  return n;
}

/// Loads an image with the JIT's error and info logs captured.
CUresult loadWithLogs(const std::string &image, CUmodule &module,
                      std::string &errorLog) {
  constexpr size_t kLogSize = 16384;
  std::vector<char> errors(kLogSize, '\0'), infos(kLogSize, '\0');
  CUjit_option options[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors.data(), reinterpret_cast<void *>(kLogSize - 1),
                    infos.data(), reinterpret_cast<void *>(kLogSize - 1)};
  CUresult r =
      driver().cuModuleLoadDataEx(&module, image.c_str(), 4, options, values);
  errorLog = errors.data();
  return r;
}

} // namespace

std::unique_ptr<KernelModule>
mlir::tfuse::rt::KernelModule::load(const Plan &plan, const DeviceInfo &device,
                                    bool forcePtx, std::string &error) {
  std::unique_ptr<KernelModule> m(new KernelModule());
  // The bytes loadPlan read and checked against the plan's hashes: the
  // files are not read again, so what runs is what was checked.
  if (plan.ptxText.empty()) {
    error = "internal error: the plan's module was not loaded from a bundle";
    return nullptr;
  }

  // The cubin, when it was built for exactly this GPU.
  if (plan.cubinFile && !forcePtx) {
    std::string arch = cubinArchFromName(*plan.cubinFile);
    if (arch.empty())
      arch = plan.target.smArch;
    if (archNumber(arch) == device.ccMajor * 10 + device.ccMinor) {
      std::string log;
      CUresult r = loadWithLogs(plan.cubinImage, m->module, log);
      if (r == CUDA_SUCCESS) {
        m->loadedFrom = "cubin " + *plan.cubinFile;
      } else {
        m->module = nullptr;
        m->loadNote = "the cubin " + *plan.cubinFile + " did not load (" +
                      describeCuError("cuModuleLoadDataEx", r) +
                      "); JIT-compiling the PTX instead";
      }
    } else {
      m->loadNote = "the cubin " + *plan.cubinFile + " is for " + arch +
                    ", the device is " + device.smArch() +
                    "; JIT-compiling the PTX";
    }
  } else if (plan.cubinFile) {
    m->loadNote = "the cubin was ignored (--jit); JIT-compiling the PTX";
  }

  if (!m->module) {
    std::string log;
    CUresult r = loadWithLogs(plan.ptxText, m->module, log);
    if (r != CUDA_SUCCESS) {
      m->module = nullptr;
      error = "cannot JIT-compile " + plan.ptxFile + " for " + device.smArch() +
              ": " + describeCuError("cuModuleLoadDataEx", r) +
              (log.empty() ? "" : "\nJIT log:\n" + log);
      return nullptr;
    }
    m->loadedFrom = "PTX " + plan.ptxFile + " (JIT)";
  }

  // Resolve and check every kernel step.
  m->functions.assign(plan.steps.size(), nullptr);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep &step = plan.steps[i];
    if (step.kind != StepKind::Kernel)
      continue;
    const KernelLaunch &launch = step.launch;
    CUfunction f = nullptr;
    CUresult r =
        driver().cuModuleGetFunction(&f, m->module, launch.kernel.c_str());
    if (r != CUDA_SUCCESS) {
      error = plan.describeStep(i) + ": kernel '" + launch.kernel +
              "' is not in the module (" +
              describeCuError("cuModuleGetFunction", r) + ")";
      return nullptr;
    }
    int maxThreads = 0, staticShared = 0;
    TFUSE_CU(error, cuFuncGetAttribute, &maxThreads,
             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    TFUSE_CU(error, cuFuncGetAttribute, &staticShared,
             CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    int threads =
        static_cast<int>(launch.block[0] * launch.block[1] * launch.block[2]);
    if (threads > maxThreads) {
      error = plan.describeStep(i) + ": a block of " + std::to_string(threads) +
              " threads exceeds the " + std::to_string(maxThreads) +
              " that kernel '" + launch.kernel + "' can run with (registers)";
      return nullptr;
    }
    int shared = static_cast<int>(launch.sharedBytes);
    if (shared + staticShared > device.maxSharedPerBlockOptin) {
      error = plan.describeStep(i) + ": " + std::to_string(shared) +
              " bytes of dynamic shared memory (+ " +
              std::to_string(staticShared) + " static) exceed the device's " +
              std::to_string(device.maxSharedPerBlockOptin) + " per block";
      return nullptr;
    }
    if (shared > 48 * 1024)
      TFUSE_CU(error, cuFuncSetAttribute, f,
               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared);
    m->functions[i] = f;
  }
  return m;
}

mlir::tfuse::rt::KernelModule::~KernelModule() {
  if (module)
    driver().cuModuleUnload(module);
}
