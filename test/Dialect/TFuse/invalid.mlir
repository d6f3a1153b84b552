// RUN: tfuse-opt %s -split-input-file -verify-diagnostics

// Every verifier message of the tfuse dialect, one case per split.

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

func.func @f64_not_supported(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %y = tfuse.exp %x : tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

func.func @dynamic_shape(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %y = tfuse.exp %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires operands of rank >= 2, got ranks 1 and 2}}
  %y = tfuse.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @matmul_element_type(%a: tensor<2x8xf32>, %b: tensor<8x4xbf16>) -> tensor<2x4xf32> {
  // expected-error @+1 {{requires operands and result to have the same element type, got 'f32' and 'bf16'}}
  %y = tfuse.matmul %a, %b : (tensor<2x8xf32>, tensor<8x4xbf16>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<2x8xf32>, %b: tensor<7x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{contraction sizes differ: lhs has K = 8, rhs has K = 7}}
  %y = tfuse.matmul %a, %b : (tensor<2x8xf32>, tensor<7x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @matmul_transposed_contraction(%a: tensor<8x2xf32>, %b: tensor<4x7xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{contraction sizes differ: lhs has K = 8, rhs has K = 7}}
  %y = tfuse.matmul %a, %b transpose_lhs transpose_rhs : (tensor<8x2xf32>, tensor<4x7xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @matmul_batch(%a: tensor<3x2x8xf32>, %b: tensor<5x8x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+1 {{batch dimensions [3] and [5] are not broadcast-compatible}}
  %y = tfuse.matmul %a, %b : (tensor<3x2x8xf32>, tensor<5x8x4xf32>) -> tensor<3x2x4xf32>
  return %y : tensor<3x2x4xf32>
}

// -----

func.func @matmul_result(%a: tensor<3x2x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{result shape [2, 4] does not match the expected shape [3, 2, 4]}}
  %y = tfuse.matmul %a, %b : (tensor<3x2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// -----

func.func @binary_element_type(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{requires operands and result to have the same element type, got 'f32' and 'f16'}}
  %y = tfuse.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @binary_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand shapes [2, 3] and [2] are not broadcast-compatible}}
  %y = tfuse.mul %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @binary_result(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{result shape [2, 1] does not match the expected shape [2, 3]}}
  %y = tfuse.sub %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}

// -----

func.func @unary_types(%a: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %y = "tfuse.tanh"(%a) : (tensor<4xf32>) -> tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// -----

func.func @gelu_approximation(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %y = tfuse.gelu %a approximate = sigmoid : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) -> tensor<5xbf16> {
  // expected-error @+1 {{result shape [5] does not match the expected shape [4]}}
  %y = tfuse.cast %a : tensor<4xf32> to tensor<5xbf16>
  return %y : tensor<5xbf16>
}

// -----

func.func @constant_type() -> tensor<2xf32> {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %c = "tfuse.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<2xf32>
  return %c : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{axis 2 is out of range for a tensor of rank 2}}
  %y = tfuse.reduce sum %a axis = 2 : tensor<2x3xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @reduce_negative_axis(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{axis -1 is out of range for a tensor of rank 2}}
  %y = tfuse.reduce sum %a axis = -1 : tensor<2x3xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @reduce_element_type(%a: tensor<2x3xf32>) -> tensor<2xbf16> {
  // expected-error @+1 {{requires input and result to have the same element type, got 'f32' and 'bf16'}}
  %y = tfuse.reduce max %a axis = 1 : tensor<2x3xf32> -> tensor<2xbf16>
  return %y : tensor<2xbf16>
}

// -----

func.func @reduce_result(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result shape [2] does not match the expected shape [2, 1]}}
  %y = tfuse.reduce mean %a axis = 1 keep_dims : tensor<2x3xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @reduce_kind(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, mean]}}
  %y = tfuse.reduce prod %a axis = 1 : tensor<2x3xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{axis 5 is out of range for a tensor of rank 2}}
  %y = tfuse.softmax %a axis = 5 : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @norm_grad_output_grad(%x: tensor<2x8xf32>, %dy: tensor<2x8xbf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires output_grad of the input's type 'tensor<2x8xf32>', got 'tensor<2x8xbf16>'}}
  %dx, %m, %r = tfuse.norm_grad %x, %dy eps = 1.0e-5 : (tensor<2x8xf32>, tensor<2x8xbf16>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @norm_grad_stats(%x: tensor<2x8xf32>, %dy: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{result shape [2] does not match the expected shape [2, 1]}}
  %dx, %m, %r = tfuse.norm_grad %x, %dy eps = 1.0e-5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2xf32>, tensor<2x1xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @norm_grad_result(%x: tensor<2x8xf32>, %dy: tensor<2x8xf32>) -> tensor<2x8xbf16> {
  // expected-error @+1 {{requires the result type to equal the input type}}
  %dx, %m, %r = tfuse.norm_grad %x, %dy eps = 1.0e-5 rms : (tensor<2x8xf32>, tensor<2x8xf32>) -> (tensor<2x8xbf16>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %dx : tensor<2x8xbf16>
}

// -----

func.func @norm_grad_gamma(%x: tensor<2x8xf32>, %dy: tensor<2x8xf32>, %g: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires gamma of shape [8] (the normalised last dimension), got [4]}}
  %dx, %m, %r = tfuse.norm_grad %x, %dy gamma %g eps = 1.0e-5 : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<4xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @norm_grad_eps(%x: tensor<2x8xf32>, %dy: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires a positive epsilon, got -1.000000e+00}}
  %dx, %m, %r = tfuse.norm_grad %x, %dy eps = -1.0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %dx : tensor<2x8xf32>
}

