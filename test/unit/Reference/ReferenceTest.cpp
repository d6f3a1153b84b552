//===- ReferenceTest.cpp - Tests of the CPU reference library ---*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of mlir::tfuse::ref. Expected values are written literally: they
// were computed by hand (or, for transcendental functions, with Python's math
// module and rounded to f32 with struct), never with the code under test.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mlir::tfuse::ref;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// Expects `t` to have `shape` and exactly `values` (NaN matches NaN).
void expectTensor(const Tensor &t, const std::vector<int64_t> &shape,
                  const std::vector<double> &values) {
  EXPECT_EQ(t.shape, shape);
  ASSERT_EQ(t.data.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i]))
      EXPECT_TRUE(std::isnan(t.data[i])) << "at " << i;
    else
      EXPECT_EQ(t.data[i], values[i]) << "at " << i;
  }
}

Tensor f32(std::vector<int64_t> shape, std::vector<double> values) {
  return makeTensor(DType::F32, std::move(shape), std::move(values));
}

/// 0, 1, 2, ... in the given shape.
Tensor iota(DType dtype, std::vector<int64_t> shape) {
  Tensor t = zeros(dtype, std::move(shape));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = static_cast<double>(i);
  return t;
}

//===----------------------------------------------------------------------===//
// Element types, rounding, bytes, hashes
//===----------------------------------------------------------------------===//

TEST(DTypeTest, NamesSizesAndKinds) {
  EXPECT_STREQ(dtypeName(DType::F32), "f32");
  EXPECT_STREQ(dtypeName(DType::F16), "f16");
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  EXPECT_STREQ(dtypeName(DType::I32), "i32");
  EXPECT_STREQ(dtypeName(DType::I64), "i64");
  EXPECT_EQ(elementSize(DType::F32), 4);
  EXPECT_EQ(elementSize(DType::F16), 2);
  EXPECT_EQ(elementSize(DType::BF16), 2);
  EXPECT_EQ(elementSize(DType::I32), 4);
  EXPECT_EQ(elementSize(DType::I64), 8);
  EXPECT_TRUE(isFloat(DType::BF16));
  EXPECT_FALSE(isFloat(DType::I64));
  DType d = DType::F32;
  EXPECT_TRUE(parseDType("bf16", d));
  EXPECT_EQ(d, DType::BF16);
  EXPECT_FALSE(parseDType("f64", d));
}

TEST(DTypeTest, NumElements) {
  EXPECT_EQ(scalar(DType::F32, 3.0).numElements(), 1);
  EXPECT_EQ(zeros(DType::F32, {2, 3, 4}).numElements(), 24);
  EXPECT_EQ(zeros(DType::F32, {2, 0}).numElements(), 0);
}

TEST(RoundingTest, F32RoundsToNearestEven) {
  EXPECT_EQ(roundTo(DType::F32, 1.0 + 0x1p-24), 1.0);               // tie
  EXPECT_EQ(roundTo(DType::F32, 1.0 + 3 * 0x1p-24), 1.0 + 0x1p-22); // tie
  EXPECT_EQ(roundTo(DType::F32, 1.0 + 0x1p-24 + 0x1p-50), 1.0 + 0x1p-23);
  EXPECT_EQ(roundTo(DType::F32, 1.0 / 3.0), 0x1.555556p-2);
  EXPECT_EQ(roundTo(DType::F32, 1e300), kInf);
  EXPECT_EQ(roundTo(DType::F32, -1e300), -kInf);
  EXPECT_TRUE(std::isnan(roundTo(DType::F32, std::nan(""))));
}

