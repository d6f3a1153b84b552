// The kernels a function compiles to, as the report prices them: ids shared
// with plan.json, one copy kernel per split piece, and rows the row kernel
// cannot hold flagged instead of being priced as if they compiled.
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
// (1024 threads x 32 elements).
// JSON:      "id": "",
// JSON-NEXT: "op_index": 2,
// JSON-NEXT: "template": "row_reduction",
// JSON-NEXT: "emitted": false,
// JSON-NEXT: "unsupported": "a row of 300000 elements does not fit in the registers of one block",

// TEXT-LABEL: @kernels
// TEXT:       tfuse.softmax
// TEXT-NEXT:  (2x300000xf32) -> 2x300000xf32
// TEXT-NEXT:  not compiled: a row of 300000 elements does not fit in the registers of one block
// TEXT:       us in 4 kernels
func.func @kernels(%x: tensor<4x1024xf32>, %r: tensor<2x300000xf32>) -> (tensor<4x512xf32>, tensor<2x300000xf32>) {
  %a, %b = tfuse.split %x axis = 1 : tensor<4x1024xf32> -> tensor<4x512xf32>, tensor<4x512xf32>
  %s = tfuse.add %a, %b : (tensor<4x512xf32>, tensor<4x512xf32>) -> tensor<4x512xf32>
  %m = tfuse.softmax %r axis = 1 : tensor<2x300000xf32>
  return %s, %m : tensor<4x512xf32>, tensor<2x300000xf32>
}
