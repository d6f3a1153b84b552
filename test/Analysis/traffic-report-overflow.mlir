// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json" 2>&1 | FileCheck %s
// RUN: not tfuse-compile %s --target=%S/Inputs/toy.json -o %t.bundle --no-fuse 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not ls %t.bundle

// tfuse-compile decomposes attention first: its 2^29 x 2^29 scores are a
// tensor of 2^58 elements, which the verifier refuses at the attention.
// COMPILE: traffic-report-overflow.mlir:[[@LINE+6]]:8: error: 'tfuse.matmul' op result #0 ('tensor<1x1x536870912x536870912xf32>') has 288230376151711744 elements; a tensor may have at most 2^40 = 1099511627776

// Each attention fits: 2^29 x 2^29 scores times (4 + 5) = 9 x 2^58 =
// 2594073385365405696 FLOPs, but four of them do not (over 2^63 - 1 =
// 9223372036854775807): the total is refused at the fourth.
func.func @totals_overflow(%q: tensor<1x1x536870912x1xf32>) -> tensor<1x1x536870912x1xf32> {
  %0 = tfuse.attention %q, %q, %q scale = 1.0 : (tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>) -> tensor<1x1x536870912x1xf32>
  %1 = tfuse.attention %0, %0, %0 scale = 1.0 : (tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>) -> tensor<1x1x536870912x1xf32>
  %2 = tfuse.attention %1, %1, %1 scale = 1.0 : (tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>) -> tensor<1x1x536870912x1xf32>
  // CHECK-NOT: tfuse traffic report
  // CHECK: traffic-report-overflow.mlir:[[@LINE+1]]:8: error: 'tfuse.attention' op brings the bytes or FLOPs of the report's totals past what an int64 can count
  %3 = tfuse.attention %2, %2, %2 scale = 1.0 : (tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>, tensor<1x1x536870912x1xf32>) -> tensor<1x1x536870912x1xf32>
  return %3 : tensor<1x1x536870912x1xf32>
}
