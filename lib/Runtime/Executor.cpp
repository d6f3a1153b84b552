//===- Executor.cpp - Run a plan's steps on the GPU -------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the executor: allocation and aliasing of the plan's
// buffers, constants, input filling, kernel launches and GEMMs, and copies
// between host tensors and buffers.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Executor.h"

#include "tfuse/Runtime/Npy.h"

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

std::unique_ptr<Executor>
mlir::tfuse::rt::Executor::create(const Plan &plan, Device &device,
                                  const KernelModule &module, bool gemmAutotune,
                                  std::string &error) {
  std::unique_ptr<Executor> e(new Executor());
  e->executorPlan = &plan;
  e->executorDevice = &device;
  e->module = &module;
  size_t n = plan.buffers.size();
  e->pointers.assign(n, 0);
  e->allocations.resize(n);

  if (plan.arenaBytes > 0 &&
      !e->arena.allocate(static_cast<size_t>(plan.arenaBytes), error)) {
    error = "cannot allocate the arena: " + error;
    return nullptr;
  }
  // Storage first, then aliases (which only point at storage).
  for (size_t i = 0; i < n; ++i) {
    const PlanBuffer &b = plan.buffers[i];
    switch (b.kind) {
    case BufferKind::Temp:
      e->pointers[i] = e->arena.get() + static_cast<CUdeviceptr>(b.offset);
      break;
    case BufferKind::Input:
    case BufferKind::Output:
    case BufferKind::Constant:
      if (!e->allocations[i].allocate(static_cast<size_t>(b.bytes), error)) {
        error = "cannot allocate " + plan.describeBuffer(i) + ": " + error;
        return nullptr;
      }
      e->pointers[i] = e->allocations[i].get();
      break;
    case BufferKind::Alias:
      break;
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (plan.buffers[i].kind == BufferKind::Alias)
      e->pointers[i] = e->pointers[plan.buffers[i].storage];

  for (size_t i = 0; i < n; ++i) {
    const PlanBuffer &b = plan.buffers[i];
    if (b.kind != BufferKind::Constant)
      continue;
    ref::Tensor t{b.dtype, b.shape, b.values};
    if (!e->upload(i, t, error))
      return nullptr;
  }

  bool anyGemm = false;
  for (const PlanStep &s : plan.steps)
    anyGemm = anyGemm || s.kind == StepKind::Gemm;
  if (anyGemm) {
    e->gemms = GemmRunner::create(gemmAutotune, error);
    if (!e->gemms) {
      error = "cannot initialize cuBLASLt: " + error;
      return nullptr;
    }
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const PlanStep &s = plan.steps[i];
      if (s.kind != StepKind::Gemm)
        continue;
      ref::DType biasType =
          s.gemm.bias ? plan.buffers[*s.gemm.bias].dtype : s.gemm.dtype;
      if (!e->gemms->prepare(i, s.gemm, biasType, plan.describeStep(i), error))
        return nullptr;
    }
  }
  return e;
}

mlir::tfuse::rt::Executor::~Executor() {
  // Let queued work finish before the memory goes.
  if (executorDevice)
    driver().cuStreamSynchronize(executorDevice->stream());
}

bool mlir::tfuse::rt::Executor::fillInputs(uint64_t seed,
                                           const std::vector<InputFile> &files,
                                           std::vector<std::string> &sources,
                                           std::string &error) {
  const Plan &plan = *executorPlan;
  sources.assign(plan.inputs.size(), "");
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    size_t index = plan.inputs[i];
    const PlanBuffer &b = plan.buffers[index];
    const InputFile *file = nullptr;
    for (const InputFile &f : files)
      if (f.input == i)
        file = &f;
    ref::Tensor t;
    if (file) {
      std::optional<NpyArray> array = readNpyFile(file->path, error);
      if (!array)
        return false;
      std::string why;
      std::optional<ref::Tensor> tensor =
          npyToTensor(*array, b.dtype, &b.shape, why);
      if (!tensor) {
        error = file->path + ": cannot be input " + std::to_string(i) + " (" +
                plan.describeBuffer(index) + ", " +
                ref::formatTensorType(b.type()) + "): " + why;
        return false;
      }
      t = std::move(*tensor);
      sources[i] = file->path;
    } else {
      t = ref::randomTensor(b.dtype, b.shape, seed, i);
      sources[i] = "random(seed=" + std::to_string(seed) +
                   ", stream=" + std::to_string(i) + ")";
    }
    if (!upload(index, t, error))
      return false;
  }
  return true;
}

