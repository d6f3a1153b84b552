// RUN: tfuse-opt %s --tfuse-lower-to-gpu | FileCheck %s

// tfuse.cross_entropy and its gradient run in the row kernel: one block per
// row, the label loaded once per row (clamped into the row, compared with
// ignore_index), the online softmax's max and sum, and the label's logit.

// The loss over rows of 50257 bf16 (a GPT-2 vocabulary): the looping kernel
// (7 tiles of 8192) carries the max, the rescaled sum and the label's logit
// in one pass; thread 0 writes log(sum) + max - logit and counted.
// CHECK-LABEL: gpu.module @loss_rows_kernels
// CHECK:       gpu.func @row_reduction_0(%[[X:.*]]: memref<201028xbf16>, %[[L:.*]]: memref<4xi64>, %[[LOSS:.*]]: memref<4xf32>, %[[COUNTED:.*]]: memref<4xf32>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 512, 1, 1>}
// CHECK:       %[[BLOCK:.*]] = gpu.block_id x
// CHECK:       %[[LABEL:.*]] = memref.load %[[L]][%[[BLOCK]]] : memref<4xi64>
// CHECK:       %[[IGNORED:.*]] = arith.cmpi eq, %[[LABEL]], %{{.*}} : i64
// CHECK:       %[[LOW:.*]] = arith.maxsi %[[LABEL]], %{{.*}} : i64
// CHECK:       %[[CLAMPED:.*]] = arith.minsi %[[LOW]], %c50256_i64 : i64
// CHECK:       %[[COLUMN:.*]] = arith.index_cast %[[CLAMPED]] : i64 to index
// CHECK:       %[[STATS:.*]]:3 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32, f32) {
// CHECK:         memref.load %[[X]]
// CHECK:         arith.maximumf
// CHECK:         math.exp
// CHECK:         arith.cmpi eq, %{{.*}}, %[[COLUMN]] : index
// CHECK:         scf.yield
// CHECK:       gpu.shuffle xor %[[STATS]]#0
// CHECK:       gpu.barrier
// CHECK:       gpu.shuffle xor
// CHECK:       gpu.barrier
// CHECK:       gpu.shuffle xor %[[STATS]]#2
// CHECK:       gpu.barrier
// CHECK:       %[[LOG:.*]] = math.log
// CHECK:       %[[LSE:.*]] = arith.addf %[[LOG]]
// CHECK:       %[[DIFF:.*]] = arith.subf %[[LSE]]
// CHECK:       %[[LOSSV:.*]] = arith.select %[[IGNORED]], %{{.*}}, %[[DIFF]] : f32
// CHECK:       %[[COUNTEDV:.*]] = arith.select %[[IGNORED]], %{{.*}}, %{{.*}} : f32
// CHECK:       scf.if
// CHECK-NEXT:    memref.store %[[LOSSV]], %[[LOSS]][%[[BLOCK]]] : memref<4xf32>
// CHECK-NEXT:    memref.store %[[COUNTEDV]], %[[COUNTED]][%[[BLOCK]]] : memref<4xf32>
// CHECK:       gpu.return
func.func @loss_rows(%x: tensor<4x50257xbf16>, %l: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = tfuse.fusion row_reduction (%x, %l) : (tensor<4x50257xbf16>, tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4x50257xbf16>, %c: tensor<4xi64>):
    %loss, %counted = tfuse.cross_entropy %a[%c] ignore = -100 : (tensor<4x50257xbf16>, tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>)
    tfuse.yield %loss, %counted : tensor<4xf32>, tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// The gradient over rows of 1000 bf16 in registers (8-wide vectors), with
// an epilogue (a residual add): (exp(x - max) / sum - [column == label]) *
// loss_grad[row], zero where the label is ignore_index (0 here).
// CHECK-LABEL: gpu.module @loss_grad_kernels
// CHECK:       gpu.func @row_reduction_0(%{{.*}}: memref<6000xbf16>, %[[L:.*]]: memref<6xi32>, %[[G:.*]]: memref<6xf32>, %{{.*}}: memref<6000xbf16>, %[[OUT:.*]]: memref<6000xbf16>) workgroup({{.*}}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK:       %[[BLOCK:.*]] = gpu.block_id x
// CHECK:       %[[LABEL32:.*]] = memref.load %[[L]][%[[BLOCK]]] : memref<6xi32>
// CHECK:       %[[LABEL:.*]] = arith.extsi %[[LABEL32]] : i32 to i64
// CHECK:       %[[IGNORED:.*]] = arith.cmpi eq, %[[LABEL]], %c0_i64 : i64
// CHECK:       %[[COLUMN:.*]] = arith.index_cast
// CHECK:       %[[INVERSE:.*]] = arith.divf
// CHECK:       %[[DLOSS:.*]] = memref.load %[[G]][%[[BLOCK]]] : memref<6xf32>
// CHECK:       %[[SCALE:.*]] = arith.select %[[IGNORED]], %{{.*}}, %[[DLOSS]] : f32
// CHECK:       math.exp
// CHECK:       %[[P:.*]] = arith.mulf %{{.*}}, %[[INVERSE]] : f32
// CHECK:       %[[IS:.*]] = arith.cmpi eq, %{{.*}}, %[[COLUMN]] : index
// CHECK:       %[[ONEHOT:.*]] = arith.select %[[IS]]
// CHECK:       %[[D:.*]] = arith.subf %[[P]], %[[ONEHOT]] : f32
// CHECK:       %[[SCALED:.*]] = arith.mulf %[[D]], %[[SCALE]] : f32
// CHECK:       arith.select %[[IGNORED]], %{{.*}}, %[[SCALED]] : f32
// CHECK:       vector.store %{{.*}}, %[[OUT]][%{{.*}}] {alignment = 16 : i64} : memref<6000xbf16>, vector<8xbf16>
func.func @loss_grad(%x: tensor<2x3x1000xbf16>, %l: tensor<2x3xi32>, %g: tensor<2x3xf32>, %r: tensor<2x3x1000xbf16>) -> tensor<2x3x1000xbf16> {
  %0 = tfuse.fusion row_reduction (%x, %l, %g, %r) : (tensor<2x3x1000xbf16>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3x1000xbf16>) -> tensor<2x3x1000xbf16> {
  ^bb0(%a: tensor<2x3x1000xbf16>, %c: tensor<2x3xi32>, %d: tensor<2x3xf32>, %e: tensor<2x3x1000xbf16>):
    %dx = tfuse.cross_entropy_grad %a[%c], %d ignore = 0 : (tensor<2x3x1000xbf16>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<2x3x1000xbf16>
    %s = tfuse.add %dx, %e : (tensor<2x3x1000xbf16>, tensor<2x3x1000xbf16>) -> tensor<2x3x1000xbf16>
    tfuse.yield %s : tensor<2x3x1000xbf16>
  }
  return %0 : tensor<2x3x1000xbf16>
}
