// RUN: rm -rf %t && tfuse-compile %s --target=h200 -o %t
// RUN: FileCheck %s < %t/plan.json

// A GEMM of a tensor with itself (a Gram matrix) reads one buffer: the step
// lists it once, and its reference graph has one argument used twice. Found
// by fuzzing: the step listed buffer 0 twice, which the bundle reader (and
// so tfuse-run) refuses.

// CHECK:      "kind": "gemm",
// CHECK-NEXT: "name": "gemm_0",
// CHECK-NEXT: "lhs": 0,
// CHECK-NEXT: "rhs": 0,
// CHECK:      "inputs": [
// CHECK-NEXT:   0
// CHECK-NEXT: ],
// CHECK:      "ops": {
// CHECK-NEXT:   "arguments": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "shape": [
// CHECK-NEXT:         2,
// CHECK-NEXT:         64,
// CHECK-NEXT:         32
// CHECK-NEXT:       ],
// CHECK-NEXT:       "dtype": "f32"
// CHECK-NEXT:     }
// CHECK-NEXT:   ],
// CHECK-NEXT:   "ops": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "op": "tfuse.matmul",
// CHECK-NEXT:       "operands": [
// CHECK-NEXT:         0,
// CHECK-NEXT:         0
// CHECK-NEXT:       ],
func.func @gram(%x: tensor<2x64x32xf32>) -> tensor<2x64x64xf32> {
  %g = tfuse.matmul %x, %x transpose_rhs : (tensor<2x64x32xf32>, tensor<2x64x32xf32>) -> tensor<2x64x64xf32>
  return %g : tensor<2x64x64xf32>
}
