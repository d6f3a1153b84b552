// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=text" | FileCheck %s --check-prefix=TEXT
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=json" | FileCheck %s --check-prefix=JSON

// Sizes past 2^32 that fit int64 are counted exactly. The toy target moves
// 10^6 bytes/us and launches in 1 us.

// A relu over a batch of 2^30 rows of 4 f32: 2^32 elements, 2^34 bytes
// read and 2^34 written; 2^35 B / 10^6 B/us = 34359.738368 us + 1 us.
// TEXT-LABEL: @batch_past_2_32
// TEXT: 0  tfuse.relu elementwise 17179869184 17179869184 4294967296 0.12 | 34360.74 memory
// TEXT: function totals: 34359738368 bytes (34359.738 MB: 17179869184 read, 17179869184 written), 4294967296 flops
// JSON:      "op": "tfuse.relu",
// JSON:      "bytes_read": 17179869184,
// JSON-NEXT: "bytes_written": 17179869184,
// JSON-NEXT: "flops": 4294967296,
// JSON:      "time_us": 34360.73836{{[0-9]*}},
func.func @batch_past_2_32(%x: tensor<1073741824x4xf32>) -> tensor<1073741824x4xf32> {
  %y = tfuse.relu %x : tensor<1073741824x4xf32>
  return %y : tensor<1073741824x4xf32>
}
