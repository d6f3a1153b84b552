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

// -----

// An argument no op uses is still bounded: 2^31 x 2^20 elements.
// expected-error @+1 {{'func.func' op argument #0 ('tensor<2147483648x1048576xf32>') has 2251799813685248 elements; a tensor may have at most 2^40 = 1099511627776}}
func.func @huge_unused_argument(%x: tensor<2147483648x1048576xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  return %y : tensor<4xf32>
}

// -----

// A batch of 2^31 rows of 4: argument, result and returned copy hold
// 3 x 2^33 doubles = 206158430208 bytes, over the default 8192 MiB.
// expected-error @+1 {{'func.func' op needs 206158430208 bytes (196608 MiB) for its reference values, more than the 8192 MiB that tfuse-evaluate{max-memory-mb} allows}}
func.func @over_the_memory_limit(%x: tensor<2147483648x4xf32>) -> tensor<2147483648x4xf32> {
  %y = tfuse.relu %x : tensor<2147483648x4xf32>
  return %y : tensor<2147483648x4xf32>
}
