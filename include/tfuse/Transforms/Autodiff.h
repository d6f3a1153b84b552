//===- Autodiff.h - training steps from forward functions -------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reverse-mode differentiation of tfuse functions: from a forward function,
// the training-step function that computes the forward, a loss seed, and the
// gradient of every float argument, as ordinary tfuse ops (so the traffic
// report, fusion, code generation and the reference all apply unchanged).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_AUTODIFF_H
#define TFUSE_TRANSFORMS_AUTODIFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace mlir::tfuse {

/// Where the backward sweep starts.
enum class LossKind {
  /// One extra argument per float result: the gradient of that result.
  Seed,
  /// One extra argument per float result, the target: the loss is the mean
  /// over all elements of all results of (y - target)^2, returned first.
  MeanSquared,
  /// One extra argument per float result (logits, classes on the last axis),
  /// its i32 labels (the result's shape without the last axis): the loss is
  /// the mean softmax cross-entropy over the rows not labelled
  /// `AutodiffOptions::ignoreIndex` (PyTorch's reduction="mean"), f32,
  /// returned first.
  CrossEntropy,
};

/// Which forward values the backward recomputes instead of saving.
enum class RecomputePolicy {
  /// Save every forward value the backward uses.
  None,
  /// Recompute elementwise ops, normalisations, softmax and layout ops;
  /// save contraction (matmul, attention) results.
  NormsAndElementwise,
  /// Save only the function's arguments (activation checkpointing).
  Full,
};

std::optional<LossKind> parseLossKind(StringRef name);
std::optional<RecomputePolicy> parseRecomputePolicy(StringRef name);
StringRef stringifyLossKind(LossKind kind);
StringRef stringifyRecomputePolicy(RecomputePolicy policy);

struct AutodiffOptions {
  LossKind loss = LossKind::Seed;
  RecomputePolicy recompute = RecomputePolicy::None;
  /// Float arguments that get no gradient (PyTorch's requires_grad=False:
  /// masks, frozen weights), by index.
  SmallVector<int64_t> noGrad;
  /// Keep the attention ops the flash-attention kernels cover (forward and
  /// backward: checkAttentionKernel) whole, and differentiate them with
  /// tfuse.attention_grad (the forward gives its row log-sum-exp); the
  /// others, and all of them without it, through their decomposition.
  bool fusedAttention = false;
  /// The label of rows the cross-entropy loss leaves out (PyTorch's
  /// default ignore_index).
  int64_t ignoreIndex = -100;
};

/// The attribute on a training step that describes it (a dictionary):
/// `forward` (the forward function's name), `loss`, `recompute`,
/// `saved_bytes` (bytes of the forward values the backward reads),
/// `recompute_flops` (FLOPs the backward spends recomputing forward values)
/// and `gradients` (for each gradient result, in order, the index of the
/// argument it belongs to).
inline StringRef getTrainingStepAttrName() { return "tfuse.training_step"; }

/// Builds `<name>_train` next to `forward` (inserted after it in its module)
/// and returns it. Its arguments are the forward's, then the loss
/// arguments (see LossKind); its results are the loss (MeanSquared: a
/// rank-0 tensor of the first result's element type; CrossEntropy: f32) or
/// the forward's results (Seed), then the gradient of every float argument
/// of the forward (but those in `options.noGrad`), in argument order, each of
/// its argument's type.
/// tfuse.attention is differentiated through its decomposition. Fails with a
/// diagnostic at the op whose gradient cannot be built.
FailureOr<func::FuncOp> buildTrainingStep(func::FuncOp forward,
                                          const AutodiffOptions &options);

} // namespace mlir::tfuse

#endif // TFUSE_TRANSFORMS_AUTODIFF_H
