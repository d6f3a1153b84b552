// RUN: tfuse-opt %s --split-input-file --tfuse-lower-to-gpu | FileCheck %s

// The flash-attention backward of a tfuse.attention_grad: two gpu.funcs,
// neither of which writes the scores. Grouped-query attention (4 query
// heads on 2 kv heads), causal, D = Dv = 64, tails in both sequences: 97
// query rows (2 tiles of 64: 4 warps of 16 rows), 130 keys (3 tiles of 64).

// CHECK-LABEL: func.func @backward
// CHECK:         tfuse.attention_grad {{.*}} {tfuse.kernels = [@backward_kernels::@attention_grad_0, @backward_kernels::@attention_grad_1]}
// CHECK-LABEL: gpu.module @backward_kernels

// The query kernel: every operand, then dQ; the key and value tiles (64
// keys of 64 + 8 padding elements) in shared memory.
// CHECK:         gpu.func @attention_grad_0(%[[Q:.*]]: memref<24832xbf16>, %[[K:.*]]: memref<16640xbf16>, %[[V:.*]]: memref<16640xbf16>, %[[DO:.*]]: memref<24832xbf16>, %[[LSE:.*]]: memref<388xf32>, %[[DELTA:.*]]: memref<388xf32>, %[[DQ:.*]]: memref<24832xbf16>)
// CHECK-SAME:        kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK:         %[[SHM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[KT:.*]] = memref.view %[[SHM]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[VT:.*]] = memref.view %[[SHM]][%c9216{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// The query tiles run last first; rows past 96 are read clamped.
// CHECK:         arith.subi %c1, %{{.*}}
// CHECK:         arith.minui %{{.*}}, %c96
// The rows' statistics, lse scaled to log2 units.
// CHECK:         memref.load %[[LSE]]
// CHECK:         memref.load %[[DELTA]]
// Causal: the key tiles up to the tile's diagonal (64 rows = 1 key tile).
// CHECK:         arith.minui %c3, %{{.*}}
// CHECK:         %{{.*}}:32 = scf.for
// CHECK:           nvgpu.device_async_copy %[[K]][%{{.*}}], %[[KT]][%{{.*}}], 8 {bypassL1}
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           nvgpu.device_async_copy %[[V]][%{{.*}}], %[[VT]][%{{.*}}], 8 {bypassL1}
// CHECK:           nvvm.cp.async.commit.group
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// S = Q K^T (8 key blocks x 4 k-steps), p = exp2(s * scale * log2e - lse).
// CHECK-COUNT-32:  nvvm.mma.sync
// CHECK:           math.fma
// CHECK:           math.exp2
// Only the last key tile and the tiles crossing the diagonal select 0.
// CHECK:           scf.if %{{.*}} -> (f32
// CHECK:             arith.cmpi ult, %{{.*}}, %c130
// CHECK:             arith.select
// dP = dO V^T (8 x 4), dS = p (dP - delta), dQ += dS K (8 column blocks x
// 4 key steps, K's B fragments by transposing ldmatrix).
// CHECK-COUNT-32:  nvvm.mma.sync
// CHECK:           arith.subf
// CHECK:           nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<col>
// CHECK-COUNT-32:  nvvm.mma.sync
// CHECK:           gpu.barrier
// CHECK:           scf.yield
// dQ times the scale, rounded once, rows past 96 not stored.
// CHECK:         arith.cmpi ult, %{{.*}}, %c97
// CHECK:         arith.mulf %{{.*}}, %cst_{{.*}} : f32
// CHECK:         arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK:         vector.store %{{.*}}, %[[DQ]]
// CHECK:         gpu.return

