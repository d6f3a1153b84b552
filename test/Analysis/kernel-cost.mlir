// The kernels a function compiles to, as the report prices them: ids shared
// with plan.json, one copy kernel per split piece, and rows too long for one
// block's registers priced as the looping kernel that reads them twice.
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200 format=json' -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200' -o /dev/null | FileCheck %s --check-prefix=TEXT

// JSON-LABEL: "kernels": [
// The split: two pieces of 4 x 512 f32 (8192 bytes each way per piece).
// JSON:      "id": "copy_0",
// JSON-NEXT: "op_index": 0,
// JSON-NEXT: "template": "copy",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 8192,
// JSON-NEXT: "bytes_written": 8192,
// JSON:      "id": "copy_1",
// JSON-NEXT: "op_index": 0,
// JSON:      "id": "loop_2",
// JSON-NEXT: "op_index": 1,
// JSON-NEXT: "template": "loop",
// The long row: 300000 f32 per row do not fit in one block's registers
// (1024 threads x 32 elements), so the looping kernel reads the row once for
// its max and sum and once more to write: 2 x 2400000 bytes read, 2400000
// written. The 2 rows in flight (2 x 1.2 MB) fit in half the H200's 60 MiB
// L2, so the second read comes from L2: 4800000 B / 4320 GB/s + 2400000 B /
// (2.5 x 4320 GB/s) + 1 us launch = 1.111111 + 0.222222 + 1 = 2.333333 us.
// JSON:      "id": "row_reduction_3",
// JSON-NEXT: "op_index": 2,
// JSON-NEXT: "template": "row_reduction",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 4800000,
// JSON-NEXT: "bytes_written": 2400000,
// JSON:      "time_us": 2.33333333
// JSON-NEXT: "bound": "memory",
// JSON-NEXT: "l2_bytes": 2400000

// TEXT-LABEL: @kernels
// TEXT:       tfuse.softmax
// TEXT-NEXT:  (2x300000xf32) -> 2x300000xf32
// TEXT-NOT:   not compiled
// TEXT:       us in 4 kernels
func.func @kernels(%x: tensor<4x1024xf32>, %r: tensor<2x300000xf32>) -> (tensor<4x512xf32>, tensor<2x300000xf32>) {
  %a, %b = tfuse.split %x axis = 1 : tensor<4x1024xf32> -> tensor<4x512xf32>, tensor<4x512xf32>
  %s = tfuse.add %a, %b : (tensor<4x512xf32>, tensor<4x512xf32>) -> tensor<4x512xf32>
  %m = tfuse.softmax %r axis = 1 : tensor<2x300000xf32>
  return %s, %m : tensor<4x512xf32>, tensor<2x300000xf32>
}

// Rows too long for L2: 1024 rows of 128256 f32 (513024 bytes each). 4 blocks
// of 512 threads fill each of the H200's 132 SMs: 528 rows x 513024 bytes =
// 270.9 MB in flight, more than half the L2, so both reads come from DRAM:
// (2 x 525336576 + 525336576) B / 4320 GB/s + 1 us = 364.817067 + 1 us.
// (Kernels of later functions follow those of @kernels; ids restart at 0.)
// JSON:       "id": "row_reduction_0",
// JSON-NEXT:  "op_index": 3,
// JSON:       "bytes_read": 1050673152,
// JSON-NEXT:  "bytes_written": 525336576,
// JSON:       "time_us": 365.817066
// JSON-NEXT:  "bound": "memory",
// JSON-NEXT:  "l2_bytes": 0
// A sum over the same rows is one pass: 525336576 B read, 4096 written,
// (525336576 + 4096) B / 4320 GB/s + 1 us = 121.606637 + 1 us.
// JSON:       "id": "row_reduction_1",
// JSON:       "bytes_read": 525336576,
// JSON-NEXT:  "bytes_written": 4096,
// JSON:       "time_us": 122.606637
// rms_norm(y + r) over 64 rows of 50257 bf16 (100514 bytes a row, 6432896 a
// tensor): the second pass reads y and r again; gamma is read once, in the
// second pass: 4 x 6432896 + 100514 = 25832098 B read, 6432896 written.
// 64 rows x 2 x 100514 B = 12.9 MB fit in L2, so the 12865792 B read again
// come from there: (25832098 + 6432896 - 12865792) B / 4320 GB/s = 4.490556
// us, 12865792 B / (2.5 x 4320 GB/s) = 1.191277 us, + 1 us = 6.681833 us.
// JSON:       "id": "row_reduction_2",
// JSON:       "bytes_read": 25832098,
// JSON-NEXT:  "bytes_written": 6432896,
// JSON:       "time_us": 6.681833
// JSON-NEXT:  "bound": "memory",
// JSON-NEXT:  "l2_bytes": 12865792
func.func @long_rows(%x: tensor<1024x128256xf32>, %y: tensor<64x50257xbf16>, %r: tensor<64x50257xbf16>, %g: tensor<50257xbf16>) -> (tensor<1024x128256xf32>, tensor<1024xf32>, tensor<64x50257xbf16>) {
  %s = tfuse.softmax %x axis = 1 : tensor<1024x128256xf32>
  %t = tfuse.reduce sum %x axis = 1 : tensor<1024x128256xf32> -> tensor<1024xf32>
  %f = tfuse.fusion row_reduction (%y, %r, %g) : (tensor<64x50257xbf16>, tensor<64x50257xbf16>, tensor<50257xbf16>) -> tensor<64x50257xbf16> {
  ^bb0(%a: tensor<64x50257xbf16>, %b: tensor<64x50257xbf16>, %c: tensor<50257xbf16>):
    %0 = tfuse.add %a, %b : (tensor<64x50257xbf16>, tensor<64x50257xbf16>) -> tensor<64x50257xbf16>
    %1 = tfuse.rms_norm %0 gamma %c eps = 1.0e-06 : (tensor<64x50257xbf16>, tensor<50257xbf16>) -> tensor<64x50257xbf16>
    tfuse.yield %1 : tensor<64x50257xbf16>
  }
  return %s, %t, %f : tensor<1024x128256xf32>, tensor<1024xf32>, tensor<64x50257xbf16>
}

