//===- Random.cpp - Random numbers and dropout ------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the counter-based generators of the reference
// library: splitmix64 for random inputs, Philox4x32-10 for dropout masks
// (its constants, counter layout and keep rule are in Philox.h, which the
// GPU kernel emitter shares).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Philox.h"
#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <cmath>

using namespace mlir::tfuse::ref;

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

uint64_t mlir::tfuse::ref::splitmix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The largest value of the floating-point `dtype` below 1.
static double largestBelowOne(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return 1.0 - std::ldexp(1.0, -11);
  case DType::BF16:
    return 1.0 - std::ldexp(1.0, -8);
  default:
    return 1.0 - std::ldexp(1.0, -24);
  }
}

Tensor mlir::tfuse::ref::randomTensor(DType dtype, std::vector<int64_t> shape,
                                      uint64_t seed, uint64_t stream) {
  Tensor t = zeros(dtype, std::move(shape));
  uint64_t key = splitmix64(splitmix64(seed) ^ stream);
  bool floating = isFloat(dtype);
  for (size_t i = 0; i < t.data.size(); ++i) {
    uint64_t bits = splitmix64(key ^ static_cast<uint64_t>(i));
    if (!floating) {
      t.data[i] = static_cast<double>(bits % 1024);
      continue;
    }
    // 53 random bits give an exact double in [-1, 1).
    double u = std::ldexp(static_cast<double>(bits >> 11), -52) - 1.0;
    double r = roundTo(dtype, u);
    t.data[i] = r >= 1.0 ? largestBelowOne(dtype) : r;
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

std::array<uint32_t, 4>
mlir::tfuse::ref::philox4x32_10(std::array<uint32_t, 4> ctr,
                                std::array<uint32_t, 2> key) {
  for (int round = 0; round < philox::kRounds; ++round) {
    std::array<uint32_t, 2> k = philox::roundKey(key, round);
    uint64_t p0 = uint64_t(philox::kMultiplier0) * ctr[0];
    uint64_t p1 = uint64_t(philox::kMultiplier1) * ctr[2];
    auto hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    auto hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ k[0], lo1, hi0 ^ ctr[3] ^ k[1], lo0};
  }
  return ctr;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

bool mlir::tfuse::ref::dropoutKeep(uint64_t i, double p, uint64_t seed) {
  std::array<uint32_t, 4> r =
      philox4x32_10(philox::counterOfBlock(i / philox::kWordsPerCall),
                    philox::keyFromSeed(seed));
  return philox::keeps(r[i % philox::kWordsPerCall],
                       philox::dropoutThreshold(p));
}

Tensor mlir::tfuse::ref::dropout(const Tensor &x, double p, uint64_t seed) {
  Tensor y{x.dtype, x.shape, {}};
  y.data.resize(x.data.size());
  uint32_t threshold = philox::dropoutThreshold(p);
  double scale = 1.0 / (1.0 - p);
  std::array<uint32_t, 2> key = philox::keyFromSeed(seed);
  constexpr size_t words = philox::kWordsPerCall;
  // One Philox call serves `words` consecutive elements.
  for (size_t block = 0; block * words < x.data.size(); ++block) {
    std::array<uint32_t, 4> r =
        philox4x32_10(philox::counterOfBlock(block), key);
    for (size_t j = 0; j < words && block * words + j < x.data.size(); ++j) {
      size_t i = block * words + j;
      y.data[i] = philox::keeps(r[j], threshold)
                      ? roundTo(x.dtype, x.data[i] * scale)
                      : 0.0;
    }
  }
  return y;
}
