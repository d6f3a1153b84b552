//===- CollectivesTest.cpp - Tests of the reference collectives -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of ref::allReduce, reduceScatter, allGather and
// collectiveOfIdenticalRanks, with hand-computed values.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "gtest/gtest.h"

using namespace mlir::tfuse::ref;

namespace {

Tensor f32(std::vector<int64_t> shape, std::vector<double> values) {
  return makeTensor(DType::F32, std::move(shape), std::move(values));
}

void expectTensor(const Tensor &t, std::vector<int64_t> shape,
                  std::vector<double> values) {
  EXPECT_EQ(t.shape, shape);
  EXPECT_EQ(t.data, values);
}

void expectInvalid(const std::vector<Tensor> &results, size_t ranks) {
  ASSERT_EQ(results.size(), ranks);
  for (const Tensor &t : results)
    EXPECT_EQ(t.shape, std::vector<int64_t>{0});
}

TEST(CollectivesTest, AllReduceSumsInRankOrderForEveryRank) {
  // {1, 2} + {10, -4} + {0.5, 0.25} = {11.5, -1.75}.
  std::vector<Tensor> results =
      allReduce({f32({2}, {1, 2}), f32({2}, {10, -4}), f32({2}, {0.5, 0.25})});
  ASSERT_EQ(results.size(), 3u);
  for (const Tensor &t : results) {
    EXPECT_EQ(t.dtype, DType::F32);
    expectTensor(t, {2}, {11.5, -1.75});
  }
}

TEST(CollectivesTest, AllReduceRoundsTheSumOnceToBF16) {
  // bf16 has 7 fraction bits: 1 + 2^-7 = 1.0078125 is representable, the
  // neighbours of 1 are 1 and 1.0078125.
  auto bf16 = [](double value) { return scalar(DType::BF16, value); };
  // 1 + 2^-8 + 2^-8 = 1.0078125 exactly. Rounded after each addition (as a
  // ring's steps would) it stays 1: 1 + 2^-8 is a tie, to even 1.
  std::vector<Tensor> once =
      allReduce({bf16(1.0), bf16(0.00390625), bf16(0.00390625)});
  EXPECT_EQ(once[0].dtype, DType::BF16);
  EXPECT_EQ(once[0].data, std::vector<double>{1.0078125});
  // 1 + 2^-8 = 1.00390625: the tie between 1 and 1.0078125 goes to even, 1.
  EXPECT_EQ(allReduce({bf16(1.0), bf16(0.00390625)})[1].data,
            std::vector<double>{1.0});
  // 1 + 2^-8 + 2^-9 = 1.005859375, past the midpoint 1.00390625: 1.0078125.
  EXPECT_EQ(allReduce({bf16(1.0), bf16(0.00390625), bf16(0.001953125)})[2].data,
            std::vector<double>{1.0078125});
}

TEST(CollectivesTest, ReduceScatterGivesRankRItsSlice) {
  // Along axis 0: {1, 2, 3, 4} + {10, 20, 30, 40} = {11, 22, 33, 44}.
  std::vector<Tensor> rows =
      reduceScatter({f32({4}, {1, 2, 3, 4}), f32({4}, {10, 20, 30, 40})}, 0);
  ASSERT_EQ(rows.size(), 2u);
  expectTensor(rows[0], {2}, {11, 22});
  expectTensor(rows[1], {2}, {33, 44});
  // Along axis 1 (also as -1): [[1, 2], [3, 4]] + [[5, 6], [7, 8]] =
  // [[6, 8], [10, 12]]; rank 0 keeps column 0, rank 1 column 1.
  for (int64_t axis : {1, -1}) {
    std::vector<Tensor> columns = reduceScatter(
        {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {5, 6, 7, 8})}, axis);
    ASSERT_EQ(columns.size(), 2u);
    expectTensor(columns[0], {2, 1}, {6, 10});
    expectTensor(columns[1], {2, 1}, {8, 12});
  }
}

