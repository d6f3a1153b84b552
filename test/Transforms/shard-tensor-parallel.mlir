// RUN: tfuse-opt %s --tfuse-shard-tensor-parallel=degree=2 | FileCheck %s
// RUN: tfuse-opt %s > %t.plain
// RUN: tfuse-opt %s --tfuse-shard-tensor-parallel=degree=1 > %t.one
// RUN: diff %t.plain %t.one

// The rules on small functions; imported layers are in
// shard-tensor-parallel-models.test, errors in shard-tensor-parallel-errors.mlir.

// An MLP, then a projection into a softmax over its columns. The MLP is
// column (w1: [8, 16 / 2 = 8]) then row split (w2: [16 / 2 = 8, 8]); the
// head's column split reaches no row split, so it is taken back and stays
// whole ([8, 10], no tfuse.shard), after the all-reduce.
// CHECK-LABEL: func.func @mlp_then_head(
// CHECK-SAME: %arg0: tensor<4x8xf32>,
// CHECK-SAME: %arg1: tensor<8x8xf32> {tfuse.shard = {axis = 1 : i64, degree = 2 : i64, segments = array<i64: 16>}},
// CHECK-SAME: %arg2: tensor<8x8xf32> {tfuse.shard = {axis = 0 : i64, degree = 2 : i64, segments = array<i64: 16>}},
// CHECK-SAME: %arg3: tensor<8x10xf32>)
// CHECK-SAME: -> tensor<4x10xf32> attributes {tfuse.tensor_parallel_degree = 2 : i64}
// CHECK-NEXT: %[[H:.*]] = tfuse.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[G:.*]] = tfuse.relu %[[H]] : tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = tfuse.matmul %[[G]], %arg2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = tfuse.all_reduce %[[Y]] group_size = 2 : tensor<4x8xf32>
// CHECK-NEXT: %[[L:.*]] = tfuse.matmul %[[R]], %arg3 : (tensor<4x8xf32>, tensor<8x10xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: %[[P:.*]] = tfuse.softmax %[[L]] axis = 1 : tensor<4x10xf32>
// CHECK-NEXT: return %[[P]] : tensor<4x10xf32>
func.func @mlp_then_head(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>, %head: tensor<8x10xf32>) -> tensor<4x10xf32> {
  %h = tfuse.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %g = tfuse.relu %h : tensor<4x16xf32>
  %y = tfuse.matmul %g, %w2 : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %l = tfuse.matmul %y, %head : (tensor<4x8xf32>, tensor<8x10xf32>) -> tensor<4x10xf32>
  %p = tfuse.softmax %l axis = 1 : tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}

// Attention written out (as tfuse-decompose-attention leaves it): the batch
// matmuls carry the head split (2 heads of 4 -> 1 per rank), the softmax is
// over the keys (axis 3, not split), and the output projection is row
// split: [8 / 2 = 4, 8].
// CHECK-LABEL: func.func @decomposed_attention(
// CHECK-SAME: %arg1: tensor<8x4xf32> {tfuse.shard = {axis = 1 : i64, degree = 2 : i64, segments = array<i64: 8>}}
// CHECK-SAME: %arg2: tensor<8x4xf32> {tfuse.shard = {axis = 1 : i64, degree = 2 : i64, segments = array<i64: 8>}}
// CHECK-SAME: %arg3: tensor<4x8xf32> {tfuse.shard = {axis = 0 : i64, degree = 2 : i64, segments = array<i64: 8>}}
// CHECK:      tfuse.matmul %{{.*}}, %{{.*}} transpose_rhs : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT: tfuse.softmax %{{.*}} axis = 3 : tensor<1x1x4x4xf32>
// CHECK-NEXT: tfuse.matmul %{{.*}}, %{{.*}} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
// CHECK:      %[[O:.*]] = tfuse.matmul %{{.*}}, %arg3 : (tensor<1x4x4xf32>, tensor<4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[R:.*]] = tfuse.all_reduce %[[O]] group_size = 2 : tensor<1x4x8xf32>
// CHECK-NEXT: tfuse.add %arg0, %[[R]]
func.func @decomposed_attention(%x: tensor<1x4x8xf32>, %wq: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>) -> tensor<1x4x8xf32> {
  %q = tfuse.matmul %x, %wq : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %q1 = tfuse.reshape %q : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %q2 = tfuse.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %v = tfuse.matmul %x, %wv : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %v1 = tfuse.reshape %v : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %v2 = tfuse.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %s = tfuse.matmul %q2, %v2 transpose_rhs : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = tfuse.softmax %s axis = 3 : tensor<1x2x4x4xf32>
  %a = tfuse.matmul %p, %v2 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a1 = tfuse.transpose %a perm = [0, 2, 1, 3] : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %a2 = tfuse.reshape %a1 : tensor<1x4x2x4xf32> -> tensor<1x4x8xf32>
  %o = tfuse.matmul %a2, %wo : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  %y = tfuse.add %x, %o : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// A sum over the split columns is a partial sum too: it gets its own
// all-reduce ([4], the sum of each rank's 8 of the 16 columns).
// CHECK-LABEL: func.func @sum_over_split_axis(
// CHECK:      %[[H:.*]] = tfuse.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = tfuse.reduce sum %[[H]] axis = 1 : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[RS:.*]] = tfuse.all_reduce %[[S]] group_size = 2 : tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = tfuse.matmul %[[H]], %arg2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[RY:.*]] = tfuse.all_reduce %[[Y]] group_size = 2 : tensor<4x8xf32>
// CHECK-NEXT: return %[[RY]], %[[RS]] : tensor<4x8xf32>, tensor<4xf32>
func.func @sum_over_split_axis(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %h = tfuse.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s = tfuse.reduce sum %h axis = 1 : tensor<4x16xf32> -> tensor<4xf32>
  %y = tfuse.matmul %h, %w2 : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %y, %s : tensor<4x8xf32>, tensor<4xf32>
}