// The key kernel: every operand, then dK and dV; the block's 64 keys and
// values, the staged 64 query and dO rows and their two statistics.
// CHECK:         gpu.func @attention_grad_1(%[[Q1:.*]]: memref<24832xbf16>, %[[K1:.*]]: memref<16640xbf16>, %[[V1:.*]]: memref<16640xbf16>, %[[DO1:.*]]: memref<24832xbf16>, %[[LSE1:.*]]: memref<388xf32>, %[[DELTA1:.*]]: memref<388xf32>, %[[DK:.*]]: memref<16640xbf16>, %[[DV:.*]]: memref<16640xbf16>)
// CHECK:         %[[KT1:.*]] = memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[VT1:.*]] = memref.view %{{.*}}[%c9216{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[QT:.*]] = memref.view %{{.*}}[%c18432{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[DOT:.*]] = memref.view %{{.*}}[%c27648{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[LT:.*]] = memref.view %{{.*}}[%c36864{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[DT:.*]] = memref.view %{{.*}}[%c37120{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// The keys and values once, before the loop.
// CHECK:         nvgpu.device_async_copy %[[K1]][%{{.*}}], %[[KT1]]
// CHECK:         nvgpu.device_async_copy %[[V1]][%{{.*}}], %[[VT1]]
// Causal: the query tiles from the block's first key on (first key / 64),
// for each of the group's 2 query heads.
// CHECK:         arith.minui %{{.*}}, %c2
// CHECK:         %{{.*}}:64 = scf.for
// CHECK:           nvgpu.device_async_copy %[[Q1]][%{{.*}}], %[[QT]]
// CHECK:           nvgpu.device_async_copy %[[DO1]][%{{.*}}], %[[DOT]]
// CHECK:           memref.load %[[LSE1]]
// CHECK:           memref.store %{{.*}}, %[[LT]]
// CHECK:           memref.load %[[DELTA1]]
// CHECK:           memref.store %{{.*}}, %[[DT]]
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// S^T = K Q^T (4 k-steps x 8 query blocks), the keys' A fragments from
// shared memory.
// CHECK-COUNT-32:  nvvm.mma.sync
// CHECK:           memref.load %[[LT]]
// CHECK:           math.exp2
// CHECK:           scf.if %{{.*}} -> (f32
// CHECK:             arith.cmpi ult, %{{.*}}, %c97
// CHECK:             arith.select
// dV += P^T dO, dP^T = V dO^T, dS^T = P^T (dP^T - delta), dK += dS^T Q.
// CHECK-COUNT-64:  nvvm.mma.sync
// CHECK:           memref.load %[[DT]]
// CHECK:           arith.subf
// CHECK-COUNT-32:  nvvm.mma.sync
// CHECK:           gpu.barrier
// CHECK:           scf.yield
// Keys past 129 not stored; dK times the scale.
// CHECK:         arith.cmpi ult, %{{.*}}, %c130
// CHECK:         vector.store %{{.*}}, %[[DK]]
// CHECK:         vector.store %{{.*}}, %[[DV]]
// CHECK:         gpu.return
func.func @backward(%q: tensor<1x4x97x64xbf16>, %k: tensor<1x2x130x64xbf16>, %v: tensor<1x2x130x64xbf16>, %do: tensor<1x4x97x64xbf16>, %lse: tensor<1x4x97xf32>, %delta: tensor<1x4x97xf32>) -> (tensor<1x4x97x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>) {
  %dq, %dk, %dv = tfuse.attention_grad %q, %k, %v, %do, %lse, %delta scale = 1.250000e-01 causal : (tensor<1x4x97x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x4x97x64xbf16>, tensor<1x4x97xf32>, tensor<1x4x97xf32>) -> (tensor<1x4x97x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>)
  return %dq, %dk, %dv : tensor<1x4x97x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>
}

// -----

// Head dim 128: the query kernel walks 32 keys a step, the key kernel 16
// query rows (the staged tiles in 48 KiB of shared memory:
// (64 + 16) x (128 + 128 + 16) x 2 + 16 x 8 = 43648 bytes).
// CHECK-LABEL: gpu.module @wide_kernels
// CHECK:         gpu.func @attention_grad_0
// CHECK:         memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4352xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.*}}[%c8704{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4352xbf16, #gpu.address_space<workgroup>>
// CHECK:         gpu.func @attention_grad_1
// CHECK:         memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8704xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.*}}[%c17408{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8704xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.*}}[%c34816{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2176xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.*}}[%c39168{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2176xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.*}}[%c43520{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.*}}[%c43584{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
func.func @wide(%q: tensor<1x2x64x128xbf16>, %do: tensor<1x2x64x128xbf16>, %lse: tensor<1x2x64xf32>) -> (tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>) {
  %dq, %dk, %dv = tfuse.attention_grad %q, %q, %q, %do, %lse, %lse scale = 8.838834764831845e-02 : (tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>, tensor<1x2x64xf32>, tensor<1x2x64xf32>) -> (tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>)
  return %dq, %dk, %dv : tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>, tensor<1x2x64x128xbf16>
}

// -----

// The forward of a fused backward also writes each row's log-sum-exp,
// ln 2 (max + log2 sum), from one thread of the row's quad.
// CHECK-LABEL: gpu.module @forward_lse_kernels
// CHECK:         gpu.func @attention_0(%{{.*}}: memref<8192xbf16>, %{{.*}}: memref<8192xbf16>, %{{.*}}: memref<8192xbf16>, %{{.*}}: memref<8192xbf16>, %[[L:.*]]: memref<128xf32>)
// CHECK:         math.log2
// CHECK:         arith.cmpi eq, %{{.*}}, %c0
// CHECK:         scf.if
// CHECK:           memref.store %{{.*}}, %[[L]]
func.func @forward_lse(%q: tensor<1x2x64x64xbf16>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64xf32>) {
  %o, %lse = tfuse.attention %q, %q, %q scale = 1.250000e-01 causal : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64xf32>)
  return %o, %lse : tensor<1x2x64x64xbf16>, tensor<1x2x64xf32>
}

// -----

// Dropout regenerated in both kernels from the forward's Philox stream:
// the query kernel keeps dP (one call per pair of neighbouring keys), the
// key kernel keeps P for dV and dP for dS with one draw per element (its
// elements of one call are rows apart), before the dV product.
// CHECK-LABEL: gpu.module @dropout_backward_kernels
// CHECK:         gpu.func @attention_grad_0
// CHECK:         arith.mului_extended
// CHECK:         arith.constant 429496729 : i32
// CHECK-NEXT:    arith.cmpi uge
// CHECK:         nvvm.mma.sync
// CHECK:         gpu.func @attention_grad_1
// CHECK:         arith.mului_extended
// CHECK:         arith.constant 429496729 : i32
// CHECK-NEXT:    arith.cmpi uge
// CHECK:         nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
func.func @dropout_backward(%q: tensor<1x2x64x64xbf16>, %do: tensor<1x2x64x64xbf16>, %lse: tensor<1x2x64xf32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %dq, %dk, %dv = tfuse.attention_grad %q, %q, %q, %do, %lse, %lse scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 7 : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64xf32>, tensor<1x2x64xf32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>)
  return %dq, %dk, %dv : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}
