//===- Collectives.cpp - Reference collectives among ranks ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the collectives of the CPU reference: all-reduce,
// reduce-scatter and all-gather over one tensor per rank, and the single
// program's view of them when every rank holds the same tensor.
//
//===----------------------------------------------------------------------===//

#include "Detail.h"

using namespace mlir::tfuse::ref;

namespace {

/// Whether `ranks` is a valid group: at least one rank, float tensors of one
/// dtype and shape, each holding its elements.
bool isValidGroup(const std::vector<Tensor> &ranks) {
  if (ranks.empty() || !isFloat(ranks.front().dtype))
    return false;
  for (const Tensor &t : ranks)
    if (t.dtype != ranks.front().dtype || t.shape != ranks.front().shape ||
        static_cast<int64_t>(t.data.size()) != t.numElements())
      return false;
  return true;
}

/// One invalid result per rank.
std::vector<Tensor> invalidResults(const std::vector<Tensor> &ranks) {
  if (ranks.empty())
    return {};
  return std::vector<Tensor>(ranks.size(),
                             detail::invalidTensor(ranks.front().dtype));
}

/// The elementwise sum of a valid group, in rank order in double (starting
/// from rank 0's value, so that -0 stays -0), rounded once.
Tensor sumOfRanks(const std::vector<Tensor> &ranks) {
  Tensor sum = ranks.front();
  for (size_t i = 0; i < sum.data.size(); ++i) {
    double s = ranks.front().data[i];
    for (size_t r = 1; r < ranks.size(); ++r)
      s += ranks[r].data[i];
    sum.data[i] = roundTo(sum.dtype, s);
  }
  return sum;
}

/// `sum` cut along `axis` into `pieces` equal slices, or nothing when the
/// axis is out of range or its size not a multiple of `pieces`.
std::vector<Tensor> scatter(const Tensor &sum, int64_t axis, int64_t pieces) {
  if (!detail::normalizeAxis(axis, sum.rank()) || sum.shape[axis] % pieces != 0)
    return {};
  return split(sum, axis,
               std::vector<int64_t>(static_cast<size_t>(pieces),
                                    sum.shape[axis] / pieces));
}

} // namespace

std::vector<Tensor>
mlir::tfuse::ref::allReduce(const std::vector<Tensor> &ranks) {
  if (!isValidGroup(ranks))
    return invalidResults(ranks);
  return std::vector<Tensor>(ranks.size(), sumOfRanks(ranks));
}

std::vector<Tensor>
mlir::tfuse::ref::reduceScatter(const std::vector<Tensor> &ranks,
                                int64_t axis) {
  if (!isValidGroup(ranks))
    return invalidResults(ranks);
  std::vector<Tensor> slices =
      scatter(sumOfRanks(ranks), axis, static_cast<int64_t>(ranks.size()));
  return slices.empty() ? invalidResults(ranks) : slices;
}

std::vector<Tensor>
mlir::tfuse::ref::allGather(const std::vector<Tensor> &ranks, int64_t axis) {
  if (!isValidGroup(ranks) || !detail::normalizeAxis(axis, ranks[0].rank()))
    return invalidResults(ranks);
  return std::vector<Tensor>(ranks.size(), concat(ranks, axis));
}

Tensor mlir::tfuse::ref::collectiveOfIdenticalRanks(CollectiveKind kind,
                                                    const Tensor &x,
                                                    int64_t groupSize,
                                                    int64_t axis) {
  if (groupSize < 1 || !isValidGroup({x}))
    return detail::invalidTensor(x.dtype);
  if (kind == CollectiveKind::AllGather) {
    if (!detail::normalizeAxis(axis, x.rank()))
      return detail::invalidTensor(x.dtype);
    return concat(std::vector<Tensor>(static_cast<size_t>(groupSize), x), axis);
  }
  // n equal values of at most 24 significant bits add exactly in double for
  // n <= 2^29: the rank-order sum is n * x.
  Tensor sum = x;
  for (double &value : sum.data)
    value = roundTo(x.dtype, static_cast<double>(groupSize) * value);
  if (kind == CollectiveKind::AllReduce)
    return sum;
  std::vector<Tensor> slices = scatter(sum, axis, groupSize);
  return slices.empty() ? detail::invalidTensor(x.dtype) : slices.front();
}
