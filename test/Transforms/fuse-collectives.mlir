// RUN: tfuse-opt %s --tfuse-fuse=target=a40 | FileCheck %s
// RUN: tfuse-opt %s --tfuse-fuse=target=a40 --remarks-filter=tfuse-fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tfuse-opt %s --tfuse-evaluate=seed=3 -o /dev/null > %t.before
// RUN: tfuse-opt %s --tfuse-fuse=target=a40 --tfuse-evaluate=seed=3 -o /dev/null > %t.fused
// RUN: diff %t.before %t.fused

// A collective runs between GPUs, not in a kernel: tfuse-fuse never puts
// one into a tfuse.fusion (the fusion verifier refuses it too), and the
// elementwise ops around it fuse among themselves. Semantics are kept (the
// evaluation digests match before and after fusion).

// Row-parallel linear layer: the partial products are all-reduced before
// the bias and the GELU, which fuse into one loop kernel after it.
// CHECK-LABEL: func.func @row_parallel_linear
// CHECK:       %[[M:.*]] = tfuse.matmul
// CHECK-NEXT:  %[[R:.*]] = tfuse.all_reduce %[[M]] group_size = 4 : tensor<64x1024xbf16>
// CHECK-NEXT:  %[[F:.*]] = tfuse.fusion loop(%[[R]], %{{.*}})
// CHECK-NOT:     tfuse.all_reduce
// CHECK:         tfuse.add
// CHECK-NEXT:    tfuse.gelu
// CHECK:       return %[[F]]
// REMARK: Function=row_parallel_linear | Remark="not-elementwise: tfuse.all_reduce at {{.*}}fuse-collectives.mlir:[[@LINE+3]]:8 is a collective op; a loop kernel takes only elementwise ops around its anchor"
func.func @row_parallel_linear(%x: tensor<64x256xbf16>, %w: tensor<256x1024xbf16>, %b: tensor<1024xbf16>) -> tensor<64x1024xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<64x256xbf16>, tensor<256x1024xbf16>) -> tensor<64x1024xbf16>
  %r = tfuse.all_reduce %m group_size = 4 : tensor<64x1024xbf16>
  %a = tfuse.add %r, %b : (tensor<64x1024xbf16>, tensor<1024xbf16>) -> tensor<64x1024xbf16>
  %g = tfuse.gelu %a approximate = tanh : tensor<64x1024xbf16>
  return %g : tensor<64x1024xbf16>
}

// A collective between two elementwise ops, and as the prologue of a row
// reduction: neither the loop kernel nor the softmax takes it.
// CHECK-LABEL: func.func @between_kernels
// CHECK:       tfuse.fusion loop
// CHECK:       tfuse.yield
// CHECK:       %[[G:.*]] = tfuse.all_gather %{{.*}} group_size = 2 : tensor<32x128xf32> -> tensor<64x128xf32>
// CHECK:       tfuse.fusion row_reduction(%[[G]]
// CHECK-NOT:     tfuse.all_gather
// CHECK:         tfuse.softmax
// REMARK: Function=between_kernels | Remark="not-elementwise: tfuse.all_gather at {{.*}}fuse-collectives.mlir:[[@LINE+4]]:8 is a collective op; a row_reduction kernel takes only elementwise ops around its anchor"
func.func @between_kernels(%x: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %e = tfuse.exp %x : tensor<32x128xf32>
  %n = tfuse.neg %e : tensor<32x128xf32>
  %g = tfuse.all_gather %n group_size = 2 : tensor<32x128xf32> -> tensor<64x128xf32>
  %t = tfuse.tanh %g : tensor<64x128xf32>
  %s = tfuse.softmax %t axis = 1 : tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}
