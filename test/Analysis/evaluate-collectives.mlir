// RUN: tfuse-opt %s --tfuse-evaluate -o /dev/null | FileCheck %s

// --tfuse-evaluate runs a function as one rank's program and takes every
// rank of a collective's group to hold the same data (docs/multi-gpu.md):
// all_reduce is group_size x x rounded once, reduce_scatter rank 0's slice of
// that, all_gather x repeated group_size times. Digests worked out by hand.

// 3 x [1.0078125, -2] = [3.0234375, -6]; 3.0234375 is the bf16 tie between
// 3.015625 and 3.03125 (spacing 2^-6 in [2, 4)), to even: 3.03125. Sum
// 3.03125 - 6 = -2.96875, largest magnitude 6.
// CHECK-LABEL: @all_reduce result 0: [2] bf16 sum=-2.968750e+00 max_abs=6.000000e+00 hash=0x
func.func @all_reduce() -> tensor<2xbf16> {
  %c = tfuse.constant dense<[1.0078125, -2.0]> : tensor<2xbf16>
  %s = tfuse.all_reduce %c group_size = 3 : tensor<2xbf16>
  return %s : tensor<2xbf16>
}

// 2 x [[1, 2], [3, 4]] = [[2, 4], [6, 8]]; along axis 1 rank 0 keeps column
// 0, [2, 6]: sum 8, largest 6. Along axis 0 it keeps row 0, [2, 4]: sum 6.
// CHECK-LABEL: @reduce_scatter result 0: [2, 1] f32 sum=8.000000e+00 max_abs=6.000000e+00
// CHECK-NEXT:  @reduce_scatter result 1: [1, 2] f32 sum=6.000000e+00 max_abs=4.000000e+00
func.func @reduce_scatter() -> (tensor<2x1xf32>, tensor<1x2xf32>) {
  %c = tfuse.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %a = tfuse.reduce_scatter %c axis = 1 group_size = 2 : tensor<2x2xf32> -> tensor<2x1xf32>
  %b = tfuse.reduce_scatter %c group_size = 2 : tensor<2x2xf32> -> tensor<1x2xf32>
  return %a, %b : tensor<2x1xf32>, tensor<1x2xf32>
}

// [1, -2] three times: [1, -2, 1, -2, 1, -2], sum -3, largest 2.
// CHECK-LABEL: @all_gather result 0: [6] f16 sum=-3.000000e+00 max_abs=2.000000e+00
func.func @all_gather() -> tensor<6xf16> {
  %c = tfuse.constant dense<[1.0, -2.0]> : tensor<2xf16>
  %g = tfuse.all_gather %c group_size = 3 : tensor<2xf16> -> tensor<6xf16>
  return %g : tensor<6xf16>
}
