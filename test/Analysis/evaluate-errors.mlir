// RUN: tfuse-opt %s -split-input-file -verify-diagnostics --tfuse-evaluate -o /dev/null

// Functions the reference evaluator cannot run fail with a located error.

func.func private @external(tensor<4xf32>) -> tensor<4xf32>

func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op has no reference semantics}}
  %y = func.call @external(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{argument 0 must be a statically shaped tensor to be evaluated, got 'f32'}}
func.func @scalar_argument(%x: f32) -> f32 {
  return %x : f32
}

// -----

// expected-error @+1 {{the reference evaluator does not support element type 'f64'}}
func.func @f64_argument(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}

// -----

func.func @resource_constant() -> tensor<4xf32> {
  // expected-error @+1 {{'tfuse.constant' op needs a dense value to be evaluated by the reference}}
  %c = tfuse.constant dense_resource<blob> : tensor<4xf32>
  return %c : tensor<4xf32>
}
