//===- Philox.h - Philox4x32-10 and the dropout mask rule -------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file holds the one definition of the dropout random stream: the
// constants of Random123's Philox4x32-10, the key schedule, the counter
// layout and the rule that turns a 32-bit draw into keep or drop. Both the
// CPU reference (lib/Reference/Random.cpp) and the GPU kernel emitter
// (lib/Conversion/TFuseToGPU/KernelSupport.cpp, which builds the same rounds
// in arith ops) read it, so that their masks agree bit for bit.
//
// No LLVM/MLIR: the reference library builds without them.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_REFERENCE_PHILOX_H
#define TFUSE_REFERENCE_PHILOX_H

#include <array>
#include <cmath>
#include <cstdint>

namespace mlir::tfuse::ref::philox {

/// Round multipliers: round r maps (c0, c1, c2, c3) with key (k0, k1) to
/// (hi(M1*c2) ^ c1 ^ k0, lo(M1*c2), hi(M0*c0) ^ c3 ^ k1, lo(M0*c0)).
inline constexpr uint32_t kMultiplier0 = 0xD2511F53;
inline constexpr uint32_t kMultiplier1 = 0xCD9E8D57;

/// Weyl-sequence key increments (golden ratio, sqrt(3) - 1), added to the
/// key before every round but the first.
inline constexpr uint32_t kWeyl0 = 0x9E3779B9;
inline constexpr uint32_t kWeyl1 = 0xBB67AE85;

/// Philox4x32-10: ten rounds.
inline constexpr int kRounds = 10;

/// Words per Philox call: one call serves this many consecutive elements.
inline constexpr unsigned kWordsPerCall = 4;

/// The key of a dropout op: {uint32(seed), uint32(seed >> 32)}.
constexpr std::array<uint32_t, 2> keyFromSeed(uint64_t seed) {
  return {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
}

/// The key used in round `round` (0-based) when the first round uses `key`.
constexpr std::array<uint32_t, 2> roundKey(std::array<uint32_t, 2> key,
                                           int round) {
  return {key[0] + static_cast<uint32_t>(round) * kWeyl0,
          key[1] + static_cast<uint32_t>(round) * kWeyl1};
}

/// The counter of the call that serves flat element `i`: block = i / 4 in
/// the low two words, the high two words zero. The element takes word
/// i % kWordsPerCall of the result.
constexpr std::array<uint32_t, 4> counterOfBlock(uint64_t block) {
  return {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0,
          0};
}

/// The dropout threshold of probability `p`: an element is kept iff its
/// draw is >= uint32(min(floor(p * 2^32), 2^32 - 1)); p <= 0 (or NaN) gives
/// 0, which keeps everything.
inline uint32_t dropoutThreshold(double p) {
  double scaled = std::floor(p * 4294967296.0);
  if (!(scaled > 0.0))
    return 0;
  if (scaled >= 4294967295.0)
    return 0xffffffffu;
  return static_cast<uint32_t>(scaled);
}

/// Whether an element whose draw is `word` survives dropout with
/// `threshold` (an unsigned compare: the kernels emit `cmpi uge`).
constexpr bool keeps(uint32_t word, uint32_t threshold) {
  return word >= threshold;
}

} // namespace mlir::tfuse::ref::philox

#endif // TFUSE_REFERENCE_PHILOX_H
