// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=a40,h200 format=text" | FileCheck %s --check-prefix=TEXT
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=a40,h200 format=json" | FileCheck %s --check-prefix=JSON
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=text" | FileCheck %s --check-prefix=TOY

// A collective's communication is priced apart from its device-memory
// kernel (docs/cost-model.md, section 4): a ring over the slowest link of
// the group, from targets/a40.json and targets/h200.json, an A40 bridge
// counted as fitted. With n GPUs and a buffer of S bytes (the whole tensor),
// bus bytes = 2 (n - 1) / n S for an all-reduce and (n - 1) / n S for the
// others; time = bus bytes / rate + steps x latency, 2 (n - 1) steps for an
// all-reduce and n - 1 for the others.
//   a40 NVLink 3 bridge (2 GPUs): 56.25 GB/s x 0.8 = 45 GB/s, 1 us a step;
//   a40 PCIe 4.0 x16 (more GPUs): 16 GT/s x 16 / 8 x 128/130 = 31.508 GB/s
//       x 0.65 = 20.48 GB/s, 2 us a step;
//   h200 NVLink 4 (up to 8 GPUs): 450 GB/s x 0.8 = 360 GB/s, 1 us a step.

// all_reduce of S = 1024 x 1024 x 2 = 2097152 B among 2 GPUs: bus bytes
// 2 x 1/2 x S = 2097152, 2 steps.
//   a40 (NVLink): 2097152 / 45000 B/us = 46.60 us + 2 x 1 = 48.60 us;
//   h200: 2097152 / 360000 = 5.83 us + 2 = 7.83 us.
// Its kernel reads and writes S in device memory: 4194304 B / 654.24 GB/s
// (696 x 0.94) = 6.41 us + 1 us launch = 7.41 us on the A40; it adds
// (n - 1) E / n = 1048576 / 2 = 524288 elements.
// TEXT-LABEL: @collectives
// TEXT:      0  tfuse.all_reduce collective 2097152 2097152 524288 0.12 | 7.41 memory
// TEXT:      not compiled: collectives are not emitted yet; see docs/multi-gpu.md
// TEXT-NEXT: communication (not in the kernel times): all_reduce of 2097152 bytes among 2 GPUs
// TEXT-NEXT:   a40 nvlink 2097152 bus bytes: 48.60 us = 46.60 bandwidth + 2.00 latency
// TEXT-NEXT:   h200 nvlink 2097152 bus bytes: 7.83 us = 5.83 bandwidth + 2.00 latency

// reduce_scatter of S = 4096 x 1024 x 2 = 8388608 B among 4 GPUs, each
// keeping 1024 rows: bus bytes 3/4 S = 6291456, 3 steps.
//   a40 (4 GPUs: PCIe): 6291456 / 20480 = 307.20 us + 3 x 2 = 313.20 us;
//   h200: 6291456 / 360000 = 17.48 us + 3 = 20.48 us.
// Device memory: S read, S / 4 = 2097152 B written; 3 x 4194304 / 4 =
// 3145728 additions.
// TEXT:      1  tfuse.reduce_scatter collective 8388608 2097152 3145728
// TEXT:      communication (not in the kernel times): reduce_scatter of 8388608 bytes among 4 GPUs
// TEXT-NEXT:   a40 pcie 6291456 bus bytes: 313.20 us = 307.20 bandwidth + 6.00 latency
// TEXT-NEXT:   h200 nvlink 6291456 bus bytes: 20.48 us = 17.48 bandwidth + 3.00 latency