TEST(CollectivesTest, AllGatherConcatenatesInRankOrder) {
  std::vector<Tensor> ranks = {f32({1, 2}, {1, 2}), f32({1, 2}, {3, 4}),
                               f32({1, 2}, {5, 6})};
  std::vector<Tensor> rows = allGather(ranks, 0);
  ASSERT_EQ(rows.size(), 3u);
  for (const Tensor &t : rows)
    expectTensor(t, {3, 2}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> columns = allGather(ranks, 1);
  ASSERT_EQ(columns.size(), 3u);
  expectTensor(columns[2], {1, 6}, {1, 2, 3, 4, 5, 6});
}

TEST(CollectivesTest, OneRankIsTheIdentity) {
  Tensor x = f32({2}, {1.5, -3});
  expectTensor(allReduce({x})[0], {2}, {1.5, -3});
  expectTensor(reduceScatter({x}, 0)[0], {2}, {1.5, -3});
  expectTensor(allGather({x}, 0)[0], {2}, {1.5, -3});
}

TEST(CollectivesTest, InvalidGroupsGiveEmptyTensors) {
  EXPECT_TRUE(allReduce({}).empty());
  EXPECT_TRUE(allGather({}, 0).empty());
  // Shapes differ between ranks.
  expectInvalid(allReduce({f32({2}, {1, 2}), f32({3}, {1, 2, 3})}), 2);
  // Dtypes differ.
  expectInvalid(allReduce({f32({1}, {1}), scalar(DType::BF16, 1)}), 2);
  // Integers have no collectives.
  Tensor ints = makeTensor(DType::I32, {2}, {1, 2});
  expectInvalid(allReduce({ints, ints}), 2);
  // 3 elements do not split among 2 ranks; axis 1 of a rank-1 tensor.
  Tensor three = f32({3}, {1, 2, 3});
  expectInvalid(reduceScatter({three, three}, 0), 2);
  expectInvalid(reduceScatter({three, three}, 1), 2);
  expectInvalid(allGather({three, three}, 1), 2);
}

TEST(CollectivesTest, IdenticalRanksRoundGroupSizeTimesXOnce) {
  // 1.0078125 x 3 = 3.0234375: in [2, 4) bf16 steps by 2^-6, so it is the
  // tie between 3.015625 (fraction 65/128) and 3.03125 (66/128): to even.
  Tensor x = makeTensor(DType::BF16, {2}, {1.0078125, -2});
  Tensor sum = collectiveOfIdenticalRanks(CollectiveKind::AllReduce, x, 3, 0);
  expectTensor(sum, {2}, {3.03125, -6});
  // The same as all-reducing three copies.
  EXPECT_EQ(sum.data, allReduce({x, x, x})[0].data);
}

TEST(CollectivesTest, IdenticalRanksAgreeWithTheGroupFunctions) {
  Tensor x = randomTensor(DType::BF16, {4, 6}, 11, 0);
  for (int64_t n : {1, 2, 3}) {
    std::vector<Tensor> group(static_cast<size_t>(n), x);
    EXPECT_EQ(
        collectiveOfIdenticalRanks(CollectiveKind::AllReduce, x, n, 0).data,
        allReduce(group)[0].data);
    // 6 columns split among 1, 2 and 3 ranks: rank 0's slice.
    Tensor shard =
        collectiveOfIdenticalRanks(CollectiveKind::ReduceScatter, x, n, 1);
    EXPECT_EQ(shard.shape, (std::vector<int64_t>{4, 6 / n}));
    EXPECT_EQ(shard.data, reduceScatter(group, 1)[0].data);
    Tensor gathered =
        collectiveOfIdenticalRanks(CollectiveKind::AllGather, x, n, 0);
    EXPECT_EQ(gathered.shape, (std::vector<int64_t>{4 * n, 6}));
    EXPECT_EQ(gathered.data, allGather(group, 0)[0].data);
  }
  // No ranks, and a split that does not divide.
  EXPECT_EQ(
      collectiveOfIdenticalRanks(CollectiveKind::AllReduce, x, 0, 0).shape,
      std::vector<int64_t>{0});
  EXPECT_EQ(
      collectiveOfIdenticalRanks(CollectiveKind::ReduceScatter, x, 4, 1).shape,
      std::vector<int64_t>{0});
}

} // namespace