// -----

func.func @layer_norm_rank(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{requires an input of rank >= 1}}
  %y = tfuse.layer_norm %a eps = 1.0e-5 : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @layer_norm_result(%a: tensor<2x8xf32>) -> tensor<2x8xbf16> {
  // expected-error @+1 {{requires the result type to equal the input type}}
  %y = tfuse.layer_norm %a eps = 1.0e-5 : (tensor<2x8xf32>) -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

// -----

func.func @layer_norm_eps(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires a positive epsilon, got 0.000000e+00}}
  %y = tfuse.layer_norm %a eps = 0.0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @layer_norm_gamma(%a: tensor<2x8xf32>, %g: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires gamma of shape [8] (the normalised last dimension), got [2, 8]}}
  %y = tfuse.layer_norm %a gamma %g eps = 1.0e-5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @layer_norm_beta(%a: tensor<2x8xf32>, %b: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires beta of shape [8] (the normalised last dimension), got [4]}}
  %y = tfuse.layer_norm %a beta %b eps = 1.0e-5 : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @layer_norm_gamma_type(%a: tensor<2x8xbf16>, %g: tensor<8xf32>) -> tensor<2x8xbf16> {
  // expected-error @+1 {{requires gamma to have the input's element type}}
  %y = tfuse.layer_norm %a gamma %g eps = 1.0e-5 : (tensor<2x8xbf16>, tensor<8xf32>) -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

// -----

func.func @rms_norm_gamma(%a: tensor<2x8xf32>, %g: tensor<7xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires gamma of shape [8] (the normalised last dimension), got [7]}}
  %y = tfuse.rms_norm %a gamma %g eps = 1.0e-6 : (tensor<2x8xf32>, tensor<7xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @rms_norm_eps(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires a positive epsilon, got -1.000000e+00}}
  %y = tfuse.rms_norm %a eps = -1.0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

// -----

func.func @dropout_p(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{requires p in [0, 1), got 1.000000e+00}}
  %y = tfuse.dropout %a p = 1.0 seed = 1 : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @dropout_negative_p(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{requires p in [0, 1), got -5.000000e-01}}
  %y = tfuse.dropout %a p = -0.5 seed = 1 : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// The mask's stream is keyed by the unsigned seed; a negative one would
// reach plan.json and be refused there.
func.func @dropout_negative_seed(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{requires a non-negative seed, got -1}}
  %y = tfuse.dropout %a p = 0.1 seed = -1 : tensor<8xf32>
  return %y : tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_count(%a: tensor<2x8xf32>) -> tensor<15xf32> {
  // expected-error @+1 {{cannot reshape 16 elements into 15}}
  %y = tfuse.reshape %a : tensor<2x8xf32> -> tensor<15xf32>
  return %y : tensor<15xf32>
}

// -----

func.func @reshape_element_type(%a: tensor<2x8xf32>) -> tensor<16xf16> {
  // expected-error @+1 {{requires input and result to have the same element type, got 'f32' and 'f16'}}
  %y = tfuse.reshape %a : tensor<2x8xf32> -> tensor<16xf16>
  return %y : tensor<16xf16>
}

// -----

func.func @transpose_size(%a: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{requires a permutation of 2 dimensions, got 3}}
  %y = tfuse.transpose %a perm = [1, 0, 2] : tensor<2x8xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

func.func @transpose_repeat(%a: tensor<2x8xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{[1, 1] is not a permutation of [0, 2)}}
  %y = tfuse.transpose %a perm = [1, 1] : tensor<2x8xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

func.func @transpose_result(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{result shape [2, 8] does not match the expected shape [8, 2]}}
  %y = tfuse.transpose %a perm = [1, 0] : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @transpose_element_type(%a: tensor<2x8xf32>) -> tensor<8x2xbf16> {
  // expected-error @+1 {{requires input and result to have the same element type, got 'f32' and 'bf16'}}
  %y = tfuse.transpose %a perm = [1, 0] : tensor<2x8xf32> -> tensor<8x2xbf16>
  return %y : tensor<8x2xbf16>
}

// -----

