// RUN: tfuse-opt %s --split-input-file --tfuse-autodiff="fused-attention=true" | FileCheck %s
// RUN: tfuse-opt %s --split-input-file --tfuse-autodiff | FileCheck %s --check-prefix=DECOMPOSED

// With fused-attention, an attention op the flash-attention kernels cover
// stays whole in the training step and also gives its row log-sum-exp; its
// backward is delta = the row sums of dO * O in f32 and one
// tfuse.attention_grad. Without the option every attention is decomposed.

// Grouped-query, causal, a mask that needs no gradient (a constant).
// CHECK-LABEL: func.func @flash_train(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x4x80x64xbf16>, %[[K:[^:]*]]: tensor<2x2x80x64xbf16>, %[[V:[^:]*]]: tensor<2x2x80x64xbf16>, %[[DO:[^:]*]]: tensor<2x4x80x64xbf16>)
// CHECK:         %[[M:.*]] = tfuse.constant
// CHECK:         %[[O:.*]]:2 = tfuse.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 1.250000e-01 causal : {{.*}} -> (tensor<2x4x80x64xbf16>, tensor<2x4x80xf32>)
// CHECK-DAG:     %[[OF:.*]] = tfuse.cast %[[O]]#0 : tensor<2x4x80x64xbf16> to tensor<2x4x80x64xf32>
// CHECK-DAG:     %[[DOF:.*]] = tfuse.cast %[[DO]] : tensor<2x4x80x64xbf16> to tensor<2x4x80x64xf32>
// CHECK:         %[[P:.*]] = tfuse.mul %[[DOF]], %[[OF]]
// CHECK:         %[[DELTA:.*]] = tfuse.reduce sum %[[P]] axis = 3 : tensor<2x4x80x64xf32> -> tensor<2x4x80xf32>
// CHECK:         %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tfuse.attention_grad %[[Q]], %[[K]], %[[V]], %[[DO]], %[[O]]#1, %[[DELTA]] mask %[[M]] scale = 1.250000e-01 causal
// CHECK-SAME:      -> (tensor<2x4x80x64xbf16>, tensor<2x2x80x64xbf16>, tensor<2x2x80x64xbf16>)
// CHECK:         return %[[O]]#0, %[[DQ]], %[[DK]], %[[DV]]
// CHECK-NOT:     tfuse.softmax
// DECOMPOSED-LABEL: func.func @flash_train(
// DECOMPOSED-NOT:   tfuse.attention
// DECOMPOSED:       tfuse.softmax
// DECOMPOSED-NOT:   tfuse.attention_grad
func.func @flash(%q: tensor<2x4x80x64xbf16>, %k: tensor<2x2x80x64xbf16>, %v: tensor<2x2x80x64xbf16>) -> tensor<2x4x80x64xbf16> {
  %m = tfuse.constant dense<0.0> : tensor<2x1x1x80xbf16>
  %o = tfuse.attention %q, %k, %v mask %m scale = 1.250000e-01 causal : (tensor<2x4x80x64xbf16>, tensor<2x2x80x64xbf16>, tensor<2x2x80x64xbf16>, tensor<2x1x1x80xbf16>) -> tensor<2x4x80x64xbf16>
  return %o : tensor<2x4x80x64xbf16>
}

// -----

// A mask argument gets a gradient (it is a float argument and not in
// no-grad): the fused backward gives none, so the op is decomposed.
// CHECK-LABEL: func.func @mask_with_gradient_train(
// CHECK-NOT:     tfuse.attention_grad
// CHECK:         tfuse.softmax
func.func @mask_with_gradient(%q: tensor<1x2x16x64xbf16>, %m: tensor<1x1x1x16xbf16>) -> tensor<1x2x16x64xbf16> {
  %o = tfuse.attention %q, %q, %q mask %m scale = 1.250000e-01 : (tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x1x1x16xbf16>) -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}

// -----

// Dropout is covered (the kernels regenerate its Philox mask): the op stays
// whole and its backward carries p and seed. f32 is not: decomposed.
// CHECK-LABEL: func.func @dropout_and_f32_train(
// CHECK:         tfuse.attention %{{.*}} scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 5 : {{.*}} -> (tensor<1x2x16x64xbf16>, tensor<1x2x16xf32>)
// CHECK:         tfuse.softmax
// CHECK:         tfuse.attention_grad {{.*}} scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 5
// CHECK:         return
func.func @dropout_and_f32(%q: tensor<1x2x16x64xbf16>, %x: tensor<1x2x16x64xf32>) -> (tensor<1x2x16x64xbf16>, tensor<1x2x16x64xf32>) {
  %o = tfuse.attention %q, %q, %q scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 5 : (tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16>
  %p = tfuse.attention %x, %x, %x scale = 1.250000e-01 : (tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32>
  return %o, %p : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xf32>
}
