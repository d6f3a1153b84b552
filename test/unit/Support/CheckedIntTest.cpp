//===- CheckedIntTest.cpp - int64 sizes whose overflow is detected --------===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tfuse/Support/CheckedInt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace mlir::tfuse;

namespace {

constexpr int64_t kMax = INT64_MAX;

TEST(CheckedInt, ExactWhileItFits) {
  CheckedInt bytes = CheckedInt(1073741824) * 4 * 4; // 2^30 x 4 f32
  EXPECT_EQ(bytes.get(), int64_t(17179869184));
  EXPECT_EQ((bytes + bytes).get(), int64_t(34359738368));
  EXPECT_EQ((CheckedInt(kMax) - 1 + 1).get(), kMax);
  EXPECT_EQ(
      (2 * CheckedInt(int64_t(1) << 61) + (kMax - (int64_t(1) << 62))).get(),
      kMax);
}

TEST(CheckedInt, OverflowIsRememberedNotWrapped) {
  CheckedInt wrapped = CheckedInt(int64_t(1) << 62) * 4; // would wrap to 0
  EXPECT_FALSE(wrapped.valid());
  EXPECT_EQ(wrapped.get(), std::nullopt);
  EXPECT_EQ(wrapped.valueOr(-1), -1);
  // Everything computed from an overflow is an overflow, even a product
  // with zero.
  EXPECT_FALSE((wrapped * 0).valid());
  EXPECT_FALSE((wrapped - wrapped).valid());
  EXPECT_FALSE((CheckedInt(kMax) + 1).valid());
  EXPECT_FALSE((CheckedInt(INT64_MIN) - 1).valid());
  EXPECT_FALSE((CheckedInt(-1) * INT64_MIN).valid());
  CheckedInt sum = kMax;
  sum += 1;
  EXPECT_FALSE(sum.valid());
}

TEST(CheckedInt, AlignTo) {
  EXPECT_EQ(CheckedInt(0).alignTo(256).get(), 0);
  EXPECT_EQ(CheckedInt(1).alignTo(256).get(), 256);
  EXPECT_EQ(CheckedInt(512).alignTo(256).get(), 512);
  EXPECT_FALSE(CheckedInt(kMax - 10).alignTo(256).valid());
}

TEST(CheckedInt, Products) {
  EXPECT_EQ(checkedProduct(std::vector<int64_t>{}).get(), 1);
  EXPECT_EQ(checkedProduct(std::vector<int64_t>{2, 3, 0}).get(), 0);
  // 2^31 x 2^31 x 2^2 = 2^64 wraps to 0 in plain int64 arithmetic.
  EXPECT_FALSE(checkedProduct(
                   std::vector<int64_t>{int64_t(1) << 31, int64_t(1) << 31, 4})
                   .valid());
  EXPECT_FALSE(checkedProduct(std::vector<int64_t>{2, -3}).valid());
}

TEST(CheckedInt, TensorElementBound) {
  // 2^40 elements exactly are a tensor; one more row is not.
  EXPECT_EQ(checkedTensorElements(std::vector<int64_t>{1 << 20, 1 << 20}),
            kMaxTensorElements);
  EXPECT_EQ(checkedTensorElements(std::vector<int64_t>{(1 << 20) + 1, 1 << 20}),
            std::nullopt);
  EXPECT_EQ(checkedTensorElements(std::vector<int64_t>{int64_t(1) << 62, 4}),
            std::nullopt);
  EXPECT_EQ(checkedTensorElements(std::vector<int64_t>{4, -1}), std::nullopt);
}

} // namespace
