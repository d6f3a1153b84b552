//===- Reference.cpp - CPU reference semantics of tfuse ops -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the tensor basics of the reference library: element
// types, rounding, byte images, hashes and shape helpers.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir::tfuse::ref;

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

int64_t mlir::tfuse::ref::numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d < 0 ? 0 : d;
  return n;
}

int64_t Tensor::numElements() const { return ref::numElements(shape); }

Tensor mlir::tfuse::ref::zeros(DType dtype, std::vector<int64_t> shape) {
  Tensor t{dtype, std::move(shape), {}};
  t.data.assign(static_cast<size_t>(t.numElements()), 0.0);
  return t;
}

Tensor mlir::tfuse::ref::makeTensor(DType dtype, std::vector<int64_t> shape,
                                    std::vector<double> values) {
  if (static_cast<int64_t>(values.size()) != ref::numElements(shape))
    return detail::invalidTensor(dtype);
  for (double &v : values)
    v = roundTo(dtype, v);
  return Tensor{dtype, std::move(shape), std::move(values)};
}

Tensor mlir::tfuse::ref::scalar(DType dtype, double value) {
  return Tensor{dtype, {}, {roundTo(dtype, value)}};
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

int64_t mlir::tfuse::ref::elementSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I64:
    return 8;
  }
  return 0;
}

const char *mlir::tfuse::ref::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

bool mlir::tfuse::ref::parseDType(std::string_view name, DType &dtype) {
  for (DType d :
       {DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64}) {
    if (name == dtypeName(d)) {
      dtype = d;
      return true;
    }
  }
  return false;
}

bool mlir::tfuse::ref::isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

//===----------------------------------------------------------------------===//
// Rounding
//===----------------------------------------------------------------------===//

static uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

static float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/// double -> float, round to nearest even, overflowing to +-inf. Spelled out
/// because a C++ conversion of an out-of-range double is undefined.
static float toFloat(double value) {
  if (std::isnan(value))
    return std::numeric_limits<float>::quiet_NaN();
  // Halfway between FLT_MAX and 2^128: from here on, RNE gives infinity.
  const double overflow = 0x1.ffffffp+127;
  if (value >= overflow)
    return std::numeric_limits<float>::infinity();
  if (value <= -overflow)
    return -std::numeric_limits<float>::infinity();
  return static_cast<float>(value);
}

uint16_t mlir::tfuse::ref::toHalfBits(float value) {
  uint32_t x = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffff;
  if (x > 0x7f800000) // NaN: keep it quiet, keep the top payload bits.
    return sign | 0x7e00 | static_cast<uint16_t>((x >> 13) & 0x3ff);
  if (x >= 0x477ff000) // >= 65520 (halfway from 65504 to 65536) or inf.
    return sign | 0x7c00;
  uint32_t exponent = x >> 23;
  if (exponent < 113) {
    // Below 2^-14: a subnormal half, i.e. a multiple of 2^-24. The float is
    // mant * 2^(exponent - 150), so it is mant >> (126 - exponent) units.
    if (exponent == 0)
      return sign; // zero or float subnormal (far below 2^-25)
    uint32_t mant = (x & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - exponent;
    if (shift > 24)
      return sign; // below 2^-25: rounds to zero
    uint32_t q = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
      ++q; // may carry into the smallest normal, which is correct
    return sign | static_cast<uint16_t>(q);
  }
  uint32_t bits = ((exponent - 112) << 10) | ((x >> 13) & 0x3ff);
  uint32_t rem = x & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (bits & 1)))
    ++bits; // may carry into the exponent, which is correct
  return sign | static_cast<uint16_t>(bits);
}

float mlir::tfuse::ref::fromHalfBits(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  if (exponent == 0) {
    float f = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -f : f;
  }
  if (exponent == 31)
    return bitsToFloat(sign | 0x7f800000 | (mant << 13));
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mant << 13));
}

uint16_t mlir::tfuse::ref::toBFloat16Bits(float value) {
  uint32_t x = floatBits(value);
  if ((x & 0x7fffffff) > 0x7f800000) // NaN: keep it a (quiet) NaN.
    return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t roundingBias = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + roundingBias) >> 16);
}

float mlir::tfuse::ref::fromBFloat16Bits(uint16_t bits) {
  return bitsToFloat(static_cast<uint32_t>(bits) << 16);
}

/// Truncates toward zero and saturates into [lo, hi]; NaN gives 0.
static double truncSaturate(double value, double lo, double hi) {
  if (std::isnan(value))
    return 0.0;
  double t = std::trunc(value);
  return t < lo ? lo : (t > hi ? hi : t);
}

// The largest double below 2^63 (so that it converts to int64 exactly).
static constexpr double kMaxI64AsDouble = 9223372036854774784.0;

