// The flash kernel's counts can overflow int64 where the op's own do not:
// each of its 346000001^2 = 119716000692000001 scores costs 2 x (16 + 16)
// + 5 = 69 FLOPs (8260404047748000069, under 2^63 - 1 =
// 9223372036854775807, so the verifier admits the op), but with an odd key
// count every score draws its own Philox call of 80 integer slots
// (9577280055360000080, over). The kernel is marked, never priced with a
// wrapped count, and tfuse-compile refuses it with the reason.
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200 format=json' -o /dev/null | FileCheck %s
// RUN: not tfuse-compile %s --target=h200 --fused-attention -o %t.bundle 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not ls %t.bundle

// CHECK-LABEL: "function": "dropout_draws_overflow",
// CHECK:       "kernels": [
// CHECK:       "template": "attention",
// CHECK-NEXT:  "emitted": false,
// CHECK-NEXT:  "unsupported": "its byte, FLOP or integer-op counts overflow int64",
// CHECK-NEXT:  "bytes_read": 0,
// CHECK:       "flops": 0,
// CHECK-NEXT:  "integer_ops": 0,

// COMPILE: kernel-cost-attention-overflow.mlir:[[@LINE+2]]:8: error: 'tfuse.attention' op has no kernel the plan can price: its byte, FLOP or integer-op counts overflow int64
func.func @dropout_draws_overflow(%q: tensor<1x1x346000001x16xbf16>) -> tensor<1x1x346000001x16xbf16> {
  %o = tfuse.attention %q, %q, %q scale = 0.25 dropout_p = 1.000000e-01 seed = 3 : (tensor<1x1x346000001x16xbf16>, tensor<1x1x346000001x16xbf16>, tensor<1x1x346000001x16xbf16>) -> tensor<1x1x346000001x16xbf16>
  return %o : tensor<1x1x346000001x16xbf16>
}
