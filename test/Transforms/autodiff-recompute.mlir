// RUN: tfuse-opt %s --tfuse-autodiff="loss=mse recompute=none" | FileCheck %s --check-prefix=NONE
// RUN: tfuse-opt %s --tfuse-autodiff="loss=mse recompute=norms-and-elementwise" | FileCheck %s --check-prefix=NORMS
// RUN: tfuse-opt %s --tfuse-autodiff="loss=mse recompute=full" | FileCheck %s --check-prefix=FULL

// Saved bytes by hand (f32, 64 elements = 256 B each): none saves the
// layer_norm output (dW reads it) and the matmul output (gelu's backward
// reads it): 512; norms-and-elementwise recomputes the layer_norm: 256;
// full recomputes the matmul too: 0.
// NONE-LABEL: func.func @block_train(
// NONE-SAME: -> (tensor<f32>, tensor<2x4x8xf32>, tensor<8xf32>, tensor<8x8xf32>)
// NONE-SAME: loss = "mse", recompute = "none", recompute_flops = 0 : i64, saved_bytes = 512 : i64
// NORMS-LABEL: func.func @block_train(
// NORMS-SAME: recompute = "norms-and-elementwise"
// NORMS-SAME: saved_bytes = 256 : i64
// NORMS: tfuse.layer_norm
// NORMS: tfuse.layer_norm
// FULL-LABEL: func.func @block_train(
// FULL-SAME: recompute = "full"
// FULL-SAME: saved_bytes = 0 : i64
// FULL-COUNT-2: tfuse.matmul %{{.*}}, %arg2 :
func.func @block(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tfuse.layer_norm %x gamma %g eps = 1.0e-05 : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %1 = tfuse.matmul %0, %w : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %2 = tfuse.gelu %1 approximate = tanh : tensor<2x4x8xf32>
  %3 = tfuse.add %2, %x : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %3 : tensor<2x4x8xf32>
}
