//===- ParallelCost.cpp - training steps spread over several GPUs ---------===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/ParallelCost.h"

#include <algorithm>

using namespace mlir::tfuse;

double mlir::tfuse::exposedCommunicationUs(double computeUs, int64_t chunks,
                                           double preUs, double postUs) {
  if (chunks < 1)
    return 0;
  const double chunkUs = computeUs / static_cast<double>(chunks);
  // The link's queue: `linkFree` is when its last issued collective ends.
  double linkFree = preUs; // the first chunk's prefetch, issued at 0
  double gathered = preUs; // when the current chunk's prefetch ends
  double computed = 0;     // when the previous chunk ends
  for (int64_t i = 0; i < chunks; ++i) {
    const double start = std::max(computed, gathered);
    if (i + 1 < chunks) { // prefetch the next chunk as this one starts
      gathered = std::max(linkFree, start) + preUs;
      linkFree = gathered;
    }
    computed = start + chunkUs;
    if (postUs > 0)
      linkFree = std::max(linkFree, computed) + postUs;
  }
  return std::max(computed, linkFree) - computeUs;
}

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
} // namespace

ShardedState mlir::tfuse::shardState(int64_t params, int64_t elementBytes,
                                     int64_t optimizerBytesPerParam, int gpus,
                                     ZeroStage stage) {
  const int64_t n = std::max(gpus, 1);
  auto share = [&](int64_t bytes, ZeroStage from) {
    return stage >= from ? ceilDiv(bytes, n) : bytes;
  };
  ShardedState state;
  state.optimizerBytes =
      share(params * optimizerBytesPerParam, ZeroStage::OptimizerState);
  state.gradientBytes = share(params * elementBytes, ZeroStage::Gradients);
  state.weightBytes = share(params * elementBytes, ZeroStage::Weights);
  return state;
}

DataParallelTime
mlir::tfuse::predictDataParallelStep(const ReplicaStep &replica,
                                     const DataParallelPlan &plan,
                                     const CommLink &link) {
  DataParallelTime t;
  const int n = plan.gpus;
  const bool sharded = plan.stage != ZeroStage::None && n > 1;
  t.computeUs = replica.forwardUs + replica.backwardUs +
                (sharded ? replica.optimizerUs / n : replica.optimizerUs);
  if (n < 2)
    return t;
  const int64_t weightBytes = replica.params * replica.elementBytes;
  // `count` collectives of `bytes` each: adds them to the step's link
  // totals, returns one's time.
  auto collective = [&](Collective kind, int64_t bytes, int64_t count = 1) {
    CollectiveTime c = predictCollectiveTime(kind, bytes, n, link);
    t.busBytes += count * c.busBytes;
    t.communicationUs += count * c.totalUs;
    return c.totalUs;
  };
  if (plan.stage == ZeroStage::Weights) {
    // Per layer: gather its weights before its forward and its backward,
    // reduce-scatter its gradients after its backward.
    const int64_t layers = std::max<int64_t>(replica.layers, 1);
    const int64_t layerBytes = ceilDiv(weightBytes, layers);
    double gatherUs = collective(Collective::AllGather, layerBytes, 2 * layers);
    double scatterUs =
        collective(Collective::ReduceScatter, layerBytes, layers);
    t.buckets = layers;
    t.exposedUs =
        exposedCommunicationUs(replica.forwardUs, layers, gatherUs, 0) +
        exposedCommunicationUs(replica.backwardUs, layers, gatherUs, scatterUs);
    return t;
  }
  // Gradients leave in buckets as the backward produces them.
  const int64_t bucketBytes = std::max<int64_t>(plan.bucketBytes, 1);
  t.buckets = std::max<int64_t>(ceilDiv(weightBytes, bucketBytes), 1);
  const int64_t perBucket = ceilDiv(weightBytes, t.buckets);
  const Collective reduce =
      sharded ? Collective::ReduceScatter : Collective::AllReduce;
  double bucketUs = collective(reduce, perBucket, t.buckets);
  t.exposedUs =
      exposedCommunicationUs(replica.backwardUs, t.buckets, 0, bucketUs);
  // The updated shards are gathered before the next forward can start.
  if (sharded)
    t.exposedUs += collective(Collective::AllGather, weightBytes);
  return t;
}

TensorParallelTime mlir::tfuse::predictTensorParallelCommunication(
    int64_t layers, int64_t activationBytes, bool recomputesForward, int degree,
    const CommLink &link) {
  TensorParallelTime t;
  if (degree < 2)
    return t;
  t.allReduces = layers * (recomputesForward ? 6 : 4) + 2;
  CollectiveTime one = predictCollectiveTime(Collective::AllReduce,
                                             activationBytes, degree, link);
  t.busBytes = t.allReduces * one.busBytes;
  t.communicationUs = t.allReduces * one.totalUs;
  return t;
}

PipelineTime mlir::tfuse::predictPipelineStep(double microBatchUs,
                                              int64_t microBatches, int stages,
                                              int64_t boundaryBytes,
                                              const CommLink &link) {
  PipelineTime t;
  const double stageUs = microBatchUs / std::max(stages, 1);
  t.computeUs = static_cast<double>(microBatches) * stageUs;
  if (stages < 2)
    return t;
  t.bubbleUs = (stages - 1) * stageUs;
  const double sendUs =
      static_cast<double>(boundaryBytes) / (link.bandwidthGBps * 1e3) +
      link.latencyUs;
  t.sendUs = 2.0 * (stages - 1) * sendUs;
  return t;
}

std::optional<ZeroStage> mlir::tfuse::parseZeroStage(const std::string &text) {
  if (text == "0")
    return ZeroStage::None;
  if (text == "1")
    return ZeroStage::OptimizerState;
  if (text == "2")
    return ZeroStage::Gradients;
  if (text == "3")
    return ZeroStage::Weights;
  return std::nullopt;
}
