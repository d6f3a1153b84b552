// RUN: rm -rf %t && tfuse-compile %s --target=a40 -o %t/bundle
// RUN: FileCheck %s < %t/bundle/plan.json
// RUN: tfuse-run %t/bundle --validate

// An integer constant outside any kernel (T5's relative position buckets,
// gathered from a learned table) is a constant buffer of its own type with
// its values spelled out: the plan used to read them as floats (a crash).

// CHECK:      "dtype": "i32",
// CHECK-NEXT: "bytes": 16,
// CHECK-NEXT: "kind": "constant",
// CHECK-NEXT: "values": [
// CHECK-NEXT:   0.0,
// CHECK-NEXT:   3.0,
// CHECK-NEXT:   1.0,
// CHECK-NEXT:   0.0
// CHECK-NEXT: ]
func.func @forward(%table: tensor<4x8xf32>) -> tensor<2x2x8xf32> {
  %index = tfuse.constant dense<[[0, 3], [1, 0]]> : tensor<2x2xi32>
  %rows = tfuse.gather %table[%index] : (tensor<4x8xf32>, tensor<2x2xi32>) -> tensor<2x2x8xf32>
  return %rows : tensor<2x2x8xf32>
}