func.func @slice_rank(%a: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{requires offsets and a result of the input's rank 2}}
  %y = tfuse.slice %a offsets = [0] : tensor<2x8xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @slice_bounds(%a: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{slice [6, 10) of dimension 1 exceeds its size 8}}
  %y = tfuse.slice %a offsets = [0, 6] : tensor<2x8xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @slice_element_type(%a: tensor<2x8xf32>) -> tensor<2x4xf16> {
  // expected-error @+1 {{requires input and result to have the same element type, got 'f32' and 'f16'}}
  %y = tfuse.slice %a offsets = [0, 0] : tensor<2x8xf32> -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @split_none(%a: tensor<2x8xf32>) {
  // expected-error @+1 {{requires at least one piece}}
  "tfuse.split"(%a) {axis = 1 : i64} : (tensor<2x8xf32>) -> ()
  return
}

// -----

func.func @split_axis(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{axis 2 is out of range for a tensor of rank 2}}
  %y = tfuse.split %a axis = 2 : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @split_sum(%a: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{pieces add up to 7 along axis 1, expected 8}}
  %y, %z = tfuse.split %a axis = 1 : tensor<2x8xf32> -> tensor<2x4xf32>, tensor<2x3xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @split_shape(%a: tensor<2x8xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{piece of shape [3, 4] must match [2, 8] in every dimension but the axis 1}}
  %y, %z = tfuse.split %a axis = 1 : tensor<2x8xf32> -> tensor<3x4xf32>, tensor<2x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @split_element_type(%a: tensor<2x8xf32>) -> tensor<2x4xbf16> {
  // expected-error @+1 {{requires all tensors to have the same element type, got 'f32' and 'bf16'}}
  %y, %z = tfuse.split %a axis = 1 : tensor<2x8xf32> -> tensor<2x4xbf16>, tensor<2x4xf32>
  return %y : tensor<2x4xbf16>
}

// -----

func.func @concat_none() -> tensor<2x8xf32> {
  // expected-error @+1 {{requires at least one piece}}
  %y = "tfuse.concat"() {axis = 1 : i64} : () -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{piece of shape [3, 5] must match [2, 8] in every dimension but the axis 1}}
  %y = tfuse.concat %a, %b axis = 1 : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @concat_sum(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x9xf32> {
  // expected-error @+1 {{pieces add up to 8 along axis 1, expected 9}}
  %y = tfuse.concat %a, %b axis = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x9xf32>
  return %y : tensor<2x9xf32>
}

// -----

func.func @gather_rank(%t: tensor<f32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires a table of rank >= 1}}
  %y = tfuse.gather %t[%i] : (tensor<f32>, tensor<4xi32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @gather_empty_table(%t: tensor<0x16xf32>, %i: tensor<4xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{requires a table with at least one row}}
  %y = tfuse.gather %t[%i] : (tensor<0x16xf32>, tensor<4xi32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @gather_result(%t: tensor<100x16xf32>, %i: tensor<2x4xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{result shape [2, 4] does not match the expected shape [2, 4, 16]}}
  %y = tfuse.gather %t[%i] : (tensor<100x16xf32>, tensor<2x4xi32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @gather_element_type(%t: tensor<100x16xf32>, %i: tensor<4xi64>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{requires table and result to have the same element type, got 'f32' and 'bf16'}}
  %y = tfuse.gather %t[%i] : (tensor<100x16xf32>, tensor<4xi64>) -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

func.func @gather_float_indices(%t: tensor<100x16xf32>, %i: tensor<4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %y = tfuse.gather %t[%i] : (tensor<100x16xf32>, tensor<4xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

func.func @gather_grad_rank(%g: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{requires a result (the table) of rank >= 1}}
  %y = tfuse.gather_grad %g[%i] : (tensor<4xf32>, tensor<4xi32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @gather_grad_empty_table(%g: tensor<4x16xf32>, %i: tensor<4xi32>) -> tensor<0x16xf32> {
  // expected-error @+1 {{requires a result (the table) with at least one row}}
  %y = tfuse.gather_grad %g[%i] : (tensor<4x16xf32>, tensor<4xi32>) -> tensor<0x16xf32>
  return %y : tensor<0x16xf32>
}

// -----

func.func @gather_grad_shape(%g: tensor<2x4x8xf32>, %i: tensor<2x4xi32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{grad shape [2, 4, 8] does not match the gather's result shape [2, 4, 16] (the indices' shape, then the table's after its rows)}}
  %y = tfuse.gather_grad %g[%i] : (tensor<2x4x8xf32>, tensor<2x4xi32>) -> tensor<100x16xf32>
  return %y : tensor<100x16xf32>
}

// -----

func.func @gather_grad_element_type(%g: tensor<4x16xf32>, %i: tensor<4xi64>) -> tensor<100x16xbf16> {
  // expected-error @+1 {{requires grad and result to have the same element type, got 'f32' and 'bf16'}}
  %y = tfuse.gather_grad %g[%i] : (tensor<4x16xf32>, tensor<4xi64>) -> tensor<100x16xbf16>
  return %y : tensor<100x16xbf16>
}

// -----

func.func @gather_grad_float_indices(%g: tensor<4x16xf32>, %i: tensor<4xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %y = tfuse.gather_grad %g[%i] : (tensor<4x16xf32>, tensor<4xf32>) -> tensor<100x16xf32>
  return %y : tensor<100x16xf32>
}

// -----

func.func @causal_mask_rank() -> tensor<4xf32> {
  // expected-error @+1 {{requires a result of rank 2 ([rows, cols]), got 1}}
  %m = tfuse.causal_mask : tensor<4xf32>
  return %m : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_rank(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{requires query, key and value of rank 4 ([batch, heads, seq, head_dim])}}
  %o = tfuse.attention %q, %k, %k scale = 0.25 : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

func.func @attention_element_type(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires all tensors to have the same element type, got 'f32' and 'bf16'}}
  %o = tfuse.attention %q, %k, %k scale = 0.25 : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_batch(%q: tensor<1x2x8x16xf32>, %k: tensor<3x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires one batch size, got 1, 3 and 3}}
  %o = tfuse.attention %q, %k, %k scale = 0.25 : (tensor<1x2x8x16xf32>, tensor<3x2x8x16xf32>, tensor<3x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_key_value(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x9x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires key and value with the same heads and sequence length, got [1, 2, 8, 16] and [1, 2, 9, 16]}}
  %o = tfuse.attention %q, %k, %v scale = 0.25 : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x9x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_groups(%q: tensor<1x4x8x16xf32>, %k: tensor<1x3x8x16xf32>) -> tensor<1x4x8x16xf32> {
  // expected-error @+1 {{requires the query heads (4) to be a multiple of the key/value heads (3)}}
  %o = tfuse.attention %q, %k, %k scale = 0.25 : (tensor<1x4x8x16xf32>, tensor<1x3x8x16xf32>, tensor<1x3x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

func.func @attention_head_dim(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x32xf32>) -> tensor<1x2x8x32xf32> {
  // expected-error @+1 {{requires query and key head dims to match, got 16 and 32}}
  %o = tfuse.attention %q, %k, %k scale = 0.25 : (tensor<1x2x8x16xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>) -> tensor<1x2x8x32xf32>
  return %o : tensor<1x2x8x32xf32>
}

// -----

func.func @attention_mask(%q: tensor<1x2x8x16xf32>, %m: tensor<1x1x8x9xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{mask of shape [1, 1, 8, 9] does not broadcast to the scores' shape [1, 2, 8, 8]}}
  %o = tfuse.attention %q, %q, %q mask %m scale = 0.25 : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x1x8x9xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_scale(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires a positive scale, got 0.000000e+00}}
  %o = tfuse.attention %q, %q, %q scale = 0.0 : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_seed(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires dropout_p and seed together}}
  %o = tfuse.attention %q, %q, %q scale = 0.25 {dropout_p = 0.1 : f64} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_dropout(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires dropout_p in [0, 1), got 1.500000e+00}}
  %o = tfuse.attention %q, %q, %q scale = 0.25 dropout_p = 1.5 seed = 1 : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_negative_seed(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires a non-negative seed, got -7}}
  %o = tfuse.attention %q, %q, %q scale = 0.25 dropout_p = 0.1 seed = -7 : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_no_kv_heads(%q: tensor<1x2x8x16xf32>, %k: tensor<1x0x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{requires at least one key/value head}}
  %o = tfuse.attention %q, %k, %k scale = 0.25 : (tensor<1x2x8x16xf32>, tensor<1x0x8x16xf32>, tensor<1x0x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_result(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32> {
  // expected-error @+1 {{result shape [1, 2, 16, 8] does not match the expected shape [1, 2, 8, 16]}}
  %o = tfuse.attention %q, %q, %q scale = 0.25 : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

//===----------------------------------------------------------------------===//
// fusion
//===----------------------------------------------------------------------===//

// -----

func.func @fusion_no_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{requires at least one result}}
  tfuse.fusion loop (%a) : (tensor<4xf32>) -> () {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield
  }
  return
}

// -----

func.func @fusion_arguments(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the region's arguments to have the types of the inputs}}
  %y = tfuse.fusion loop (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xbf16>):
    %e = tfuse.cast %x : tensor<4xbf16> to tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires tfuse.yield to give the result types}}
  %y = tfuse.fusion loop (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tfuse.cast %x : tensor<4xf32> to tensor<4xbf16>
    tfuse.yield %e : tensor<4xbf16>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_terminator(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the region to end in tfuse.yield}}
  %y = tfuse.fusion loop (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    llvm.unreachable
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_isolated(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %y = tfuse.fusion loop () : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %e = tfuse.exp %a : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_bookkeeping_partial(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires bytes_before, bytes_after, predicted_unfused_us, predicted_fused_us and target together}}
  %y = tfuse.fusion loop (%a) attributes {bytes_before = 32 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tfuse.exp %x : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_bookkeeping_negative_bytes(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'bytes_after' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %y = tfuse.fusion loop (%a) attributes {bytes_before = 32 : i64, bytes_after = -16 : i64, predicted_unfused_us = 2.0 : f64, predicted_fused_us = 1.0 : f64, target = "a40"} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tfuse.exp %x : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_bookkeeping_negative_time(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires predicted times that are finite and non-negative, got -1}}
  %y = tfuse.fusion loop (%a) attributes {bytes_before = 32 : i64, bytes_after = 16 : i64, predicted_unfused_us = 2.0 : f64, predicted_fused_us = -1.0 : f64, target = "a40"} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tfuse.exp %x : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_bookkeeping_infinite_time(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires predicted times that are finite and non-negative, got INF}}
  %y = tfuse.fusion loop (%a) attributes {bytes_before = 32 : i64, bytes_after = 16 : i64, predicted_unfused_us = 0x7FF0000000000000 : f64, predicted_fused_us = 1.0 : f64, target = "a40"} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tfuse.exp %x : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @fusion_bookkeeping_target_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'target' failed to satisfy constraint: string attribute}}
  %y = tfuse.fusion loop (%a) attributes {bytes_before = 32 : i64, bytes_after = 16 : i64, predicted_unfused_us = 2.0 : f64, predicted_fused_us = 1.0 : f64, target = 7 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tfuse.exp %x : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// tfuse.fusion_decisions
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tfuse.fusion_decisions' must be an array}}
func.func @decisions_not_array() attributes {tfuse.fusion_decisions = "none"} {
  return
}

// -----

// expected-error @+1 {{'tfuse.fusion_decisions' entry 0 must be a dictionary}}
func.func @decisions_entry() attributes {tfuse.fusion_decisions = [1 : i64]} {
  return
}

// -----

// expected-error @+1 {{'tfuse.fusion_decisions' entry 0 requires a fusion kind 'kind'}}
func.func @decisions_kind() attributes {tfuse.fusion_decisions = [{fused = false, kind = "tiles", producer = "p", consumer = "c", rule = "r", reason = "r"}]} {
  return
}

// -----

// expected-error @+1 {{'tfuse.fusion_decisions' entry 0 requires a string 'reason'}}
func.func @decisions_reason() attributes {tfuse.fusion_decisions = [{fused = false, kind = "loop", producer = "p", consumer = "c", rule = "r"}]} {
  return
}

// -----

// A decision of the cost model (empty rule) carries its numbers.
// expected-error @+1 {{'tfuse.fusion_decisions' entry 1 requires a finite non-negative float 'us_merged' when 'rule' is empty}}
func.func @decisions_priced() attributes {tfuse.fusion_decisions = [{fused = false, kind = "loop", producer = "p", consumer = "c", rule = "r", reason = "r"}, {fused = true, kind = "loop", producer = "p", consumer = "c", rule = "", reason = "r", bytes_apart = 8 : i64, bytes_merged = 4 : i64, us_apart = 2.0 : f64}]} {
  return
}

// -----

// expected-error @+1 {{'tfuse.fusion_decisions' entry 0 has an unexpected field 'bytes_apart'}}
func.func @decisions_rule_priced() attributes {tfuse.fusion_decisions = [{fused = false, kind = "loop", producer = "p", consumer = "c", rule = "r", reason = "r", bytes_apart = 8 : i64}]} {
  return
}

// -----

// expected-error @+1 {{'tfuse.fusion_decisions' is only valid on func.func}}
module attributes {tfuse.fusion_decisions = []} {
}

// -----

func.func @yield_parent(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects parent op 'tfuse.fusion'}}
  tfuse.yield %a : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Sizes: a tensor has at most 2^40 elements, and an op's bytes and FLOPs fit
// in int64 (TFuseCost.cpp, verifyCostFits)
//===----------------------------------------------------------------------===//

// A batch of 2^31 sequences of 1024 x 1024: 2^51 elements.
func.func @tensor_too_large(%x: tensor<2147483648x1024x1024xbf16>) -> tensor<2147483648x1024x1024xbf16> {
  // expected-error @+1 {{operand #0 ('tensor<2147483648x1024x1024xbf16>') has 2251799813685248 elements; a tensor may have at most 2^40 = 1099511627776}}
  %y = tfuse.gelu %x : tensor<2147483648x1024x1024xbf16>
  return %y : tensor<2147483648x1024x1024xbf16>
}

// -----

// 2^62 x 4 elements: the count itself overflows int64.
func.func @element_count_overflows(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{operand #0 ('tensor<4611686018427387904x4xf32>') has more than 2^63 elements; a tensor may have at most 2^40 = 1099511627776}}
  %y = tfuse.relu %x : tensor<4611686018427387904x4xf32>
  return %y : tensor<4611686018427387904x4xf32>
}

// -----

// The reshape verifier leaves counts that overflow to the size check.
func.func @reshape_result_too_large(%x: tensor<4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{result #0 ('tensor<4611686018427387904x4xf32>') has more than 2^63 elements}}
  %y = tfuse.reshape %x : tensor<4xf32> -> tensor<4611686018427387904x4xf32>
  return %y : tensor<4611686018427387904x4xf32>
}

// -----

// Every tensor fits, but 2^39 x 2^39 scores per head do not: 4 * 2^79 FLOPs.
func.func @attention_flops_overflow(%q: tensor<1x1x549755813888x2xf16>, %k: tensor<1x1x549755813888x2xf16>, %v: tensor<1x1x549755813888x2xf16>) -> tensor<1x1x549755813888x2xf16> {
  // expected-error @+1 {{needs more FLOPs than an int64 can count}}
  %o = tfuse.attention %q, %k, %v scale = 0.5 : (tensor<1x1x549755813888x2xf16>, tensor<1x1x549755813888x2xf16>, tensor<1x1x549755813888x2xf16>) -> tensor<1x1x549755813888x2xf16>
  return %o : tensor<1x1x549755813888x2xf16>
}

//===----------------------------------------------------------------------===//
// rope and window_mask
//===----------------------------------------------------------------------===//

// -----

func.func @rope_rank(%x: tensor<64xbf16>, %f: tensor<8xf32>) -> tensor<64xbf16> {
  // expected-error @+1 {{requires an input of rank >= 2 ([..., S, D]), got 1}}
  %y = tfuse.rope %x, %f attention_scaling = 1.0 : tensor<64xbf16>, tensor<8xf32>
  return %y : tensor<64xbf16>
}

// -----

func.func @rope_freq_rank(%x: tensor<2x16x64xbf16>, %f: tensor<2x8xf32>) -> tensor<2x16x64xbf16> {
  // expected-error @+1 {{requires inv_freq of rank 1 with at least one frequency, got 'tensor<2x8xf32>'}}
  %y = tfuse.rope %x, %f attention_scaling = 1.0 : tensor<2x16x64xbf16>, tensor<2x8xf32>
  return %y : tensor<2x16x64xbf16>
}

// -----

func.func @rope_freq_empty(%x: tensor<2x16x64xbf16>, %f: tensor<0xf32>) -> tensor<2x16x64xbf16> {
  // expected-error @+1 {{requires inv_freq of rank 1 with at least one frequency, got 'tensor<0xf32>'}}
  %y = tfuse.rope %x, %f attention_scaling = 1.0 : tensor<2x16x64xbf16>, tensor<0xf32>
  return %y : tensor<2x16x64xbf16>
}

// -----

func.func @rope_too_wide(%x: tensor<2x16x64xbf16>, %f: tensor<40xf32>) -> tensor<2x16x64xbf16> {
  // expected-error @+1 {{rotates 80 dims (2 x size of inv_freq) but the last dimension has 64}}
  %y = tfuse.rope %x, %f attention_scaling = 1.0 : tensor<2x16x64xbf16>, tensor<40xf32>
  return %y : tensor<2x16x64xbf16>
}

// -----

func.func @rope_scaling(%x: tensor<2x16x64xbf16>, %f: tensor<32xf32>) -> tensor<2x16x64xbf16> {
  // expected-error @+1 {{requires a positive, finite attention_scaling, got 0}}
  %y = tfuse.rope %x, %f attention_scaling = 0.0 : tensor<2x16x64xbf16>, tensor<32xf32>
  return %y : tensor<2x16x64xbf16>
}

// -----

func.func @window_mask_rank() -> tensor<4xf32> {
  // expected-error @+1 {{requires a result of rank 2 ([rows, cols]), got 1}}
  %m = tfuse.window_mask window = 2 : tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

func.func @window_mask_window() -> tensor<4x4xf32> {
  // expected-error @+1 {{requires a window of at least 1, got 0}}
  %m = tfuse.window_mask window = 0 : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

//===----------------------------------------------------------------------===//
// adamw and sgd
//===----------------------------------------------------------------------===//

// -----

func.func @adamw_param_type(%p: tensor<4xbf16>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires param to be f32, got 'bf16'}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_grad_shape(%p: tensor<4xf32>, %g: tensor<8xbf16>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires grad of param's shape [4], got [8]}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_exp_avg_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf16>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires exp_avg to be f32, got 'f16'}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_exp_avg_sq_shape(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<2x2xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires exp_avg_sq of param's shape [4], got [2, 2]}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_lr_rank(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<1xf32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires lr to be a rank-0 f32 tensor, got 'tensor<1xf32>'}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_step_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<bf16>) {
  // expected-error @+1 {{requires step to be a rank-0 f32 tensor, got 'tensor<bf16>'}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<bf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_result_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires result #1 to be f32, got 'bf16'}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_result_shape(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires result #2 of param's shape [4], got [1, 4]}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>)
  return
}

// -----

func.func @adamw_model_weight_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires the model weight to be f16 or bf16, got 'f32'}}
  %r0, %r1, %r2, %r3 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_model_weight_shape(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires the model weight of param's shape [4], got [8]}}
  %r0, %r1, %r2, %r3 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xbf16>)
  return
}

// -----

func.func @adamw_beta1(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires beta1 in [0, 1), got 1.000000e+00}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 1.0 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_beta2(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires beta2 in [0, 1), got -1.000000e-01}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = -0.1 eps = 1.0e-08 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_eps(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires eps > 0 and finite, got 0.000000e+00}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 0.0 weight_decay = 0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adamw_weight_decay(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires weight_decay in [0, inf), got -1.000000e-02}}
  %r0, %r1, %r2 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = -0.01 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_param_type(%p: tensor<4xf16>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires param to be f32, got 'f16'}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_grad_shape(%p: tensor<4xf32>, %g: tensor<4x1xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires grad of param's shape [4], got [4, 1]}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_buffer_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xbf16>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires momentum_buffer to be f32, got 'bf16'}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_lr_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f16>, %t: tensor<f32>) {
  // expected-error @+1 {{requires lr to be a rank-0 f32 tensor, got 'tensor<f16>'}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f16>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_step_rank(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<1x1xf32>) {
  // expected-error @+1 {{requires step to be a rank-0 f32 tensor, got 'tensor<1x1xf32>'}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<1x1xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_model_weight_type(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires the model weight to be f16 or bf16, got 'f32'}}
  %r0, %r1, %r2 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_momentum(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires momentum > 0 and finite, got 0.000000e+00}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.0 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_dampening(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires dampening in [0, 1], got 1.500000e+00}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 1.5 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_weight_decay(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires weight_decay in [0, inf), got -1.000000e+00}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = -1.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_nesterov_dampening(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) {
  // expected-error @+1 {{requires dampening = 0 with nesterov, got 1.000000e-01}}
  %r0, %r1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.1 weight_decay = 0.0 nesterov : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @attention_lse_type(%q: tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xbf16> {
  // expected-error @+1 {{requires lse of type tensor<1x2x8xf32> ([batch, heads, query seq]), got 'tensor<1x2x8xbf16>'}}
  %o, %l = tfuse.attention %q, %q, %q scale = 0.25 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8xbf16>)
  return %o : tensor<1x2x8x16xbf16>
}

// -----

func.func @attention_grad_out_grad_shape(%q: tensor<1x2x8x16xbf16>, %d: tensor<1x2x8x32xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @+1 {{requires out_grad of the attention's output shape [1, 2, 8, 16], got [1, 2, 8, 32]}}
  %a, %b, %c = tfuse.attention_grad %q, %q, %q, %d, %l, %l scale = 0.25 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x32xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  return
}

// -----

func.func @attention_grad_delta_shape(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xf32>, %d: tensor<1x2x9xf32>) {
  // expected-error @+1 {{requires delta of type tensor<1x2x8xf32> ([batch, heads, query seq]), got 'tensor<1x2x9xf32>'}}
  %a, %b, %c = tfuse.attention_grad %q, %q, %q, %q, %l, %d scale = 0.25 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>, tensor<1x2x9xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  return
}

// -----

func.func @attention_grad_result_type(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @+1 {{requires all tensors to have the same element type, got 'bf16' and 'f32'}}
  %a, %b, %c = tfuse.attention_grad %q, %q, %q, %q, %l, %l scale = 0.25 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32>)
  return
}

// -----

func.func @attention_grad_result_shape(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @+1 {{requires each gradient of the type of its operand, got 'tensor<1x2x8x32xbf16>' for 'tensor<1x2x8x16xbf16>'}}
  %a, %b, %c = tfuse.attention_grad %q, %q, %q, %q, %l, %l scale = 0.25 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> (tensor<1x2x8x32xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  return
}

// -----

func.func @attention_grad_scale(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @+1 {{requires a positive scale, got -1}}
  %a, %b, %c = tfuse.attention_grad %q, %q, %q, %q, %l, %l scale = -1.0 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  return
}

// -----

func.func @attention_grad_dropout(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xf32>) {
  // expected-error @+1 {{requires dropout_p and seed together}}
  %a, %b, %c = tfuse.attention_grad %q, %q, %q, %q, %l, %l scale = 0.25 {dropout_p = 0.1 : f64} : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  return
}

//===----------------------------------------------------------------------===//
// collectives
//===----------------------------------------------------------------------===//

// -----

func.func @all_reduce_group_size(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{requires group_size (the number of ranks) in [1, 1048576], got 0}}
  %y = tfuse.all_reduce %x group_size = 0 : tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @all_reduce_group_size_too_large(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{requires group_size (the number of ranks) in [1, 1048576], got 1048577}}
  %y = tfuse.all_reduce %x group_size = 1048577 : tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @all_reduce_integer(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %y = tfuse.all_reduce %x group_size = 2 : tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @all_reduce_type(%x: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %y = "tfuse.all_reduce"(%x) {group_size = 2 : i64} : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @reduce_scatter_group_size(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{requires group_size (the number of ranks) in [1, 1048576], got -2}}
  %y = tfuse.reduce_scatter %x group_size = -2 : tensor<8x4xf32> -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

func.func @reduce_scatter_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{requires an input of rank >= 1}}
  %y = tfuse.reduce_scatter %x group_size = 1 : tensor<f32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @reduce_scatter_axis(%x: tensor<8x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{axis 2 is out of range for a tensor of rank 2}}
  %y = tfuse.reduce_scatter %x axis = 2 group_size = 2 : tensor<8x4xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

func.func @reduce_scatter_element_type(%x: tensor<8x4xf32>) -> tensor<4x4xbf16> {
  // expected-error @+1 {{requires input and result to have the same element type, got 'f32' and 'bf16'}}
  %y = tfuse.reduce_scatter %x group_size = 2 : tensor<8x4xf32> -> tensor<4x4xbf16>
  return %y : tensor<4x4xbf16>
}

// -----

func.func @reduce_scatter_divisible(%x: tensor<6x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{requires the input's size along axis 0 (6) to be a multiple of group_size (4)}}
  %y = tfuse.reduce_scatter %x group_size = 4 : tensor<6x4xf32> -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

func.func @reduce_scatter_result_shape(%x: tensor<8x4xf32>) -> tensor<8x1xf32> {
  // expected-error @+1 {{result shape [8, 1] does not match the expected shape [2, 4]}}
  %y = tfuse.reduce_scatter %x group_size = 4 : tensor<8x4xf32> -> tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}

// -----

func.func @all_gather_group_size(%x: tensor<2x4xf16>) -> tensor<2x4xf16> {
  // expected-error @+1 {{requires group_size (the number of ranks) in [1, 1048576], got 0}}
  %y = tfuse.all_gather %x group_size = 0 : tensor<2x4xf16> -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @all_gather_scalar(%x: tensor<f16>) -> tensor<f16> {
  // expected-error @+1 {{requires an input of rank >= 1}}
  %y = tfuse.all_gather %x group_size = 1 : tensor<f16> -> tensor<f16>
  return %y : tensor<f16>
}

// -----

func.func @all_gather_axis(%x: tensor<2x4xf16>) -> tensor<2x8xf16> {
  // expected-error @+1 {{axis -1 is out of range for a tensor of rank 2}}
  %y = tfuse.all_gather %x axis = -1 group_size = 2 : tensor<2x4xf16> -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}

// -----

func.func @all_gather_element_type(%x: tensor<2x4xf16>) -> tensor<4x4xf32> {
  // expected-error @+1 {{requires input and result to have the same element type, got 'f16' and 'f32'}}
  %y = tfuse.all_gather %x group_size = 2 : tensor<2x4xf16> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @all_gather_result_shape(%x: tensor<2x4xf16>) -> tensor<2x12xf16> {
  // expected-error @+1 {{result shape [2, 12] does not match the expected shape [2, 8]}}
  %y = tfuse.all_gather %x axis = 1 group_size = 2 : tensor<2x4xf16> -> tensor<2x12xf16>
  return %y : tensor<2x12xf16>
}

// -----

// The gathered size is checked before it is compared: 2^62 x 4 leaves int64.
func.func @all_gather_overflow(%x: tensor<4611686018427387904xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{gathers more than an int64 can count along axis 0}}
  %y = tfuse.all_gather %x group_size = 4 : tensor<4611686018427387904xf16> -> tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

func.func @fusion_collective(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot hold tfuse.all_reduce: a collective runs between GPUs, not inside a kernel}}
  %y = tfuse.fusion loop (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = tfuse.all_reduce %a group_size = 2 : tensor<4xf32>
    %e = tfuse.exp %s : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @cross_entropy_no_classes(%x: tensor<4x0xf32>, %l: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{requires logits of rank >= 1 with at least one class, got [4, 0]}}
  %a, %b = tfuse.cross_entropy %x[%l] ignore = -100 : (tensor<4x0xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @cross_entropy_labels(%x: tensor<4x8xf32>, %l: tensor<2x2xi32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{requires labels of shape [4] (the logits' shape without the class axis), got [2, 2]}}
  %a, %b = tfuse.cross_entropy %x[%l] ignore = -100 : (tensor<4x8xf32>, tensor<2x2xi32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @cross_entropy_result(%x: tensor<4x8xf32>, %l: tensor<4xi32>) -> (tensor<4xf32>, tensor<4x1xf32>) {
  // expected-error @+1 {{result shape [4, 1] does not match the expected shape [4]}}
  %a, %b = tfuse.cross_entropy %x[%l] ignore = -100 : (tensor<4x8xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x1xf32>)
  return %a, %b : tensor<4xf32>, tensor<4x1xf32>
}

// -----

func.func @cross_entropy_grad_loss_grad(%x: tensor<4x8xf32>, %l: tensor<4xi32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{requires loss_grad of the labels' shape [4], got [8]}}
  %d = tfuse.cross_entropy_grad %x[%l], %g ignore = -100 : (tensor<4x8xf32>, tensor<4xi32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

func.func @cross_entropy_grad_result(%x: tensor<4x8xbf16>, %l: tensor<4xi32>, %g: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{requires a result of the logits' type 'tensor<4x8xbf16>', got 'tensor<4x8xf32>'}}
  %d = tfuse.cross_entropy_grad %x[%l], %g ignore = -100 : (tensor<4x8xbf16>, tensor<4xi32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

func.func @cross_entropy_grad_labels(%x: tensor<4x8xf32>, %l: tensor<8xi32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{requires labels of shape [4] (the logits' shape without the class axis), got [8]}}
  %d = tfuse.cross_entropy_grad %x[%l], %g ignore = -100 : (tensor<4x8xf32>, tensor<8xi32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

func.func @matmul_tf32_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  // expected-error @+1 {{multiplies in TF32 only f32 operands, got 'bf16'}}
  %y = tfuse.matmul %a, %b tf32 : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  return %y : tensor<4x2xbf16>
}

//===----------------------------------------------------------------------===//
// tfuse.name, tfuse.checkpoint_transposed
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'func.func' op 'tfuse.name' of argument 0 must be a non-empty string}}
func.func @name_empty(%x: tensor<4xf32> {tfuse.name = ""}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.name' of argument 0 must be a non-empty string}}
func.func @name_not_string(%x: tensor<4xf32> {tfuse.name = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.name' "w" is given to arguments 0 and 2; names must be unique}}
func.func @name_twice(%a: tensor<4xf32> {tfuse.name = "w"}, %b: tensor<4xf32> {tfuse.name = "b"}, %c: tensor<4xf32> {tfuse.name = "w"}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.name' "y" is given to results 0 and 1; names must be unique}}
func.func @result_name_twice(%x: tensor<4xf32>) -> (tensor<4xf32> {tfuse.name = "y"}, tensor<4xf32> {tfuse.name = "y"}) {
  %a = tfuse.exp %x : tensor<4xf32>
  return %a, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'tfuse.name' of result 0 must be a non-empty string}}
func.func @result_name_empty(%x: tensor<4xf32>) -> (tensor<4xf32> {tfuse.name = ""}) {
  %a = tfuse.exp %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{'tfuse.checkpoint_transposed' on argument 0 needs a rank-2 tensor [in, out]}}
func.func @transposed_rank1(%w: tensor<4xf32> {tfuse.checkpoint_transposed}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.checkpoint_transposed' must be a unit attribute}}
func.func @transposed_not_unit(%w: tensor<4x4xf32> {tfuse.checkpoint_transposed = true}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.checkpoint_transposed' is only valid on function arguments}}
func.func @transposed_result(%x: tensor<4x4xf32>) -> (tensor<4x4xf32> {tfuse.checkpoint_transposed}) {
  %a = tfuse.exp %x : tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}
