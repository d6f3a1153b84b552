// RUN: tfuse-opt %s --tfuse-fuse=target=h200 | FileCheck %s

// A loss's row kernels take elementwise producers and (for the gradient)
// consumers as any row op does, and say why not where they cannot: the
// forward writes only per-row values, so a producer read elsewhere stays
// out; its gradient's residual add joins as an epilogue (bytes by hand:
// apart 256000 + 256 + 256 read + 256000 written by the gradient, 256000 x 2
// read + 256000 written by the add = 1280512; merged 256000 x 2 + 512 read +
// 256000 written = 768512).

// CHECK-LABEL: func.func @loss_fusion
// CHECK-SAME: reason = "fusing tfuse.cast at {{[^"]*}} gives a kernel the compiler cannot emit: a tfuse.cross_entropy kernel writes only its per-row values, and tfuse.cast's result is also read outside the kernel", rule = "no-emitter"
// CHECK-SAME: bytes_apart = 1280512 : i64, bytes_merged = 768512 : i64, consumer = "tfuse.cross_entropy_grad at {{[^"]*}}", fused = true, kind = "row_reduction", producer = "tfuse.add
// CHECK:      %[[Y:.*]] = tfuse.cast
// CHECK-NEXT: tfuse.cross_entropy %[[Y]]
// CHECK-NEXT: tfuse.fusion row_reduction(%[[Y]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:        tfuse.cross_entropy_grad
// CHECK-NEXT:   tfuse.add
// CHECK-NEXT:   tfuse.yield
func.func @loss_fusion(%x: tensor<64x1000xbf16>, %l: tensor<64xi32>, %g: tensor<64xf32>, %r: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x1000xf32>) {
  %y = tfuse.cast %x : tensor<64x1000xbf16> to tensor<64x1000xf32>
  %loss, %counted = tfuse.cross_entropy %y[%l] ignore = -100 : (tensor<64x1000xf32>, tensor<64xi32>) -> (tensor<64xf32>, tensor<64xf32>)
  %dy = tfuse.cross_entropy_grad %y[%l], %g ignore = -100 : (tensor<64x1000xf32>, tensor<64xi32>, tensor<64xf32>) -> tensor<64x1000xf32>
  %s = tfuse.add %dy, %r : (tensor<64x1000xf32>, tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %loss, %counted, %s : tensor<64xf32>, tensor<64xf32>, tensor<64x1000xf32>
}
