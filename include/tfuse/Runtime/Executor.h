//===- Executor.h - Run a plan's steps on the GPU ---------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares Executor, which owns the device memory of a plan and
// enqueues its steps:
// - function inputs and outputs get one allocation each; temps live in one
//   arena allocation at their planned offsets; aliases share the bytes of
//   the buffer they alias; constants are allocated and uploaded once;
// - inputs are filled with ref::randomTensor(dtype, shape, seed, i) for the
//   i-th function input (the generator of `tfuse-opt --tfuse-evaluate`, so
//   both see the same values) or from .npy files;
// - kernel steps are launched with one device pointer per `args` entry
//   (void *params[] = {&ptr0, &ptr1, ...}), GEMM steps go to GemmRunner; all
//   on the device's one stream, in order.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_EXECUTOR_H
#define TFUSE_RUNTIME_EXECUTOR_H

#include "tfuse/Bundle/Plan.h"
#include "tfuse/Reference/Reference.h"
#include "tfuse/Runtime/Device.h"
#include "tfuse/Runtime/Gemm.h"
#include "tfuse/Runtime/Module.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfuse::rt {

/// An input read from a file: `--input NAME=PATH`.
struct InputFile {
  /// Index in Plan::inputs.
  size_t input = 0;
  std::string path;
};

class Executor {
public:
  /// Allocates every buffer, uploads the constants and prepares the GEMMs
  /// (`gemmAutotune`: see GemmRunner::create).
  static std::unique_ptr<Executor> create(const Plan &plan, Device &device,
                                          const KernelModule &module,
                                          bool gemmAutotune,
                                          std::string &error);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  const Plan &plan() const { return *executorPlan; }
  Device &device() { return *executorDevice; }

  /// The device address of buffer `index`.
  CUdeviceptr pointer(size_t index) const { return pointers[index]; }

  /// Fills the function inputs: those in `files` from their .npy file, the
  /// others with seeded random values. `sources` receives one description
  /// per input ("random(seed=0, stream=1)" or the path).
  bool fillInputs(uint64_t seed, const std::vector<InputFile> &files,
                  std::vector<std::string> &sources, std::string &error);

  /// Fills the function outputs and the arena with 0xff bytes (NaN in every
  /// float type), so that an element no kernel writes fails the check.
  bool poisonResults(std::string &error);

  /// Enqueues step `index` on the device's stream (no synchronization).
  bool enqueueStep(size_t index, std::string &error);
  /// Enqueues every step in order.
  bool enqueuePlan(std::string &error);

  /// How GEMM step `index`'s algorithm was chosen; null for a kernel step.
  const GemmChoice *gemmChoice(size_t index) const {
    return gemms ? gemms->choice(index) : nullptr;
  }

  /// Copies buffer `index` back (synchronously).
  std::optional<ref::Tensor> download(size_t index, std::string &error);
  /// Copies `tensor` into buffer `index` (synchronously).
  bool upload(size_t index, const ref::Tensor &tensor, std::string &error);

private:
  Executor() = default;

  const Plan *executorPlan = nullptr;
  Device *executorDevice = nullptr;
  const KernelModule *module = nullptr;
  std::unique_ptr<GemmRunner> gemms;
  std::vector<DeviceMemory> allocations;
  DeviceMemory arena;
  std::vector<CUdeviceptr> pointers;
};

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_EXECUTOR_H
