// RUN: tfuse-opt %s --split-input-file --tfuse-lower-to-gpu | FileCheck %s
// RUN: rm -rf %t && tfuse-compile %s --function=token_major --target=h200 --fused-attention --quiet -o %t
// RUN: FileCheck %s --check-prefix=PLAN < %t/plan.json

// Layout costs no kernel: the [B, S, H, D] <-> [B, H, S, D] transposes
// around a flash-attention kernel are absorbed into its addressing. The
// kernel reads Q, K and V from the token-major buffers the projections
// wrote (row stride H D, head stride D) and writes O token-major, so the
// transposes launch nothing.

// B 2, S 96, H 4, D 64: batch stride 96 x 256 = 24576, head stride 64, row
// stride 256 for every operand and the output.
// CHECK-LABEL: func.func @token_major
// CHECK:         tfuse.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16>
// CHECK:         tfuse.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16>
// CHECK:         tfuse.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16>
// CHECK:         tfuse.attention {{.*}} {tfuse.kernels = [@token_major_kernels::@attention_0]}
// CHECK:         tfuse.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<2x4x96x64xbf16>
// CHECK-LABEL: gpu.module @token_major_kernels
// CHECK-NOT:     gpu.func @copy
// CHECK:         gpu.func @attention_0(%{{.*}}: memref<49152xbf16>, %[[K:.*]]: memref<49152xbf16>, %{{.*}}: memref<49152xbf16>, %[[O:.*]]: memref<49152xbf16>)
// CHECK:         arith.muli %{{.*}}, %c24576
// CHECK:         arith.muli %{{.*}}, %c64
// Query rows 256 elements apart.
// CHECK:         arith.muli %{{.*}}, %c256
// The key tile's rows, 256 apart, staged with cp.async.
// CHECK:         arith.muli %{{.*}}, %c256
// CHECK:         nvgpu.device_async_copy %[[K]]
// The output rows, token-major.
// CHECK:         arith.muli %{{.*}}, %c256
// CHECK:         vector.store %{{.*}}, %[[O]]
// CHECK-NOT:     gpu.func

// One step, on the projections' buffers (aliases of the arguments) and
// writing the token-major result; its graph holds the transposes, so the
// check compares the buffers as stored. Bytes: Q, K, V and O once each
// (one query tile of 128 rows covers the 96), 4 x 2 x 96 x 256 x 2.
// PLAN:      "steps": [
// PLAN:        "name": "attention_0",
// PLAN:        "inputs": [
// PLAN-NEXT:     3,
// PLAN-NEXT:     4,
// PLAN-NEXT:     5
// PLAN-NEXT:   ],
// PLAN-NEXT:   "outputs": [
// PLAN-NEXT:     6
// PLAN-NEXT:   ],
// PLAN:        "bytes": 393216,
// PLAN:        "op": "tfuse.transpose",
// PLAN:        "op": "tfuse.transpose",
// PLAN:        "op": "tfuse.transpose",
// PLAN:        "op": "tfuse.attention",
// PLAN:        "op": "tfuse.transpose",
// PLAN-NOT:    "name": "copy
func.func @token_major(%q: tensor<2x96x256xbf16>, %k: tensor<2x96x256xbf16>, %v: tensor<2x96x256xbf16>) -> tensor<2x96x256xbf16> {
  %qs = tfuse.reshape %q : tensor<2x96x256xbf16> -> tensor<2x96x4x64xbf16>
  %qh = tfuse.transpose %qs perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %ks = tfuse.reshape %k : tensor<2x96x256xbf16> -> tensor<2x96x4x64xbf16>
  %kh = tfuse.transpose %ks perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %vs = tfuse.reshape %v : tensor<2x96x256xbf16> -> tensor<2x96x4x64xbf16>
  %vh = tfuse.transpose %vs perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %o = tfuse.attention %qh, %kh, %vh scale = 1.250000e-01 causal : (tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>) -> tensor<2x4x96x64xbf16>
  %ot = tfuse.transpose %o perm = [0, 2, 1, 3] : tensor<2x4x96x64xbf16> -> tensor<2x96x4x64xbf16>
  %r = tfuse.reshape %ot : tensor<2x96x4x64xbf16> -> tensor<2x96x256xbf16>
  return %r : tensor<2x96x256xbf16>
}

// -----

