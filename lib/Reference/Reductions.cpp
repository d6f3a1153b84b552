//===- Reductions.cpp - Reductions and normalisations -----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the ops that reduce along an axis: reduce, softmax,
// layer_norm and rms_norm. All accumulate in double, in increasing index
// order, and round once.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <cmath>
#include <limits>
#include <optional>

using namespace mlir::tfuse::ref;

namespace {
/// A tensor viewed as [outer, len, inner] around one axis: element (o, r, i)
/// lives at (o * len + r) * inner + i.
struct AxisView {
  int64_t outer, len, inner;
  int64_t at(int64_t o, int64_t r, int64_t i) const {
    return (o * len + r) * inner + i;
  }
};
} // namespace

static AxisView viewAround(const std::vector<int64_t> &shape, int64_t axis) {
  int64_t rank = static_cast<int64_t>(shape.size());
  return {detail::product(shape, 0, axis), shape[axis],
          detail::product(shape, axis + 1, rank)};
}

/// NaN-propagating maximum (the order of equal zeros does not matter here:
/// the result is only compared against or subtracted from).
static double maxPropagateNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

Tensor mlir::tfuse::ref::reduce(ReduceKind kind, const Tensor &x, int64_t axis,
                                bool keepDims) {
  if (!detail::normalizeAxis(axis, x.rank()))
    return detail::invalidTensor(x.dtype);
  AxisView v = viewAround(x.shape, axis);
  std::vector<int64_t> shape = x.shape;
  if (keepDims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  Tensor y = zeros(x.dtype, shape);
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      double acc = kind == ReduceKind::Max
                       ? -std::numeric_limits<double>::infinity()
                       : 0.0;
      for (int64_t r = 0; r < v.len; ++r) {
        double e = x.data[v.at(o, r, i)];
        acc = kind == ReduceKind::Max ? maxPropagateNaN(acc, e) : acc + e;
      }
      if (kind == ReduceKind::Mean)
        acc /= static_cast<double>(v.len);
      y.data[o * v.inner + i] = roundTo(x.dtype, acc);
    }
  }
  return y;
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

Tensor mlir::tfuse::ref::softmax(const Tensor &x, int64_t axis) {
  if (!detail::normalizeAxis(axis, x.rank()))
    return detail::invalidTensor(x.dtype);
  AxisView v = viewAround(x.shape, axis);
  Tensor y{x.dtype, x.shape, {}};
  y.data.resize(x.data.size());
  std::vector<double> e(static_cast<size_t>(v.len));
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t r = 0; r < v.len; ++r)
        m = maxPropagateNaN(m, x.data[v.at(o, r, i)]);
      double sum = 0.0;
      for (int64_t r = 0; r < v.len; ++r) {
        e[r] = std::exp(x.data[v.at(o, r, i)] - m);
        sum += e[r];
      }
      for (int64_t r = 0; r < v.len; ++r)
        y.data[v.at(o, r, i)] = roundTo(x.dtype, e[r] / sum);
    }
  }
  return y;
}

//===----------------------------------------------------------------------===//
// cross_entropy
//===----------------------------------------------------------------------===//

namespace {
/// One row of a loss: its logits, its maximum and sum of exp(x - max), and
/// its label's class (clamped) unless the row is ignored.
struct LossRow {
  const double *x;
  double max, sum;
  std::optional<int64_t> label;
};

/// The rows of `logits` against `labels`, or nothing when the shapes differ.
std::optional<std::vector<LossRow>>
lossRows(const Tensor &logits, const Tensor &labels, int64_t ignoreIndex) {
  if (logits.rank() == 0 || logits.shape.back() == 0 ||
      labels.numElements() * logits.shape.back() != logits.numElements())
    return std::nullopt;
  int64_t classes = logits.shape.back();
  std::vector<LossRow> rows;
  for (int64_t i = 0; i < labels.numElements(); ++i) {
    LossRow row{logits.data.data() + i * classes, 0.0, 0.0, std::nullopt};
    row.max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < classes; ++j)
      row.max = maxPropagateNaN(row.max, row.x[j]);
    for (int64_t j = 0; j < classes; ++j)
      row.sum += std::exp(row.x[j] - row.max);
    double label = labels.data[i];
    if (label != static_cast<double>(ignoreIndex))
      row.label = label <= 0 ? 0
                  : label >= static_cast<double>(classes - 1)
                      ? classes - 1
                      : static_cast<int64_t>(label);
    rows.push_back(row);
  }
  return rows;
}
} // namespace

Tensor mlir::tfuse::ref::crossEntropy(const Tensor &logits,
                                      const Tensor &labels, int64_t ignoreIndex,
                                      Tensor &counted) {
  std::optional<std::vector<LossRow>> rows =
      lossRows(logits, labels, ignoreIndex);
  counted = detail::invalidTensor(DType::F32);
  if (!rows)
    return detail::invalidTensor(DType::F32);
  Tensor loss = zeros(DType::F32, labels.shape);
  counted = zeros(DType::F32, labels.shape);
  for (size_t i = 0; i < rows->size(); ++i) {
    const LossRow &row = (*rows)[i];
    if (!row.label)
      continue;
    loss.data[i] =
        roundTo(DType::F32, std::log(row.sum) + row.max - row.x[*row.label]);
    counted.data[i] = 1.0;
  }
  return loss;
}

