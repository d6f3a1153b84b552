// RUN: tfuse-opt %s --tfuse-autodiff=loss=cross-entropy -split-input-file -verify-diagnostics

// The cross-entropy loss reads logits with a class axis.

// expected-error @+1 {{'func.func' op returns 'tensor<f32>': a cross-entropy loss needs logits with a class axis}}
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op returns 'tensor<4x0xf32>': a cross-entropy loss needs logits with a class axis}}
func.func @no_classes(%x: tensor<4x0xf32>) -> tensor<4x0xf32> {
  return %x : tensor<4x0xf32>
}

// -----

// A cross-entropy's gradient has no gradient of its own (no second order).
func.func @second_order(%x: tensor<4x8xf32>, %l: tensor<4xi32>, %g: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'tfuse.cross_entropy_grad' op has no gradient rule}}
  %d = tfuse.cross_entropy_grad %x[%l], %g ignore = -100 : (tensor<4x8xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
