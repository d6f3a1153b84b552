// RUN: tfuse-opt %s --tfuse-lower-to-gpu | FileCheck %s

// The kernels of what the model importers emit besides layers: embedding
// lookups, concatenation, rows along a non-last axis, rotary embeddings and
// the sliding-window mask.

// gather: one thread per 8-bf16 vector of the result; the row's index is
// read once and clamped into the 1000-row table.
// CHECK-LABEL: gpu.module @gather_kernels
// CHECK:       gpu.func @gather_0(%[[TABLE:.*]]: memref<64000xbf16>, %[[IDS:.*]]: memref<16xi32>, %[[OUT:.*]]: memref<1024xbf16>) kernel
// CHECK:       %[[C128:.*]] = arith.constant 128 : index
// CHECK:       arith.cmpi ult, %{{.*}}, %[[C128]] : index
// CHECK:       %[[BASE:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:       %[[ROW:.*]] = arith.divui %[[BASE]], %[[C64:.*]] : index
// CHECK:       %[[COL:.*]] = arith.remui %[[BASE]], %[[C64]] : index
// CHECK:       %[[ID:.*]] = memref.load %[[IDS]][%[[ROW]]] : memref<16xi32>
// CHECK:       %[[IDX:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK:       %[[LO:.*]] = arith.maxsi %[[IDX]], %{{.*}} : index
// CHECK:       %[[C999:.*]] = arith.constant 999 : index
// CHECK:       %[[HI:.*]] = arith.minsi %[[LO]], %[[C999]] : index
// CHECK:       %[[START:.*]] = arith.muli %[[HI]], %[[C64]] : index
// CHECK:       %[[SRC:.*]] = arith.addi %[[START]], %[[COL]] : index
// CHECK:       vector.load %[[TABLE]][%[[SRC]]] {alignment = 16 : i64} : memref<64000xbf16>, vector<8xbf16>
// CHECK:       vector.store %{{.*}}, %[[OUT]][%[[BASE]]] {alignment = 16 : i64} : memref<1024xbf16>, vector<8xbf16>
func.func @gather(%t: tensor<1000x64xbf16>, %i: tensor<2x8xi32>) -> tensor<2x8x64xbf16> {
  %0 = tfuse.gather %t[%i] : (tensor<1000x64xbf16>, tensor<2x8xi32>) -> tensor<2x8x64xbf16>
  return %0 : tensor<2x8x64xbf16>
}

// gather_grad into an f32 table: two kernels over the result. The first
// zeroes it, a 4-f32 vector a thread; the second reads a 4-f32 vector of
// grad, clamps its row's index into the 1000-row table, and adds each lane
// with an f32 atomic.
// CHECK-LABEL: gpu.module @gather_grad_f32_kernels
// CHECK:       gpu.func @gather_grad_0(%[[ACC:.*]]: memref<64000xf32>) kernel
// CHECK:       %[[C16000:.*]] = arith.constant 16000 : index
// CHECK:       arith.cmpi ult, %{{.*}}, %[[C16000]] : index
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[ZEROS:.*]] = vector.from_elements %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : vector<4xf32>
// CHECK:       vector.store %[[ZEROS]], %[[ACC]][%{{.*}}] {alignment = 16 : i64} : memref<64000xf32>, vector<4xf32>
// CHECK:       gpu.func @gather_grad_1(%[[G:.*]]: memref<1536xf32>, %[[IDS:.*]]: memref<24xi64>, %[[OUT:.*]]: memref<64000xf32>) kernel
// CHECK:       %[[C384:.*]] = arith.constant 384 : index
// CHECK:       arith.cmpi ult, %{{.*}}, %[[C384]] : index
// CHECK:       %[[BASE:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:       %[[ROW:.*]] = arith.divui %[[BASE]], %[[C64:.*]] : index
// CHECK:       %[[COL:.*]] = arith.remui %[[BASE]], %[[C64]] : index
// CHECK:       %[[ID:.*]] = memref.load %[[IDS]][%[[ROW]]] : memref<24xi64>
// CHECK:       %[[IDX:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK:       %[[LO:.*]] = arith.maxsi %[[IDX]], %{{.*}} : index
// CHECK:       %[[C999:.*]] = arith.constant 999 : index
// CHECK:       %[[HI:.*]] = arith.minsi %[[LO]], %[[C999]] : index
// CHECK:       %[[START:.*]] = arith.muli %[[HI]], %[[C64]] : index
// CHECK:       %[[DST:.*]] = arith.addi %[[START]], %[[COL]] : index
// CHECK:       %[[V:.*]] = vector.load %[[G]][%[[BASE]]] {alignment = 16 : i64} : memref<1536xf32>, vector<4xf32>
// CHECK:       %[[L0:.*]] = vector.extract %[[V]][0]
// CHECK:       %[[L3:.*]] = vector.extract %[[V]][3]
// CHECK:       memref.atomic_rmw addf %[[L0]], %[[OUT]][%[[DST]]] : (f32, memref<64000xf32>) -> f32
// CHECK:       %[[C3:.*]] = arith.constant 3 : index
// CHECK:       %[[DST3:.*]] = arith.addi %[[DST]], %[[C3]] : index
// CHECK:       memref.atomic_rmw addf %[[L3]], %[[OUT]][%[[DST3]]] : (f32, memref<64000xf32>) -> f32
// CHECK-NOT:   gpu.func @gather_grad_2
func.func @gather_grad_f32(%g: tensor<3x8x64xf32>, %i: tensor<3x8xi64>) -> tensor<1000x64xf32> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<3x8x64xf32>, tensor<3x8xi64>) -> tensor<1000x64xf32>
  return %0 : tensor<1000x64xf32>
}

