// RUN: tfuse-opt %s --tfuse-fuse=target=h200 --tfuse-lower-to-gpu | FileCheck %s
// RUN: rm -rf %t && tfuse-compile %s --target=h200 -o %t/b
// RUN: FileCheck %s --check-prefix=PLAN < %t/b/plan.json

// Rows that need fewer than 32 lanes share warps: a power-of-two lane group
// per row, 128 threads a block, so no lanes idle and no block moves only a
// few hundred bytes. The row reduction shuffles within the group only, lane
// 0 of each group stores its row, and the last block's groups past the end
// compute the last row again and store nothing.

// Attention's delta, sum(dO * O) over rows of 64 bf16 (8 vectors of 8): 8
// lanes a row, 16 rows a block; 30 rows take 2 blocks, rows 30 and 31 idle.
// CHECK-LABEL: gpu.module @delta_kernels
// CHECK:       gpu.func @row_reduction_0(%{{.*}}: memref<1920xbf16>, %{{.*}}: memref<1920xbf16>, %[[OUT:.*]]: memref<30xf32>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK:       %[[BLOCK:.*]] = gpu.block_id x
// CHECK:       %[[TID:.*]] = gpu.thread_id x
// CHECK:       %[[LANES:.*]] = arith.constant 8 : index
// CHECK:       %[[ROWS:.*]] = arith.constant 16 : index
// CHECK:       %[[FIRST:.*]] = arith.muli %[[BLOCK]], %[[ROWS]] : index
// CHECK:       %[[GROUP:.*]] = arith.divui %[[TID]], %[[LANES]] : index
// CHECK:       %[[ROW:.*]] = arith.addi %[[FIRST]], %[[GROUP]] : index
// CHECK:       %[[LANE:.*]] = arith.remui %[[TID]], %[[LANES]] : index
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : index
// CHECK:       %[[CLAMPED:.*]] = arith.select %[[IN]], %[[ROW]], %{{.*}} : index
// CHECK:       vector.load {{.*}} : memref<1920xbf16>, vector<8xbf16>
// CHECK:       vector.load {{.*}} : memref<1920xbf16>, vector<8xbf16>
// CHECK-NOT:   gpu.barrier
// CHECK:       gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK:       gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK:       gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK-NOT:   gpu.shuffle
// CHECK:       %[[LEAD:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}} : index
// CHECK:       %[[STORES:.*]] = arith.andi %[[LEAD]], %[[IN]] : i1
// CHECK:       scf.if %[[STORES]] {
// CHECK-NEXT:    memref.store %{{.*}}, %[[OUT]][%[[CLAMPED]]] : memref<30xf32>
// CHECK:       gpu.return
// PLAN:        "kernel": "row_reduction_0",
// PLAN-NEXT:   "template": "row_reduction",
// PLAN-NEXT:   "grid": [
// PLAN-NEXT:     2,
// PLAN-NEXT:     1,
// PLAN-NEXT:     1
// PLAN-NEXT:   ],
// PLAN-NEXT:   "block": [
// PLAN-NEXT:     128,
func.func @delta(%o: tensor<2x3x5x64xbf16>, %d: tensor<2x3x5x64xbf16>) -> tensor<2x3x5xf32> {
  %a = tfuse.cast %o : tensor<2x3x5x64xbf16> to tensor<2x3x5x64xf32>
  %b = tfuse.cast %d : tensor<2x3x5x64xbf16> to tensor<2x3x5x64xf32>
  %p = tfuse.mul %a, %b : (tensor<2x3x5x64xf32>, tensor<2x3x5x64xf32>) -> tensor<2x3x5x64xf32>
  %r = tfuse.reduce sum %p axis = 3 : tensor<2x3x5x64xf32> -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// softmax over rows of 16 f32 (4 vectors of 4): 4 lanes a row, 32 rows a
// block; 7 rows fill one block partly. Max and sum each shuffle twice; the
// rows' vectors are stored only for rows in range.
// CHECK-LABEL: gpu.module @short_softmax_kernels
// CHECK:       gpu.func @row_reduction_0(%{{.*}}: memref<112xf32>, %[[Y:.*]]: memref<112xf32>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c7 : index
// CHECK:       gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK-NEXT:  arith.maximumf
// CHECK:       gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK-NEXT:  arith.maximumf
// CHECK:       gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK-NEXT:  arith.addf
// CHECK:       gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK-NEXT:  arith.addf
// CHECK-NOT:   gpu.shuffle
// CHECK:       scf.if %[[IN]] {
// CHECK:         vector.store %{{.*}}, %[[Y]][%{{.*}}] {alignment = 16 : i64} : memref<112xf32>, vector<4xf32>
// CHECK:       gpu.return
func.func @short_softmax(%x: tensor<7x16xf32>) -> tensor<7x16xf32> {
  %0 = tfuse.softmax %x axis = 1 : tensor<7x16xf32>
  return %0 : tensor<7x16xf32>
}
