// RUN: tfuse-opt %s --tfuse-autodiff="loss=cross-entropy" --tfuse-apply-optimizer | FileCheck %s
// RUN: tfuse-opt %s --tfuse-autodiff="loss=mse" | FileCheck %s --check-prefix=MSE
// RUN: tfuse-opt %s --tfuse-autodiff | FileCheck %s --check-prefix=SEED

// The step of a named forward is named after it: the forward's arguments
// keep their names (and tfuse.checkpoint_transposed), the loss input is
// `labels` (R.target, R.grad for mse and a seed), the loss `loss`, the
// gradient of W `W.grad`; AdamW's state is W.exp_avg / W.exp_avg_sq (as in
// PyTorch's optimizer state), lr and step, and the updated tensors take the
// names of those they replace. A name already taken is not given twice.

// CHECK-LABEL: func.func @head_train
// CHECK-SAME: {tfuse.name = "h"}
// CHECK-SAME: {tfuse.checkpoint_transposed, tfuse.name = "lm_head.weight"}
// CHECK-SAME: {tfuse.name = "labels"}
// CHECK-SAME: {tfuse.name = "h.exp_avg"}
// CHECK-SAME: {tfuse.name = "h.exp_avg_sq"}
// CHECK-SAME: {tfuse.name = "lm_head.weight.exp_avg"}
// CHECK-SAME: {tfuse.name = "lm_head.weight.exp_avg_sq"}
// CHECK-SAME: %{{.*}}: tensor<f32> {tfuse.name = "lr"}, %{{.*}}: tensor<f32> {tfuse.name = "step"})
// CHECK-SAME: -> (tensor<f32> {tfuse.name = "loss"}, tensor<2x8xf32> {tfuse.name = "h.grad"}, tensor<8x16xf32> {tfuse.name = "lm_head.weight.grad"},
// CHECK-SAME: tensor<2x8xf32> {tfuse.name = "h"}, tensor<2x8xf32> {tfuse.name = "h.exp_avg"}, tensor<2x8xf32> {tfuse.name = "h.exp_avg_sq"},
// CHECK-SAME: tensor<8x16xf32> {tfuse.name = "lm_head.weight"}, tensor<8x16xf32> {tfuse.name = "lm_head.weight.exp_avg"}, tensor<8x16xf32> {tfuse.name = "lm_head.weight.exp_avg_sq"})

// MSE-LABEL: func.func @head_train
// MSE-SAME: %{{.*}}: tensor<2x16xf32> {tfuse.name = "logits.target"})
// MSE-SAME: -> (tensor<f32> {tfuse.name = "loss"}, tensor<2x8xf32> {tfuse.name = "h.grad"}, tensor<8x16xf32> {tfuse.name = "lm_head.weight.grad"})

// SEED-LABEL: func.func @head_train
// SEED-SAME: %{{.*}}: tensor<2x16xf32> {tfuse.name = "logits.grad"})
// SEED-SAME: -> (tensor<2x16xf32> {tfuse.name = "logits"}, tensor<2x8xf32> {tfuse.name = "h.grad"}, tensor<8x16xf32> {tfuse.name = "lm_head.weight.grad"})
func.func @head(%h: tensor<2x8xf32> {tfuse.name = "h"}, %w: tensor<8x16xf32> {tfuse.name = "lm_head.weight", tfuse.checkpoint_transposed}) -> (tensor<2x16xf32> {tfuse.name = "logits"}) {
  %y = tfuse.matmul %h, %w : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// A forward whose argument is already called `labels`: the loss input
// stays unnamed rather than repeat it.
// CHECK-LABEL: func.func @taken_train
// CHECK-SAME: (%{{.*}}: tensor<2x8xf32> {tfuse.name = "labels"}, %{{.*}}: tensor<2xi32>, %{{.*}}: tensor<2x8xf32> {tfuse.name = "labels.exp_avg"}
func.func @taken(%x: tensor<2x8xf32> {tfuse.name = "labels"}) -> tensor<2x8xf32> {
  %y = tfuse.exp %x : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
