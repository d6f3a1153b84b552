// RUN: tfuse-opt %s --tfuse-decompose-attention | FileCheck %s
// RUN: tfuse-opt %s --tfuse-evaluate=seed=3 -o /dev/null > %t.before
// RUN: tfuse-opt %s --tfuse-decompose-attention --tfuse-evaluate=seed=3 -o /dev/null > %t.after
// RUN: FileCheck %s --check-prefix=EVAL < %t.before
// RUN: FileCheck %s --check-prefix=EVAL < %t.after
// RUN: tfuse-opt %s --tfuse-decompose-attention=keep-fused | FileCheck %s --check-prefix=KEEP

// With keep-fused, what the flash-attention kernel computes (here
// @masked_dropout, bf16 with a mask and dropout, and @causal, f16 with head
// dims 16 and 32) stays whole; f32 (@plain) and head dim 8 do not.
// KEEP-LABEL: func.func @plain
// KEEP-NOT:   tfuse.attention
// KEEP:       tfuse.softmax
// KEEP-LABEL: func.func @masked_dropout
// KEEP-NEXT:  tfuse.attention %arg0, %arg1, %arg2 mask %arg3 scale = 2.500000e-01 dropout_p = 1.000000e-01 seed = 11
// KEEP-NEXT:  return
// KEEP-LABEL: func.func @causal
// KEEP-NEXT:  tfuse.attention %arg0, %arg1, %arg2 scale = 2.500000e-01 causal
// KEEP-NEXT:  return
// KEEP-LABEL: func.func @grouped
// KEEP-NOT:   tfuse.attention
// KEEP:       return

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x16xf32>, %[[K:.*]]: tensor<2x4x8x16xf32>, %[[V:.*]]: tensor<2x4x8x16xf32>)
// CHECK-DAG:   %[[SCALE:.*]] = tfuse.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG:   %[[S:.*]] = tfuse.matmul %[[Q]], %[[K]] transpose_rhs : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
// CHECK:       %[[SS:.*]] = tfuse.mul %[[S]], %[[SCALE]] : (tensor<2x4x8x8xf32>, tensor<f32>) -> tensor<2x4x8x8xf32>
// CHECK-NEXT:  %[[P:.*]] = tfuse.softmax %[[SS]] axis = 3 : tensor<2x4x8x8xf32>
// CHECK-NEXT:  %[[O:.*]] = tfuse.matmul %[[P]], %[[V]] : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
// CHECK-NEXT:  return %[[O]]
// CHECK-NOT:   tfuse.attention
// EVAL: @plain result 0: [2, 4, 8, 16] f32
func.func @plain(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %o = tfuse.attention %q, %k, %v scale = 0.25 : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}

// A padding mask, then dropout on the probabilities (BERT).
// CHECK-LABEL: func.func @masked_dropout
// CHECK-SAME: %[[M:[^:]*]]: tensor<2x1x1x8xbf16>
// CHECK:       %[[SS:.*]] = tfuse.mul
// CHECK-NEXT:  %[[SM:.*]] = tfuse.add %[[SS]], %[[M]] : (tensor<2x4x8x8xbf16>, tensor<2x1x1x8xbf16>) -> tensor<2x4x8x8xbf16>
// CHECK-NEXT:  %[[P:.*]] = tfuse.softmax %[[SM]] axis = 3 : tensor<2x4x8x8xbf16>
// CHECK-NEXT:  %[[D:.*]] = tfuse.dropout %[[P]] p = 1.000000e-01 seed = 11 : tensor<2x4x8x8xbf16>
// CHECK-NEXT:  tfuse.matmul %[[D]], %{{.*}} :
// EVAL: @masked_dropout result 0: [2, 4, 8, 16] bf16
func.func @masked_dropout(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x8x16xbf16>, %v: tensor<2x4x8x16xbf16>, %m: tensor<2x1x1x8xbf16>) -> tensor<2x4x8x16xbf16> {
  %o = tfuse.attention %q, %k, %v mask %m scale = 0.25 dropout_p = 0.1 seed = 11 : (tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x1x1x8xbf16>) -> tensor<2x4x8x16xbf16>
  return %o : tensor<2x4x8x16xbf16>
}

