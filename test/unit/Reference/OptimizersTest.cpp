//===- OptimizersTest.cpp - AdamW and SGD against hand values ---*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Three steps of each optimizer on two or three elements, against values
// worked out by hand from PyTorch's formulas (the fractions in the comments).
// Hyperparameters are powers of two where possible so most intermediate
// values are exact; where a square root or a division by 9 or 17 is
// inexact, the value is the hand formula in double and the f32 update must
// agree to a few ulps.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir::tfuse::ref;

namespace {

/// f32 results of a few operations on O(1) values: within 2^-20.
constexpr double kTolerance = 1.0 / (1 << 20);

Tensor f32(std::vector<double> values) {
  std::vector<int64_t> shape{static_cast<int64_t>(values.size())};
  return makeTensor(DType::F32, shape, std::move(values));
}

void expectNear(const Tensor &t, std::vector<double> expected) {
  ASSERT_EQ(t.dtype, DType::F32);
  ASSERT_EQ(t.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(t.data[i], expected[i], kTolerance) << "at " << i;
}

void expectExact(const Tensor &t, std::vector<double> expected) {
  ASSERT_EQ(t.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(t.data[i], expected[i]) << "at " << i;
}

//===----------------------------------------------------------------------===//
// AdamW
//===----------------------------------------------------------------------===//

// beta1 1/2, beta2 3/4, eps 1/4, weight decay 1/2, lr 1/2: lr * wd = 1/4.
AdamWOptions handOptions() {
  AdamWOptions options;
  options.beta1 = 0.5;
  options.beta2 = 0.75;
  options.eps = 0.25;
  options.weightDecay = 0.5;
  return options;
}

TEST(AdamWTest, ThreeStepsByHand) {
  AdamWOptions options = handOptions();
  Tensor lr = scalar(DType::F32, 0.5);
  Tensor p = f32({1.0, -2.0}), m = f32({0.0, 0.0}), v = f32({0.0, 0.0});

  // Step 1, g = (2, -4). Decay: p = (3/4, -3/2). m = g/2 = (1, -2);
  // v = g^2/4 = (1, 4). lr / (1 - 1/2) = 1; sqrt(1 - 3/4) = 1/2; denom =
  // sqrt(v) * 2 + 1/4 = (9/4, 17/4). p = 3/4 - 4/9 = 11/36, -3/2 + 8/17 =
  // -35/34.
  std::vector<Tensor> r =
      adamw(p, f32({2.0, -4.0}), m, v, lr, scalar(DType::F32, 1.0), options);
  ASSERT_EQ(r.size(), 3u);
  expectNear(r[0], {11.0 / 36.0, -35.0 / 34.0});
  expectExact(r[1], {1.0, -2.0});
  expectExact(r[2], {1.0, 4.0});

  // Step 2, g = (1, 2). Decay: p * 3/4 = (11/48, -105/136). m = (1, 0);
  // v = 3/4 v + g^2 / 4 = (1, 4). lr / (1 - 1/4) = 2/3; sqrt(1 - 9/16) =
  // sqrt(7)/4. The second element's m is 0: it only decays.
  r = adamw(r[0], f32({1.0, 2.0}), r[1], r[2], lr, scalar(DType::F32, 2.0),
            options);
  double denom2 = 1.0 / (std::sqrt(7.0) / 4.0) + 0.25;
  double p2 = 11.0 / 48.0 - (2.0 / 3.0) / denom2;
  expectNear(r[0], {p2, -105.0 / 136.0});
  expectExact(r[1], {1.0, 0.0});
  expectExact(r[2], {1.0, 4.0});

  // Step 3, g = 0: m = m / 2 = (1/2, 0), v = 3/4 v = (3/4, 3).
  // lr / (1 - 1/8) = 4/7; sqrt(1 - 27/64) = sqrt(37)/8.
  r = adamw(r[0], f32({0.0, 0.0}), r[1], r[2], lr, scalar(DType::F32, 3.0),
            options);
  double denom3 = std::sqrt(0.75) / (std::sqrt(37.0) / 8.0) + 0.25;
  double p3 = 0.75 * p2 - (4.0 / 7.0) * 0.5 / denom3;
  expectNear(r[0], {p3, 0.75 * -105.0 / 136.0});
  expectExact(r[1], {0.5, 0.0});
  expectExact(r[2], {0.75, 3.0});
}

TEST(AdamWTest, LowPrecisionGradientAndModelWeight) {
  // A bf16 gradient converts exactly; the model weight is the new param
  // rounded to bf16. One step from p = 1, g = 2 as above: 11/36, whose bf16
  // neighbours are 0.3046875 and 0.306640625 (11/36 = 0.30555...).
  Tensor g = makeTensor(DType::BF16, {1}, {2.0});
  DType weight = DType::BF16;
  std::vector<Tensor> r =
      adamw(f32({1.0}), g, f32({0.0}), f32({0.0}), scalar(DType::F32, 0.5),
            scalar(DType::F32, 1.0), handOptions(), &weight);
  ASSERT_EQ(r.size(), 4u);
  expectNear(r[0], {11.0 / 36.0});
  EXPECT_EQ(r[3].dtype, DType::BF16);
  expectExact(r[3], {0.3046875});
}

TEST(AdamWTest, NoWeightDecayKeepsParamAndDefaultsMatchPyTorch) {
  // PyTorch's defaults (lr 1e-3, betas (0.9, 0.999), eps 1e-8) with no
  // decay: the first step moves every element by lr * sign(g) (m / sqrt(v)
  // is sign(g) after bias correction), up to eps.
  AdamWOptions options;
  options.weightDecay = 0.0;
  std::vector<Tensor> r = adamw(
      f32({0.5, -0.25}), f32({3.0, -1e-3}), f32({0.0, 0.0}), f32({0.0, 0.0}),
      scalar(DType::F32, 1e-3), scalar(DType::F32, 1), options);
  EXPECT_NEAR(r[0].data[0], 0.5 - 1e-3, 1e-7);
  EXPECT_NEAR(r[0].data[1], -0.25 + 1e-3 * (1e-3 / (1e-3 + 1e-8)), 1e-7);
}

TEST(AdamWTest, MismatchedShapesGiveEmptyTensors) {
  std::vector<Tensor> r =
      adamw(f32({1.0, 2.0}), f32({1.0}), f32({0.0, 0.0}), f32({0.0, 0.0}),
            scalar(DType::F32, 0.1), scalar(DType::F32, 1.0), AdamWOptions());
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].shape, std::vector<int64_t>{0});
}

//===----------------------------------------------------------------------===//
// SGD
//===----------------------------------------------------------------------===//

TEST(SgdTest, ThreeStepsWithDampeningAndDecay) {
  // momentum 1/2, dampening 1/2, weight decay 1/2, lr 1/2; every value is a
  // dyadic fraction, so the updates are exact.
  SgdOptions options;
  options.momentum = 0.5;
  options.dampening = 0.5;
  options.weightDecay = 0.5;
  Tensor lr = scalar(DType::F32, 0.5);
  // Step 1: the buffer's old value (100) is ignored. d = 2 + 1/2 = 5/2;
  // buf = 5/2; p = 1 - 5/4 = -1/4.
  std::vector<Tensor> r = sgd(f32({1.0}), f32({2.0}), f32({100.0}), lr,
                              scalar(DType::F32, 1.0), options);
  ASSERT_EQ(r.size(), 2u);
  expectExact(r[0], {-0.25});
  expectExact(r[1], {2.5});
  // Step 2, g = 1: d = 1 - 1/8 = 7/8; buf = 5/4 + 7/16 = 27/16;
  // p = -1/4 - 27/32 = -35/32.
  r = sgd(r[0], f32({1.0}), r[1], lr, scalar(DType::F32, 2.0), options);
  expectExact(r[0], {-35.0 / 32.0});
  expectExact(r[1], {27.0 / 16.0});
  // Step 3, g = -2: d = -2 - 35/64 = -163/64; buf = 27/32 - 163/128 =
  // -55/128; p = -35/32 + 55/256 = -225/256.
  r = sgd(r[0], f32({-2.0}), r[1], lr, scalar(DType::F32, 3.0), options);
  expectExact(r[0], {-225.0 / 256.0});
  expectExact(r[1], {-55.0 / 128.0});
}

TEST(SgdTest, NesterovAndModelWeight) {
  // momentum 1/2, no dampening, no decay, lr 1/2.
  SgdOptions options;
  options.momentum = 0.5;
  options.nesterov = true;
  Tensor lr = scalar(DType::F32, 0.5);
  DType weight = DType::F16;
  // Step 1: buf = g = 2; d = 2 + 1 = 3; p = 1 - 3/2 = -1/2.
  std::vector<Tensor> r = sgd(f32({1.0}), f32({2.0}), f32({0.0}), lr,
                              scalar(DType::F32, 1.0), options, &weight);
  ASSERT_EQ(r.size(), 3u);
  expectExact(r[0], {-0.5});
  expectExact(r[1], {2.0});
  EXPECT_EQ(r[2].dtype, DType::F16);
  expectExact(r[2], {-0.5});
  // Step 2, g = 1: buf = 1 + 1 = 2; d = 1 + 1 = 2; p = -1/2 - 1 = -3/2.
  r = sgd(r[0], f32({1.0}), r[1], lr, scalar(DType::F32, 2.0), options);
  expectExact(r[0], {-1.5});
  expectExact(r[1], {2.0});
  // Step 3, g = 0.1 (f32): buf = 1 + 0.1; d = 0.1 + 0.55; p = -3/2 - 0.325.
  r = sgd(r[0], f32({0.1}), r[1], lr, scalar(DType::F32, 3.0), options);
  expectNear(r[1], {1.1});
  expectNear(r[0], {-1.825});
}

} // namespace
