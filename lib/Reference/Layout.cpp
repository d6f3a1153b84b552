//===- Layout.cpp - Layout ops ----------------------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the ops that move elements without computing on them:
// reshape, transpose, slice, split, concat, gather, and the causal mask.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <cmath>
#include <limits>

using namespace mlir::tfuse::ref;

//===----------------------------------------------------------------------===//
// reshape and transpose
//===----------------------------------------------------------------------===//

Tensor mlir::tfuse::ref::reshape(const Tensor &x,
                                 std::vector<int64_t> newShape) {
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < newShape.size(); ++i) {
    if (newShape[i] == -1) {
      if (inferred >= 0)
        return detail::invalidTensor(x.dtype);
      inferred = static_cast<int64_t>(i);
    } else if (newShape[i] < 0) {
      return detail::invalidTensor(x.dtype);
    } else {
      known *= newShape[i];
    }
  }
  int64_t n = x.numElements();
  if (inferred >= 0) {
    if (known == 0 || n % known != 0)
      return detail::invalidTensor(x.dtype);
    newShape[inferred] = n / known;
  } else if (known != n) {
    return detail::invalidTensor(x.dtype);
  }
  return Tensor{x.dtype, std::move(newShape), x.data};
}

Tensor mlir::tfuse::ref::transpose(const Tensor &x,
                                   const std::vector<int64_t> &perm) {
  int64_t rank = x.rank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return detail::invalidTensor(x.dtype);
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return detail::invalidTensor(x.dtype);
    seen[p] = true;
  }
  std::vector<int64_t> inStrides = detail::stridesOf(x.shape);
  std::vector<int64_t> shape(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = x.shape[perm[i]];
    strides[i] = inStrides[perm[i]];
  }
  Tensor y = zeros(x.dtype, shape);
  std::vector<int64_t> none(perm.size(), 0);
  detail::forEachBroadcast(
      shape, strides, none,
      [&](int64_t i, int64_t off, int64_t) { y.data[i] = x.data[off]; });
  return y;
}

//===----------------------------------------------------------------------===//
// slice, split and concat
//===----------------------------------------------------------------------===//

Tensor mlir::tfuse::ref::slice(const Tensor &x,
                               const std::vector<int64_t> &offsets,
                               const std::vector<int64_t> &sizes) {
  size_t rank = x.shape.size();
  if (offsets.size() != rank || sizes.size() != rank)
    return detail::invalidTensor(x.dtype);
  std::vector<int64_t> strides = detail::stridesOf(x.shape);
  int64_t base = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (offsets[i] < 0 || sizes[i] < 0 || offsets[i] + sizes[i] > x.shape[i])
      return detail::invalidTensor(x.dtype);
    base += offsets[i] * strides[i];
  }
  Tensor y = zeros(x.dtype, sizes);
  std::vector<int64_t> none(rank, 0);
  detail::forEachBroadcast(
      sizes, strides, none,
      [&](int64_t i, int64_t off, int64_t) { y.data[i] = x.data[base + off]; });
  return y;
}

std::vector<Tensor> mlir::tfuse::ref::split(const Tensor &x, int64_t axis,
                                            const std::vector<int64_t> &sizes) {
  std::vector<Tensor> pieces;
  if (!detail::normalizeAxis(axis, x.rank()))
    return pieces;
  std::vector<int64_t> offsets(x.shape.size(), 0);
  std::vector<int64_t> extent = x.shape;
  for (int64_t size : sizes) {
    extent[axis] = size;
    pieces.push_back(slice(x, offsets, extent));
    offsets[axis] += size;
  }
  return pieces;
}

Tensor mlir::tfuse::ref::concat(const std::vector<Tensor> &xs, int64_t axis) {
  if (xs.empty())
    return detail::invalidTensor(DType::F32);
  const Tensor &first = xs.front();
  if (!detail::normalizeAxis(axis, first.rank()))
    return detail::invalidTensor(first.dtype);
  std::vector<int64_t> shape = first.shape;
  shape[axis] = 0;
  for (const Tensor &x : xs) {
    if (x.rank() != first.rank())
      return detail::invalidTensor(first.dtype);
    for (int64_t d = 0; d < first.rank(); ++d)
      if (d != axis && x.shape[d] != first.shape[d])
        return detail::invalidTensor(first.dtype);
    shape[axis] += x.shape[axis];
  }
  Tensor y{first.dtype, shape, {}};
  y.data.reserve(static_cast<size_t>(y.numElements()));
  // Each piece contributes a contiguous chunk to every outer index.
  int64_t outer = detail::product(shape, 0, axis);
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor &x : xs) {
      int64_t chunk = detail::product(x.shape, axis, x.rank());
      for (int64_t j = 0; j < chunk; ++j)
        y.data.push_back(roundTo(first.dtype, x.data[o * chunk + j]));
    }
  }
  return y;
}

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

namespace {
/// The row an index selects: clamped into [0, last] (NaN, which integer
/// indices cannot hold, gives 0).
int64_t clampRow(double value, int64_t last) {
  if (value >= static_cast<double>(last))
    return last;
  return value > 0 ? static_cast<int64_t>(value) : 0;
}
} // namespace

Tensor mlir::tfuse::ref::gather(const Tensor &table, const Tensor &indices) {
  if (table.rank() == 0 || table.shape[0] == 0)
    return detail::invalidTensor(table.dtype);
  std::vector<int64_t> shape = indices.shape;
  shape.insert(shape.end(), table.shape.begin() + 1, table.shape.end());
  int64_t rowSize = detail::product(table.shape, 1, table.rank());
  int64_t last = table.shape[0] - 1;
  Tensor y{table.dtype, shape, {}};
  y.data.reserve(static_cast<size_t>(y.numElements()));
  for (double value : indices.data) {
    const double *src = table.data.data() + clampRow(value, last) * rowSize;
    y.data.insert(y.data.end(), src, src + rowSize);
  }
  return y;
}

Tensor mlir::tfuse::ref::gatherGrad(const Tensor &grad, const Tensor &indices,
                                    const std::vector<int64_t> &tableShape,
                                    DType dtype) {
  if (tableShape.empty() || tableShape[0] <= 0)
    return detail::invalidTensor(dtype);
  std::vector<int64_t> expected = indices.shape;
  expected.insert(expected.end(), tableShape.begin() + 1, tableShape.end());
  if (grad.shape != expected)
    return detail::invalidTensor(dtype);
  int64_t rowSize =
      detail::product(tableShape, 1, static_cast<int64_t>(tableShape.size()));
  int64_t last = tableShape[0] - 1;
  Tensor y = zeros(dtype, tableShape);
  for (size_t i = 0; i < indices.data.size(); ++i) {
    double *dst = y.data.data() + clampRow(indices.data[i], last) * rowSize;
    const double *src = grad.data.data() + i * rowSize;
    for (int64_t j = 0; j < rowSize; ++j)
      dst[j] += src[j];
  }
  for (double &v : y.data)
    v = roundTo(dtype, v);
  return y;
}

//===----------------------------------------------------------------------===//
// causal mask
//===----------------------------------------------------------------------===//

Tensor mlir::tfuse::ref::causalMask(int64_t rows, int64_t cols, DType dtype) {
  Tensor y = zeros(dtype, {rows, cols});
  double masked = roundTo(dtype, -std::numeric_limits<double>::infinity());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = r + 1; c < cols; ++c)
      y.data[r * cols + c] = masked;
  return y;
}