// Causal: the mask is generated, not read.
// CHECK-LABEL: func.func @causal
// CHECK:       %[[SS:.*]] = tfuse.mul
// CHECK-NEXT:  %[[C:.*]] = tfuse.causal_mask : tensor<8x12xf16>
// CHECK-NEXT:  %[[SC:.*]] = tfuse.add %[[SS]], %[[C]] : (tensor<1x2x8x12xf16>, tensor<8x12xf16>) -> tensor<1x2x8x12xf16>
// CHECK-NEXT:  tfuse.softmax %[[SC]] axis = 3
// EVAL: @causal result 0: [1, 2, 8, 32] f16
func.func @causal(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x12x16xf16>, %v: tensor<1x2x12x32xf16>) -> tensor<1x2x8x32xf16> {
  %o = tfuse.attention %q, %k, %v scale = 0.25 causal : (tensor<1x2x8x16xf16>, tensor<1x2x12x16xf16>, tensor<1x2x12x32xf16>) -> tensor<1x2x8x32xf16>
  return %o : tensor<1x2x8x32xf16>
}

// Grouped-query attention: 8 query heads share 2 key/value heads through the
// matmul's batch broadcasting; a per-head mask is split the same way.
// CHECK-LABEL: func.func @grouped
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x4x16xf32>, %[[K:.*]]: tensor<1x2x6x16xf32>, %[[V:.*]]: tensor<1x2x6x16xf32>, %[[M:.*]]: tensor<8x4x6xf32>)
// CHECK-DAG:   %[[Q5:.*]] = tfuse.reshape %[[Q]] : tensor<1x8x4x16xf32> -> tensor<1x2x4x4x16xf32>
// CHECK-DAG:   %[[K5:.*]] = tfuse.reshape %[[K]] : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
// CHECK-DAG:   %[[V5:.*]] = tfuse.reshape %[[V]] : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
// CHECK:       %[[S:.*]] = tfuse.matmul %[[Q5]], %[[K5]] transpose_rhs : (tensor<1x2x4x4x16xf32>, tensor<1x2x1x6x16xf32>) -> tensor<1x2x4x4x6xf32>
// CHECK:       %[[M5:.*]] = tfuse.reshape %[[M]] : tensor<8x4x6xf32> -> tensor<1x2x4x4x6xf32>
// CHECK-NEXT:  %[[SM:.*]] = tfuse.add %{{.*}}, %[[M5]]
// CHECK:       tfuse.softmax %{{.*}} axis = 4 : tensor<1x2x4x4x6xf32>
// CHECK:       %[[O5:.*]] = tfuse.matmul %{{.*}}, %[[V5]] : (tensor<1x2x4x4x6xf32>, tensor<1x2x1x6x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT:  %[[O:.*]] = tfuse.reshape %[[O5]] : tensor<1x2x4x4x16xf32> -> tensor<1x8x4x16xf32>
// CHECK-NEXT:  return %[[O]]
// EVAL: @grouped result 0: [1, 8, 4, 16] f32
func.func @grouped(%q: tensor<1x8x4x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>, %m: tensor<8x4x6xf32>) -> tensor<1x8x4x16xf32> {
  %o = tfuse.attention %q, %k, %v mask %m scale = 0.25 causal dropout_p = 0.2 seed = 5 : (tensor<1x8x4x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>, tensor<8x4x6xf32>) -> tensor<1x8x4x16xf32>
  return %o : tensor<1x8x4x16xf32>
}

// Ops other than attention are left alone.
// CHECK-LABEL: func.func @no_attention
// CHECK-NEXT:  tfuse.softmax
// CHECK-NEXT:  return
// EVAL: @no_attention result 0: [4, 8] f32
func.func @no_attention(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tfuse.softmax %x axis = 1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// dropout_p = 0 draws no mask, and the pass touches nothing but attention:
// the unused exp stays, nothing is folded or hoisted.
// CHECK-LABEL: func.func @no_dropout_no_cleanup
// CHECK-NEXT:  tfuse.exp
// CHECK-NEXT:  tfuse.matmul
// CHECK-NEXT:  tfuse.constant
// CHECK-NEXT:  tfuse.mul
// CHECK-NEXT:  tfuse.softmax
// CHECK-NEXT:  tfuse.matmul
// CHECK-NEXT:  return
// EVAL: @no_dropout_no_cleanup result 0: [1, 1, 4, 8] f32
func.func @no_dropout_no_cleanup(%q: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %unused = tfuse.exp %q : tensor<1x1x4x8xf32>
  %o = tfuse.attention %q, %q, %q scale = 0.5 dropout_p = 0.0 seed = 9 : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}
