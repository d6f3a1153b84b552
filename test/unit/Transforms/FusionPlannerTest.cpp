//===- FusionPlannerTest.cpp - the planner's cost sums --------------------===//
//
// The planner compares a merged kernel with the kernels apart, whose costs it
// adds: the sums are checked, never wrapped.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Transforms/FusionPlanner.h"

#include "gtest/gtest.h"

#include <cstdint>

using namespace mlir::tfuse;

TEST(AddGroupCostsTest, AddsBytesFlopsAndTimes) {
  std::optional<GroupCost> sum =
      addGroupCosts(GroupCost{100, 7, 1.5}, GroupCost{28, 3, 0.25});
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->bytes, 128);
  EXPECT_EQ(sum->flops, 10);
  EXPECT_DOUBLE_EQ(sum->timeUs, 1.75);
}

TEST(AddGroupCostsTest, LargestSumsFit) {
  // 2^62 + (2^62 - 1) = INT64_MAX exactly.
  int64_t half = int64_t(1) << 62;
  std::optional<GroupCost> sum =
      addGroupCosts(GroupCost{half, half, 0}, GroupCost{half - 1, half - 1, 0});
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->bytes, INT64_MAX);
  EXPECT_EQ(sum->flops, INT64_MAX);
}

TEST(AddGroupCostsTest, OverflowingBytesOrFlopsGiveNothing) {
  int64_t half = int64_t(1) << 62;
  // 2^62 + 2^62 = 2^63: one more than an int64 holds.
  EXPECT_FALSE(addGroupCosts(GroupCost{half, 1, 0}, GroupCost{half, 1, 0}));
  EXPECT_FALSE(addGroupCosts(GroupCost{1, half, 0}, GroupCost{1, half, 0}));
  EXPECT_FALSE(addGroupCosts(GroupCost{INT64_MAX, 0, 0}, GroupCost{1, 0, 0}));
}
