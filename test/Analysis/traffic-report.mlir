// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=text" | FileCheck %s --check-prefix=TEXT
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=json" | FileCheck %s --check-prefix=JSON
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=html output=%t.html"
// RUN: FileCheck %s --check-prefix=HTML < %t.html
// RUN: python3 -c "import sys, xml.dom.minidom as m; m.parseString(open(sys.argv[1]).read().replace('<!DOCTYPE html>', ''))" %t.html

// Bytes and FLOPs against hand counts on a toy target: 1000 GB/s achievable
// (10^6 bytes/us), fp32 10 TFLOP/s (10^7 FLOP/us), bf16 tensor 100 TFLOP/s,
// 1 us launch, 1 MiB L2, 100 KiB shared memory per SM.

// TEXT-LABEL: @hand_counts
// JSON: "ops": [
func.func @hand_counts(%a: tensor<1024x1024xf16>, %b: tensor<1024x1024xf16>,
                       %x: tensor<64x1024xf32>, %g: tensor<1024xf32>, %beta: tensor<1024xf32>,
                       %s: tensor<32x128xbf16>, %act: tensor<8x128x1024xbf16>,
                       %w: tensor<1024x4096xbf16> {tfuse.name = "mlp.weight"}) -> (tensor<1024x1024xf16>, tensor<64x1024xf32>, tensor<64x1024xf32>, tensor<32x128xbf16>, tensor<8x128x4096xbf16>, tensor<64x16x64xf32>) {
  // f16 add of two [1024, 1024]: 2 x 2 MiB read, 2 MiB written = 6 MiB;
  // 6291456 B / 10^6 B/us = 6.29 us + 1 us launch = 7.29 us.
  // TEXT: 0  tfuse.add elementwise 4194304 2097152 1048576 0.17 | 7.29 memory
  // JSON:      "op": "tfuse.add",
  // JSON-NEXT: "loc": "{{.*}}traffic-report.mlir:[[@LINE+9]]:8",
  // JSON-NEXT: "class": "elementwise",
  // JSON-NEXT: "compute": "fp32",
  // JSON:      "bytes_read": 4194304,
  // JSON-NEXT: "bytes_written": 2097152,
  // JSON-NEXT: "flops": 1048576,
  // JSON:      "toy": {
  // JSON-NEXT:   "time_us": 7.29145{{[0-9]*}},
  // JSON-NEXT:   "bound": "memory",
  %0 = tfuse.add %a, %b : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>

  // Broadcast add: the [1024] bias is read once (4 KiB), not 64 times.
  // 262144 + 4096 read, 262144 written: 0.53 us of memory time, less than
  // the 1 us launch, so launch-bound.
  // TEXT: 1  tfuse.add elementwise 266240 262144 65536 0.12 | 1.53 launch
  %1 = tfuse.add %x, %g : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>

  // layer_norm f32 [64, 1024] with gamma and beta: 262144 + 2 x 4096 read,
  // 262144 written, 7 FLOPs per element. Its input was written by the
  // previous kernel (262144 B <= half the L2): read from L2 at 2.5x,
  // 262144 / 2.5e6 + (8192 + 262144) / 1e6 = 0.375 us + 1 us launch.
  // TEXT: 2  tfuse.layer_norm reduction 270336 262144 458752 0.86 | 1.38 launch
  // JSON:      "op": "tfuse.layer_norm",
  // JSON:      "l2_bytes": 262144
  %2 = tfuse.layer_norm %1 gamma %g beta %beta eps = 1.0e-5 : (tensor<64x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>

  // softmax bf16 [32, 128]: 8 KiB in, 8 KiB out, 5 FLOPs per element.
  // TEXT: 3  tfuse.softmax reduction 8192 8192 20480 1.25 | 1.02 launch
  %3 = tfuse.softmax %s axis = 1 : tensor<32x128xbf16>

  // matmul bf16 [8, 128, 1024] x [1024, 4096]: 2 M N K = 8589934592 FLOPs on
  // bf16 tensor cores (10^8 FLOP/us): 85.90 us + 1 us, compute-bound.
  // TEXT: 4  tfuse.matmul contraction 10485760 8388608 8589934592 455.11 | 86.90 compute
  // An operand that is a named argument carries its name; others none.
  // JSON:      "op": "tfuse.matmul",
  // JSON:      "compute": "bf16_tensor",
  // JSON:      "dtype": "bf16"
  // JSON-NEXT: },
  // JSON:      "dtype": "bf16",
  // JSON-NEXT: "name": "mlp.weight"
  // JSON:      "bound": "compute",
  %4 = tfuse.matmul %act, %w : (tensor<8x128x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<8x128x4096xbf16>

  // A reshape is a view: no bytes, no kernel, no time.
  // TEXT: 5  tfuse.reshape view 0 0 0 0.00 | 0.00 none
  %5 = tfuse.reshape %2 : tensor<64x1024xf32> -> tensor<64x16x64xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1024x1024xf16>, tensor<64x1024xf32>, tensor<64x1024xf32>, tensor<32x128xbf16>, tensor<8x128x4096xbf16>, tensor<64x16x64xf32>
}
// 6291456 + 528384 + 532480 + 16384 + 18874368 = 26243072 bytes.
// TEXT: function totals: 26243072 bytes (26.243 MB: 15224832 read, 11018240 written), 8591527936 flops
// 7.291456 + 1.528384 + 1.3751936 + 1.016384 + 86.89934592 = 98.11076352 us;
// memory-bound 7.29 (7.4%), compute-bound 86.90 (88.6%), launch-bound 3.92 (4.0%).
// TEXT-NEXT: toy 98.11 us in 5 kernels; bandwidth-bound 7.4%, compute-bound 88.6%, launch-bound 4.0%; 262144 bytes read from L2

// JSON:      "totals": {
// JSON-NEXT:   "bytes": 26243072,
// JSON-NEXT:   "bytes_read": 15224832,
// JSON-NEXT:   "bytes_written": 11018240,
// JSON-NEXT:   "flops": 8591527936,
// JSON-NEXT:   "targets": {
// JSON-NEXT:     "toy": {
// JSON-NEXT:       "time_us": 98.1107635{{[0-9]*}},
// JSON-NEXT:       "bandwidth_bound_share": 0.0743{{[0-9]*}},

// HTML: <title>tfuse traffic report</title>
// HTML: <svg xmlns='http://www.w3.org/2000/svg'
// HTML: <polyline class='roof'
// 8589934592 FLOPs in 86.899 us: 98.849 TFLOP/s, under the toy's 100 TFLOP/s roof.
// HTML: <circle {{.*}} class='c-contraction'><title>#4 gemm_4 tfuse.matmul: 455.11 FLOP/B, predicted 86.90 us, 98.849 TFLOP/s, compute-bound
// HTML: bf16 tensor x 1.00 100.0 TFLOP/s
// HTML: </svg>