// A transpose something else also reads stays a copy kernel (its result is
// needed as stored); the attention reads that result head-major: the key
// rows 64 apart, head stride 96 x 64 = 6144. The query's transpose is still
// absorbed, and the output, returned as is, is written head-major.
// CHECK-LABEL: func.func @shared_transpose
// CHECK:         tfuse.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16>
// CHECK:         tfuse.transpose %{{.*}} perm = [0, 2, 1, 3] {tfuse.kernels = [@shared_transpose_kernels::@copy_0]}
// CHECK:         tfuse.attention {{.*}} {tfuse.kernels = [@shared_transpose_kernels::@attention_1]}
// CHECK-LABEL: gpu.module @shared_transpose_kernels
// CHECK:         gpu.func @copy_0
// CHECK:         gpu.func @attention_1(%{{.*}}: memref<49152xbf16>, %[[K:.*]]: memref<49152xbf16>, %{{.*}}: memref<49152xbf16>, %{{.*}}: memref<49152xbf16>)
// The key and value heads: batch stride 24576, head stride 6144.
// CHECK:         arith.muli %{{.*}}, %c24576
// CHECK:         arith.muli %{{.*}}, %c6144
// The query's head stride 64, its rows 256 apart.
// CHECK:         arith.muli %{{.*}}, %c64
// CHECK:         arith.muli %{{.*}}, %c256
// Key rows 64 apart.
// CHECK:         arith.muli %{{.*}}, %c64
// CHECK:         nvgpu.device_async_copy %[[K]]
func.func @shared_transpose(%q: tensor<2x96x4x64xbf16>, %k: tensor<2x96x4x64xbf16>, %v: tensor<2x4x96x64xbf16>) -> (tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>) {
  %qh = tfuse.transpose %q perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %kh = tfuse.transpose %k perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %o = tfuse.attention %qh, %kh, %v scale = 1.250000e-01 : (tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>) -> tensor<2x4x96x64xbf16>
  return %o, %kh : tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>
}

// -----

// The backward reads Q, K, V and dO token-major and writes dQ, dK and dV
// token-major (grouped-query: 4 query heads on 2 kv heads): query rows
// 4 x 64 = 256 apart (batch stride 97 x 256 = 24832), key rows 2 x 64 = 128
// apart (batch stride 130 x 128 = 16640). The kernels' buffers are the
// token-major tensors; the statistics stay [B, H, Sq].
// CHECK-LABEL: func.func @grad_token_major
// CHECK:         tfuse.attention_grad {{.*}} {tfuse.kernels = [@grad_token_major_kernels::@attention_grad_0, @grad_token_major_kernels::@attention_grad_1]}
// CHECK-LABEL: gpu.module @grad_token_major_kernels
// CHECK-NOT:     gpu.func @copy
// CHECK:         gpu.func @attention_grad_0(%{{.*}}: memref<24832xbf16>, %{{.*}}: memref<16640xbf16>, %{{.*}}: memref<16640xbf16>, %{{.*}}: memref<24832xbf16>, %{{.*}}: memref<388xf32>, %{{.*}}: memref<388xf32>, %[[DQ:.*]]: memref<24832xbf16>)
// CHECK:         arith.muli %{{.*}}, %c16640
// CHECK:         arith.muli %{{.*}}, %c24832
// CHECK:         arith.muli %{{.*}}, %c256
// CHECK:         arith.muli %{{.*}}, %c128
// CHECK:         vector.store %{{.*}}, %[[DQ]]
// CHECK:         gpu.func @attention_grad_1(%{{.*}}: memref<24832xbf16>, %{{.*}}: memref<16640xbf16>, %{{.*}}: memref<16640xbf16>, %{{.*}}: memref<24832xbf16>, %{{.*}}: memref<388xf32>, %{{.*}}: memref<388xf32>, %[[DK:.*]]: memref<16640xbf16>, %[[DV:.*]]: memref<16640xbf16>)
// CHECK:         arith.muli %{{.*}}, %c128
// CHECK:         arith.muli %{{.*}}, %c256
// CHECK:         vector.store %{{.*}}, %[[DK]]
// CHECK:         vector.store %{{.*}}, %[[DV]]
// CHECK-NOT:     gpu.func
func.func @grad_token_major(%q: tensor<1x97x4x64xbf16>, %k: tensor<1x130x2x64xbf16>, %v: tensor<1x130x2x64xbf16>, %do: tensor<1x97x4x64xbf16>, %lse: tensor<1x4x97xf32>, %delta: tensor<1x4x97xf32>) -> (tensor<1x97x4x64xbf16>, tensor<1x130x2x64xbf16>, tensor<1x130x2x64xbf16>) {
  %qh = tfuse.transpose %q perm = [0, 2, 1, 3] : tensor<1x97x4x64xbf16> -> tensor<1x4x97x64xbf16>
  %kh = tfuse.transpose %k perm = [0, 2, 1, 3] : tensor<1x130x2x64xbf16> -> tensor<1x2x130x64xbf16>
  %vh = tfuse.transpose %v perm = [0, 2, 1, 3] : tensor<1x130x2x64xbf16> -> tensor<1x2x130x64xbf16>
  %doh = tfuse.transpose %do perm = [0, 2, 1, 3] : tensor<1x97x4x64xbf16> -> tensor<1x4x97x64xbf16>
  %dq, %dk, %dv = tfuse.attention_grad %qh, %kh, %vh, %doh, %lse, %delta scale = 1.250000e-01 causal : (tensor<1x4x97x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x4x97x64xbf16>, tensor<1x4x97xf32>, tensor<1x4x97xf32>) -> (tensor<1x4x97x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>)
  %dqt = tfuse.transpose %dq perm = [0, 2, 1, 3] : tensor<1x4x97x64xbf16> -> tensor<1x97x4x64xbf16>
  %dkt = tfuse.transpose %dk perm = [0, 2, 1, 3] : tensor<1x2x130x64xbf16> -> tensor<1x130x2x64xbf16>
  %dvt = tfuse.transpose %dv perm = [0, 2, 1, 3] : tensor<1x2x130x64xbf16> -> tensor<1x130x2x64xbf16>
  return %dqt, %dkt, %dvt : tensor<1x97x4x64xbf16>, tensor<1x130x2x64xbf16>, tensor<1x130x2x64xbf16>
}