// A cross-entropy over 1024 rows of BERT's 30522-token vocabulary in bf16
// (62509056 bytes of logits): rows fit in registers, so the loss reads them
// once, with the 4096 bytes of i32 labels, and writes loss and counted
// (2 x 4096 B): (62513152 + 8192) B / 4320 GB/s + 1 us = 15.472533 us. Its
// gradient reads the logits, the labels and the loss gradient (4096 B) and
// writes the logits' gradient: (62517248 + 62509056) B / 4320 GB/s + 1 us
// = 29.941274 us.
// (op_index counts the module's ops: 6 before these.)
// JSON:       "id": "row_reduction_0",
// JSON-NEXT:  "op_index": 6,
// JSON-NEXT:  "template": "row_reduction",
// JSON-NEXT:  "emitted": true,
// JSON-NEXT:  "bytes_read": 62513152,
// JSON-NEXT:  "bytes_written": 8192,
// JSON:       "time_us": 15.472533
// JSON:       "id": "row_reduction_1",
// JSON-NEXT:  "op_index": 7,
// JSON-NEXT:  "template": "row_reduction",
// JSON-NEXT:  "emitted": true,
// JSON-NEXT:  "bytes_read": 62517248,
// JSON-NEXT:  "bytes_written": 62509056,
// JSON:       "time_us": 29.941274
func.func @losses(%x: tensor<1024x30522xbf16>, %l: tensor<1024xi32>, %g: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024x30522xbf16>) {
  %loss, %counted = tfuse.cross_entropy %x[%l] ignore = -100 : (tensor<1024x30522xbf16>, tensor<1024xi32>) -> (tensor<1024xf32>, tensor<1024xf32>)
  %dx = tfuse.cross_entropy_grad %x[%l], %g ignore = -100 : (tensor<1024x30522xbf16>, tensor<1024xi32>, tensor<1024xf32>) -> tensor<1024x30522xbf16>
  return %loss, %counted, %dx : tensor<1024xf32>, tensor<1024xf32>, tensor<1024x30522xbf16>
}

// The layer_norm backward of BERT-Large's 16384 tokens in bf16, one row
// kernel: x and dy (33554432 B each) and gamma (2048 B) read once; dx
// (33554432 B) and the per-row mean and rstd (2 x 65536 B of f32) written:
// (67110912 + 33685504) B / 4320 GB/s + 1 us = 24.332503 us.
// (op_index counts the module's ops: 8 before this one.)
// JSON:       "id": "row_reduction_0",
// JSON-NEXT:  "op_index": 8,
// JSON-NEXT:  "template": "row_reduction",
// JSON-NEXT:  "emitted": true,
// JSON-NEXT:  "bytes_read": 67110912,
// JSON-NEXT:  "bytes_written": 33685504,
// JSON:       "time_us": 24.332503
func.func @norm_grad(%x: tensor<16384x1024xbf16>, %dy: tensor<16384x1024xbf16>, %g: tensor<1024xbf16>) -> (tensor<16384x1024xbf16>, tensor<16384x1xf32>, tensor<16384x1xf32>) {
  %dx, %mean, %rstd = tfuse.norm_grad %x, %dy gamma %g eps = 1.0e-12 : (tensor<16384x1024xbf16>, tensor<16384x1024xbf16>, tensor<1024xbf16>) -> (tensor<16384x1024xbf16>, tensor<16384x1xf32>, tensor<16384x1xf32>)
  return %dx, %mean, %rstd : tensor<16384x1024xbf16>, tensor<16384x1xf32>, tensor<16384x1xf32>
}