Tensor mlir::tfuse::ref::crossEntropyGrad(const Tensor &logits,
                                          const Tensor &labels,
                                          const Tensor &lossGrad,
                                          int64_t ignoreIndex) {
  std::optional<std::vector<LossRow>> rows =
      lossRows(logits, labels, ignoreIndex);
  if (!rows || lossGrad.numElements() != labels.numElements())
    return detail::invalidTensor(logits.dtype);
  int64_t classes = logits.shape.back();
  Tensor grad = zeros(logits.dtype, logits.shape);
  for (size_t i = 0; i < rows->size(); ++i) {
    const LossRow &row = (*rows)[i];
    if (!row.label)
      continue;
    double scale = lossGrad.data[i];
    double *out = grad.data.data() + i * classes;
    for (int64_t j = 0; j < classes; ++j) {
      double p = std::exp(row.x[j] - row.max) / row.sum;
      out[j] =
          roundTo(logits.dtype, (p - (j == *row.label ? 1.0 : 0.0)) * scale);
    }
  }
  return grad;
}

//===----------------------------------------------------------------------===//
// layer_norm and rms_norm
//===----------------------------------------------------------------------===//

/// True if the optional per-feature parameter `p` has `d` elements.
static bool fitsLastAxis(const Tensor *p, int64_t d) {
  return !p || p->numElements() == d;
}

Tensor mlir::tfuse::ref::layerNorm(const Tensor &x, const Tensor *gamma,
                                   const Tensor *beta, double eps) {
  if (x.rank() == 0)
    return detail::invalidTensor(x.dtype);
  int64_t d = x.shape.back();
  if (!fitsLastAxis(gamma, d) || !fitsLastAxis(beta, d))
    return detail::invalidTensor(x.dtype);
  Tensor y{x.dtype, x.shape, {}};
  y.data.resize(x.data.size());
  int64_t rows = d == 0 ? 0 : x.numElements() / d;
  for (int64_t row = 0; row < rows; ++row) {
    const double *in = x.data.data() + row * d;
    double *out = y.data.data() + row * d;
    double sum = 0.0;
    for (int64_t j = 0; j < d; ++j)
      sum += in[j];
    double mean = sum / static_cast<double>(d);
    double sq = 0.0;
    for (int64_t j = 0; j < d; ++j)
      sq += (in[j] - mean) * (in[j] - mean);
    double var = sq / static_cast<double>(d);
    double denom = std::sqrt(var + eps);
    for (int64_t j = 0; j < d; ++j) {
      double v = (in[j] - mean) / denom;
      if (gamma)
        v *= gamma->data[j];
      if (beta)
        v += beta->data[j];
      out[j] = roundTo(x.dtype, v);
    }
  }
  return y;
}

Tensor mlir::tfuse::ref::rmsNorm(const Tensor &x, const Tensor *gamma,
                                 double eps) {
  if (x.rank() == 0)
    return detail::invalidTensor(x.dtype);
  int64_t d = x.shape.back();
  if (!fitsLastAxis(gamma, d))
    return detail::invalidTensor(x.dtype);
  Tensor y{x.dtype, x.shape, {}};
  y.data.resize(x.data.size());
  int64_t rows = d == 0 ? 0 : x.numElements() / d;
  for (int64_t row = 0; row < rows; ++row) {
    const double *in = x.data.data() + row * d;
    double *out = y.data.data() + row * d;
    double sq = 0.0;
    for (int64_t j = 0; j < d; ++j)
      sq += in[j] * in[j];
    double denom = std::sqrt(sq / static_cast<double>(d) + eps);
    for (int64_t j = 0; j < d; ++j) {
      double v = in[j] / denom;
      if (gamma)
        v *= gamma->data[j];
      out[j] = roundTo(x.dtype, v);
    }
  }
  return y;
}

std::vector<Tensor> mlir::tfuse::ref::normGrad(const Tensor &x,
                                               const Tensor &dy,
                                               const Tensor *gamma, double eps,
                                               bool rms) {
  std::vector<int64_t> rowShape = x.shape;
  if (!rowShape.empty())
    rowShape.back() = 1;
  int64_t d = x.rank() == 0 ? 0 : x.shape.back();
  if (x.rank() == 0 || dy.shape != x.shape || !fitsLastAxis(gamma, d))
    return {detail::invalidTensor(x.dtype), detail::invalidTensor(DType::F32),
            detail::invalidTensor(DType::F32)};
  Tensor dx{x.dtype, x.shape, std::vector<double>(x.data.size())};
  int64_t rows = d == 0 ? 0 : x.numElements() / d;
  Tensor means{DType::F32, rowShape,
               std::vector<double>(static_cast<size_t>(rows))};
  Tensor rstds = means;
  double length = static_cast<double>(d);
  std::vector<double> g(static_cast<size_t>(d)), xhat(static_cast<size_t>(d));
  for (int64_t row = 0; row < rows; ++row) {
    const double *in = x.data.data() + row * d;
    const double *grad = dy.data.data() + row * d;
    double mean = 0.0;
    if (!rms) {
      for (int64_t j = 0; j < d; ++j)
        mean += in[j];
      mean /= length;
    }
    double sq = 0.0;
    for (int64_t j = 0; j < d; ++j)
      sq += (in[j] - mean) * (in[j] - mean);
    double rstd = 1.0 / std::sqrt(sq / length + eps);
    double sumG = 0.0, sumGXhat = 0.0;
    for (int64_t j = 0; j < d; ++j) {
      g[j] = gamma ? grad[j] * gamma->data[j] : grad[j];
      xhat[j] = (in[j] - mean) * rstd;
      sumG += g[j];
      sumGXhat += g[j] * xhat[j];
    }
    double meanG = rms ? 0.0 : sumG / length;
    for (int64_t j = 0; j < d; ++j)
      dx.data[row * d + j] = roundTo(
          x.dtype, rstd * (g[j] - meanG - xhat[j] * (sumGXhat / length)));
    means.data[row] = roundTo(DType::F32, mean);
    rstds.data[row] = roundTo(DType::F32, rstd);
  }
  return {std::move(dx), std::move(means), std::move(rstds)};
}