// gather_grad into a bf16 table: the sums are f32, in an accumulator of
// their own that a third kernel rounds into the table. Rows of 8 bf16 are
// read one 16-byte vector a thread; rows of 6 (no whole vectors) one
// element a thread.
// CHECK-LABEL: gpu.module @gather_grad_bf16_kernels
// CHECK:       gpu.func @gather_grad_0(%{{.*}}: memref<80xf32>) kernel
// CHECK:       gpu.func @gather_grad_1(%[[G:.*]]: memref<128xbf16>, %[[IDS:.*]]: memref<16xi32>, %[[ACC:.*]]: memref<80xf32>) kernel
// CHECK:       %[[ID:.*]] = memref.load %[[IDS]][%{{.*}}] : memref<16xi32>
// CHECK:       arith.index_cast %[[ID]] : i32 to index
// CHECK:       %[[V:.*]] = vector.load %[[G]][%{{.*}}] {alignment = 16 : i64} : memref<128xbf16>, vector<8xbf16>
// CHECK:       arith.extf %[[V]] : vector<8xbf16> to vector<8xf32>
// CHECK-COUNT-8: memref.atomic_rmw addf %{{.*}}, %[[ACC]][%{{.*}}] : (f32, memref<80xf32>) -> f32
// CHECK:       gpu.func @gather_grad_2(%[[SRC:.*]]: memref<80xf32>, %[[T:.*]]: memref<80xbf16>) kernel
// CHECK:       %[[A:.*]] = vector.load %[[SRC]][%{{.*}}] {alignment = 16 : i64} : memref<80xf32>, vector<4xf32>
// CHECK:       %[[R:.*]] = arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK:       vector.store %[[R]], %[[T]][%{{.*}}] {alignment = 8 : i64} : memref<80xbf16>, vector<4xbf16>
func.func @gather_grad_bf16(%g: tensor<16x8xbf16>, %i: tensor<16xi32>) -> tensor<10x8xbf16> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<16x8xbf16>, tensor<16xi32>) -> tensor<10x8xbf16>
  return %0 : tensor<10x8xbf16>
}

// CHECK-LABEL: gpu.module @gather_grad_f16_odd_kernels
// CHECK:       gpu.func @gather_grad_1(%[[G:.*]]: memref<18xf16>, %{{.*}}: memref<3xi32>, %[[ACC:.*]]: memref<24xf32>) kernel
// CHECK:       %[[X:.*]] = memref.load %[[G]][%{{.*}}] : memref<18xf16>
// CHECK:       %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK:       memref.atomic_rmw addf %[[W]], %[[ACC]][%{{.*}}] : (f32, memref<24xf32>) -> f32
// CHECK:       gpu.func @gather_grad_2(%{{.*}}: memref<24xf32>, %{{.*}}: memref<24xf16>) kernel
func.func @gather_grad_f16_odd(%g: tensor<3x6xf16>, %i: tensor<3xi32>) -> tensor<4x6xf16> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<3x6xf16>, tensor<3xi32>) -> tensor<4x6xf16>
  return %0 : tensor<4x6xf16>
}

