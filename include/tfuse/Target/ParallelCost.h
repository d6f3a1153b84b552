//===- ParallelCost.h - training steps spread over several GPUs -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// How a training step's time and memory change when it is spread over
// several GPUs (docs/multi-gpu.md): data parallelism with its gradient
// collectives overlapped with the backward, ZeRO's sharding of optimizer
// state, gradients and parameters with their extra collectives, and tensor
// parallelism's all-reduces on the critical path. MLIR-free, beside
// CommCost.h, whose ring collectives it composes.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TARGET_PARALLELCOST_H
#define TFUSE_TARGET_PARALLELCOST_H

#include "tfuse/Target/CommCost.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tfuse {

/// ZeRO's stages (Rajbhandari et al. 2020), as DeepSpeed implements them:
/// each shards one more kind of state over the data-parallel GPUs.
enum class ZeroStage {
  None = 0,
  OptimizerState = 1,
  Gradients = 2,
  Weights = 3
};

/// PyTorch DDP's default gradient bucket (bucket_cap_mb = 25).
constexpr int64_t kDefaultBucketBytes = int64_t(25) << 20;

/// The exposed communication of a compute phase beside one link: the phase
/// is `chunks` equal pieces of `computeUs` in all, run in order on one
/// stream; the link runs collectives one at a time in the order they are
/// issued. Before each chunk runs, `preUs` of communication must have
/// finished (a prefetched all-gather of the chunk's weights: the first is
/// issued as the phase starts, each next one as its predecessor's chunk
/// starts); after each chunk, `postUs` is issued (the reduction of the
/// gradients it produced). Returns how much later than `computeUs` the last
/// chunk and the last collective finish: 0 when the link keeps up.
double exposedCommunicationUs(double computeUs, int64_t chunks, double preUs,
                              double postUs);

/// The bytes of per-GPU training state, each kind divided by the GPUs that
/// share it.
struct ShardedState {
  int64_t weightBytes = 0, gradientBytes = 0, optimizerBytes = 0;
  int64_t total() const { return weightBytes + gradientBytes + optimizerBytes; }
};

/// The state of `params` parameters on each of `gpus` data-parallel GPUs
/// at `stage`: weights and gradients of `elementBytes`, and the optimizer's
/// `optimizerBytesPerParam` (AdamW: 8 for the moments, 12 with f32 master
/// weights). Shares round up.
ShardedState shardState(int64_t params, int64_t elementBytes,
                        int64_t optimizerBytesPerParam, int gpus,
                        ZeroStage stage);

/// One GPU's training step, as the single-GPU cost model prices it at the
/// per-GPU batch.
struct ReplicaStep {
  double forwardUs = 0;   ///< forward and loss
  double backwardUs = 0;  ///< backward, recompute included
  double optimizerUs = 0; ///< the update of all of this GPU's parameters
  int64_t params = 0; ///< parameters this GPU holds (after tensor parallelism)
  int64_t elementBytes = 0; ///< of the weights and gradients
  int64_t layers = 1;       ///< ZeRO-3 gathers each layer's weights at once
};

/// Data parallelism over `gpus` GPUs on `link`.
struct DataParallelPlan {
  int gpus = 1;
  ZeroStage stage = ZeroStage::None;
  int64_t bucketBytes = kDefaultBucketBytes;
};

struct DataParallelTime {
  double computeUs = 0; ///< forward + backward + this GPU's optimizer share
  /// Link time of every collective of the step, and the part of it that the
  /// step waits for.
  double communicationUs = 0, exposedUs = 0;
  double busBytes = 0; ///< sent by each GPU over the link per step
  int64_t buckets = 0; ///< gradient collectives per step
  double stepUs() const { return computeUs + exposedUs; }
};

/// The step of `replica` replicated over `plan.gpus` GPUs:
///   none     gradients all-reduced in buckets as the backward produces them
///            (uniformly over the backward), overlapped with it (DDP);
///   1 and 2  gradients reduce-scattered the same way, each GPU updates its
///            1/n of the parameters, then the new weights are all-gathered
///            before the next forward (not overlapped: DeepSpeed's order);
///   3        also each layer's weights all-gathered before its forward and
///            again before its backward, prefetched one layer ahead, the
///            gradients reduce-scattered per layer.
/// One GPU communicates nothing.
DataParallelTime predictDataParallelStep(const ReplicaStep &replica,
                                         const DataParallelPlan &plan,
                                         const CommLink &link);

/// Tensor parallelism (Megatron-LM, without sequence parallelism): each
/// layer's attention and MLP split over `degree` GPUs, one all-reduce of
/// the layer's activations ([tokens, hidden]) after each in the forward and
/// one of their input gradients in the backward, on the critical path.
struct TensorParallelTime {
  int64_t allReduces = 0;
  double busBytes = 0, communicationUs = 0;
};

/// The all-reduces of one step: 2 per layer forward, 2 backward, 2 more
/// when the backward recomputes the forward (`recomputesForward`), and one
/// each for the vocabulary-parallel embedding's output and the head's input
/// gradient; each of `activationBytes`.
TensorParallelTime predictTensorParallelCommunication(int64_t layers,
                                                      int64_t activationBytes,
                                                      bool recomputesForward,
                                                      int degree,
                                                      const CommLink &link);

/// Pipeline parallelism (1F1B, Narayanan et al. 2021): the layers split
/// into `stages` equal stages on as many GPUs, the batch into
/// `microBatches` micro-batches that flow through them.
struct PipelineTime {
  double computeUs = 0; ///< every micro-batch's forward and backward on a stage
  double bubbleUs = 0;  ///< the stages idle while the pipeline fills and drains
  /// The point-to-point sends of activations (forward) and their gradients
  /// (backward) on the critical path: the first micro-batch's way down, the
  /// last one's way back.
  double sendUs = 0;
  double stepUs() const { return computeUs + bubbleUs + sendUs; }
};

/// One step of `microBatches` micro-batches whose forward and backward
/// through all the layers take `microBatchUs` on one GPU, over `stages`
/// stages whose boundaries pass `boundaryBytes` per micro-batch on `link`.
PipelineTime predictPipelineStep(double microBatchUs, int64_t microBatches,
                                 int stages, int64_t boundaryBytes,
                                 const CommLink &link);

std::optional<ZeroStage> parseZeroStage(const std::string &text);

} // namespace mlir::tfuse

#endif // TFUSE_TARGET_PARALLELCOST_H