// -----

// A fused QKV projection: the split's pieces, reshaped and transposed, are
// read in place in the projection's [2, 96, 768] result, rows 768 apart
// (batch stride 96 x 768 = 73728), K at column 256 and V at 512; the split
// launches nothing either.
// CHECK-LABEL: func.func @fused_qkv
// CHECK:         tfuse.split %{{.*}} axis = 2 : tensor<2x96x768xbf16>
// CHECK:         tfuse.attention {{.*}} {tfuse.kernels = [@fused_qkv_kernels::@attention_0]}
// CHECK-LABEL: gpu.module @fused_qkv_kernels
// CHECK-NOT:     gpu.func @copy
// CHECK:         gpu.func @attention_0(%[[Q:.*]]: memref<147456xbf16>, %[[K:.*]]: memref<147456xbf16>, %[[V:.*]]: memref<147456xbf16>, %{{.*}}: memref<49152xbf16>)
// CHECK:         arith.muli %{{.*}}, %c73728
// CHECK:         arith.muli %{{.*}}, %c64
// CHECK:         arith.addi %{{.*}}, %c256
// CHECK:         arith.muli %{{.*}}, %c73728
// CHECK:         arith.muli %{{.*}}, %c64
// CHECK:         arith.addi %{{.*}}, %c512
// CHECK:         arith.muli %{{.*}}, %c768
// CHECK:         nvgpu.device_async_copy %[[K]]
// CHECK-NOT:     gpu.func
func.func @fused_qkv(%qkv: tensor<2x96x768xbf16>) -> tensor<2x96x256xbf16> {
  %q, %k, %v = tfuse.split %qkv axis = 2 : tensor<2x96x768xbf16> -> tensor<2x96x256xbf16>, tensor<2x96x256xbf16>, tensor<2x96x256xbf16>
  %qs = tfuse.reshape %q : tensor<2x96x256xbf16> -> tensor<2x96x4x64xbf16>
  %qh = tfuse.transpose %qs perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %ks = tfuse.reshape %k : tensor<2x96x256xbf16> -> tensor<2x96x4x64xbf16>
  %kh = tfuse.transpose %ks perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %vs = tfuse.reshape %v : tensor<2x96x256xbf16> -> tensor<2x96x4x64xbf16>
  %vh = tfuse.transpose %vs perm = [0, 2, 1, 3] : tensor<2x96x4x64xbf16> -> tensor<2x4x96x64xbf16>
  %o = tfuse.attention %qh, %kh, %vh scale = 1.250000e-01 causal : (tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>) -> tensor<2x4x96x64xbf16>
  %ot = tfuse.transpose %o perm = [0, 2, 1, 3] : tensor<2x4x96x64xbf16> -> tensor<2x96x4x64xbf16>
  %r = tfuse.reshape %ot : tensor<2x96x4x64xbf16> -> tensor<2x96x256xbf16>
  return %r : tensor<2x96x256xbf16>
}
