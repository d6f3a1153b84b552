// RUN: tfuse-opt %s --tfuse-lower-to-gpu | FileCheck %s

// The kernels tfuse-compile emits, one gpu.module per function, each kernel
// named as plan.json names its step and recorded on the op it computes.

// CHECK: module attributes {gpu.container_module}

// A loop fusion moves 16-byte vectors: 8 bf16, the bias broadcast too.
// CHECK-LABEL: func.func @loop_fusion
// CHECK:       tfuse.fusion loop(%arg0, %arg1) attributes {tfuse.kernels = [@loop_fusion_kernels::@loop_0]}
// CHECK-LABEL: gpu.module @loop_fusion_kernels
// CHECK:       gpu.func @loop_0(%{{.*}}: memref<16384xbf16>, %{{.*}}: memref<256xbf16>, %{{.*}}: memref<16384xbf16>) kernel
// CHECK:       vector.load %{{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// CHECK:       vector.load %{{.*}} {alignment = 16 : i64} : memref<256xbf16>, vector<8xbf16>
// CHECK:       math.tanh
// CHECK:       vector.store %{{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// CHECK:       gpu.return
func.func @loop_fusion(%x: tensor<64x256xbf16>, %b: tensor<256xbf16>) -> tensor<64x256xbf16> {
  %0 = tfuse.fusion loop (%x, %b) : (tensor<64x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16> {
  ^bb0(%a: tensor<64x256xbf16>, %c: tensor<256xbf16>):
    %s = tfuse.add %a, %c : (tensor<64x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
    %g = tfuse.gelu %s approximate = tanh : tensor<64x256xbf16>
    tfuse.yield %g : tensor<64x256xbf16>
  }
  return %0 : tensor<64x256xbf16>
}

// A row reduction keeps the row in registers and reduces with warp
// shuffles, then across warps through workgroup memory.
// CHECK-LABEL: func.func @row_reduction
// CHECK:       tfuse.fusion row_reduction(%arg0, %arg1, %arg2) attributes {tfuse.kernels = [@row_reduction_kernels::@row_reduction_0]}
// CHECK-LABEL: gpu.module @row_reduction_kernels
// CHECK:       gpu.func @row_reduction_0(%{{.*}}: memref<131072xbf16>, %{{.*}}: memref<131072xbf16>, %{{.*}}: memref<1024xbf16>, %{{.*}}: memref<131072xbf16>) workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:       vector.load %{{.*}} : memref<131072xbf16>, vector<8xbf16>
// CHECK:       gpu.shuffle  xor
// CHECK:       gpu.barrier
// CHECK:       math.rsqrt
// CHECK:       vector.store %{{.*}} : memref<131072xbf16>, vector<8xbf16>
func.func @row_reduction(%x: tensor<128x1024xbf16>, %r: tensor<128x1024xbf16>, %g: tensor<1024xbf16>) -> tensor<128x1024xbf16> {
  %0 = tfuse.fusion row_reduction (%x, %r, %g) : (tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024xbf16>) -> tensor<128x1024xbf16> {
  ^bb0(%a: tensor<128x1024xbf16>, %b: tensor<128x1024xbf16>, %c: tensor<1024xbf16>):
    %s = tfuse.add %a, %b : (tensor<128x1024xbf16>, tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
    %n = tfuse.layer_norm %s gamma %c eps = 1.0e-5 : (tensor<128x1024xbf16>, tensor<1024xbf16>) -> tensor<128x1024xbf16>
    tfuse.yield %n : tensor<128x1024xbf16>
  }
  return %0 : tensor<128x1024xbf16>
}

// A split is one copy kernel per piece, each at its offset along the axis.
// CHECK-LABEL: func.func @split
// CHECK:       tfuse.split %arg0 axis = 1 {tfuse.kernels = [@split_kernels::@copy_0, @split_kernels::@copy_1]}
// CHECK-LABEL: gpu.module @split_kernels
// CHECK:       gpu.func @copy_0(%{{.*}}: memref<49152xbf16>, %{{.*}}: memref<16384xbf16>) kernel
// CHECK:       vector.load %{{.*}} : memref<49152xbf16>, vector<8xbf16>
// CHECK:       gpu.func @copy_1(%{{.*}}: memref<49152xbf16>, %{{.*}}: memref<32768xbf16>) kernel
// CHECK:       vector.store %{{.*}} : memref<32768xbf16>, vector<8xbf16>
func.func @split(%x: tensor<64x3x256xbf16>) -> (tensor<64x1x256xbf16>, tensor<64x2x256xbf16>) {
  %a, %b = tfuse.split %x axis = 1 : tensor<64x3x256xbf16> -> tensor<64x1x256xbf16>, tensor<64x2x256xbf16>
  return %a, %b : tensor<64x1x256xbf16>, tensor<64x2x256xbf16>
}

// Standalone ops are wrapped into one-op fusions; the splat constant is
// rebuilt inside the kernel instead of being read.
// CHECK-LABEL: func.func @standalone
// CHECK:       %[[LOOP:.*]] = tfuse.fusion loop(%arg0) attributes {tfuse.kernels = [@standalone_kernels::@loop_0]}
// CHECK-NEXT:  ^bb0(%[[X:.*]]: tensor<32x512xf32>):
// CHECK-NEXT:    %[[C:.*]] = tfuse.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    tfuse.mul %[[X]], %[[C]]
// CHECK:       tfuse.fusion row_reduction(%[[LOOP]]) attributes {tfuse.kernels = [@standalone_kernels::@row_reduction_1]}
// CHECK-NEXT:  ^bb0(%[[Y:.*]]: tensor<32x512xf32>):
// CHECK-NEXT:    tfuse.softmax %[[Y]] axis = 1
// CHECK-LABEL: gpu.module @standalone_kernels
// CHECK:       gpu.func @loop_0(%{{.*}}: memref<16384xf32>, %{{.*}}: memref<16384xf32>) kernel
// CHECK:       gpu.func @row_reduction_1(%{{.*}}: memref<16384xf32>, %{{.*}}: memref<16384xf32>) workgroup
// CHECK:       math.exp
func.func @standalone(%x: tensor<32x512xf32>) -> tensor<32x512xf32> {
  %c = tfuse.constant dense<0.5> : tensor<f32>
  %0 = tfuse.mul %x, %c : (tensor<32x512xf32>, tensor<f32>) -> tensor<32x512xf32>
  %1 = tfuse.softmax %0 axis = 1 : tensor<32x512xf32>
  return %1 : tensor<32x512xf32>
}

// GEMMs are cuBLASLt calls: they name their plan step and emit no gpu.func.
// CHECK-LABEL: func.func @matmul
// CHECK:       tfuse.fusion gemm_epilogue(%arg0, %arg1, %arg2) attributes {tfuse.gemm = "gemm_0"}
// CHECK:       tfuse.fusion loop(%{{.*}}) attributes {tfuse.kernels = [@matmul_kernels::@loop_0]}
// CHECK:       tfuse.matmul %{{.*}}, %arg3 {tfuse.gemm = "gemm_2"}
// CHECK-LABEL: gpu.module @matmul_kernels
// CHECK-NOT:   gpu.func @gemm
// CHECK:       gpu.func @loop_0(%{{.*}}: memref<16384xbf16>, %{{.*}}: memref<16384xbf16>) kernel
// CHECK-NOT:   gpu.func
func.func @matmul(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>, %b: tensor<256xbf16>, %v: tensor<256x32xbf16>) -> tensor<64x32xbf16> {
  %0 = tfuse.fusion gemm_epilogue (%x, %w, %b) : (tensor<64x128xbf16>, tensor<128x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %c: tensor<128x256xbf16>, %d: tensor<256xbf16>):
    %m = tfuse.matmul %a, %c : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xbf16>
    %s = tfuse.add %m, %d : (tensor<64x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
    tfuse.yield %s : tensor<64x256xbf16>
  }
  %1 = tfuse.relu %0 : tensor<64x256xbf16>
  %2 = tfuse.matmul %1, %v : (tensor<64x256xbf16>, tensor<256x32xbf16>) -> tensor<64x32xbf16>
  return %2 : tensor<64x32xbf16>
}

// A declaration has no kernels.
// CHECK-LABEL: func.func private @external
// CHECK-NOT:   gpu.module
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
