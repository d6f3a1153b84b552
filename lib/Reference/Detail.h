//===- Detail.h - Private helpers of the reference library ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Shape and indexing helpers shared by the files of lib/Reference. Not part
// of the public interface.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_REFERENCE_DETAIL_H
#define TFUSE_LIB_REFERENCE_DETAIL_H

#include "tfuse/Reference/Reference.h"

#include <cstdint>
#include <vector>

namespace mlir::tfuse::ref::detail {

/// The result of a violated precondition: a tensor with no elements.
inline Tensor invalidTensor(DType dtype) { return Tensor{dtype, {0}, {}}; }

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape);

/// Strides of a tensor of shape `in` broadcast to `out` (numpy rules,
/// trailing-aligned): 0 for stretched or missing dimensions. The result has
/// out.size() entries.
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &in,
                                      const std::vector<int64_t> &out);

/// Turns a possibly negative `axis` into [0, rank). Returns false if it is out
/// of range.
bool normalizeAxis(int64_t &axis, int64_t rank);

/// Product of shape[begin, end).
int64_t product(const std::vector<int64_t> &shape, int64_t begin, int64_t end);

/// Calls fn(outIndex, offsetA, offsetB) for every element of `out` in
/// row-major order, where the offsets follow the strides `sa` and `sb`
/// (typically from broadcastStrides).
template <typename Fn>
void forEachBroadcast(const std::vector<int64_t> &out,
                      const std::vector<int64_t> &sa,
                      const std::vector<int64_t> &sb, Fn fn) {
  int64_t n = numElements(out);
  int64_t rank = static_cast<int64_t>(out.size());
  std::vector<int64_t> index(out.size(), 0);
  int64_t offA = 0, offB = 0;
  for (int64_t i = 0; i < n; ++i) {
    fn(i, offA, offB);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < out[d]) {
        offA += sa[d];
        offB += sb[d];
        break;
      }
      offA -= sa[d] * (out[d] - 1);
      offB -= sb[d] * (out[d] - 1);
      index[d] = 0;
    }
  }
}

} // namespace mlir::tfuse::ref::detail

#endif // TFUSE_LIB_REFERENCE_DETAIL_H
