//===- KernelShapesTest.cpp - Tests of the kernel shape rules ---*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The row-kernel rule the emitter and the cost model share: rows that fit in
// one block's registers keep today's register-resident shape, longer rows
// loop over tiles of 512 threads x 16 elements; and the index-width rule.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/KernelShapes.h"

#include "gtest/gtest.h"

using namespace mlir::tfuse;

namespace {

TEST(KernelShapes, ShortRowsStayInRegisters) {
  // 768 bf16 in vectors of 8: 96 vectors, 96 threads of one vector each.
  std::optional<RowKernelShape> shape = getRowKernelShape(768, 8);
  ASSERT_TRUE(shape);
  EXPECT_FALSE(shape->looping());
  EXPECT_EQ(shape->threads, 96);
  EXPECT_EQ(shape->chunks, 1);
  EXPECT_EQ(shape->passes(true), 1);
  // 32768 f32 in vectors of 4: 1024 threads x 8 vectors = 32 elements each,
  // the most a thread holds.
  shape = getRowKernelShape(32768, 4);
  ASSERT_TRUE(shape);
  EXPECT_FALSE(shape->looping());
  EXPECT_EQ(shape->threads, 1024);
  EXPECT_EQ(shape->chunks, 8);
  // 32000 f32: 8000 vectors, 8 per thread (ragged), still in registers.
  shape = getRowKernelShape(32000, 4);
  ASSERT_TRUE(shape);
  EXPECT_FALSE(shape->looping());
}

TEST(KernelShapes, LongRowsLoop) {
  // 50257 is odd: one element per access, tiles of 512 x 16 = 8192, 7 tiles.
  std::optional<RowKernelShape> shape = getRowKernelShape(50257, 8);
  ASSERT_TRUE(shape);
  EXPECT_TRUE(shape->looping());
  EXPECT_EQ(shape->width, 1);
  EXPECT_EQ(shape->threads, kLoopingRowThreads);
  EXPECT_EQ(shape->chunks, 16);
  EXPECT_EQ(shape->tiles, 7);
  EXPECT_EQ(shape->passes(true), 2);
  EXPECT_EQ(shape->passes(false), 1);
  // 128256 bf16 in vectors of 8: 2 vectors per thread per tile of 8192.
  shape = getRowKernelShape(128256, 8);
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->width, 8);
  EXPECT_EQ(shape->chunks, 2);
  EXPECT_EQ(shape->tiles, 16); // 128256 / 8192 = 15.66
  // 256000 f32 in vectors of 4: 4 per thread, tiles of 8192, 32 (ragged).
  shape = getRowKernelShape(256000, 4);
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->chunks, 4);
  EXPECT_EQ(shape->tiles, 32);
  // 32768 + 4 f32 no longer fit: the first looping length.
  shape = getRowKernelShape(32772, 4);
  ASSERT_TRUE(shape);
  EXPECT_TRUE(shape->looping());
  EXPECT_EQ(shape->tiles, 5);
}

TEST(KernelShapes, EmptyRowsHaveNoKernel) {
  EXPECT_FALSE(getRowKernelShape(0, 4));
}

TEST(KernelShapes, WideIndexPastTwoToTheThirtyOne) {
  EXPECT_FALSE(needsWideIndex(2147483647));
  EXPECT_TRUE(needsWideIndex(2147483648));
  // 2^29 f32 are 2^31 bytes, but every index fits in 31 bits.
  EXPECT_FALSE(needsWideIndex(int64_t(1) << 29));
}

} // namespace
