// RUN: tfuse-opt %s --tfuse-evaluate=seed=1 -o /dev/null | FileCheck %s
// RUN: tfuse-opt %s --tfuse-evaluate="seed=1 function=squares" -o /dev/null | FileCheck %s --check-prefix=ONE
// RUN: tfuse-opt %s --tfuse-evaluate=seed=1 | FileCheck %s --check-prefix=IR

// Digests of hand-computable results. Hashes are FNV-1a over the result's
// bytes; each line is checked against values worked out by hand.

// [1, 2, 3, 4] squared: sum 30, largest 16.
// CHECK-LABEL: @squares result 0: [4] f32 sum=3.000000e+01 max_abs=1.600000e+01 hash=0x
// ONE: @squares result 0: [4] f32 sum=3.000000e+01
// ONE-NOT: @
func.func @squares() -> tensor<4xf32> {
  %c = tfuse.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = tfuse.mul %c, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// softmax of equal logits is uniform: 3 rows of [0.5, 0.5] sum to 3; the
// row max of [[1, -7], ...] is 1 (both results printed, in order).
// CHECK-LABEL: @two_results result 0: [3, 2] bf16 sum=3.000000e+00 max_abs=5.000000e-01
// CHECK-NEXT:  @two_results result 1: [3] bf16 sum=3.000000e+00 max_abs=1.000000e+00
func.func @two_results() -> (tensor<3x2xbf16>, tensor<3xbf16>) {
  %z = tfuse.constant dense<2.0> : tensor<3x2xbf16>
  %p = tfuse.softmax %z axis = 1 : tensor<3x2xbf16>
  %c = tfuse.constant dense<[[1.0, -7.0], [1.0, -7.0], [1.0, -7.0]]> : tensor<3x2xbf16>
  %m = tfuse.reduce max %c axis = 1 : tensor<3x2xbf16> -> tensor<3xbf16>
  return %p, %m : tensor<3x2xbf16>, tensor<3xbf16>
}

// Random inputs are uniform in [-1, 1): relu(x) - x = max(-x, 0) >= 0 and
// a layer_norm row of 64 values has mean 0, so the whole tensor sums to ~0.
// CHECK-LABEL: @random_inputs result 0: [2, 64] f32 sum={{[0-9]}}
// CHECK-NEXT:  @random_inputs result 1: [2, 64] f32 sum={{-?[0-9]\.[0-9]+e-0[5-9]}}
func.func @random_inputs(%x: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>) {
  %r = tfuse.relu %x : tensor<2x64xf32>
  %d = tfuse.sub %r, %x : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  %n = tfuse.layer_norm %x eps = 1.0e-5 : (tensor<2x64xf32>) -> tensor<2x64xf32>
  return %d, %n : tensor<2x64xf32>, tensor<2x64xf32>
}

// Fusion regions evaluate their body: (x + x) * 0.5 = x, so the digest
// equals that of the identity below.
// CHECK: @fused result 0: [8] f16 sum=[[SUM:.*]] max_abs=[[MAX:.*]] hash=[[HASH:.*]]
// CHECK-NEXT:  @identity result 0: [8] f16 sum=[[SUM]] max_abs=[[MAX]] hash=[[HASH]]
func.func @fused(%x: tensor<8xf16>) -> tensor<8xf16> {
  %y = tfuse.fusion loop (%x) : (tensor<8xf16>) -> tensor<8xf16> {
  ^bb0(%a: tensor<8xf16>):
    %s = tfuse.add %a, %a : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
    %h = tfuse.constant dense<0.5> : tensor<f16>
    %m = tfuse.mul %s, %h : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
    tfuse.yield %m : tensor<8xf16>
  }
  return %y : tensor<8xf16>
}
func.func @identity(%x: tensor<8xf16>) -> tensor<8xf16> {
  return %x : tensor<8xf16>
}

// The pass leaves the IR unchanged.
// IR-LABEL: func.func @squares
// IR: tfuse.mul

// Cross-entropy of uniform rows of 4 classes is ln 4 = 1.386294 per counted
// row: rows 0 and 2 (label 9 clamps to class 3), row 1 is ignored; counted
// sums to 2. The gradient's rows are softmax - onehot = 0.25 - [label],
// times [1, 1, 0.5]: they sum to 0 and the largest is |0.25 - 1| = 0.75.
// CHECK-LABEL: @cross_entropy result 0: [3] f32 sum=2.772589e+00 max_abs=1.386294e+00
// CHECK-NEXT:  @cross_entropy result 1: [3] f32 sum=2.000000e+00 max_abs=1.000000e+00
// CHECK-NEXT:  @cross_entropy result 2: [3, 4] f32 sum=0.000000e+00 max_abs=7.500000e-01
func.func @cross_entropy() -> (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>) {
  %x = tfuse.constant dense<[[0.0, 0.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<3x4xf32>
  %l = tfuse.constant dense<[2, -100, 9]> : tensor<3xi32>
  %g = tfuse.constant dense<[1.0, 1.0, 0.5]> : tensor<3xf32>
  %loss, %counted = tfuse.cross_entropy %x[%l] ignore = -100 : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>)
  %dx = tfuse.cross_entropy_grad %x[%l], %g ignore = -100 : (tensor<3x4xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %loss, %counted, %dx : tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>
}
