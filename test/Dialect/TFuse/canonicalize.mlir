// RUN: tfuse-opt %s --canonicalize | FileCheck %s

// Folders: no-op layout changes and casts disappear; chained reshapes
// collapse into one.

// CHECK-LABEL: func.func @identity_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @identity_reshape(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = tfuse.reshape %x : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tfuse.reshape %[[X]] : tensor<2x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<2x8xf32>) -> tensor<4x4xf32> {
  %a = tfuse.reshape %x : tensor<2x8xf32> -> tensor<16xf32>
  %b = tfuse.reshape %a : tensor<16xf32> -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = tfuse.reshape %x : tensor<2x8xf32> -> tensor<16xf32>
  %b = tfuse.reshape %a : tensor<16xf32> -> tensor<2x8xf32>
  return %b : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @identity_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tfuse.transpose %[[X]] perm = [0, 2, 1]
// CHECK-NEXT: return %[[X]], %[[T]]
func.func @identity_transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x4x3xf32>) {
  %a = tfuse.transpose %x perm = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %b = tfuse.transpose %x perm = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  return %a, %b : tensor<2x3x4xf32>, tensor<2x4x3xf32>
}

// CHECK-LABEL: func.func @identity_cast
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: %[[C:.*]] = tfuse.cast %[[X]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT: return %[[X]], %[[C]]
func.func @identity_cast(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xf32>) {
  %a = tfuse.cast %x : tensor<4xbf16> to tensor<4xbf16>
  %b = tfuse.cast %x : tensor<4xbf16> to tensor<4xf32>
  return %a, %b : tensor<4xbf16>, tensor<4xf32>
}

// Unused pure ops, constants included, are erased.
// CHECK-LABEL: func.func @dead_code
// CHECK-NEXT: return
func.func @dead_code(%x: tensor<4xf32>) {
  %c = tfuse.constant dense<1.0> : tensor<4xf32>
  %y = tfuse.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = tfuse.dropout %y p = 0.5 seed = 1 : tensor<4xf32>
  return
}
