// RUN: tfuse-opt %s --tfuse-lower-to-gpu | FileCheck %s

// The optimizer updates of a function become one multi_tensor fusion where
// the last of them was, and one kernel: each update owns a range of blocks
// (block ids [first, first + blocks)), one thread per vector of 4 elements
// (1 when the size is not a multiple of 4).

// Two AdamW updates, [2048] (512 threads: blocks 0-1) and [5, 3] (15
// elements: 15 threads of 1, block 2), the second without weight decay;
// the first one's exp_avg_sq is not used, so it is not written.
// CHECK-LABEL: func.func @two_adamw
// CHECK:       %[[F:.*]]:5 = tfuse.fusion multi_tensor(%arg0, %arg1, %arg2, %arg3, %arg8, %arg9, %arg4, %arg5, %arg6, %arg7) attributes {tfuse.kernels = [@two_adamw_kernels::@multi_tensor_0]}
// CHECK:       tfuse.adamw
// CHECK:       tfuse.adamw
// CHECK:       tfuse.yield
// CHECK:       return %[[F]]#0, %[[F]]#1, %[[F]]#2, %[[F]]#3, %[[F]]#4
// CHECK-LABEL: gpu.module @two_adamw_kernels
// CHECK:       gpu.func @multi_tensor_0(%[[P:[^:]*]]: memref<2048xf32>, %[[G:[^:]*]]: memref<2048xf32>, %[[M:[^:]*]]: memref<2048xf32>, %[[V:[^:]*]]: memref<2048xf32>, %[[LR:[^:]*]]: memref<1xf32>, %[[T:[^:]*]]: memref<1xf32>, %[[P2:[^:]*]]: memref<15xf32>, %[[G2:[^:]*]]: memref<15xf32>, %[[M2:[^:]*]]: memref<15xf32>, %[[V2:[^:]*]]: memref<15xf32>, %[[OP:[^:]*]]: memref<2048xf32>, %[[OM:[^:]*]]: memref<2048xf32>, %[[OP2:[^:]*]]: memref<15xf32>, %[[OM2:[^:]*]]: memref<15xf32>, %[[OV2:[^:]*]]: memref<15xf32>) workgroup(%[[SMEM:[^ ]*]] : memref<3xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:       %[[BLOCK:.*]] = gpu.block_id x
// CHECK:       %[[THREAD:.*]] = gpu.thread_id x
// The first update: blocks [0, 2), 512 threads, 4 lanes each.
// CHECK:       %[[OFF:.*]] = arith.subi %[[BLOCK]], %c0
// CHECK:       arith.cmpi ult, %[[OFF]], %c2
// CHECK:       scf.if
// Thread 0 computes lr * weight_decay and the bias corrections in f64,
// each rounded once, for the whole block.
// CHECK:       arith.cmpi eq, %[[THREAD]], %c0
// CHECK:       scf.if
// CHECK:       memref.load %[[LR]]
// CHECK:       memref.load %[[T]]
// CHECK:       arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK:       math.powf %{{.*}}, %{{.*}} : f64
// CHECK:       math.powf %{{.*}}, %{{.*}} : f64
// CHECK:       math.sqrt %{{.*}} : f64
// CHECK:       arith.truncf %{{.*}} : f64 to f32
// CHECK:       memref.store %{{.*}}, %[[SMEM]]
// CHECK:       memref.store %{{.*}}, %[[SMEM]]
// CHECK:       memref.store %{{.*}}, %[[SMEM]]
// CHECK:       gpu.barrier
// CHECK:       memref.load %[[SMEM]]
// CHECK:       arith.cmpi ult, %{{.*}}, %c512
// CHECK:       vector.load %[[P]][%{{.*}}] {alignment = 16 : i64} : memref<2048xf32>, vector<4xf32>
// CHECK:       vector.load %[[G]]
// CHECK:       vector.load %[[M]]
// CHECK:       vector.load %[[V]]
// CHECK:       math.sqrt %{{.*}} : f32
// CHECK:       vector.store %{{.*}}, %[[OP]]
// CHECK-NEXT:  vector.from_elements
// CHECK-NEXT:  vector.store %{{.*}}, %[[OM]]
// CHECK-NOT:   vector.store
// The second: block [2, 3), 15 threads of one element, no decay.
// CHECK:       %[[OFF2:.*]] = arith.subi %[[BLOCK]], %c2
// CHECK:       arith.cmpi ult, %[[OFF2]], %c1
// CHECK:       arith.cmpi ult, %{{.*}}, %c15
// CHECK:       memref.load %[[P2]]
// CHECK:       memref.store %{{.*}}, %[[OP2]]
// CHECK:       memref.store %{{.*}}, %[[OM2]]
// CHECK:       memref.store %{{.*}}, %[[OV2]]
// CHECK:       gpu.return
func.func @two_adamw(%p: tensor<2048xf32>, %g: tensor<2048xf32>, %m: tensor<2048xf32>, %v: tensor<2048xf32>, %p2: tensor<5x3xf32>, %g2: tensor<5x3xf32>, %m2: tensor<5x3xf32>, %v2: tensor<5x3xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<2048xf32>, tensor<2048xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) {
  %0:3 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>, tensor<f32>, tensor<f32>) -> (tensor<2048xf32>, tensor<2048xf32>, tensor<2048xf32>)
  %1:3 = tfuse.adamw %p2, %g2, %m2, %v2 lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.0 : (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>)
  return %0#0, %0#1, %1#0, %1#1, %1#2 : tensor<2048xf32>, tensor<2048xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
}

// A training step of tfuse-apply-optimizer: the updates after the
// backward, grouped behind its last GEMM.
// CHECK-LABEL: func.func @linear_train
// CHECK:       tfuse.matmul
// CHECK:       tfuse.matmul
// CHECK:       tfuse.matmul
// CHECK:       tfuse.fusion multi_tensor
// CHECK-NOT:   tfuse.fusion
// CHECK:       return
// CHECK-LABEL: gpu.module @linear_train_kernels
// CHECK:       gpu.func @multi_tensor_0(
// CHECK:       arith.select
// CHECK:       gpu.return
func.func @linear_train(%arg0: tensor<2x3x4xf32>, %arg1: tensor<5x4xf32>, %arg2: tensor<2x3x5xf32>, %arg3: tensor<5x4xf32>, %arg4: tensor<f32>, %arg5: tensor<f32>) -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xbf16>) {
  %0 = tfuse.matmul %arg0, %arg1 transpose_rhs : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  %1 = tfuse.matmul %arg2, %arg1 : (tensor<2x3x5xf32>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
  %2 = tfuse.reshape %arg0 : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %3 = tfuse.reshape %arg2 : tensor<2x3x5xf32> -> tensor<6x5xf32>
  %4 = tfuse.matmul %3, %2 transpose_lhs : (tensor<6x5xf32>, tensor<6x4xf32>) -> tensor<5x4xf32>
  %5:3 = tfuse.sgd %arg1, %4, %arg3 lr %arg4 step %arg5 momentum = 5.000000e-01 dampening = 2.500000e-01 weight_decay = 1.000000e-03 : (tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xbf16>)
  return %0, %1, %4, %5#0, %5#1, %5#2 : tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xbf16>
}
