//===- Elementwise.cpp - Elementwise tfuse ops ------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the elementwise ops: binary ops with numpy
// broadcasting, unary math and activations, and casts.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <cmath>
#include <limits>

using namespace mlir::tfuse::ref;

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

/// IEEE 754-2019 maximum: NaN if either operand is NaN, and +0 > -0.
static double ieeeMaximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// IEEE 754-2019 minimum: NaN if either operand is NaN, and -0 < +0.
static double ieeeMinimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

static double applyBinary(BinaryKind kind, double a, double b) {
  switch (kind) {
  case BinaryKind::Add:
    return a + b;
  case BinaryKind::Sub:
    return a - b;
  case BinaryKind::Mul:
    return a * b;
  case BinaryKind::Div:
    return a / b;
  case BinaryKind::Max:
    return ieeeMaximum(a, b);
  case BinaryKind::Min:
    return ieeeMinimum(a, b);
  }
  return 0.0;
}

Tensor mlir::tfuse::ref::binary(BinaryKind kind, const Tensor &a,
                                const Tensor &b) {
  bool ok;
  std::vector<int64_t> shape = broadcastShapes(a.shape, b.shape, ok);
  if (!ok)
    return detail::invalidTensor(a.dtype);
  Tensor y = zeros(a.dtype, shape);
  if (a.shape == b.shape) {
    for (size_t i = 0; i < y.data.size(); ++i)
      y.data[i] = roundTo(a.dtype, applyBinary(kind, a.data[i], b.data[i]));
    return y;
  }
  std::vector<int64_t> sa = detail::broadcastStrides(a.shape, shape);
  std::vector<int64_t> sb = detail::broadcastStrides(b.shape, shape);
  detail::forEachBroadcast(
      shape, sa, sb, [&](int64_t i, int64_t offA, int64_t offB) {
        y.data[i] =
            roundTo(a.dtype, applyBinary(kind, a.data[offA], b.data[offB]));
      });
  return y;
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

static constexpr double kPi = 3.14159265358979323846;

static double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

static double applyUnary(UnaryKind kind, double x) {
  switch (kind) {
  case UnaryKind::Neg:
    return -x;
  case UnaryKind::Exp:
    return std::exp(x);
  case UnaryKind::Log:
    return std::log(x);
  case UnaryKind::Tanh:
    return std::tanh(x);
  case UnaryKind::Erf:
    return std::erf(x);
  case UnaryKind::Sqrt:
    return std::sqrt(x);
  case UnaryKind::Rsqrt:
    return 1.0 / std::sqrt(x);
  case UnaryKind::Sigmoid:
    return sigmoid(x);
  case UnaryKind::Relu:
    return ieeeMaximum(x, 0.0);
  case UnaryKind::Silu:
    return x * sigmoid(x);
  case UnaryKind::GeluErf:
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case UnaryKind::GeluTanh: {
    const double k = std::sqrt(2.0 / kPi);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  case UnaryKind::Step:
    return x > 0.0 ? 1.0 : 0.0;
  }
  return 0.0;
}

Tensor mlir::tfuse::ref::unary(UnaryKind kind, const Tensor &x) {
  Tensor y{x.dtype, x.shape, {}};
  y.data.resize(x.data.size());
  for (size_t i = 0; i < x.data.size(); ++i)
    y.data[i] = roundTo(x.dtype, applyUnary(kind, x.data[i]));
  return y;
}

Tensor mlir::tfuse::ref::cast(const Tensor &x, DType to) {
  Tensor y{to, x.shape, {}};
  y.data.resize(x.data.size());
  for (size_t i = 0; i < x.data.size(); ++i)
    y.data[i] = roundTo(to, x.data[i]);
  return y;
}
