// RUN: tfuse-opt %s --tfuse-autodiff=loss=cross-entropy | FileCheck %s
// RUN: tfuse-opt %s --tfuse-autodiff=loss=cross-entropy --tfuse-evaluate=seed=3 -o /dev/null | FileCheck %s --check-prefix=EVAL

// The built-in cross-entropy loss over an LM head's logits: one i32 label
// per row, the mean over the counted rows (sum of losses / sum of counted),
// and the logits' gradient straight from tfuse.cross_entropy_grad at
// 1 / count per row, no softmax of its own.

// CHECK-LABEL: func.func @head_train(
// CHECK-SAME: %[[H:[^:]*]]: tensor<2x4x8xbf16>, %[[W:[^:]*]]: tensor<8x16xbf16>, %[[L:[^:]*]]: tensor<2x4xi32>)
// CHECK-SAME: -> (tensor<f32>, tensor<2x4x8xbf16>, tensor<8x16xbf16>) attributes {tfuse.training_step = {{{.*}}loss = "cross-entropy"
// CHECK: %[[Y:.*]] = tfuse.matmul %[[H]], %[[W]]
// CHECK: %[[LOSS:.*]], %[[COUNTED:.*]] = tfuse.cross_entropy %[[Y]][%[[L]]] ignore = -100 : (tensor<2x4x16xbf16>, tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK: %[[LF:.*]] = tfuse.reshape %[[LOSS]] : tensor<2x4xf32> -> tensor<8xf32>
// CHECK: %[[SUM:.*]] = tfuse.reduce sum %[[LF]] axis = 0 : tensor<8xf32> -> tensor<f32>
// CHECK: %[[CF:.*]] = tfuse.reshape %[[COUNTED]] : tensor<2x4xf32> -> tensor<8xf32>
// CHECK: %[[COUNT:.*]] = tfuse.reduce sum %[[CF]] axis = 0 : tensor<8xf32> -> tensor<f32>
// CHECK: %[[INV:.*]] = tfuse.div %{{.*}}, %[[COUNT]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: %[[ROWS:.*]] = tfuse.add %[[INV]], %{{.*}} : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[DY:.*]] = tfuse.cross_entropy_grad %[[Y]][%[[L]]], %[[ROWS]] ignore = -100 : (tensor<2x4x16xbf16>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<2x4x16xbf16>
// CHECK: %[[MEAN:.*]] = tfuse.mul %[[SUM]], %[[INV]]
// CHECK: tfuse.matmul %[[DY]], %[[W]] transpose_rhs
// CHECK: return %[[MEAN]],

// Random logits of 16 classes (labels draw [0, 1024) and mostly clamp to
// class 15) give a loss near ln 16 = 2.77.
// EVAL-LABEL: @head_train result 0: [] f32 sum={{[1-4]\.[0-9]+}}e+00
func.func @head(%h: tensor<2x4x8xbf16>, %w: tensor<8x16xbf16>) -> tensor<2x4x16xbf16> {
  %y = tfuse.matmul %h, %w : (tensor<2x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x16xbf16>
  return %y : tensor<2x4x16xbf16>
}