double mlir::tfuse::ref::roundTo(DType dtype, double value) {
  switch (dtype) {
  case DType::F32:
    return toFloat(value);
  case DType::F16:
    return fromHalfBits(toHalfBits(toFloat(value)));
  case DType::BF16:
    return fromBFloat16Bits(toBFloat16Bits(toFloat(value)));
  case DType::I32:
    return truncSaturate(value, -2147483648.0, 2147483647.0);
  case DType::I64:
    return truncSaturate(value, -9223372036854775808.0, kMaxI64AsDouble);
  }
  return value;
}

//===----------------------------------------------------------------------===//
// Bytes and hashes
//===----------------------------------------------------------------------===//

static void appendLE(std::vector<uint8_t> &out, uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
}

void mlir::tfuse::ref::appendBytes(const Tensor &t, std::vector<uint8_t> &out) {
  out.reserve(out.size() + t.data.size() * elementSize(t.dtype));
  for (double v : t.data) {
    switch (t.dtype) {
    case DType::F32:
      appendLE(out, floatBits(toFloat(v)), 4);
      break;
    case DType::F16:
      appendLE(out, toHalfBits(toFloat(v)), 2);
      break;
    case DType::BF16:
      appendLE(out, toBFloat16Bits(toFloat(v)), 2);
      break;
    case DType::I32: {
      auto i = static_cast<int32_t>(roundTo(DType::I32, v));
      appendLE(out, static_cast<uint32_t>(i), 4);
      break;
    }
    case DType::I64: {
      auto i = static_cast<int64_t>(roundTo(DType::I64, v));
      appendLE(out, static_cast<uint64_t>(i), 8);
      break;
    }
    }
  }
}

std::vector<uint8_t> mlir::tfuse::ref::toBytes(const Tensor &t) {
  std::vector<uint8_t> out;
  appendBytes(t, out);
  return out;
}

static uint64_t readLE(const uint8_t *p, int bytes) {
  uint64_t bits = 0;
  for (int i = 0; i < bytes; ++i)
    bits |= static_cast<uint64_t>(p[i]) << (8 * i);
  return bits;
}

Tensor mlir::tfuse::ref::fromBytes(DType dtype, std::vector<int64_t> shape,
                                   const uint8_t *bytes, size_t size) {
  int64_t n = ref::numElements(shape);
  int64_t width = elementSize(dtype);
  if (static_cast<int64_t>(size) != n * width || (n > 0 && !bytes))
    return detail::invalidTensor(dtype);
  Tensor t{dtype, std::move(shape), {}};
  t.data.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = readLE(bytes + i * width, static_cast<int>(width));
    double &v = t.data[i];
    switch (dtype) {
    case DType::F32:
      v = bitsToFloat(static_cast<uint32_t>(bits));
      break;
    case DType::F16:
      v = fromHalfBits(static_cast<uint16_t>(bits));
      break;
    case DType::BF16:
      v = fromBFloat16Bits(static_cast<uint16_t>(bits));
      break;
    case DType::I32:
      v = static_cast<int32_t>(static_cast<uint32_t>(bits));
      break;
    case DType::I64:
      v = roundTo(DType::I64, static_cast<double>(static_cast<int64_t>(bits)));
      break;
    }
  }
  return t;
}

uint64_t mlir::tfuse::ref::fnv1a64(const uint8_t *bytes, size_t size,
                                   uint64_t hash) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

uint64_t mlir::tfuse::ref::hashBytes(const Tensor &t) {
  std::vector<uint8_t> bytes = toBytes(t);
  return fnv1a64(bytes.data(), bytes.size());
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::vector<int64_t>
mlir::tfuse::ref::broadcastShapes(const std::vector<int64_t> &a,
                                  const std::vector<int64_t> &b, bool &ok) {
  ok = true;
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t &d = out[rank - 1 - i];
    if (da == db || db == 1)
      d = da;
    else if (da == 1)
      d = db;
    else
      ok = false;
  }
  return out;
}

std::vector<int64_t> detail::stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::vector<int64_t> detail::broadcastStrides(const std::vector<int64_t> &in,
                                              const std::vector<int64_t> &out) {
  std::vector<int64_t> inStrides = stridesOf(in);
  std::vector<int64_t> strides(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[lead + i] = in[i] == 1 ? 0 : inStrides[i];
  return strides;
}

bool detail::normalizeAxis(int64_t &axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  return axis >= 0 && axis < rank;
}

int64_t detail::product(const std::vector<int64_t> &shape, int64_t begin,
                        int64_t end) {
  int64_t n = 1;
  for (int64_t i = begin; i < end; ++i)
    n *= shape[i];
  return n;
}
