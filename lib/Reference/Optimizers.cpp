//===- Optimizers.cpp - AdamW and SGD updates -------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the optimizer updates of the reference library. They
// compute in f32, in PyTorch's order of operations (Reference.h gives the
// formulas); the library is built with -ffp-contract=off, so every line is
// the f32 operations it spells.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <cmath>

using namespace mlir::tfuse::ref;
using detail::invalidTensor;

/// Whether every tensor of `state` is f32 of param's shape and `grad` a
/// float tensor of that shape, and lr and step scalars.
static bool validUpdate(const Tensor &param, const Tensor &grad,
                        std::initializer_list<const Tensor *> state,
                        const Tensor &lr, const Tensor &step) {
  if (param.dtype != DType::F32 || !isFloat(grad.dtype) ||
      grad.shape != param.shape || lr.numElements() != 1 ||
      step.numElements() != 1 || lr.data.size() != 1 || step.data.size() != 1)
    return false;
  for (const Tensor *t : state)
    if (t->dtype != DType::F32 || t->shape != param.shape)
      return false;
  return true;
}

static std::vector<Tensor> invalidUpdate(size_t count) {
  return std::vector<Tensor>(count, invalidTensor(DType::F32));
}

/// The f32 value of a double scalar, rounded once.
static float f32(double value) { return static_cast<float>(value); }

/// Appends param rounded to `modelWeight` when one is asked for.
static void appendModelWeight(std::vector<Tensor> &results,
                              const DType *modelWeight) {
  if (modelWeight)
    results.push_back(cast(results.front(), *modelWeight));
}

std::vector<Tensor>
mlir::tfuse::ref::adamw(const Tensor &param, const Tensor &grad,
                        const Tensor &expAvg, const Tensor &expAvgSq,
                        const Tensor &lr, const Tensor &step,
                        const AdamWOptions &options, const DType *modelWeight) {
  if (!validUpdate(param, grad, {&expAvg, &expAvgSq}, lr, step))
    return invalidUpdate(modelWeight ? 4 : 3);
  // Per-tensor scalars in double from the f32 lr and step, rounded once.
  double lrValue = static_cast<float>(lr.data[0]);
  double stepValue = static_cast<float>(step.data[0]);
  const float beta1 = f32(options.beta1), beta2 = f32(options.beta2);
  const float c1 = f32(1.0 - options.beta1), c2 = f32(1.0 - options.beta2);
  const float decay = f32(lrValue * options.weightDecay);
  const float stepSize =
      f32(lrValue / (1.0 - std::pow(options.beta1, stepValue)));
  const float root = f32(std::sqrt(1.0 - std::pow(options.beta2, stepValue)));
  const float eps = f32(options.eps);
  const bool decays = options.weightDecay != 0.0;

  Tensor p = param, m = expAvg, v = expAvgSq;
  for (size_t i = 0; i < p.data.size(); ++i) {
    float pi = static_cast<float>(p.data[i]);
    float gi = static_cast<float>(grad.data[i]);
    float mi = static_cast<float>(m.data[i]);
    float vi = static_cast<float>(v.data[i]);
    if (decays)
      pi = pi - decay * pi;
    mi = beta1 * mi + c1 * gi;
    vi = beta2 * vi + (c2 * gi) * gi;
    float denom = std::sqrt(vi) / root + eps;
    pi = pi - (stepSize * mi) / denom;
    p.data[i] = pi;
    m.data[i] = mi;
    v.data[i] = vi;
  }
  std::vector<Tensor> results{std::move(p), std::move(m), std::move(v)};
  appendModelWeight(results, modelWeight);
  return results;
}

std::vector<Tensor> mlir::tfuse::ref::sgd(const Tensor &param,
                                          const Tensor &grad,
                                          const Tensor &buffer,
                                          const Tensor &lr, const Tensor &step,
                                          const SgdOptions &options,
                                          const DType *modelWeight) {
  if (!validUpdate(param, grad, {&buffer}, lr, step))
    return invalidUpdate(modelWeight ? 3 : 2);
  const float rate = static_cast<float>(lr.data[0]);
  const bool first = static_cast<float>(step.data[0]) <= 1.0f;
  const float momentum = f32(options.momentum);
  const float c = f32(1.0 - options.dampening);
  const float weightDecay = f32(options.weightDecay);
  const bool decays = options.weightDecay != 0.0;

  Tensor p = param, b = buffer;
  for (size_t i = 0; i < p.data.size(); ++i) {
    float pi = static_cast<float>(p.data[i]);
    float di = static_cast<float>(grad.data[i]);
    float bi = static_cast<float>(b.data[i]);
    if (decays)
      di = di + weightDecay * pi;
    bi = first ? di : momentum * bi + c * di;
    di = options.nesterov ? di + momentum * bi : bi;
    pi = pi - rate * di;
    p.data[i] = pi;
    b.data[i] = bi;
  }
  std::vector<Tensor> results{std::move(p), std::move(b)};
  appendModelWeight(results, modelWeight);
  return results;
}
