// RUN: tfuse-opt %s --tfuse-lower-to-gpu | FileCheck %s

// The flash-attention kernel of a tfuse.attention the template covers: one
// gpu.func with launch bounds, the key and value tiles copied to shared
// memory with cp.async (FlashAttention-2's pipeline: V(tile) while the
// scores run, K(tile + 1) while the softmax and P·V run), both products as
// nvvm.mma.sync m16n8k16 with f32 accumulation, the online softmax across
// the four threads of a row, the output rounded once.

// Grouped-query attention (4 query heads on 2 kv heads), tails in both
// sequences: 97 query rows (one tile of 128: 4 warps of two 16-row tiles at
// D 64), 130 keys (3 tiles of 64): 8 key blocks x 4 k-steps x 2 row tiles =
// 64 products for the scores and 8 output blocks x 4 key steps x 2 = 64
// for P V per tile.
// CHECK-LABEL: func.func @gqa_tails
// CHECK:         tfuse.attention {{.*}} {tfuse.kernels = [@gqa_tails_kernels::@attention_0]}
// CHECK-LABEL: gpu.module @gqa_tails_kernels
// CHECK:         gpu.func @attention_0(%{{.*}}: memref<49664xbf16>, %[[K:.*]]: memref<33280xbf16>, %[[V:.*]]: memref<33280xbf16>, %{{.*}}: memref<49664xbf16>)
// CHECK-SAME:        kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32}
// The key and value tiles (64 rows of 64 + 8 elements), one after the
// other in the dynamic shared memory.
// CHECK:         %[[SHM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[KT:.*]] = memref.view %[[SHM]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[VT:.*]] = memref.view %[[SHM]][%c9216{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4608xbf16, #gpu.address_space<workgroup>>
// The query tiles run last first: tile = 0 - block.
// CHECK:         %[[BX:.*]] = gpu.block_id x
// CHECK:         arith.subi %c0{{.*}}, %[[BX]]
// The kv head: batch * 2 + head / 2.
// CHECK:         %[[PAIR:.*]] = gpu.block_id y
// CHECK:         arith.divui %[[PAIR]], %c4
// CHECK:         arith.remui %[[PAIR]], %c4
// CHECK:         arith.divui %{{.*}}, %c2
// Query rows past 96 are read clamped.
// CHECK:         arith.minui %{{.*}}, %c96
// The first key tile, rows past 129 clamped, before the loop.
// CHECK:         arith.minui %{{.*}}, %c129
// CHECK:         nvgpu.device_async_copy %[[K]][%{{.*}}], %[[KT]][%{{.*}}], 8 {bypassL1}
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         scf.for %[[TILE:.*]] = %{{.*}} to %c3 step
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// CHECK:           nvgpu.device_async_copy %[[V]][%{{.*}}], %[[VT]][%{{.*}}], 8 {bypassL1}
// CHECK:           nvvm.cp.async.commit.group
// The key tile's B fragments, two 8-key blocks per ldmatrix.x4.
// CHECK:           memref.extract_aligned_pointer_as_index %[[KT]]
// CHECK:           llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<3>
// CHECK:           nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-64:  nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// Only the last key tile (130 is not whole tiles) selects -inf past key 129.
// CHECK:           %[[LAST:.*]] = arith.cmpi eq, %[[TILE]], %c2
// CHECK:           scf.if %[[LAST]] -> (f32
// CHECK:             arith.cmpi ult, %{{.*}}, %c130
// CHECK:             arith.select
// CHECK:           } else {
// The next key tile while the softmax and P V run.
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// CHECK:           scf.if
// CHECK:             nvgpu.device_async_copy %[[K]][%{{.*}}], %[[KT]][%{{.*}}], 8 {bypassL1}
// CHECK:             nvvm.cp.async.commit.group
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c2_i32
// Unmasked with a positive scale: exp2(s * scale * log2e - max * ...), one fma.
// CHECK:           math.fma %{{.*}}, %[[SCALE:.*]], %{{.*}} : f32
// CHECK-NEXT:      math.exp2
// CHECK:           arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// The value tile's, transposed: two 8-column blocks per ldmatrix.x4.
// CHECK:           memref.extract_aligned_pointer_as_index %[[VT]]
// CHECK:           nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-64:  nvvm.mma.sync
// CHECK:           scf.yield
// The sum over the row's four threads, the division, the guarded store.
// CHECK:         gpu.shuffle  xor
// CHECK:         arith.divf
// CHECK:         arith.cmpi ult, %{{.*}}, %c97
// CHECK:         scf.if
// CHECK:           vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 4 : i64} : memref<49664xbf16>, vector<2xbf16>
// CHECK:         gpu.return
// CHECK-NOT:     nvvm.mma.sync
func.func @gqa_tails(%q: tensor<2x4x97x64xbf16>, %k: tensor<2x2x130x64xbf16>, %v: tensor<2x2x130x64xbf16>) -> tensor<2x4x97x64xbf16> {
  %o = tfuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x4x97x64xbf16>, tensor<2x2x130x64xbf16>, tensor<2x2x130x64xbf16>) -> tensor<2x4x97x64xbf16>
  return %o : tensor<2x4x97x64xbf16>
}

