//===- Positions.cpp - position encodings and window masks ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements rope (rotary position embeddings, rotate-half
// layout) and the causal sliding-window mask.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <cmath>
#include <limits>

using namespace mlir::tfuse::ref;

Tensor mlir::tfuse::ref::rope(const Tensor &x, const Tensor &invFreq,
                              double attentionScaling) {
  int64_t rank = x.rank();
  int64_t half = invFreq.numElements();
  if (rank < 2 || invFreq.rank() != 1 || half == 0 ||
      2 * half > x.shape[rank - 1])
    return detail::invalidTensor(x.dtype);
  int64_t dim = x.shape[rank - 1], seq = x.shape[rank - 2];
  Tensor y = x;
  int64_t rows = x.numElements() / std::max<int64_t>(1, dim);
  for (int64_t r = 0; r < rows; ++r) {
    double position = static_cast<double>(r % seq);
    const double *in = x.data.data() + r * dim;
    double *out = y.data.data() + r * dim;
    for (int64_t d = 0; d < 2 * half; ++d) {
      double angle = position * invFreq.data[d % half];
      double c = std::cos(angle) * attentionScaling;
      double s = std::sin(angle) * attentionScaling;
      double partner = d < half ? -in[d + half] : in[d - half];
      out[d] = roundTo(x.dtype, in[d] * c + partner * s);
    }
  }
  return y;
}

Tensor mlir::tfuse::ref::windowMask(int64_t rows, int64_t cols, int64_t window,
                                    DType dtype) {
  Tensor y = zeros(dtype, {rows, cols});
  double masked = roundTo(dtype, -std::numeric_limits<double>::infinity());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (c > r || r - c >= window)
        y.data[r * cols + c] = masked;
  return y;
}
