// Every diagnostic of tfuse-apply-optimizer: the options first, then the
// steps it cannot extend.
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=optimizer=lamb 2>&1 | FileCheck %s --check-prefix=OPTIMIZER
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=model-weight=f8 2>&1 | FileCheck %s --check-prefix=WEIGHT
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=beta1=1 2>&1 | FileCheck %s --check-prefix=BETA1
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=beta2=-0.5 2>&1 | FileCheck %s --check-prefix=BETA2
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=eps=0 2>&1 | FileCheck %s --check-prefix=EPS
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=weight-decay=-1 2>&1 | FileCheck %s --check-prefix=DECAY
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer="optimizer=sgd momentum=0" 2>&1 | FileCheck %s --check-prefix=MOMENTUM
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer="optimizer=sgd dampening=2" 2>&1 | FileCheck %s --check-prefix=DAMPENING
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer="optimizer=sgd nesterov=true dampening=0.5" 2>&1 | FileCheck %s --check-prefix=NESTEROV
// RUN: echo 'func.func @f() { return }' | not tfuse-opt --tfuse-apply-optimizer 2>&1 | FileCheck %s --check-prefix=NOSTEP
// RUN: not tfuse-opt %s --tfuse-apply-optimizer=function=linear_train 2>&1 | FileCheck %s --check-prefix=NONAMED
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer="function=linear_train params=2" 2>&1 | FileCheck %s --check-prefix=NOGRAD
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer="function=linear_train params=1,1" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=function=half_train 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: not tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer=function=linear_train --tfuse-apply-optimizer=function=linear_train 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: not tfuse-opt %s --tfuse-apply-optimizer=function=no_gradients 2>&1 | FileCheck %s --check-prefix=NOLIST
// RUN: not tfuse-opt %s --tfuse-apply-optimizer=function=too_many 2>&1 | FileCheck %s --check-prefix=TOOMANY

// OPTIMIZER: error: tfuse-apply-optimizer: unknown optimizer 'lamb' (expected adamw or sgd)
// WEIGHT: error: tfuse-apply-optimizer: unknown model-weight 'f8' (expected none, bf16 or f16)
// BETA1: error: tfuse-apply-optimizer: beta1 must be in [0, 1), got 1.000000
// BETA2: error: tfuse-apply-optimizer: beta2 must be in [0, 1), got -0.500000
// EPS: error: tfuse-apply-optimizer: eps must be positive and finite, got 0.000000
// DECAY: error: tfuse-apply-optimizer: weight-decay must be non-negative and finite, got -1.000000
// MOMENTUM: error: tfuse-apply-optimizer: momentum must be positive and finite, got 0.000000
// DAMPENING: error: tfuse-apply-optimizer: dampening must be in [0, 1], got 2.000000
// NESTEROV: error: tfuse-apply-optimizer: nesterov needs dampening 0, got 0.500000
// NOSTEP: error: tfuse-apply-optimizer: no training step (run tfuse-autodiff first)
// NONAMED: error: tfuse-apply-optimizer: no training step named 'linear_train' (run tfuse-autodiff first)
// NOGRAD: error: tfuse-apply-optimizer: @linear_train returns no gradient of argument 2 (params must be listed in its gradients)
// TWICE: error: tfuse-apply-optimizer: argument 1 is listed twice in params
// HALF: error: tfuse-apply-optimizer: parameter 0 of @half_train is 'tensor<4x4xbf16>'; the optimizer updates f32 master weights
// AGAIN: error: tfuse-apply-optimizer: @linear_train already has an optimizer update (tfuse.optimizer)
// NOLIST: error: tfuse-apply-optimizer: the tfuse.training_step of @no_gradients has no `gradients`
// TOOMANY: error: tfuse-apply-optimizer: @too_many lists 2 gradients but returns 1 values

func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = tfuse.matmul %x, %w transpose_rhs : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// bf16 weights: the master weights the optimizer updates must be f32.
func.func @half(%w: tensor<4x4xbf16>) -> tensor<4x4xbf16> {
  %0 = tfuse.exp %w : tensor<4x4xbf16>
  return %0 : tensor<4x4xbf16>
}

// Written by hand, so tfuse-autodiff leaves them alone.
func.func @no_gradients(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfuse.training_step = {forward = "f"}} {
  return %x : tensor<4xf32>
}

func.func @too_many(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfuse.training_step = {forward = "f", gradients = array<i64: 0, 0>}} {
  return %x : tensor<4xf32>
}
