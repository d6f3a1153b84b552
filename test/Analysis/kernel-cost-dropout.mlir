// Dropout's Philox draws are integer work the FLOP count misses: each call
// (four draws) costs kElementwisePhiloxCallOps = 130 integer issue slots in
// a loop or row kernel, run at sm_count x 64 x boost clock (h200: 132 x 64
// x 1980 MHz = 16727040 ops a microsecond; a40: 84 x 64 x 1740 = 9354240),
// added to the FLOPs' time (the same warps issue both).
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200,a40 format=json' -o /dev/null | FileCheck %s --check-prefix=JSON

// JSON-LABEL: "targets": [
// JSON:       "name": "h200",
// JSON:       "integer_ops_per_us": 16727040,
// JSON:       "name": "a40",
// JSON:       "integer_ops_per_us": 9354240,
// bf16 [4096, 4096]: 16777216 elements, a call per four (the last axis is
// whole fours): 4194304 calls x 130 = 545259520 ops, 32.597490 us on the
// h200, beside 2 FLOPs an element at 67 TFLOP/s (0.500790 us): compute
// 33.098302 us against memory 2 x 33554432 B / 4320 GB/s = 15.534459 us,
// so 34.098302 us with the launch, compute-bound. On the a40 (memory
// 67108864 B / 654.24 GB/s = 102.575 us; integer 545259520 / 9354240 =
// 58.290 us) memory still bounds it.
// JSON:       "op": "tfuse.dropout",
// JSON:       "h200": {
// JSON-NEXT:    "time_us": 34.0983024
// JSON-NEXT:    "bound": "compute",
// JSON-NEXT:    "memory_us": 15.534459
// JSON-NEXT:    "compute_us": 33.098302
// JSON-NEXT:    "integer_us": 32.597490
// JSON:       "a40": {
// JSON-NEXT:    "time_us": 103.57529
// JSON-NEXT:    "bound": "memory",
// JSON-NEXT:    "memory_us": 102.57529
// JSON-NEXT:    "compute_us": 59.18727
// JSON-NEXT:    "integer_us": 58.29009
// f32 [3, 5]: the last axis is not whole fours, so one call an element:
// 15 x 130 = 1950 ops.
// JSON:       "id": "loop_0",
// JSON:       "flops": 33554432,
// JSON-NEXT:  "integer_ops": 545259520,
// JSON:       "id": "loop_1",
// JSON:       "flops": 30,
// JSON-NEXT:  "integer_ops": 1950,
func.func @dropout(%x: tensor<4096x4096xbf16>, %y: tensor<3x5xf32>) -> (tensor<4096x4096xbf16>, tensor<3x5xf32>) {
  %a = tfuse.dropout %x p = 0.1 seed = 1 : tensor<4096x4096xbf16>
  %b = tfuse.dropout %y p = 0.5 seed = 2 : tensor<3x5xf32>
  return %a, %b : tensor<4096x4096xbf16>, tensor<3x5xf32>
}
