//===- PositionsTest.cpp - rope and window masks, by hand -------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::tfuse::ref;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

TEST(RopeTest, RotateHalfByHand) {
  // x [S = 2, D = 4], one frequency (R = 2): dims 0 and 1 rotate, 2 and 3
  // pass through. Position 0 keeps x; position 1 turns by 1 radian:
  //   y0 = x0 cos 1 - x1 sin 1 = 0.540302 - 2 x 0.841471 = -1.142640
  //   y1 = x1 cos 1 + x0 sin 1 = 2 x 0.540302 + 0.841471 = 1.922076
  Tensor x = makeTensor(DType::F32, {2, 4}, {5, 6, 7, 8, 1, 2, 3, 4});
  Tensor invFreq = makeTensor(DType::F32, {1}, {1.0});
  Tensor y = rope(x, invFreq, 1.0);
  ASSERT_EQ(y.shape, (std::vector<int64_t>{2, 4}));
  std::vector<double> expected = {5, 6, 7, 8, -1.1426396637, 1.9220755966,
                                  3, 4};
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(y.data[i], expected[i], 1e-6) << "element " << i;
}

TEST(RopeTest, ScalingAndHalves) {
  // D = 4 fully rotated (two frequencies, h = 2): y[d] pairs d with d + 2.
  // Position 1, inv_freq [pi / 2, 0], scaling 2: c = (0, 2), s = (2, 0):
  //   y0 = x0 c0 - x2 s0 = -2 x2 = -6     y1 = x1 c1 - x3 s1 = 2 x1 = 4
  //   y2 = x2 c0 + x0 s0 =  2 x0 = 2      y3 = x3 c1 + x1 s1 = 2 x3 = 8
  Tensor x = makeTensor(DType::F32, {2, 4}, {0, 0, 0, 0, 1, 2, 3, 4});
  Tensor invFreq = makeTensor(DType::F32, {2}, {M_PI / 2, 0.0});
  Tensor y = rope(x, invFreq, 2.0);
  std::vector<double> expected = {0, 0, 0, 0, -6, 4, 2, 8};
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(y.data[i], expected[i], 1e-6) << "element " << i;
}

TEST(RopeTest, RefusesTooManyFrequencies) {
  // Three frequencies rotate 6 dims; the last dimension has 4.
  Tensor x = makeTensor(DType::F32, {2, 4}, {0, 0, 0, 0, 1, 2, 3, 4});
  Tensor y = rope(x, makeTensor(DType::F32, {3}, {1, 1, 1}), 1.0);
  EXPECT_EQ(y.numElements(), 0);
}

TEST(WindowMaskTest, ByHand) {
  // Window 2: each row sees itself and the row before.
  Tensor m = windowMask(4, 4, 2, DType::BF16);
  std::vector<double> expected = {0,     -kInf, -kInf, -kInf, 0, 0,
                                  -kInf, -kInf, -kInf, 0,     0, -kInf,
                                  -kInf, -kInf, 0,     0};
  ASSERT_EQ(m.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(m.data[i], expected[i]) << "element " << i;
}

} // namespace