bool mlir::tfuse::rt::Executor::poisonResults(std::string &error) {
  const Plan &plan = *executorPlan;
  CUstream stream = executorDevice->stream();
  if (arena.get())
    TFUSE_CU(error, cuMemsetD8Async, arena.get(), 0xff, arena.size(), stream);
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].kind == BufferKind::Output)
      TFUSE_CU(error, cuMemsetD8Async, pointers[i], 0xff,
               static_cast<size_t>(plan.buffers[i].bytes), stream);
  return executorDevice->synchronize("filling the outputs", error);
}

bool mlir::tfuse::rt::Executor::enqueueStep(size_t index, std::string &error) {
  const Plan &plan = *executorPlan;
  const PlanStep &step = plan.steps[index];
  CUstream stream = executorDevice->stream();
  if (step.kind == StepKind::Gemm) {
    const GemmCall &g = step.gemm;
    return gemms->enqueue(index, pointers[g.lhs], pointers[g.rhs],
                          g.bias ? pointers[*g.bias] : 0, pointers[g.out],
                          stream, error);
  }
  const KernelLaunch &launch = step.launch;
  // The bare-pointer convention: one CUdeviceptr per argument, passed by
  // address.
  std::vector<CUdeviceptr> args;
  args.reserve(launch.args.size());
  for (size_t buffer : launch.args)
    args.push_back(pointers[buffer]);
  std::vector<void *> params;
  for (CUdeviceptr &p : args)
    params.push_back(&p);
  CUresult r = driver().cuLaunchKernel(
      module->function(index), launch.grid[0], launch.grid[1], launch.grid[2],
      launch.block[0], launch.block[1], launch.block[2], launch.sharedBytes,
      stream, params.empty() ? nullptr : params.data(), nullptr);
  if (r != CUDA_SUCCESS) {
    error =
        plan.describeStep(index) + ": " + describeCuError("cuLaunchKernel", r);
    return false;
  }
  return true;
}

bool mlir::tfuse::rt::Executor::enqueuePlan(std::string &error) {
  for (size_t i = 0; i < executorPlan->steps.size(); ++i)
    if (!enqueueStep(i, error))
      return false;
  return true;
}

std::optional<ref::Tensor>
mlir::tfuse::rt::Executor::download(size_t index, std::string &error) {
  const PlanBuffer &b = executorPlan->buffers[index];
  std::vector<uint8_t> bytes(static_cast<size_t>(b.bytes));
  if (!executorDevice->synchronize(
          "before reading " + executorPlan->describeBuffer(index), error))
    return std::nullopt;
  if (!bytes.empty())
    TFUSE_CU(error, cuMemcpyDtoH, bytes.data(), pointers[index], bytes.size());
  return ref::fromBytes(b.dtype, b.shape, bytes.data(), bytes.size());
}

bool mlir::tfuse::rt::Executor::upload(size_t index, const ref::Tensor &tensor,
                                       std::string &error) {
  const PlanBuffer &b = executorPlan->buffers[index];
  std::vector<uint8_t> bytes = ref::toBytes(tensor);
  if (static_cast<int64_t>(bytes.size()) != b.bytes) {
    error = "internal error: " + std::to_string(bytes.size()) + " bytes for " +
            executorPlan->describeBuffer(index) + " of " +
            std::to_string(b.bytes);
    return false;
  }
  if (!bytes.empty())
    TFUSE_CU(error, cuMemcpyHtoD, pointers[index], bytes.data(), bytes.size());
  return true;
}