TEST(RoundingTest, BF16RoundsToNearestEven) {
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + 0x1p-8), 1.0); // tie to even
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + 3 * 0x1p-8), 1.0 + 0x1p-6);
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + 0x1p-8 + 0x1p-20), 1.0 + 0x1p-7);
  // Rounded to f32 first (1 + 2^-8, a tie), then to bf16: 1, although the
  // exact value is above the tie.
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + 0x1p-8 + 0x1p-30), 1.0);
  EXPECT_EQ(roundTo(DType::BF16, 1.0 / 3.0), 0x1.56p-2);
  EXPECT_EQ(roundTo(DType::BF16, 65520.0), 65536.0);
  EXPECT_EQ(roundTo(DType::BF16, 1e39), kInf);
  EXPECT_EQ(toBFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(toBFloat16Bits(-2.0f), 0xc000);
  EXPECT_EQ(toBFloat16Bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(fromBFloat16Bits(0x3f80), 1.0f);
  EXPECT_EQ(fromBFloat16Bits(0xc0a0), -5.0f);
  EXPECT_TRUE(std::isnan(roundTo(DType::BF16, std::nan(""))));
  EXPECT_TRUE(std::isnan(fromBFloat16Bits(
      toBFloat16Bits(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(RoundingTest, F16RoundsToNearestEven) {
  EXPECT_EQ(roundTo(DType::F16, 1.0 + 0x1p-11), 1.0); // tie to even
  EXPECT_EQ(roundTo(DType::F16, 1.0 + 3 * 0x1p-11), 1.0 + 0x1p-9);
  EXPECT_EQ(roundTo(DType::F16, 65504.0), 65504.0);
  EXPECT_EQ(roundTo(DType::F16, 65519.0), 65504.0);
  EXPECT_EQ(roundTo(DType::F16, 65520.0), kInf); // tie, away from odd 65504
  EXPECT_EQ(roundTo(DType::F16, -70000.0), -kInf);
  EXPECT_TRUE(std::isnan(roundTo(DType::F16, std::nan(""))));
  EXPECT_EQ(toHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(toHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(toHalfBits(0.1f), 0x2e66);
  EXPECT_EQ(toHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(toHalfBits(65520.0f), 0x7c00);
  EXPECT_EQ(toHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(toHalfBits(0x1p-14f), 0x0400);
  // Subnormals: multiples of 2^-24, ties to even.
  EXPECT_EQ(toHalfBits(0x1p-24f), 0x0001);
  EXPECT_EQ(toHalfBits(0x1p-25f), 0x0000);
  EXPECT_EQ(toHalfBits(0x1.8p-25f), 0x0001);
  EXPECT_EQ(toHalfBits(0x1.8p-24f), 0x0002);
  EXPECT_EQ(toHalfBits(0x1.4p-23f), 0x0002);
  EXPECT_EQ(toHalfBits(1023.5f * 0x1p-24f), 0x0400);
  EXPECT_EQ(roundTo(DType::F16, 0x1p-26), 0.0);
  EXPECT_EQ(fromHalfBits(0x0001), 0x1p-24f);
  EXPECT_EQ(fromHalfBits(0x7bff), 65504.0f);
  EXPECT_EQ(fromHalfBits(0xbc00), -1.0f);
  EXPECT_EQ(fromHalfBits(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(fromHalfBits(0x7e00)));
  EXPECT_TRUE(std::isnan(
      fromHalfBits(toHalfBits(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(RoundingTest, IntegersTruncateAndSaturate) {
  EXPECT_EQ(roundTo(DType::I32, 2.7), 2.0);
  EXPECT_EQ(roundTo(DType::I32, -2.7), -2.0);
  EXPECT_EQ(roundTo(DType::I32, 3e9), 2147483647.0);
  EXPECT_EQ(roundTo(DType::I32, -3e9), -2147483648.0);
  EXPECT_EQ(roundTo(DType::I32, std::nan("")), 0.0);
  EXPECT_EQ(roundTo(DType::I64, 1e10 + 0.5), 1e10);
}

TEST(BytesTest, LittleEndianImages) {
  EXPECT_EQ(
      toBytes(f32({2}, {1.0, -2.0})),
      (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0}));
  EXPECT_EQ(toBytes(makeTensor(DType::F16, {2}, {1.0, -2.0})),
            (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0xc0}));
  EXPECT_EQ(toBytes(makeTensor(DType::BF16, {1}, {1.0})),
            (std::vector<uint8_t>{0x80, 0x3f}));
  EXPECT_EQ(toBytes(makeTensor(DType::I32, {1}, {-1})),
            (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(toBytes(makeTensor(DType::I64, {1}, {258})),
            (std::vector<uint8_t>{0x02, 0x01, 0, 0, 0, 0, 0, 0}));
}

TEST(BytesTest, RoundTrip) {
  for (DType d :
       {DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64}) {
    Tensor t = randomTensor(d, {3, 5}, 11, 3);
    std::vector<uint8_t> bytes = toBytes(t);
    EXPECT_EQ(bytes.size(), size_t(15 * elementSize(d)));
    Tensor back = fromBytes(d, {3, 5}, bytes.data(), bytes.size());
    expectTensor(back, {3, 5}, t.data);
  }
  uint8_t one[3] = {0, 0, 0};
  EXPECT_EQ(fromBytes(DType::F16, {2}, one, 3).numElements(), 0);
}

TEST(HashTest, FNV1aKnownAnswers) {
  EXPECT_EQ(fnv1a64(nullptr, 0), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64(reinterpret_cast<const uint8_t *>("a"), 1),
            0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64(reinterpret_cast<const uint8_t *>("foobar"), 6),
            0x85944171f73967e8ULL);
}

TEST(HashTest, StableTensorHashes) {
  EXPECT_EQ(hashBytes(f32({3}, {1.0, -2.0, 0.5})), 0xc598e74ad8b1c9b5ULL);
  EXPECT_EQ(hashBytes(makeTensor(DType::BF16, {3}, {1.0, -2.0, 0.5})),
            0x5a24b89cd9cfa12dULL);
  EXPECT_EQ(hashBytes(makeTensor(DType::I64, {2}, {7, -1})),
            0xc59e4efbc0fc0c1aULL);
}

TEST(RandomTest, KnownValuesAndDeterminism) {
  // splitmix64(splitmix64(splitmix64(42) ^ 7) ^ i), computed in Python.
  expectTensor(randomTensor(DType::F32, {2, 2}, 42, 7), {2, 2},
               {-0x1.520bbcp-2, -0x1.1f0b3ep-1, -0x1.095ffep-1, 0x1.d5790ap-1});
  expectTensor(randomTensor(DType::I32, {4}, 42, 7), {4},
               {1007, 496, 230, 313});
  Tensor a = randomTensor(DType::BF16, {1000}, 5, 0);
  EXPECT_EQ(hashBytes(a), hashBytes(randomTensor(DType::BF16, {1000}, 5, 0)));
  EXPECT_NE(hashBytes(a), hashBytes(randomTensor(DType::BF16, {1000}, 5, 1)));
  EXPECT_NE(hashBytes(a), hashBytes(randomTensor(DType::BF16, {1000}, 6, 0)));
}

TEST(RandomTest, RangeAndRepresentability) {
  for (DType d : {DType::F32, DType::F16, DType::BF16}) {
    Tensor t = randomTensor(d, {20000}, 1, 2);
    double sum = 0;
    for (double v : t.data) {
      EXPECT_GE(v, -1.0);
      EXPECT_LT(v, 1.0);
      EXPECT_EQ(roundTo(d, v), v);
      sum += v;
    }
    EXPECT_NEAR(sum / 20000, 0.0, 0.03) << dtypeName(d);
  }
  for (double v : randomTensor(DType::I64, {5000}, 1, 2).data) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1024.0);
    EXPECT_EQ(v, std::trunc(v));
  }
}

TEST(BroadcastTest, Shapes) {
  bool ok;
  EXPECT_EQ(broadcastShapes({2, 3}, {3}, ok), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(broadcastShapes({2, 1}, {1, 3}, ok), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(broadcastShapes({}, {4}, ok), (std::vector<int64_t>{4}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(broadcastShapes({5, 1, 4}, {3, 1}, ok),
            (std::vector<int64_t>{5, 3, 4}));
  EXPECT_TRUE(ok);
  broadcastShapes({2, 3}, {4}, ok);
  EXPECT_FALSE(ok);
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

TEST(BinaryTest, BroadcastRowVector) {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f32({3}, {10, 20, 30});
  expectTensor(binary(BinaryKind::Add, a, b), {2, 3}, {11, 22, 33, 14, 25, 36});
}

TEST(BinaryTest, BroadcastColumnAgainstRow) {
  Tensor a = f32({2, 1}, {1, 2});
  Tensor b = f32({1, 3}, {10, 20, 30});
  expectTensor(binary(BinaryKind::Sub, a, b), {2, 3},
               {-9, -19, -29, -8, -18, -28});
}

TEST(BinaryTest, Scalars) {
  expectTensor(binary(BinaryKind::Mul, f32({2, 2}, {1, 2, 3, 4}),
                      scalar(DType::F32, 0.5)),
               {2, 2}, {0.5, 1, 1.5, 2});
  expectTensor(
      binary(BinaryKind::Sub, scalar(DType::F32, 2), f32({3}, {1, 2, 3})), {3},
      {1, 0, -1});
  expectTensor(
      binary(BinaryKind::Add, scalar(DType::F32, 2), scalar(DType::F32, 3)), {},
      {5});
}

TEST(BinaryTest, DivRoundsToResultType) {
  expectTensor(binary(BinaryKind::Div, f32({2}, {1, 1}), f32({2}, {3, 4})), {2},
               {0x1.555556p-2, 0.25});
  Tensor one = makeTensor(DType::BF16, {1}, {1});
  expectTensor(binary(BinaryKind::Div, one, makeTensor(DType::BF16, {1}, {3})),
               {1}, {0x1.56p-2});
  // The result has the first operand's type: 1 + 2^-8 is 1 in bf16.
  Tensor y = binary(BinaryKind::Add, one, f32({1}, {0x1p-8}));
  EXPECT_EQ(y.dtype, DType::BF16);
  expectTensor(y, {1}, {1});
}

TEST(BinaryTest, MaxMinFollowIEEE2019) {
  double nan = std::nan("");
  Tensor a = f32({4}, {1, -0.0, nan, 5});
  Tensor b = f32({4}, {2, 0.0, 1, nan});
  Tensor mx = binary(BinaryKind::Max, a, b);
  expectTensor(mx, {4}, {2, 0, nan, nan});
  EXPECT_FALSE(std::signbit(mx.data[1]));
  Tensor mn = binary(BinaryKind::Min, a, b);
  expectTensor(mn, {4}, {1, -0.0, nan, nan});
  EXPECT_TRUE(std::signbit(mn.data[1]));
}

TEST(BinaryTest, IncompatibleShapesGiveEmptyTensor) {
  Tensor y = binary(BinaryKind::Add, f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                    f32({2}, {1, 2}));
  EXPECT_EQ(y.numElements(), 0);
}

TEST(UnaryTest, ExactValues) {
  Tensor x = f32({3}, {0, 1, -2});
  expectTensor(unary(UnaryKind::Neg, x), {3}, {-0.0, -1, 2});
  expectTensor(unary(UnaryKind::Exp, f32({1}, {0})), {1}, {1});
  expectTensor(unary(UnaryKind::Log, f32({2}, {1, 0})), {2}, {0, -kInf});
  expectTensor(unary(UnaryKind::Tanh, f32({1}, {0})), {1}, {0});
  expectTensor(unary(UnaryKind::Erf, f32({1}, {0})), {1}, {0});
  expectTensor(unary(UnaryKind::Sqrt, f32({2}, {4, 0.25})), {2}, {2, 0.5});
  expectTensor(unary(UnaryKind::Rsqrt, f32({3}, {4, 0.25, 0})), {3},
               {0.5, 2, kInf});
  expectTensor(unary(UnaryKind::Sigmoid, f32({1}, {0})), {1}, {0.5});
  expectTensor(unary(UnaryKind::Silu, f32({1}, {0})), {1}, {0});
  expectTensor(unary(UnaryKind::GeluErf, f32({1}, {0})), {1}, {0});
  expectTensor(unary(UnaryKind::GeluTanh, f32({1}, {0})), {1}, {0});
  double nan = std::nan("");
  expectTensor(unary(UnaryKind::Log, f32({1}, {-1})), {1}, {nan});
  expectTensor(unary(UnaryKind::Sqrt, f32({1}, {-1})), {1}, {nan});
}

TEST(UnaryTest, Relu) {
  double nan = std::nan("");
  Tensor y = unary(UnaryKind::Relu, f32({4}, {-1, 2, -0.0, nan}));
  expectTensor(y, {4}, {0, 2, 0, nan});
  EXPECT_FALSE(std::signbit(y.data[2]));
}

TEST(UnaryTest, TranscendentalValues) {
  // Python math, rounded to f32.
  expectTensor(unary(UnaryKind::Exp, f32({1}, {1})), {1}, {0x1.5bf0a8p+1});
  expectTensor(unary(UnaryKind::Log, f32({1}, {2})), {1}, {0x1.62e430p-1});
  expectTensor(unary(UnaryKind::Tanh, f32({1}, {0.5})), {1}, {0x1.d9353ep-2});
  expectTensor(unary(UnaryKind::Erf, f32({1}, {0.5})), {1}, {0x1.0a7ef6p-1});
  expectTensor(unary(UnaryKind::Sqrt, f32({1}, {2})), {1}, {0x1.6a09e6p+0});
  expectTensor(unary(UnaryKind::Rsqrt, f32({1}, {2})), {1}, {0x1.6a09e6p-1});
  expectTensor(unary(UnaryKind::Sigmoid, f32({1}, {2})), {1}, {0x1.c2f7d6p-1});
  expectTensor(unary(UnaryKind::Silu, f32({1}, {1})), {1}, {0x1.764d50p-1});
  expectTensor(unary(UnaryKind::GeluErf, f32({1}, {1})), {1}, {0x1.aec4bep-1});
  expectTensor(unary(UnaryKind::GeluTanh, f32({1}, {1})), {1}, {0x1.aeb0b8p-1});
  // Large arguments saturate without NaN.
  expectTensor(unary(UnaryKind::Sigmoid, f32({2}, {-1000, 1000})), {2}, {0, 1});
  expectTensor(unary(UnaryKind::Silu, f32({2}, {-1000, 1000})), {2},
               {-0.0, 1000});
}

TEST(CastTest, FloatAndIntConversions) {
  Tensor x = f32({3}, {1.0 + 0x1p-8, 65520, 2.5});
  expectTensor(cast(x, DType::BF16), {3}, {1, 65536, 2.5});
  expectTensor(cast(x, DType::F16), {3}, {1.0 + 0x1p-8, kInf, 2.5});
  expectTensor(cast(x, DType::I32), {3}, {1, 65520, 2});
  EXPECT_EQ(cast(x, DType::F16).dtype, DType::F16);
  expectTensor(cast(makeTensor(DType::I64, {2}, {-3, 7}), DType::F32), {2},
               {-3, 7});
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

TEST(MatmulTest, Plain) {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  expectTensor(matmul(a, b), {2, 2}, {58, 64, 139, 154});
}

TEST(MatmulTest, Transposes) {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor aT = f32({3, 2}, {1, 4, 2, 5, 3, 6});
  Tensor b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor bT = f32({2, 3}, {7, 9, 11, 8, 10, 12});
  std::vector<double> want = {58, 64, 139, 154};
  expectTensor(matmul(aT, b, true, false), {2, 2}, want);
  expectTensor(matmul(a, bT, false, true), {2, 2}, want);
  expectTensor(matmul(aT, bT, true, true), {2, 2}, want);
}

TEST(MatmulTest, BroadcastBatch) {
  // a: [2, 1, 2, 2] = {I, 2I}; b: [3, 2, 2] = {B0, B1, B2}.
  Tensor a = f32({2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  Tensor b = f32({3, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0, 5, 6, 7, 8});
  expectTensor(matmul(a, b), {2, 3, 2, 2},
               {1, 2, 3, 4, 0, 1, 1, 0, 5,  6,  7,  8, //
                2, 4, 6, 8, 0, 2, 2, 0, 10, 12, 14, 16});
  // A rank-2 operand broadcasts against a batched one.
  Tensor w = f32({2, 1}, {1, -1});
  expectTensor(matmul(b, w), {3, 2, 1}, {-1, -1, -1, 1, -1, -1});
}

TEST(MatmulTest, AccumulatesInDoubleAndRoundsOnce) {
  // In f32 arithmetic 1 + 2^-24 + 2^-24 would stay 1.
  Tensor a = f32({1, 3}, {1, 0x1p-24, 0x1p-24});
  Tensor b = f32({3, 1}, {1, 1, 1});
  expectTensor(matmul(a, b), {1, 1}, {1.0 + 0x1p-23});
  // bf16: 1 + 3/256 rounds once (a tie) to 1 + 2^-6.
  Tensor c = makeTensor(DType::BF16, {1, 4}, {1, 0x1p-8, 0x1p-8, 0x1p-8});
  Tensor d = makeTensor(DType::BF16, {4, 1}, {1, 1, 1, 1});
  expectTensor(matmul(c, d), {1, 1}, {1.0 + 0x1p-6});
}

TEST(MatmulTest, BlockedAndThreadedMatchesNaiveLoop) {
  // Sizes that are not multiples of the blocks, large enough to use threads.
  const int64_t m = 67, k = 300, n = 600;
  Tensor a = randomTensor(DType::F32, {m, k}, 1, 0);
  Tensor b = randomTensor(DType::F32, {k, n}, 1, 1);
  Tensor want = zeros(DType::F32, {m, n});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += a.data[i * k + kk] * b.data[kk * n + j];
      want.data[i * n + j] = roundTo(DType::F32, acc);
    }
  }
  EXPECT_EQ(hashBytes(matmul(a, b)), hashBytes(want));
  Tensor aT = transpose(a, {1, 0}), bT = transpose(b, {1, 0});
  EXPECT_EQ(hashBytes(matmul(aT, bT, true, true)), hashBytes(want));
  EXPECT_EQ(hashBytes(matmul(a, bT, false, true)), hashBytes(want));
}

TEST(MatmulTest, MismatchedInnerDimensionGivesEmptyTensor) {
  EXPECT_EQ(matmul(zeros(DType::F32, {2, 3}), zeros(DType::F32, {2, 3}))
                .numElements(),
            0);
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

TEST(ReduceTest, SumMaxMean) {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expectTensor(reduce(ReduceKind::Sum, x, 0, false), {3}, {5, 7, 9});
  expectTensor(reduce(ReduceKind::Sum, x, 1, true), {2, 1}, {6, 15});
  expectTensor(reduce(ReduceKind::Max, x, -1, false), {2}, {3, 6});
  expectTensor(reduce(ReduceKind::Max, x, 0, true), {1, 3}, {4, 5, 6});
  expectTensor(reduce(ReduceKind::Mean, x, 1, false), {2}, {2, 5});
  expectTensor(reduce(ReduceKind::Mean, x, 0, false), {3}, {2.5, 3.5, 4.5});
}

TEST(ReduceTest, MiddleAxisAndNaN) {
  Tensor x = iota(DType::F32, {2, 2, 2});
  expectTensor(reduce(ReduceKind::Sum, x, 1, false), {2, 2}, {2, 4, 10, 12});
  expectTensor(reduce(ReduceKind::Sum, x, 1, true), {2, 1, 2}, {2, 4, 10, 12});
  double nan = std::nan("");
  expectTensor(reduce(ReduceKind::Max, f32({3}, {1, nan, 2}), 0, false), {},
               {nan});
  EXPECT_EQ(reduce(ReduceKind::Sum, x, 3, false).numElements(), 0);
}

TEST(SoftmaxTest, HandValues) {
  // Python math, rounded to f32.
  expectTensor(softmax(f32({3}, {1, 2, 3}), 0), {3},
               {0x1.70c3e6p-4, 0x1.f53434p-3, 0x1.549a76p-1});
  expectTensor(softmax(f32({2, 2}, {0, 0, 1, 1}), 0), {2, 2},
               {0x1.136562p-2, 0x1.136562p-2, 0x1.764d50p-1, 0x1.764d50p-1});
  expectTensor(softmax(f32({2, 2}, {1000, 1000, 0, -kInf}), -1), {2, 2},
               {0.5, 0.5, 1, 0});
  expectTensor(softmax(f32({4}, {3, 3, 3, 3}), 0), {4},
               {0.25, 0.25, 0.25, 0.25});
}

TEST(SoftmaxTest, RowsSumToOne) {
  Tensor x = randomTensor(DType::F32, {8, 33}, 3, 0);
  Tensor y = softmax(x, 1);
  for (int r = 0; r < 8; ++r) {
    double sum = 0;
    for (int c = 0; c < 33; ++c) {
      EXPECT_GT(y.data[r * 33 + c], 0.0);
      sum += y.data[r * 33 + c];
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

TEST(LayerNormTest, HandValues) {
  // mean 5, biased variance 4, standard deviation 2.
  Tensor x = f32({2, 4}, {2, 4, 4, 4, 5, 5, 7, 9});
  x = reshape(x, {1, 8});
  expectTensor(layerNorm(x, nullptr, nullptr, 0.0), {1, 8},
               {-1.5, -0.5, -0.5, -0.5, 0, 0, 1, 2});
  Tensor gamma = f32({8}, {2, 2, 2, 2, 2, 2, 2, -1});
  Tensor beta = f32({8}, {1, 1, 1, 1, 1, 1, 1, 0.5});
  expectTensor(layerNorm(x, &gamma, &beta, 0.0), {1, 8},
               {-2, 0, 0, 0, 1, 1, 3, -1.5});
  expectTensor(layerNorm(x, &gamma, nullptr, 0.0), {1, 8},
               {-3, -1, -1, -1, 0, 0, 2, -2});
  expectTensor(layerNorm(x, nullptr, &beta, 0.0), {1, 8},
               {-0.5, 0.5, 0.5, 0.5, 1, 1, 2, 2.5});
  // eps: (9 - 5) / sqrt(4 + 1e-5) = 1.9999975000046875 (0x1.ffffd6p+0 in f32).
  Tensor y = layerNorm(x, nullptr, nullptr, 1e-5);
  EXPECT_EQ(y.data[7], 0x1.ffffd6p+0);
}

TEST(LayerNormTest, RowsAreIndependent) {
  Tensor x = f32({2, 2}, {1, 3, 10, 20});
  expectTensor(layerNorm(x, nullptr, nullptr, 0.0), {2, 2}, {-1, 1, -1, 1});
}

TEST(RmsNormTest, HandValues) {
  Tensor x = f32({2, 4}, {3, -3, 3, -3, 1, 7, 1, 7});
  // Row 0: mean(x^2) = 9; row 1: mean(x^2) = 25.
  expectTensor(rmsNorm(x, nullptr, 0.0), {2, 4},
               {1, -1, 1, -1, 0x1.99999ap-3, 0x1.666666p+0, 0x1.99999ap-3,
                0x1.666666p+0});
  Tensor gamma = f32({4}, {1, 2, 3, 4});
  expectTensor(rmsNorm(x, &gamma, 0.0), {2, 4},
               {1, -2, 3, -4, 0x1.99999ap-3, 0x1.666666p+1, 0x1.333334p-1,
                0x1.666666p+2});
  // eps: 3 / sqrt(9 + 7) = 0.75.
  expectTensor(rmsNorm(f32({2}, {3, 3}), nullptr, 7.0), {2}, {0.75, 0.75});
}

TEST(NormGradTest, HandValues) {
  // mean 5, rstd 1/2, xhat = [-1.5, -0.5, -0.5, -0.5, 0, 0, 1, 2]; dy = e0:
  // mean(g) = 1/8, mean(g xhat) = -3/16, dx = (g - 1/8 + 3/16 xhat) / 2.
  Tensor x = f32({1, 8}, {2, 4, 4, 4, 5, 5, 7, 9});
  Tensor dy = f32({1, 8}, {1, 0, 0, 0, 0, 0, 0, 0});
  std::vector<Tensor> r = normGrad(x, dy, nullptr, 0.0, false);
  ASSERT_EQ(r.size(), 3u);
  expectTensor(r[0], {1, 8},
               {0.296875, -0.109375, -0.109375, -0.109375, -0.0625, -0.0625,
                0.03125, 0.125});
  expectTensor(r[1], {1, 1}, {5});
  expectTensor(r[2], {1, 1}, {0.5});
  // rms: mean(x^2) = 9, rstd 1/3, xhat = x / 3, mean(g xhat) = 1/4.
  std::vector<Tensor> rms =
      normGrad(f32({1, 4}, {3, -3, 3, -3}), f32({1, 4}, {1, 0, 0, 0}), nullptr,
               0.0, true);
  expectTensor(rms[0], {1, 4},
               {0.25, 0x1.555556p-4, -0x1.555556p-4, 0x1.555556p-4});
  expectTensor(rms[1], {1, 1}, {0});
  expectTensor(rms[2], {1, 1}, {0x1.555556p-2});
}

// dx against central differences of sum(dy * layerNorm(x)) (and rmsNorm),
// gamma included.
TEST(NormGradTest, MatchesFiniteDifferences) {
  Tensor x =
      f32({2, 6}, {0.3, -1.2, 2.0, 0.7, -0.4, 1.1, 5, 4, 6.5, 3, 4.5, 5.5});
  Tensor dy =
      f32({2, 6}, {0.5, -1, 0.25, 2, -0.75, 1, 1, 0.5, -2, 0.3, 0.2, -0.1});
  Tensor gamma = f32({6}, {1.5, -0.5, 2, 1, 0.25, -1});
  for (bool rms : {false, true}) {
    auto loss = [&](const Tensor &at) {
      Tensor y = rms ? rmsNorm(at, &gamma, 1e-3)
                     : layerNorm(at, &gamma, nullptr, 1e-3);
      double sum = 0;
      for (size_t i = 0; i < y.data.size(); ++i)
        sum += y.data[i] * dy.data[i];
      return sum;
    };
    Tensor dx = normGrad(x, dy, &gamma, 1e-3, rms)[0];
    for (size_t i = 0; i < x.data.size(); ++i) {
      Tensor plus = x, minus = x;
      plus.data[i] += 1e-2;
      minus.data[i] -= 1e-2;
      EXPECT_NEAR(dx.data[i], (loss(plus) - loss(minus)) / 2e-2, 2e-4)
          << (rms ? "rms" : "layer_norm") << " element " << i;
    }
  }
  // Mismatched shapes give invalid tensors.
  EXPECT_TRUE(normGrad(x, f32({6}, {1, 1, 1, 1, 1, 1}), nullptr, 1e-3, false)[0]
                  .data.empty());
}

//===----------------------------------------------------------------------===//
// Philox and dropout
//===----------------------------------------------------------------------===//

TEST(PhiloxTest, Random123KnownAnswers) {
  // Random123 tests/kat_vectors (philox4x32 10 rounds).
  using C = std::array<uint32_t, 4>;
  using K = std::array<uint32_t, 2>;
  EXPECT_EQ(philox4x32_10(C{0, 0, 0, 0}, K{0, 0}),
            (C{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10(C{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                          K{0xffffffff, 0xffffffff}),
            (C{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10(C{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                          K{0xa4093822, 0x299f31d0}),
            (C{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(DropoutTest, MaskFromKnownPhiloxBlock) {
  // Seed 0, elements 0..3 draw philox({0,0,0,0}, {0,0}):
  // {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}. p = 0.5 has threshold
  // 0x80000000, so element 0 is dropped and the others are kept (times 2).
  Tensor ones = f32({4}, {1, 1, 1, 1});
  expectTensor(dropout(ones, 0.5, 0), {4}, {0, 2, 2, 2});
  // Threshold of p = 0.399 is 0x6624dd2f <= 0x6627e8d5; of 0.3991 it is
  // 0x662b6ae7 > 0x6627e8d5.
  EXPECT_TRUE(dropoutKeep(0, 0.399, 0));
  EXPECT_FALSE(dropoutKeep(0, 0.3991, 0));
  EXPECT_TRUE(dropoutKeep(3, 0.6, 0));   // 0x9b00dbd8 >= 0x99999999
  EXPECT_FALSE(dropoutKeep(3, 0.61, 0)); // 0x9b00dbd8 < 0x9c28f5c2
}

TEST(DropoutTest, CounterAndKeyLayout) {
  // Element i uses counter {i/4 low, i/4 high, 0, 0}, word i%4, and key
  // {seed low, seed high}.
  uint64_t seed = 0x0000000500000007ULL;
  for (uint64_t i : {0ULL, 5ULL, 10ULL, (1ULL << 34) + 3}) {
    uint64_t block = i / 4;
    std::array<uint32_t, 4> r =
        philox4x32_10({uint32_t(block), uint32_t(block >> 32), 0, 0}, {7, 5});
    EXPECT_EQ(dropoutKeep(i, 0.5, seed), r[i % 4] >= 0x80000000u);
  }
}

TEST(DropoutTest, IdentityAtZero) {
  Tensor x = randomTensor(DType::BF16, {3, 7}, 9, 9);
  expectTensor(dropout(x, 0.0, 123), {3, 7}, x.data);
}

TEST(DropoutTest, StatisticsAndScale) {
  const int64_t n = 100000;
  Tensor ones = zeros(DType::F32, {n});
  for (double &v : ones.data)
    v = 1;
  Tensor y = dropout(ones, 0.1, 2024);
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool keep = y.data[i] != 0;
    kept += keep;
    EXPECT_EQ(keep, dropoutKeep(i, 0.1, 2024));
    if (keep) {
      EXPECT_EQ(y.data[i], 0x1.1c71c8p+0); // f32(1 / 0.9)
    }
  }
  // Standard deviation of the fraction: sqrt(0.09 / 1e5) ~ 0.00095.
  EXPECT_NEAR(double(kept) / n, 0.9, 0.005);
}

TEST(DropoutTest, Deterministic) {
  Tensor x = randomTensor(DType::F32, {1000}, 4, 4);
  EXPECT_EQ(hashBytes(dropout(x, 0.3, 77)), hashBytes(dropout(x, 0.3, 77)));
  EXPECT_NE(hashBytes(dropout(x, 0.3, 77)), hashBytes(dropout(x, 0.3, 78)));
}

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

TEST(ReshapeTest, KeepsDataAndInfers) {
  Tensor x = iota(DType::F32, {2, 3});
  expectTensor(reshape(x, {3, 2}), {3, 2}, {0, 1, 2, 3, 4, 5});
  expectTensor(reshape(x, {-1, 2}), {3, 2}, {0, 1, 2, 3, 4, 5});
  expectTensor(reshape(scalar(DType::F32, 4), {1, 1}), {1, 1}, {4});
  EXPECT_EQ(reshape(x, {4, 2}).numElements(), 0);
  EXPECT_EQ(reshape(x, {-1, -1}).numElements(), 0);
}

TEST(TransposeTest, TwoAndThreeDimensions) {
  expectTensor(transpose(f32({2, 3}, {1, 2, 3, 4, 5, 6}), {1, 0}), {3, 2},
               {1, 4, 2, 5, 3, 6});
  // y[i][j][k] = x[j][k][i] for x = iota [2, 3, 4].
  Tensor y = transpose(iota(DType::F32, {2, 3, 4}), {2, 0, 1});
  EXPECT_EQ(y.shape, (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(y.data[0], 0);
  EXPECT_EQ(y.data[1], 4);
  EXPECT_EQ(y.data[2], 8);
  EXPECT_EQ(y.data[3], 12);
  EXPECT_EQ(y.data[11], 21); // (1, 1, 2) <- x(1, 2, 1)
  EXPECT_EQ(y.data[23], 23);
  EXPECT_EQ(transpose(y, {1, 2, 0}).data, iota(DType::F32, {2, 3, 4}).data);
  EXPECT_EQ(transpose(y, {0, 0, 1}).numElements(), 0);
}

TEST(SliceTest, Block) {
  expectTensor(slice(iota(DType::F32, {3, 4}), {1, 1}, {2, 2}), {2, 2},
               {5, 6, 9, 10});
  expectTensor(slice(iota(DType::F32, {3, 4}), {0, 3}, {3, 1}), {3, 1},
               {3, 7, 11});
  EXPECT_EQ(slice(iota(DType::F32, {3, 4}), {2, 0}, {2, 4}).numElements(), 0);
}

TEST(SplitConcatTest, RoundTrip) {
  Tensor x = iota(DType::F32, {2, 5});
  std::vector<Tensor> parts = split(x, 1, {2, 3});
  ASSERT_EQ(parts.size(), 2u);
  expectTensor(parts[0], {2, 2}, {0, 1, 5, 6});
  expectTensor(parts[1], {2, 3}, {2, 3, 4, 7, 8, 9});
  expectTensor(concat(parts, 1), {2, 5}, x.data);
  std::vector<Tensor> rows = split(x, -2, {1, 1});
  ASSERT_EQ(rows.size(), 2u);
  expectTensor(rows[1], {1, 5}, {5, 6, 7, 8, 9});
  expectTensor(concat({rows[1], rows[0]}, 0), {2, 5},
               {5, 6, 7, 8, 9, 0, 1, 2, 3, 4});
  EXPECT_EQ(concat({x, iota(DType::F32, {3, 5})}, 1).numElements(), 0);
}

TEST(GatherTest, EmbeddingLookupWithClamping) {
  Tensor table = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Tensor indices = makeTensor(DType::I64, {2, 2}, {2, -5, 7, 0});
  expectTensor(gather(table, indices), {2, 2, 2}, {20, 21, 0, 1, 30, 31, 0, 1});
  expectTensor(gather(table, makeTensor(DType::I32, {1}, {3})), {1, 2},
               {30, 31});
}

TEST(GatherGradTest, SumsTheRowsOfEachIndexAsGatherClamps) {
  // Positions read rows 2, 0 (clamped from -5), 3 (from 7) and 0.
  Tensor grad = f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor indices = makeTensor(DType::I64, {2, 2}, {2, -5, 7, 0});
  expectTensor(gatherGrad(grad, indices, {4, 2}, DType::F32), {4, 2},
               {10, 12, 0, 0, 1, 2, 5, 6});
  // The sum is in double and rounded once: 1 + 2^-8 + 2^-8 is 1 + 2^-7 in
  // bf16, where rounding after each addition (a tie to even) stays at 1.
  Tensor small = makeTensor(DType::BF16, {3, 1},
                            {1.0, std::ldexp(1.0, -8), std::ldexp(1.0, -8)});
  Tensor same = makeTensor(DType::I32, {3}, {0, 0, 0});
  expectTensor(gatherGrad(small, same, {1, 1}, DType::BF16), {1, 1},
               {1.0 + std::ldexp(1.0, -7)});
  // It is gather's adjoint: <gather(t, i), g> = <t, gatherGrad(g, i)>.
  Tensor table = f32({4, 2}, {0.5, -1, 2, 3, -4, 0.25, 6, 7});
  Tensor gathered = gather(table, indices);
  Tensor back = gatherGrad(grad, indices, {4, 2}, DType::F32);
  double lhs = 0, rhs = 0;
  for (size_t i = 0; i < grad.data.size(); ++i)
    lhs += gathered.data[i] * grad.data[i];
  for (size_t i = 0; i < table.data.size(); ++i)
    rhs += table.data[i] * back.data[i];
  EXPECT_EQ(lhs, rhs);
  // Shapes that disagree, or a table without rows, give an empty tensor.
  EXPECT_EQ(gatherGrad(grad, indices, {4, 3}, DType::F32).numElements(), 0);
  EXPECT_EQ(gatherGrad(grad, indices, {0, 2}, DType::F32).numElements(), 0);
}

TEST(CausalMaskTest, TopLeftAligned) {
  expectTensor(causalMask(2, 3, DType::F32), {2, 3},
               {0, -kInf, -kInf, 0, 0, -kInf});
  expectTensor(causalMask(3, 2, DType::BF16), {3, 2}, {0, -kInf, 0, 0, 0, 0});
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

TEST(AttentionTest, TinyHandComputed) {
  // s = q k^T = [[1, 2], [1, 1]].
  Tensor q = f32({1, 1, 2, 2}, {1, 2, 1, 1});
  Tensor k = f32({1, 1, 2, 2}, {1, 0, 0, 1});
  Tensor v = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  // Causal: row 0 sees only key 0 -> v0; row 1 averages v0 and v1.
  expectTensor(attention(q, k, v, nullptr, 1.0, true), {1, 1, 2, 2},
               {1, 2, 2, 3});
  // Not causal: row 0 = softmax([1, 2]) = [0.26894143, 0.73105860] (f32)
  // times v = [1 + 2 * 0.7310586, 2 + 2 * 0.7310586].
  Tensor y = attention(q, k, v, nullptr, 1.0, false);
  expectTensor(y, {1, 1, 2, 2},
               {roundTo(DType::F32, 0x1.136562p-2 + 3 * 0x1.764d50p-1),
                roundTo(DType::F32, 2 * 0x1.136562p-2 + 4 * 0x1.764d50p-1), 2,
                3});
  EXPECT_NEAR(y.data[0], 2.4621171572600098, 1e-6);
  // Scale: doubling q and halving the scores gives the same result.
  Tensor q2 = f32({1, 1, 2, 2}, {2, 4, 2, 2});
  expectTensor(attention(q2, k, v, nullptr, 0.5, true), {1, 1, 2, 2},
               {1, 2, 2, 3});
  // An explicit additive mask equal to the causal one.
  Tensor mask = f32({2, 2}, {0, -kInf, 0, 0});
  expectTensor(attention(q, k, v, &mask, 1.0, false), {1, 1, 2, 2},
               {1, 2, 2, 3});
}

TEST(AttentionTest, IsExactAndRoundedOnce) {
  // Scores [[0, 1]] (scale 1): p = [1, e] / (1 + e); o = p . [1, 2] rounded
  // once to bf16, where the decomposition would round p first.
  Tensor q = makeTensor(DType::BF16, {1, 1, 1, 1}, {1});
  Tensor k = makeTensor(DType::BF16, {1, 1, 2, 1}, {0, 1});
  Tensor v = makeTensor(DType::BF16, {1, 1, 2, 1}, {1, 2});
  double e = std::exp(1.0);
  Tensor got = attention(q, k, v, nullptr, 1.0, false);
  ASSERT_EQ(got.data.size(), 1u);
  EXPECT_EQ(got.data[0], roundTo(DType::BF16, (1 + 2 * e) / (1 + e)));
}

TEST(AttentionTest, DecompositionIsWithinItsBound) {
  // tfuse-decompose-attention rounds every step; its documented first-order
  // bound is u * (8 max|s| + 4) * max|v| from exact attention (plus u max|v|
  // for the exact result's own rounding).
  DType bf16 = DType::BF16;
  Tensor q = randomTensor(bf16, {2, 3, 5, 8}, 7, 0);
  Tensor k = randomTensor(bf16, {2, 3, 6, 8}, 7, 1);
  Tensor v = randomTensor(bf16, {2, 3, 6, 4}, 7, 2);
  Tensor mask = randomTensor(bf16, {2, 1, 1, 6}, 7, 3);
  double scale = 0.35355339059327373; // 1 / sqrt(8)
  Tensor s = matmul(q, k, false, true);
  s = binary(BinaryKind::Mul, s, scalar(bf16, scale));
  s = binary(BinaryKind::Add, s, mask);
  double maxScore = 0, maxValue = 0;
  for (double x : s.data)
    maxScore = std::max(maxScore, std::fabs(x));
  for (double x : v.data)
    maxValue = std::max(maxValue, std::fabs(x));
  s = binary(BinaryKind::Add, s, causalMask(5, 6, bf16));
  Tensor p = softmax(s, 3);
  p = dropout(p, 0.2, 99);
  Tensor decomposed = matmul(p, v);
  Tensor exact = attention(q, k, v, &mask, scale, true, 0.2, 99);
  ASSERT_EQ(exact.shape, (std::vector<int64_t>{2, 3, 5, 4}));
  EXPECT_EQ(exact.dtype, bf16);
  double u = std::ldexp(1.0, -8);
  // Dropout scales kept probabilities by 1 / (1 - p): so is the bound.
  double bound = u * (8 * maxScore + 5) * maxValue / 0.8;
  double worst = 0;
  for (size_t i = 0; i < exact.data.size(); ++i)
    worst = std::max(worst, std::fabs(exact.data[i] - decomposed.data[i]));
  EXPECT_LE(worst, bound);
  // The two differ: the decomposition is not exact attention.
  EXPECT_NE(hashBytes(exact), hashBytes(decomposed));
}

TEST(AttentionTest, GroupedQueryEqualsRepeatedHeads) {
  Tensor q = randomTensor(DType::F32, {2, 4, 3, 8}, 5, 0);
  Tensor k = randomTensor(DType::F32, {2, 2, 5, 8}, 5, 1);
  Tensor v = randomTensor(DType::F32, {2, 2, 5, 6}, 5, 2);
  // Query heads {0, 1} use kv head 0 and {2, 3} use kv head 1.
  auto repeat = [](const Tensor &x) {
    std::vector<Tensor> heads = split(x, 1, {1, 1});
    return concat({heads[0], heads[0], heads[1], heads[1]}, 1);
  };
  Tensor mha = attention(q, repeat(k), repeat(v), nullptr, 0.25, true, 0.1, 3);
  Tensor gqa = attention(q, k, v, nullptr, 0.25, true, 0.1, 3);
  EXPECT_EQ(gqa.shape, (std::vector<int64_t>{2, 4, 3, 6}));
  EXPECT_EQ(hashBytes(gqa), hashBytes(mha));
}

} // namespace