// all_gather into S = 1024 x 1024 x 4 = 4194304 B (the gathered result)
// among 8 GPUs: bus bytes 7/8 S = 3670016, 7 steps.
//   a40 (PCIe): 3670016 / 20480 = 179.20 us + 7 x 2 = 193.20 us;
//   h200 (8 GPUs: still one NVLink domain): 3670016 / 360000 = 10.19 us
//   + 7 = 17.19 us.
// TEXT:      2  tfuse.all_gather collective 524288 4194304 0
// TEXT:      communication (not in the kernel times): all_gather of 4194304 bytes among 8 GPUs
// TEXT-NEXT:   a40 pcie 3670016 bus bytes: 193.20 us = 179.20 bandwidth + 14.00 latency
// TEXT-NEXT:   h200 nvlink 3670016 bus bytes: 17.19 us = 10.19 bandwidth + 7.00 latency

// One rank sends nothing.
// TEXT:      3  tfuse.all_reduce collective
// TEXT:      communication (not in the kernel times): all_reduce of 4096 bytes among 1 GPUs
// TEXT-NEXT:   a40 none 0 bus bytes: 0.00 us = 0.00 bandwidth + 0.00 latency

// Totals: a40 48.60 + 313.20 + 193.20 = 555.00 us (46.603 + 2 + 313.2 +
// 193.2 = 555.003), h200 7.825 + 20.476 + 17.194 = 45.50 us; bus bytes
// 2097152 + 6291456 + 3670016 = 12058624 on both.
// TEXT:      function totals:
// TEXT:      communication of 4 collectives (not in the times above): a40 555.00 us, 12058624 bus bytes; h200 45.50 us, 12058624 bus bytes

// JSON:      "op": "tfuse.all_reduce",
// JSON:      "class": "collective",
// JSON:      "communication": {
// JSON-NEXT:   "collective": "all_reduce",
// JSON-NEXT:   "group_size": 2,
// JSON-NEXT:   "buffer_bytes": 2097152,
// JSON-NEXT:   "targets": {
// JSON-NEXT:     "a40": {
// JSON-NEXT:       "link": "nvlink",
// JSON-NEXT:       "bus_bytes": 2097152,
// JSON-NEXT:       "bandwidth_us": 46.6033
// JSON-NEXT:       "latency_us": 2,
// JSON-NEXT:       "time_us": 48.6033
// JSON:          "h200": {
// JSON-NEXT:       "link": "nvlink",
// JSON-NEXT:       "bus_bytes": 2097152,
// JSON-NEXT:       "bandwidth_us": 5.8254
// JSON:      "kernels": [
// JSON:        "template": "tfuse.all_reduce",
// JSON-NEXT:   "emitted": false,
// JSON-NEXT:   "unsupported": "collectives are not emitted yet; see docs/multi-gpu.md",
// JSON:      "totals": {
// JSON:        "collectives": 4,
// JSON:          "a40": {
// JSON:            "communication_us": 555.003
// JSON-NEXT:       "bus_bytes": 12058624
// JSON:          "h200": {
// JSON:            "communication_us": 45.49
// JSON-NEXT:       "bus_bytes": 12058624

// A target that describes no interconnect prices no communication.
// TOY: communication (not in the kernel times): all_reduce of 2097152 bytes among 2 GPUs
// TOY-NEXT: toy no price: target "toy" describes no interconnect (add "interconnect" to its file, docs/targets.md)
func.func @collectives(%g: tensor<1024x1024xbf16>, %a: tensor<4096x1024xbf16>, %w: tensor<128x1024xf32>, %l: tensor<1024xf32>) -> (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>, tensor<1024x1024xf32>, tensor<1024xf32>) {
  %0 = tfuse.all_reduce %g group_size = 2 : tensor<1024x1024xbf16>
  %1 = tfuse.reduce_scatter %a group_size = 4 : tensor<4096x1024xbf16> -> tensor<1024x1024xbf16>
  %2 = tfuse.all_gather %w group_size = 8 : tensor<128x1024xf32> -> tensor<1024x1024xf32>
  %3 = tfuse.all_reduce %l group_size = 1 : tensor<1024xf32>
  return %0, %1, %2, %3 : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>, tensor<1024x1024xf32>, tensor<1024xf32>
}
