// RUN: tfuse-opt %s --tfuse-lower-to-gpu | FileCheck %s

// Rows longer than one block's registers hold (1024 threads x 32 elements)
// run in the looping row kernel: 512 threads walk the row in tiles of 512 x
// 16 elements, once for the statistics and, unless the kernel writes one
// value per row, once more to write. Every kernel carries its block size
// (nvvm.maxntid) so that ptxas budgets registers for it.

// softmax(x + b) over rows of 50257 bf16 (odd: one element per access):
// tiles of 8192 elements, 7 of them; online softmax carries the running max
// and the rescaled sum; the second pass recomputes x + b.
// CHECK-LABEL: gpu.module @online_softmax_kernels
// CHECK:       gpu.func @row_reduction_0(%{{.*}}: memref<201028xbf16>, %{{.*}}: memref<50257xbf16>, %{{.*}}: memref<201028xbf16>) workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>) kernel attributes {nvvm.maxntid = array<i32: 512, 1, 1>}
// CHECK:       %[[TILES:.*]] = arith.constant 7 : index
// CHECK:       %[[STATS:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %[[TILES]] step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK-NEXT:    %[[TILE:.*]] = arith.constant 8192 : index
// CHECK-NEXT:    arith.muli %[[T]], %[[TILE]] : index
// CHECK:         memref.load %{{.*}} : memref<201028xbf16>
// CHECK:         memref.load %{{.*}} : memref<50257xbf16>
// CHECK:         arith.maximumf %[[M]]
// CHECK:         arith.cmpf oeq
// CHECK:         math.exp
// CHECK:         scf.yield
// CHECK:       gpu.shuffle xor %[[STATS]]#0
// CHECK:       gpu.barrier
// CHECK:       math.exp
// CHECK:       gpu.shuffle xor
// CHECK:       gpu.barrier
// CHECK:       arith.divf
// CHECK:       arith.constant 7 : index
// CHECK:       scf.for
// CHECK:         memref.load %{{.*}} : memref<201028xbf16>
// CHECK:         memref.load %{{.*}} : memref<50257xbf16>
// CHECK:         arith.addf
// CHECK:         math.exp
// CHECK:         scf.if
// CHECK:           memref.store %{{.*}} : memref<201028xbf16>
// CHECK:       gpu.return
func.func @online_softmax(%x: tensor<4x50257xbf16>, %b: tensor<50257xbf16>) -> tensor<4x50257xbf16> {
  %0 = tfuse.fusion row_reduction (%x, %b) : (tensor<4x50257xbf16>, tensor<50257xbf16>) -> tensor<4x50257xbf16> {
  ^bb0(%a: tensor<4x50257xbf16>, %c: tensor<50257xbf16>):
    %s = tfuse.add %a, %c : (tensor<4x50257xbf16>, tensor<50257xbf16>) -> tensor<4x50257xbf16>
    %m = tfuse.softmax %s axis = 1 : tensor<4x50257xbf16>
    tfuse.yield %m : tensor<4x50257xbf16>
  }
  return %0 : tensor<4x50257xbf16>
}

// layer_norm over rows of 40000 f32: 4-wide vectors, tiles of 8192, 5 of
// them. The statistics pass sums d = x - x[0] and d^2 in f32.
// CHECK-LABEL: gpu.module @long_layer_norm_kernels
// CHECK:       gpu.func @row_reduction_0({{.*}}) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 512, 1, 1>}
// CHECK:       %[[K:.*]] = vector.extract %{{.*}}[0] : f32 from vector<4xf32>
// CHECK:       %[[SUMS:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32) {
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<80000xf32>, vector<4xf32>
// CHECK:         arith.subf %{{.*}}, %[[K]] : f32
// CHECK:         scf.yield
// CHECK:       gpu.shuffle xor %[[SUMS]]#0
// CHECK:       gpu.shuffle xor %[[SUMS]]#1
// CHECK:       arith.maximumf
// CHECK:       math.rsqrt
// CHECK:       scf.for
// CHECK:         vector.load %{{.*}} : memref<40000xf32>, vector<4xf32>
// CHECK:         vector.store %{{.*}} : memref<80000xf32>, vector<4xf32>
// CHECK:       gpu.return
func.func @long_layer_norm(%x: tensor<2x40000xf32>, %g: tensor<40000xf32>, %b: tensor<40000xf32>) -> tensor<2x40000xf32> {
  %0 = tfuse.layer_norm %x gamma %g beta %b eps = 1.0e-05 : (tensor<2x40000xf32>, tensor<40000xf32>, tensor<40000xf32>) -> tensor<2x40000xf32>
  return %0 : tensor<2x40000xf32>
}

// A sum over rows of 256000 f32 is one pass; thread 0 writes the row's sum.
// CHECK-LABEL: gpu.module @long_sum_kernels
// CHECK:       gpu.func @row_reduction_0(%{{.*}}: memref<512000xf32>, %{{.*}}: memref<2xf32>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 512, 1, 1>}
// CHECK:       scf.for {{.*}} -> (f32) {
// CHECK:       scf.yield
// CHECK-NOT:   scf.for
// CHECK:       scf.if
// CHECK:         memref.store %{{.*}} : memref<2xf32>
// CHECK:       gpu.return
func.func @long_sum(%x: tensor<2x256000xf32>) -> tensor<2xf32> {
  %0 = tfuse.reduce sum %x axis = 1 : tensor<2x256000xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Short rows keep the register-resident kernel (no tile loop), launched with
// the threads the row needs.
// CHECK-LABEL: gpu.module @short_row_kernels
// CHECK:       gpu.func @row_reduction_0({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 1024, 1, 1>}
// CHECK-NOT:   scf.for
// CHECK:       gpu.return
func.func @short_row(%x: tensor<2x32768xf32>) -> tensor<2x32768xf32> {
  %0 = tfuse.rms_norm %x eps = 1.0e-06 : (tensor<2x32768xf32>) -> tensor<2x32768xf32>
  return %0 : tensor<2x32768xf32>
}