// Causal, f16 (operands as vector<2xf16>), D 16 and Dv 32: one query tile
// of 128, the key loop stops at the diagonal, min(2 tiles, (query tile + 1)
// * 2), and only tiles crossing the warp's diagonal compare keys with rows;
// 8 x 1 x 2 products for the scores, 4 x 4 x 2 for P V.
// CHECK-LABEL: func.func @causal_f16
// CHECK-LABEL: gpu.func @attention_0
// CHECK:         memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1536xf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.*}}[%c3072{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2560xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[BX:.*]] = gpu.block_id x
// CHECK:         %[[TILE:.*]] = arith.subi %c0{{.*}}, %[[BX]]
// CHECK:         %[[NEXT:.*]] = arith.addi %[[TILE]], %c1
// CHECK:         %[[KEYTILES:.*]] = arith.muli %[[NEXT]], %c2
// CHECK:         %[[END:.*]] = arith.minui %c2{{.*}}, %[[KEYTILES]]
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[END]] step
// CHECK:           nvvm.ldmatrix
// CHECK:           llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK-COUNT-16:  nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:           arith.cmpi ugt
// CHECK:           scf.if
// CHECK:             arith.cmpi ule
// CHECK:           arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-COUNT-32:  nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           scf.yield
func.func @causal_f16(%q: tensor<1x2x100x16xf16>, %k: tensor<1x2x100x16xf16>, %v: tensor<1x2x100x32xf16>) -> tensor<1x2x100x32xf16> {
  %o = tfuse.attention %q, %k, %v scale = 2.500000e-01 causal : (tensor<1x2x100x16xf16>, tensor<1x2x100x16xf16>, tensor<1x2x100x32xf16>) -> tensor<1x2x100x32xf16>
  return %o : tensor<1x2x100x32xf16>
}

// A padding mask [2, 1, 1, 90] (BERT's) is a fourth argument read per score
// at batch * 90 + min(key, 89): strides 90, 0, 0, 1 over [B, H, Sq, Sk]; it
// is added in log2 units before the keys past the end are masked.
// CHECK-LABEL: func.func @padding_mask
// CHECK-LABEL: gpu.module @padding_mask_kernels
// CHECK:         gpu.func @attention_0(%{{.*}}: memref<35840xbf16>, %{{.*}}: memref<46080xbf16>, %{{.*}}: memref<46080xbf16>, %[[MASK:.*]]: memref<180xbf16>, %{{.*}}: memref<35840xbf16>)
// CHECK:         %[[PAIR:.*]] = gpu.block_id y
// CHECK:         %[[BATCH:.*]] = arith.divui %[[PAIR]], %c4
// CHECK:         %[[MB:.*]] = arith.muli %[[BATCH]], %c90
// CHECK:         scf.for
// CHECK:           %[[KEY:.*]] = arith.minui %{{.*}}, %c89
// CHECK:           %[[ROWBASE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:           %[[BIAS:.*]] = memref.load %[[MASK]][%{{.*}}] : memref<180xbf16>
// CHECK-NEXT:      %[[BIAS32:.*]] = arith.extf %[[BIAS]] : bf16 to f32
// CHECK-NEXT:      %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[BIAS32]], %[[LOG2E]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %{{.*}}, %[[SCALED]] : f32
// CHECK:           scf.if
// CHECK:             arith.cmpi ult, %{{.*}}, %c90
// CHECK-NEXT:        arith.select %{{.*}}, %[[SUM]], %cst
func.func @padding_mask(%q: tensor<2x4x70x64xbf16>, %k: tensor<2x4x90x64xbf16>, %v: tensor<2x4x90x64xbf16>, %m: tensor<2x1x1x90xbf16>) -> tensor<2x4x70x64xbf16> {
  %o = tfuse.attention %q, %k, %v mask %m scale = 1.250000e-01 : (tensor<2x4x70x64xbf16>, tensor<2x4x90x64xbf16>, tensor<2x4x90x64xbf16>, tensor<2x1x1x90xbf16>) -> tensor<2x4x70x64xbf16>
  return %o : tensor<2x4x70x64xbf16>
}

// Dropout (p 0.1, seed 7) on the probabilities, after the row sums and
// before P·V: each pair of neighbouring keys of a row draws from one Philox
// call at element (pair * Sq + row) * Sk + key (Sk even), ten rounds of
// the multipliers (0xD2511F53 as i32: -766435501), kept where the word is
// >= floor(0.1 * 2^32) = 429496729: 2 row tiles x 8 key blocks x 2 rows =
// 32 calls a tile, 640 multiplications.
// CHECK-LABEL: gpu.module @dropout_kernels
// CHECK:         math.exp2
// CHECK:         arith.divui %{{.*}}, %c4
// CHECK:         arith.mului_extended %c-766435501_i32
// CHECK-COUNT-19: arith.mului_extended
// CHECK:         arith.andi %{{.*}}, %c2
// CHECK:         arith.constant 429496729 : i32
// CHECK-NEXT:    arith.cmpi uge
// CHECK:         nvvm.mma.sync
func.func @dropout(%q: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = tfuse.attention %q, %q, %q scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 7 : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
