//===- CheckedInt.h - int64 sizes whose overflow is detected ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Element counts, bytes, FLOPs and offsets are int64. Every computation of
// one goes through CheckedInt, whose arithmetic remembers an overflow instead
// of wrapping, so that a graph too large for int64 gets an error, never a
// wrong number. Header-only and free of LLVM: the reference and the runtime
// use it on the GPU machine too.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_CHECKEDINT_H
#define TFUSE_SUPPORT_CHECKEDINT_H

#include <cstdint>
#include <optional>

namespace mlir::tfuse {

/// The most elements one tensor may have: 2^40 (1.1e12). The largest target
/// (an H200, 141 GB) holds at most 7.1e10 two-byte elements, so every tensor
/// that fits a GPU is admitted, and 2^40 elements of 8 bytes leave int64 room
/// for sums of many such tensors. docs/cost-model.md states it.
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 40;

/// An int64 that is either a value or "overflowed"; once a step overflows,
/// every result computed from it is overflowed too.
class CheckedInt {
public:
  constexpr CheckedInt() = default;
  constexpr CheckedInt(int64_t value) : number(value) {}

  static constexpr CheckedInt overflowed() {
    CheckedInt result;
    result.ok = false;
    return result;
  }

  bool valid() const { return ok; }
  /// The value, or nullopt after an overflow.
  std::optional<int64_t> get() const {
    return ok ? std::optional<int64_t>(number) : std::nullopt;
  }
  /// The value, or `fallback` after an overflow.
  int64_t valueOr(int64_t fallback) const { return ok ? number : fallback; }

  friend CheckedInt operator+(CheckedInt a, CheckedInt b) {
    int64_t sum;
    if (!a.ok || !b.ok || __builtin_add_overflow(a.number, b.number, &sum))
      return overflowed();
    return sum;
  }
  friend CheckedInt operator-(CheckedInt a, CheckedInt b) {
    int64_t difference;
    if (!a.ok || !b.ok ||
        __builtin_sub_overflow(a.number, b.number, &difference))
      return overflowed();
    return difference;
  }
  friend CheckedInt operator*(CheckedInt a, CheckedInt b) {
    int64_t product;
    if (!a.ok || !b.ok || __builtin_mul_overflow(a.number, b.number, &product))
      return overflowed();
    return product;
  }
  CheckedInt &operator+=(CheckedInt other) { return *this = *this + other; }
  CheckedInt &operator*=(CheckedInt other) { return *this = *this * other; }

  /// Rounded up to a multiple of `alignment` (> 0).
  CheckedInt alignTo(int64_t alignment) const {
    CheckedInt bumped = *this + (alignment - 1);
    if (!bumped.ok)
      return bumped;
    return bumped.number / alignment * alignment;
  }

private:
  int64_t number = 0;
  bool ok = true;
};

/// The product of `dims` (1 when empty); overflowed when it does not fit or a
/// dimension is negative.
template <typename Range> CheckedInt checkedProduct(const Range &dims) {
  CheckedInt product = 1;
  for (int64_t dim : dims) {
    if (dim < 0)
      return CheckedInt::overflowed();
    product *= dim;
  }
  return product;
}

/// The elements of a tensor of shape `dims`, or nullopt when there are more
/// than kMaxTensorElements (or a dimension is negative).
template <typename Range>
std::optional<int64_t> checkedTensorElements(const Range &dims) {
  std::optional<int64_t> elements = checkedProduct(dims).get();
  if (!elements || *elements > kMaxTensorElements)
    return std::nullopt;
  return elements;
}

} // namespace mlir::tfuse

#endif // TFUSE_SUPPORT_CHECKEDINT_H
