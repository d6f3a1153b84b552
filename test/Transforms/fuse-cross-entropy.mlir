// RUN: tfuse-opt %s --tfuse-fuse=target=h200 | FileCheck %s

// A loss's row kernels take elementwise producers and (for the gradient)
// consumers as any row op does. The forward writes only per-row values, so
// the cast that the gradient also reads is recomputed in it from the bf16
// logits (bytes by hand: 64000 x 2 + 256 labels read + 2 x 256 written =
// 128768, against 256000 of f32 logits + 768 = 256768), and the gradient's
// kernel then takes the cast itself; its residual add joins as an epilogue
// (apart: 128000 + 256 + 256 read + 256000 written by the gradient, 256000 x
// 2 read + 256000 written by the add = 1152512; merged: 128000 + 512 +
// 256000 read + 256000 written = 640512).

// CHECK-LABEL: func.func @loss_fusion
// CHECK-SAME: bytes_apart = 256768 : i64, bytes_merged = 128768 : i64, consumer = "tfuse.cross_entropy at {{[^"]*}}", fused = true, kind = "row_reduction", producer = "tfuse.cast at {{[^"]*}}", reason = "recomputed: 128768 bytes in {{.*}} us as one row_reduction kernel that recomputes it, against 256768 bytes in {{.*}} us reading its result on h200"
// CHECK-SAME: consumer = "tfuse.cross_entropy_grad at {{[^"]*}}", fused = true, kind = "row_reduction", producer = "tfuse.cast
// CHECK-SAME: bytes_apart = 1152512 : i64, bytes_merged = 640512 : i64, consumer = "tfuse.cross_entropy_grad at {{[^"]*}}", fused = true, kind = "row_reduction", producer = "tfuse.add
// CHECK:      tfuse.fusion row_reduction(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   tfuse.cast
// CHECK-NEXT:   tfuse.cross_entropy
// CHECK-NEXT:   tfuse.yield
// CHECK:      tfuse.fusion row_reduction(%arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   tfuse.cast
// CHECK-NEXT:   tfuse.cross_entropy_grad
// CHECK-NEXT:   tfuse.add
// CHECK-NEXT:   tfuse.yield
// CHECK-NOT:  tfuse.cast
func.func @loss_fusion(%x: tensor<64x1000xbf16>, %l: tensor<64xi32>, %g: tensor<64xf32>, %r: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x1000xf32>) {
  %y = tfuse.cast %x : tensor<64x1000xbf16> to tensor<64x1000xf32>
  %loss, %counted = tfuse.cross_entropy %y[%l] ignore = -100 : (tensor<64x1000xf32>, tensor<64xi32>) -> (tensor<64xf32>, tensor<64xf32>)
  %dy = tfuse.cross_entropy_grad %y[%l], %g ignore = -100 : (tensor<64x1000xf32>, tensor<64xi32>, tensor<64xf32>) -> tensor<64x1000xf32>
  %s = tfuse.add %dy, %r : (tensor<64x1000xf32>, tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %loss, %counted, %s : tensor<64xf32>, tensor<64xf32>, tensor<64x1000xf32>
}
