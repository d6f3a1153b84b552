//===- ParallelCostTest.cpp - Tests of multi-GPU step times -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of data and tensor parallelism's step times and ZeRO's state
// sharding, every number against hand arithmetic.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/ParallelCost.h"

#include "gtest/gtest.h"

using namespace mlir::tfuse;

namespace {

// 100 GB/s = 1e5 bytes per us, 1 us per ring step.
const CommLink kLink{"test", 100, 1};

TEST(ExposedCommunication, GradientBucketsHideAllButTheLast) {
  // Chunks of 25 us end at 25, 50, 75, 100; 10 us reductions after each
  // end at 35, 60, 85, 110.
  EXPECT_DOUBLE_EQ(exposedCommunicationUs(100, 4, 0, 10), 10);
  // 40 us reductions outrun the chunks: they run back to back from 25 to
  // 185.
  EXPECT_DOUBLE_EQ(exposedCommunicationUs(100, 4, 0, 40), 85);
  EXPECT_DOUBLE_EQ(exposedCommunicationUs(100, 0, 0, 40), 0);
}

TEST(ExposedCommunication, PrefetchedGathers) {
  // 30 us gathers end at 30, 60, 90, 120; each 25 us chunk waits for its
  // gather: the last ends at 145.
  EXPECT_DOUBLE_EQ(exposedCommunicationUs(100, 4, 30, 0), 45);
  // Gather 0..10; chunk 0 10..60 (gather 1 10..20, reduction 60..80);
  // chunk 1 60..110, reduction 110..130.
  EXPECT_DOUBLE_EQ(exposedCommunicationUs(100, 2, 10, 20), 30);
}

TEST(ShardState, EachStageShardsOneMoreKind) {
  ShardedState none = shardState(1000, 2, 12, 4, ZeroStage::None);
  EXPECT_EQ(none.weightBytes, 2000);
  EXPECT_EQ(none.gradientBytes, 2000);
  EXPECT_EQ(none.optimizerBytes, 12000);
  EXPECT_EQ(none.total(), 16000);
  EXPECT_EQ(shardState(1000, 2, 12, 4, ZeroStage::OptimizerState).total(),
            2000 + 2000 + 3000);
  EXPECT_EQ(shardState(1000, 2, 12, 4, ZeroStage::Gradients).total(),
            2000 + 500 + 3000);
  EXPECT_EQ(shardState(1000, 2, 12, 4, ZeroStage::Weights).total(),
            500 + 500 + 3000);
  // Shares round up: 2002 / 4 = 500.5.
  EXPECT_EQ(shardState(1001, 2, 12, 4, ZeroStage::Weights).weightBytes, 501);
  // One GPU keeps everything.
  EXPECT_EQ(shardState(1000, 2, 12, 1, ZeroStage::Weights).total(), 16000);
}

/// 50M bf16 parameters: 1e8 bytes of weights or gradients.
ReplicaStep replica() {
  ReplicaStep r;
  r.forwardUs = 1000;
  r.backwardUs = 2000;
  r.optimizerUs = 100;
  r.params = 50'000'000;
  r.elementBytes = 2;
  r.layers = 4;
  return r;
}

TEST(DataParallel, BucketedAllReduceOverlapsTheBackward) {
  // ceil(1e8 / 25 MiB = 3.81) = 4 buckets of 2.5e7 bytes; an all-reduce of
  // one among 4 GPUs sends 2 x 3/4 x 2.5e7 = 3.75e7 bytes: 375 us + 6 steps.
  // Buckets ready at 500, 1000, 1500, 2000 end at 881, 1381, 1881, 2381.
  DataParallelTime t = predictDataParallelStep(replica(), {4}, kLink);
  EXPECT_EQ(t.buckets, 4);
  EXPECT_DOUBLE_EQ(t.busBytes, 1.5e8);
  EXPECT_DOUBLE_EQ(t.communicationUs, 4 * 381.0);
  EXPECT_DOUBLE_EQ(t.computeUs, 3100);
  EXPECT_DOUBLE_EQ(t.exposedUs, 381);
  EXPECT_DOUBLE_EQ(t.stepUs(), 3481);
}

TEST(DataParallel, OneGpuCommunicatesNothing) {
  DataParallelTime t =
      predictDataParallelStep(replica(), {1, ZeroStage::Weights}, kLink);
  EXPECT_DOUBLE_EQ(t.computeUs, 3100);
  EXPECT_DOUBLE_EQ(t.communicationUs, 0);
  EXPECT_DOUBLE_EQ(t.stepUs(), 3100);
}

TEST(DataParallel, ZeroOneScattersGradientsAndGathersWeights) {
  // Reduce-scatter of a bucket: 3/4 x 2.5e7 = 1.875e7 bytes, 187.5 + 3 us;
  // the last one exposed. Then the 1e8 bytes of new weights gathered:
  // 7.5e7 bytes, 750 + 3 us, all exposed. The update is a quarter: 25 us.
  DataParallelTime t =
      predictDataParallelStep(replica(), {4, ZeroStage::OptimizerState}, kLink);
  EXPECT_DOUBLE_EQ(t.computeUs, 3025);
  EXPECT_DOUBLE_EQ(t.communicationUs, 4 * 190.5 + 753);
  EXPECT_DOUBLE_EQ(t.exposedUs, 190.5 + 753);
  EXPECT_DOUBLE_EQ(t.busBytes, 4 * 1.875e7 + 7.5e7);
}

TEST(DataParallel, ZeroThreeGathersEachLayerTwice) {
  // Per layer 2.5e7 bytes: each gather and reduce-scatter 190.5 us.
  // Forward (250 us chunks): only the first gather is exposed, 190.5.
  // Backward (500 us chunks): gathers and reductions share the link;
  // the last reduction ends at 2381: 381 exposed.
  DataParallelTime t =
      predictDataParallelStep(replica(), {4, ZeroStage::Weights}, kLink);
  EXPECT_EQ(t.buckets, 4);
  EXPECT_DOUBLE_EQ(t.communicationUs, 4 * 3 * 190.5);
  EXPECT_DOUBLE_EQ(t.exposedUs, 190.5 + 381);
  EXPECT_DOUBLE_EQ(t.stepUs(), 3025 + 571.5);
}

TEST(TensorParallel, FourAllReducesALayerPlusEmbeddingAndHead) {
  // 2 layers: 2 x 4 + 2 = 10 all-reduces of 8e6 bytes between 2 GPUs,
  // each 2 x 1/2 x 8e6 = 8e6 bytes: 80 us + 2 steps.
  TensorParallelTime t =
      predictTensorParallelCommunication(2, 8'000'000, false, 2, kLink);
  EXPECT_EQ(t.allReduces, 10);
  EXPECT_DOUBLE_EQ(t.busBytes, 8e7);
  EXPECT_DOUBLE_EQ(t.communicationUs, 820);
  // Recomputing the forward repeats its 2 a layer.
  EXPECT_EQ(predictTensorParallelCommunication(2, 8'000'000, true, 2, kLink)
                .allReduces,
            14);
  EXPECT_EQ(predictTensorParallelCommunication(2, 8'000'000, true, 1, kLink)
                .allReduces,
            0);
}

TEST(Pipeline, BubbleAndSends) {
  // 8 micro-batches of 400 us over 4 stages: 100 us a stage, 800 us of
  // work, 3 x 100 us of bubble; 6 sends of 1e6 bytes, 10 + 1 us each.
  PipelineTime t = predictPipelineStep(400, 8, 4, 1'000'000, kLink);
  EXPECT_DOUBLE_EQ(t.computeUs, 800);
  EXPECT_DOUBLE_EQ(t.bubbleUs, 300);
  EXPECT_DOUBLE_EQ(t.sendUs, 66);
  EXPECT_DOUBLE_EQ(t.stepUs(), 1166);
  // One stage is the GPU's step: 8 micro-batches in turn.
  PipelineTime one = predictPipelineStep(400, 8, 1, 1'000'000, kLink);
  EXPECT_DOUBLE_EQ(one.stepUs(), 3200);
}

TEST(ParseZeroStage, Names) {
  EXPECT_EQ(parseZeroStage("0"), ZeroStage::None);
  EXPECT_EQ(parseZeroStage("3"), ZeroStage::Weights);
  EXPECT_FALSE(parseZeroStage("4"));
  EXPECT_FALSE(parseZeroStage(""));
}

} // namespace
