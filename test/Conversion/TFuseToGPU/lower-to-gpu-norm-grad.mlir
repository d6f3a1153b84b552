// RUN: tfuse-opt %s --tfuse-lower-to-gpu | FileCheck %s

// tfuse.norm_grad runs in the row kernel: one block per row, x and dy read
// once into registers, four block reductions (mean, centred squares, sum of
// g = dy gamma, sum of g xhat), dx stored as 8-wide vectors, and thread 0
// writes the row's mean and rstd.
// CHECK-LABEL: gpu.module @ln_grad_kernels
// CHECK:       gpu.func @row_reduction_0(%[[X:.*]]: memref<6144xbf16>, %[[DY:.*]]: memref<6144xbf16>, %[[G:.*]]: memref<1024xbf16>, %[[DX:.*]]: memref<6144xbf16>, %[[MEAN:.*]]: memref<6xf32>, %[[RSTD:.*]]: memref<6xf32>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK:       %[[BLOCK:.*]] = gpu.block_id x
// CHECK:       vector.load %[[X]]
// CHECK:       vector.load %[[DY]]
// CHECK:       vector.load %[[G]]
// CHECK:       gpu.barrier
// CHECK:       gpu.barrier
// CHECK:       %[[R:.*]] = math.rsqrt
// CHECK:       gpu.barrier
// CHECK:       gpu.barrier
// CHECK:       vector.store %{{.*}}, %[[DX]][%{{.*}}] {alignment = 16 : i64} : memref<6144xbf16>, vector<8xbf16>
// CHECK:       scf.if
// CHECK-NEXT:    memref.store %{{.*}}, %[[MEAN]][%[[BLOCK]]] : memref<6xf32>
// CHECK-NEXT:    memref.store %[[R]], %[[RSTD]][%[[BLOCK]]] : memref<6xf32>
// CHECK:       gpu.return
func.func @ln_grad(%x: tensor<6x1024xbf16>, %dy: tensor<6x1024xbf16>, %g: tensor<1024xbf16>) -> (tensor<6x1024xbf16>, tensor<6x1xf32>, tensor<6x1xf32>) {
  %0:3 = tfuse.fusion row_reduction (%x, %dy, %g) : (tensor<6x1024xbf16>, tensor<6x1024xbf16>, tensor<1024xbf16>) -> (tensor<6x1024xbf16>, tensor<6x1xf32>, tensor<6x1xf32>) {
  ^bb0(%a: tensor<6x1024xbf16>, %b: tensor<6x1024xbf16>, %c: tensor<1024xbf16>):
    %dx, %mean, %rstd = tfuse.norm_grad %a, %b gamma %c eps = 1.0e-12 : (tensor<6x1024xbf16>, tensor<6x1024xbf16>, tensor<1024xbf16>) -> (tensor<6x1024xbf16>, tensor<6x1xf32>, tensor<6x1xf32>)
    tfuse.yield %dx, %mean, %rstd : tensor<6x1024xbf16>, tensor<6x1xf32>, tensor<6x1xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<6x1024xbf16>, tensor<6x1xf32>, tensor<6x1xf32>
}

// A row of 65536 f32 is too long for registers: the looping kernel reads x
// and dy three times (the mean of squares, the sum of g xhat, dx). With rms
// there is no sum of g; only dx is yielded, so no statistic is stored.
// CHECK-LABEL: gpu.module @rms_grad_long_kernels
// CHECK:       gpu.func @row_reduction_0(%{{.*}}: memref<131072xf32>, %{{.*}}: memref<131072xf32>, %[[OUT:.*]]: memref<131072xf32>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 512, 1, 1>}
// CHECK:       scf.for {{.*}} -> (f32) {
// CHECK:       math.rsqrt
// CHECK:       scf.for {{.*}} -> (f32, f32) {
// CHECK:       scf.for
// CHECK:         vector.store %{{.*}}, %[[OUT]]
// CHECK-NOT:   memref.store
// CHECK:       gpu.return
func.func @rms_grad_long(%x: tensor<2x65536xf32>, %dy: tensor<2x65536xf32>) -> tensor<2x65536xf32> {
  %0 = tfuse.fusion row_reduction (%x, %dy) : (tensor<2x65536xf32>, tensor<2x65536xf32>) -> tensor<2x65536xf32> {
  ^bb0(%a: tensor<2x65536xf32>, %b: tensor<2x65536xf32>):
    %dx, %mean, %rstd = tfuse.norm_grad %a, %b eps = 1.0e-6 rms : (tensor<2x65536xf32>, tensor<2x65536xf32>) -> (tensor<2x65536xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    tfuse.yield %dx : tensor<2x65536xf32>
  }
  return %0 : tensor<2x65536xf32>
}
