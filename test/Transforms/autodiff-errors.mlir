// RUN: tfuse-opt %s --tfuse-autodiff -split-input-file -verify-diagnostics
// RUN: not tfuse-opt %s --tfuse-autodiff=loss=hinge 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not tfuse-opt %s --tfuse-autodiff=recompute=some 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not tfuse-opt %s --tfuse-autodiff=function=nothere 2>&1 | FileCheck %s --check-prefix=FUNCTION

// LOSS: error: tfuse-autodiff: unknown loss 'hinge' (expected seed, mse or cross-entropy)
// POLICY: error: tfuse-autodiff: unknown recompute policy 'some' (expected none, norms-and-elementwise or full)
// FUNCTION: error: tfuse-autodiff: no function 'nothere' with a body

func.func @fused(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfuse.fusion' op is a fusion: differentiate the function before tfuse-fuse}}
  %y = tfuse.fusion loop (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tfuse.exp %a : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op returns 'tensor<3xi32>': a training step needs float tensor results}}
func.func @ids(%ids: tensor<3xi32>) -> tensor<3xi32> {
  return %ids : tensor<3xi32>
}

// -----

// expected-error @+1 {{'func.func' op returns nothing to differentiate}}
func.func @nothing(%x: tensor<4xf32>) {
  return
}

// -----

// expected-error @+1 {{'func.func' op cannot build its training step: 'taken_train' exists}}
func.func @taken(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @taken_train(%x: tensor<4xf32>) -> tensor<4xf32>

// -----

// Frequencies that are an argument would need a gradient of their own.
func.func @rope_frequency_argument(%x: tensor<1x2x4x8xf32>, %f: tensor<2xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{has no gradient for its frequencies (inv_freq is a constant of the model)}}
  %r = tfuse.rope %x, %f attention_scaling = 1.0 : tensor<1x2x4x8xf32>, tensor<2xf32>
  return %r : tensor<1x2x4x8xf32>
}