// concat along axis 1 of [2, 6, 4] and [2, 3, 4]: one copy kernel, each
// 4-f32 vector read from the input that holds its row.
// CHECK-LABEL: gpu.module @concat_kernels
// CHECK:       gpu.func @copy_0(%[[X:.*]]: memref<48xf32>, %[[Y:.*]]: memref<24xf32>, %[[Z:.*]]: memref<72xf32>) kernel
// CHECK:       %[[C6:.*]] = arith.constant 6 : index
// CHECK:       %[[IN_X:.*]] = arith.cmpi ult, %[[ROW:.*]], %[[C6]] : index
// CHECK:       %[[LANES:.*]]:4 = scf.if %[[IN_X]] -> (f32, f32, f32, f32) {
// CHECK:         vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<48xf32>, vector<4xf32>
// CHECK:       } else {
// CHECK:         arith.subi %[[ROW]], %{{.*}} : index
// CHECK:         vector.load %[[Y]][%{{.*}}] {alignment = 16 : i64} : memref<24xf32>, vector<4xf32>
// CHECK:       }
// CHECK:       vector.from_elements %[[LANES]]#0, %[[LANES]]#1, %[[LANES]]#2, %[[LANES]]#3
// CHECK:       vector.store %{{.*}}, %[[Z]][%{{.*}}] {alignment = 16 : i64} : memref<72xf32>, vector<4xf32>
func.func @concat(%x: tensor<2x6x4xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x9x4xf32> {
  %0 = tfuse.concat %x, %y axis = 1 : (tensor<2x6x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
  return %0 : tensor<2x9x4xf32>
}

// softmax along axis 1 of [4, 100, 32]: 128 strided rows of 100; row r =
// (outer, inner) starts at outer x 3200 + inner, its elements 32 apart, read
// one at a time.
// CHECK-LABEL: gpu.module @softmax_axis1_kernels
// CHECK:       gpu.func @row_reduction_0(%[[IN:.*]]: memref<12800xf32>, %{{.*}}: memref<12800xf32>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK:       %[[ROW:.*]] = gpu.block_id x
// CHECK:       %[[OUTER:.*]] = arith.divui %[[ROW]], %[[C32:.*]] : index
// CHECK:       %[[INNER:.*]] = arith.remui %[[ROW]], %[[C32]] : index
// CHECK:       %[[C3200:.*]] = arith.constant 3200 : index
// CHECK:       %[[START:.*]] = arith.muli %[[OUTER]], %[[C3200]] : index
// CHECK:       %[[ROWBASE:.*]] = arith.addi %[[START]], %[[INNER]] : index
// CHECK:       %[[STRIDE:.*]] = arith.constant 32 : index
// CHECK-NEXT:  %[[OFFSET:.*]] = arith.muli %{{.*}}, %[[STRIDE]] : index
// CHECK-NEXT:  %[[AT:.*]] = arith.addi %[[ROWBASE]], %[[OFFSET]] : index
// CHECK:       memref.load %[[IN]][%[[AT]]] : memref<12800xf32>
// CHECK:       gpu.shuffle xor
// CHECK:       math.exp
// CHECK-NOT:   vector.load
// CHECK:       gpu.return
func.func @softmax_axis1(%x: tensor<4x100x32xf32>) -> tensor<4x100x32xf32> {
  %0 = tfuse.softmax %x axis = 1 : tensor<4x100x32xf32>
  return %0 : tensor<4x100x32xf32>
}

// sum along axis 0 of [64, 128] (a column reduction): 128 rows of 64,
// 128 apart. A block runs 32 neighbouring rows, one per lane (x), so a
// warp's loads are contiguous, with 8 warps (y) splitting each row: warp w
// loads elements w, w + 8, ..., adds them, and the warps' partials meet in
// shared memory [8 x 32]; warp 0 stores its lane's row (rows past the end
// load the last row and store nothing).
// CHECK-LABEL: gpu.module @reduce_axis0_kernels
// CHECK:       gpu.func @row_reduction_0(%[[IN:.*]]: memref<8192xf32>, %[[SUMS:.*]]: memref<128xf32>) workgroup(%[[SMEM:.*]] : memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {nvvm.maxntid = array<i32: 32, 8, 1>}
// CHECK:       %[[BLOCK:.*]] = gpu.block_id x
// CHECK:       %[[LANE:.*]] = gpu.thread_id x
// CHECK:       %[[WARP:.*]] = gpu.thread_id y
// CHECK:       %[[FIRST:.*]] = arith.muli %[[BLOCK]], %{{.*}} : index
// CHECK:       %[[ANYROW:.*]] = arith.addi %[[FIRST]], %[[LANE]] : index
// CHECK:       %[[INRANGE:.*]] = arith.cmpi ult, %[[ANYROW]], %{{.*}} : index
// CHECK:       %[[ROW:.*]] = arith.select %[[INRANGE]], %[[ANYROW]], %{{.*}} : index
// CHECK:       arith.addi %[[WARP]], %{{.*}} : index
// CHECK:       memref.load %[[IN]][%{{.*}}] : memref<8192xf32>
// CHECK-COUNT-7: memref.load %[[IN]]
// CHECK-NOT:   gpu.shuffle
// CHECK:       memref.store %{{.*}}, %[[SMEM]]
// CHECK-NEXT:  gpu.barrier
// CHECK-COUNT-8: memref.load %[[SMEM]]
// CHECK:       %[[WARP0:.*]] = arith.cmpi eq, %[[WARP]], %{{.*}} : index
// CHECK-NEXT:  %[[STORES:.*]] = arith.andi %[[WARP0]], %[[INRANGE]] : i1
// CHECK-NEXT:  scf.if %[[STORES]] {
// CHECK-NEXT:    memref.store %{{.*}}, %[[SUMS]][%[[ROW]]] : memref<128xf32>
func.func @reduce_axis0(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %0 = tfuse.reduce sum %x axis = 0 : tensor<64x128xf32> -> tensor<128xf32>
  return %0 : tensor<128xf32>
}

// A longer strided row loops: [5000, 40] over axis 0 is 40 rows (2 blocks,
// the second with 8 rows in range) of 5000, 16 loads per thread per tile of
// 128 elements, 40 tiles, the last ragged.
// CHECK-LABEL: gpu.module @reduce_axis0_long_kernels
// CHECK:       gpu.func @row_reduction_0(%[[IN:.*]]: memref<200000xf32>, %{{.*}}: memref<40xf32>) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {nvvm.maxntid = array<i32: 32, 8, 1>}
// CHECK:       %[[TILES:.*]] = arith.constant 40 : index
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[TILES]]
// CHECK-COUNT-16: memref.load %[[IN]]
// CHECK:       scf.yield
// CHECK:       gpu.barrier
func.func @reduce_axis0_long(%x: tensor<5000x40xf32>) -> tensor<40xf32> {
  %0 = tfuse.reduce sum %x axis = 0 : tensor<5000x40xf32> -> tensor<40xf32>
  return %0 : tensor<40xf32>
}

// rope after the head-major transpose: the transpose launches nothing; the
// rope's copy kernel reads [B, S, H, D] at the permuted coordinates, the
// partner vector 16 columns on (first half) or back (second half), the
// frequencies of the vector's columns, and rotates by the position (the
// coordinate along S) as it copies.
// CHECK-LABEL: func.func @rope
// CHECK:       tfuse.transpose %arg0 perm = [0, 2, 1, 3] : tensor<1x16x4x64xbf16> -> tensor<1x4x16x64xbf16>
// CHECK-NEXT:  tfuse.rope %{{.*}}, %{{.*}} attention_scaling = 1.000000e+00 {tfuse.kernels = [@rope_kernels::@copy_0]}
// CHECK-LABEL: gpu.module @rope_kernels
// CHECK:       gpu.func @copy_0(%[[SRC:.*]]: memref<4096xbf16>, %[[FREQ:.*]]: memref<16xf32>, %[[DST:.*]]: memref<4096xbf16>) kernel
// CHECK:       %[[COL:.*]] = arith.remui %[[BASE:.*]], %{{.*}} : index
// CHECK:       %[[REST:.*]] = arith.divui %[[BASE]], %{{.*}} : index
// CHECK:       %[[POS:.*]] = arith.remui %[[REST]], %{{.*}} : index
// CHECK:       vector.load %[[SRC]][%{{.*}}] {alignment = 16 : i64} : memref<4096xbf16>, vector<8xbf16>
// CHECK:       %[[C16:.*]] = arith.constant 16 : index
// CHECK:       %[[FIRST:.*]] = arith.cmpi ult, %[[COL]], %[[C16]] : index
// CHECK:       %[[C32:.*]] = arith.constant 32 : index
// CHECK:       %[[ROTATED:.*]] = arith.cmpi ult, %[[COL]], %[[C32]] : index
// CHECK:       vector.load %[[SRC]][%{{.*}}] {alignment = 16 : i64} : memref<4096xbf16>, vector<8xbf16>
// CHECK:       vector.load %[[FREQ]][%{{.*}}] {alignment = 32 : i64} : memref<16xf32>, vector<8xf32>
// CHECK:       %[[P64:.*]] = arith.index_castui %[[POS]] : index to i64
// CHECK:       %[[P:.*]] = arith.uitofp %[[P64]] : i64 to f32
// CHECK:       %[[ANGLE:.*]] = arith.mulf %[[P]], %{{.*}} : f32
// CHECK:       math.cos %[[ANGLE]] : f32
// CHECK:       math.sin %[[ANGLE]] : f32
// CHECK:       arith.negf
// CHECK:       arith.select %[[FIRST]]
// CHECK:       math.fma
// CHECK:       arith.select %[[ROTATED]]
// CHECK:       vector.store %{{.*}}, %[[DST]][%[[BASE]]] {alignment = 16 : i64} : memref<4096xbf16>, vector<8xbf16>
func.func @rope(%x: tensor<1x16x4x64xbf16>) -> tensor<1x4x16x64xbf16> {
  %f = tfuse.constant dense<[1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125]> : tensor<16xf32>
  %t = tfuse.transpose %x perm = [0, 2, 1, 3] : tensor<1x16x4x64xbf16> -> tensor<1x4x16x64xbf16>
  %r = tfuse.rope %t, %f attention_scaling = 1.0 : tensor<1x4x16x64xbf16>, tensor<16xf32>
  return %r : tensor<1x4x16x64xbf16>
}

// A rope whose input is not a transpose read by it alone is a copy kernel
// of its own (here the transpose has a second user).
// CHECK-LABEL: func.func @rope_alone
// CHECK:       tfuse.transpose %arg0 perm = [0, 2, 1, 3] {tfuse.kernels = [@rope_alone_kernels::@copy_0]}
// CHECK:       tfuse.rope %{{.*}}, %{{.*}} attention_scaling = 5.000000e-01 {tfuse.kernels = [@rope_alone_kernels::@copy_1]}
// CHECK-LABEL: gpu.module @rope_alone_kernels
// CHECK:       gpu.func @copy_1(%{{.*}}: memref<4096xbf16>, %{{.*}}: memref<8xf32>, %{{.*}}: memref<4096xbf16>) kernel
// CHECK:       math.cos
func.func @rope_alone(%x: tensor<1x16x4x64xbf16>) -> (tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>) {
  %f = tfuse.constant dense<[1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125]> : tensor<8xf32>
  %t = tfuse.transpose %x perm = [0, 2, 1, 3] : tensor<1x16x4x64xbf16> -> tensor<1x4x16x64xbf16>
  %r = tfuse.rope %t, %f attention_scaling = 0.5 : tensor<1x4x16x64xbf16>, tensor<8xf32>
  return %r, %t : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>
}

// The sliding-window mask alone is a loop kernel that reads nothing:
// -inf above the diagonal or window (16) or more rows below it.
// CHECK-LABEL: gpu.module @window_kernels
// CHECK:       gpu.func @loop_0(%{{.*}}: memref<4096xbf16>) kernel
// CHECK:       %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK:       %[[ROW:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK:       %[[ABOVE:.*]] = arith.cmpi ugt, %[[COL]], %[[ROW]] : index
// CHECK:       %[[C16:.*]] = arith.constant 16 : index
// CHECK:       %[[REACH:.*]] = arith.addi %[[COL]], %[[C16]] : index
// CHECK:       %[[FAR:.*]] = arith.cmpi ule, %[[REACH]], %[[ROW]] : index
// CHECK:       %[[MASKED:.*]] = arith.ori %[[ABOVE]], %[[FAR]] : i1
// CHECK:       arith.select %[[MASKED]], %{{.*}}, %{{.*}} : f32
func.func @window() -> tensor<64x64xbf16> {
  %m = tfuse.window_mask window = 16 : tensor<64x64xbf16>
  return %m : tensor<64x64xbf16>
}

// A fused prologue runs on the strided row too: max of exp(x) along axis 0.
// CHECK-LABEL: gpu.module @fused_reduce_axis0_kernels
// CHECK:       gpu.func @row_reduction_0(%[[X:.*]]: memref<8192xf32>, %[[MAX:.*]]: memref<128xf32>)
// CHECK:       memref.load %[[X]][%{{.*}}] : memref<8192xf32>
// CHECK:       math.exp
// CHECK:       arith.maximumf
// CHECK:       memref.store %{{.*}}, %[[MAX]][%{{.*}}] : memref<128xf32>
func.func @fused_reduce_axis0(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %0 = tfuse.fusion row_reduction (%x) : (tensor<64x128xf32>) -> tensor<128xf32> {
  ^bb0(%a: tensor<64x128xf32>):
    %e = tfuse.exp %a : tensor<64x128xf32>
    %r = tfuse.reduce max %e axis = 0 : tensor<64x128xf32> -> tensor<128xf32>
    tfuse.yield %r : tensor<128xf32>
  }
  return %0 : tensor<128xf32>
}
