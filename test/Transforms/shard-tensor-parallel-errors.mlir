// RUN: tfuse-opt %s --tfuse-shard-tensor-parallel=degree=4 -split-input-file -verify-diagnostics
// RUN: not tfuse-opt %s --tfuse-shard-tensor-parallel=degree=0 -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO

// ZERO: error: tfuse-shard-tensor-parallel: degree must be at least 1, got 0

// Each function is left untouched when the pass fails; the diagnostics name
// the op and the sharding it could not handle.

// Degree 4 does not divide 2 heads: hidden 8 is divisible (8 / 4 = 2
// columns per rank), the head axis of the reshape to [1, 4, 2, 4] is not.
func.func @heads(%x: tensor<1x4x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>) -> tensor<1x4x8xf32> {
  %q = tfuse.matmul %x, %wq : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  // expected-error @+1 {{cannot shard 'tfuse.reshape' over degree 4: result #0 is split along axis 2 in segments [2], which degree 4 does not divide}}
  %q1 = tfuse.reshape %q : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %q2 = tfuse.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k = tfuse.matmul %x, %wk : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %k1 = tfuse.reshape %k : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %k2 = tfuse.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %v = tfuse.matmul %x, %wv : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %v1 = tfuse.reshape %v : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %v2 = tfuse.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %a = tfuse.attention %q2, %k2, %v2 scale = 5.000000e-01 causal : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a1 = tfuse.transpose %a perm = [0, 2, 1, 3] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %a2 = tfuse.reshape %a1 : tensor<1x4x2x4xf32> -> tensor<1x4x8xf32>
  %o = tfuse.matmul %a2, %wo : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %y = tfuse.add %x, %o : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// Grouped-query attention, 4 query heads and 2 key/value heads of 4: degree
// 4 divides the query heads (one per rank) but not the key/value heads.
func.func @kv_heads(%x: tensor<1x4x16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x8xf32>, %wv: tensor<16x8xf32>, %wo: tensor<16x16xf32>) -> tensor<1x4x16xf32> {
  %q = tfuse.matmul %x, %wq : (tensor<1x4x16xf32>, tensor<16x16xf32>) -> tensor<1x4x16xf32>
  %q1 = tfuse.reshape %q : tensor<1x4x16xf32> -> tensor<1x4x4x4xf32>
  %q2 = tfuse.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  %k = tfuse.matmul %x, %wk : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> tensor<1x4x8xf32>
  // expected-error @+1 {{cannot shard 'tfuse.reshape' over degree 4: result #0 is split along axis 2 in segments [2], which degree 4 does not divide}}
  %k1 = tfuse.reshape %k : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %k2 = tfuse.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %v = tfuse.matmul %x, %wv : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> tensor<1x4x8xf32>
  %v1 = tfuse.reshape %v : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %v2 = tfuse.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %a = tfuse.attention %q2, %k2, %v2 scale = 5.000000e-01 causal : (tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %a1 = tfuse.transpose %a perm = [0, 2, 1, 3] : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  %a2 = tfuse.reshape %a1 : tensor<1x4x4x4xf32> -> tensor<1x4x16xf32>
  %o = tfuse.matmul %a2, %wo : (tensor<1x4x16xf32>, tensor<16x16xf32>) -> tensor<1x4x16xf32>
  return %o : tensor<1x4x16xf32>
}

// -----

// An MLP with intermediate size 6: degree 4 does not divide its columns.
// expected-error @+1 {{cannot shard over degree 4: argument #1 (fc1.weight) is split along axis 1 in segments [6], which degree 4 does not divide}}
func.func @intermediate(%x: tensor<1x4x8xf32>, %w1: tensor<8x6xf32> {tfuse.name = "fc1.weight"}, %w2: tensor<6x8xf32>) -> tensor<1x4x8xf32> {
  %h = tfuse.matmul %x, %w1 : (tensor<1x4x8xf32>, tensor<8x6xf32>) -> tensor<1x4x6xf32>
  %g = tfuse.gelu %h approximate = tanh : tensor<1x4x6xf32>
  %y = tfuse.matmul %g, %w2 : (tensor<1x4x6xf32>, tensor<6x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

// An op without a sharding rule on the column-split path of an MLP.
func.func @unsupported(%x: tensor<1x4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> (tensor<1x4x8xf32>, tensor<4x4x16xf32>) {
  %h = tfuse.matmul %x, %w1 : (tensor<1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x4x16xf32>
  %g = tfuse.gelu %h approximate = tanh : tensor<1x4x16xf32>
  // expected-error @+1 {{cannot shard 'tfuse.all_gather' over degree 4: has no sharding rule: operand #0 is split along axis 2 in segments [16]}}
  %s = tfuse.all_gather %g axis = 0 group_size = 4 : tensor<1x4x16xf32> -> tensor<4x4x16xf32>
  %y = tfuse.matmul %g, %w2 : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> tensor<1x4x8xf32>
  return %y, %s : tensor<1x4x8xf32>, tensor<4x4x16xf32>
}

// -----

// A rule that refuses: the softmax would normalise over the split columns.
func.func @softmax_over_split_axis(%x: tensor<1x4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x16xf32>) {
  %h = tfuse.matmul %x, %w1 : (tensor<1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x4x16xf32>
  // expected-error @+1 {{cannot shard 'tfuse.softmax' over degree 4: takes its softmax along the split axis (input split along axis 2 in segments [16])}}
  %p = tfuse.softmax %h axis = 2 : tensor<1x4x16xf32>
  %y = tfuse.matmul %h, %w2 : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> tensor<1x4x8xf32>
  return %y, %p : tensor<1x4x8xf32>, tensor<1x4x16xf32>
}

// -----

// A split value that meets a replicated one with the full extent of the
// split axis (the residual is not an argument the pass may cut).
func.func @residual_on_split(%x: tensor<1x4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<1x4x8xf32> {
  %r = tfuse.tanh %x : tensor<1x4x8xf32>
  %h = tfuse.matmul %x, %w1 : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  // expected-error @+1 {{cannot shard 'tfuse.add' over degree 4: operand #1 is replicated with the full extent of the split axis, and the other is split along axis 2 in segments [8]}}
  %s = tfuse.add %h, %r : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %y = tfuse.matmul %h, %w2 : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %z = tfuse.add %y, %s : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %z : tensor<1x4x8xf32>
}

// -----

// A column split returned as it is would change the function's result type.
func.func @returns_split(%x: tensor<1x4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x16xf32>) {
  %h = tfuse.matmul %x, %w1 : (tensor<1x4x8xf32>, tensor<8x16xf32>) -> tensor<1x4x16xf32>
  %y = tfuse.matmul %h, %w2 : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> tensor<1x4x8xf32>
  // expected-error @+1 {{cannot shard 'func.return' over degree 4: returns a split value (operand #1 is split along axis 2 in segments [16]): the sharded function would change its result type}}
  return %y, %h : tensor<1x4x8xf32>, tensor<1x4x16xf32>
}

// -----

// Running the pass on its own output would cut the shards again.
// expected-error @+1 {{tfuse-shard-tensor-parallel: the function is already one rank's program (tfuse.tensor_parallel_degree = 2)}}
func.func @already_sharded(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {tfuse.tensor_parallel_degree = 2 : i64} {
  return %x : tensor<4x8xf32>
}

// -----

// Nothing to split (no matmul reaches a row split): a warning, and the
// function stays replicated.
// expected-warning @+1 {{tfuse-shard-tensor-parallel: no matmul of the function is split over degree 4; every rank computes all of it}}
func.func @nothing_to_split(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %y = tfuse.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %p = tfuse.softmax %y axis = 1 : tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}
