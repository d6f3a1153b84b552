//===- RelativePosition.cpp - T5's relative position buckets ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements computeRelativePositionBuckets(), transformers'
// T5Attention._relative_position_bucket for static sequence lengths. With
// r = key position - query position:
//
//   bidirectional: n = num_buckets / 2, bucket = (r > 0 ? n : 0) + f(|r|)
//   unidirectional: n = num_buckets, bucket = f(max(-r, 0))
//   f(p) = p                                       when p < n / 2
//        = min(n/2 + int(log(p / (n/2)) / log(max_distance / (n/2))
//                        x (n - n/2)),  n - 1)     otherwise
//
// PyTorch computes the logarithm of p / (n/2) in f32 (relative_position is
// cast with .float()), divides by the Python float log(max_distance / (n/2))
// and multiplies by the integer n - n/2 in f32, then truncates (.to(long));
// the f32 steps here round the same way.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/TransformerSpec.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;

std::vector<int32_t> mlir::tfuse::computeRelativePositionBuckets(
    bool bidirectional, int64_t numBuckets, int64_t maxDistance,
    int64_t querySeq, int64_t keySeq) {
  assert(numBuckets >= 4 && maxDistance > numBuckets / 2 &&
         "buckets checked by the front end");
  int64_t n = bidirectional ? numBuckets / 2 : numBuckets;
  int64_t maxExact = n / 2;
  // math.log(max_distance / max_exact): a double, used as an f32 scalar.
  float logRange = static_cast<float>(std::log(
      static_cast<double>(maxDistance) / static_cast<double>(maxExact)));
  float largeBuckets = static_cast<float>(n - maxExact);
  std::vector<int32_t> buckets;
  buckets.reserve(static_cast<size_t>(querySeq * keySeq));
  for (int64_t i = 0; i < querySeq; ++i) {
    for (int64_t j = 0; j < keySeq; ++j) {
      int64_t r = j - i;
      int64_t bucket = 0;
      int64_t p;
      if (bidirectional) {
        bucket = r > 0 ? n : 0;
        p = r < 0 ? -r : r;
      } else {
        p = r < 0 ? -r : 0;
      }
      if (p < maxExact) {
        bucket += p;
      } else {
        float ratio = static_cast<float>(p) / static_cast<float>(maxExact);
        float scaled = std::log(ratio) / logRange * largeBuckets;
        int64_t large = maxExact + static_cast<int64_t>(scaled);
        bucket += std::min(large, n - 1);
      }
      buckets.push_back(static_cast<int32_t>(bucket));
    }
  }
  return buckets;
}
