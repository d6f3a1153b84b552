// A tfuse.attention the flash-attention kernel covers is one kernel priced as
// it runs: Q read and O written once, K and V read once per query tile (the
// re-reads from L2 when one kv head fits in half of it), the FLOPs of the
// score tiles it visits, the mask at its own size. Other attention is
// flagged, not priced as a kernel.
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200 format=json' -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200' -o /dev/null | FileCheck %s --check-prefix=TEXT

// Causal f16, B 1, H 2, Sq = Sk = 200, D 16, Dv 32 (query tiles of 128
// rows: 4 warps of two 16-row tiles). Query tile 0 (128 rows) visits 128
// keys, tile 1 (72 rows) all 200: 2 x (128 x 128 + 72 x 200) = 61568
// scores, 61568 x (2 x 48 + 5) = 6218368 FLOPs. K and V: 2 heads x 200 x 48
// x 2 bytes = 38400 read once; the tiles read 2 x (128 + 200) x 48 x 2 =
// 62976, so 24576 are re-reads (from L2: one head's 19200 bytes fit). Q
// 12800 + 38400 + 24576 = 75776 read, O 25600 written.
// JSON-LABEL: "kernels": [
// JSON:      "id": "attention_0",
// JSON-NEXT: "op_index": 0,
// JSON-NEXT: "template": "attention",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 75776,
// JSON-NEXT: "bytes_written": 25600,
// JSON-NEXT: "flops": 6218368,
// JSON-NEXT: "integer_ops": 0,
// JSON-NEXT: "compute": "fp16_tensor",
// JSON:      "l2_bytes": 24576
// An additive mask [1, 1, 1, 200] adds its own 400 bytes to the same reads.
// JSON:      "id": "attention_1",
// JSON-NEXT: "op_index": 1,
// JSON-NEXT: "template": "attention",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 76176,
// Dropout is in the kernel: without causal masking both query tiles visit
// all 200 keys, 2 x (128 + 72) x 200 = 80000 scores, x 101 = 8080000 FLOPs;
// the tiles read 2 x 400 x 48 x 2 = 76800 bytes of K and V, 38400 re-reads:
// 12800 + 38400 + 38400 = 89600 read. Its Philox draws: Sk 200 is whole
// fours, one call per four scores, 20000 x kAttentionPhiloxCallOps (80) =
// 1600000 integer ops.
// JSON:      "id": "attention_2",
// JSON-NEXT: "op_index": 2,
// JSON-NEXT: "template": "attention",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 89600,
// JSON-NEXT: "bytes_written": 25600,
// JSON-NEXT: "flops": 8080000,
// JSON-NEXT: "integer_ops": 1600000,
// f32 runs on no tensor-core kernel: the op's own traffic, no id, the
// reason (op indices count over the module).
// JSON:      "id": "",
// JSON-NEXT: "op_index": 3,
// JSON-NEXT: "template": "tfuse.attention",
// JSON-NEXT: "emitted": false,
// JSON-NEXT: "unsupported": "no fused attention kernel (the fused kernel runs on tensor cores: bf16 or f16 only): tfuse-compile decomposes it (tfuse-decompose-attention)",
// Sk 70 (even, not whole fours): one call per key pair, 70 x 70 / 2 = 2450
// calls, 196000 ops; Sk 71 (odd): one per score, 71 x 71 x 80 = 403280.
// JSON:      "op_index": 4,
// JSON:      "integer_ops": 196000,
// JSON:      "op_index": 5,
// JSON:      "integer_ops": 403280,

// TEXT-LABEL: @attention
// Re-reads from L2: 24576 + 24576 + 38400 = 87552. The dropout's 1600000
// integer ops add 1600000 / 16727040 = 0.096 us (h200) to its compute time.
// TEXT:       3.17 us in 3 kernels; {{.*}} 87552 bytes read from L2
// TEXT-LABEL: @attention_f32
// TEXT:       not compiled: no fused attention kernel (the fused kernel runs on tensor cores: bf16 or f16 only)
func.func @attention(%q: tensor<1x2x200x16xf16>, %k: tensor<1x2x200x16xf16>, %v: tensor<1x2x200x32xf16>, %m: tensor<1x1x1x200xf16>) -> (tensor<1x2x200x32xf16>, tensor<1x2x200x32xf16>, tensor<1x2x200x32xf16>) {
  %o = tfuse.attention %q, %k, %v scale = 2.500000e-01 causal : (tensor<1x2x200x16xf16>, tensor<1x2x200x16xf16>, tensor<1x2x200x32xf16>) -> tensor<1x2x200x32xf16>
  %p = tfuse.attention %q, %k, %v mask %m scale = 2.500000e-01 causal : (tensor<1x2x200x16xf16>, tensor<1x2x200x16xf16>, tensor<1x2x200x32xf16>, tensor<1x1x1x200xf16>) -> tensor<1x2x200x32xf16>
  %d = tfuse.attention %q, %k, %v scale = 2.500000e-01 dropout_p = 1.000000e-01 seed = 3 : (tensor<1x2x200x16xf16>, tensor<1x2x200x16xf16>, tensor<1x2x200x32xf16>) -> tensor<1x2x200x32xf16>
  return %o, %p, %d : tensor<1x2x200x32xf16>, tensor<1x2x200x32xf16>, tensor<1x2x200x32xf16>
}

func.func @attention_f32(%q: tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32> {
  %o = tfuse.attention %q, %q, %q scale = 2.500000e-01 : (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) -> tensor<1x2x64x16xf32>
  return %o : tensor<1x2x64x16xf32>
}

func.func @dropout_rows(%q: tensor<1x1x70x16xbf16>, %r: tensor<1x1x71x16xbf16>) -> (tensor<1x1x70x16xbf16>, tensor<1x1x71x16xbf16>) {
  %a = tfuse.attention %q, %q, %q scale = 2.500000e-01 dropout_p = 1.000000e-01 seed = 3 : (tensor<1x1x70x16xbf16>, tensor<1x1x70x16xbf16>, tensor<1x1x70x16xbf16>) -> tensor<1x1x70x16xbf16>
  %b = tfuse.attention %r, %r, %r scale = 2.500000e-01 dropout_p = 1.000000e-01 seed = 3 : (tensor<1x1x71x16xbf16>, tensor<1x1x71x16xbf16>, tensor<1x1x71x16xbf16>) -> tensor<1x1x71x16xbf16>
  return %a, %b : tensor<1x1x70x16xbf16>, tensor<1x1x71x16xbf16>
}
