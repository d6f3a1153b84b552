// A tfuse.attention the flash-attention kernel covers is one kernel priced as
// it runs: Q read and O written once, K and V read once per query tile (the
// re-reads from L2 when one kv head fits in half of it), the FLOPs of the
// score tiles it visits, the mask at its own size. Other attention is
// flagged, not priced as a kernel.
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200 format=json' -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200' -o /dev/null | FileCheck %s --check-prefix=TEXT

// Causal f16, B 1, H 2, Sq = Sk = 100, D 16, Dv 32. Query tile 0 (64 rows)
// visits 64 keys, tile 1 (36 rows) all 100: 2 x (64 x 64 + 36 x 100) = 15392
// scores, 15392 x (2 x 48 + 5) = 1554592 FLOPs. K and V: 2 heads x 100 x 48
// x 2 bytes = 19200 read once; the tiles read 2 x (64 + 100) x 48 x 2 =
// 31488, so 12288 are re-reads (from L2: one head's 9600 bytes fit). Q 6400
// + 19200 + 12288 = 37888 read, O 12800 written.
// JSON-LABEL: "kernels": [
// JSON:      "id": "attention_0",
// JSON-NEXT: "op_index": 0,
// JSON-NEXT: "template": "attention",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 37888,
// JSON-NEXT: "bytes_written": 12800,
// JSON-NEXT: "flops": 1554592,
// JSON-NEXT: "compute": "fp16_tensor",
// JSON:      "l2_bytes": 12288
// An additive mask [1, 1, 1, 100] adds its own 200 bytes to the same reads.
// JSON:      "id": "attention_1",
// JSON-NEXT: "op_index": 1,
// JSON-NEXT: "template": "attention",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 38088,
// Dropout is not fused yet: the op's own traffic, no id, the reason.
// JSON:      "id": "",
// JSON-NEXT: "op_index": 2,
// JSON-NEXT: "template": "tfuse.attention",
// JSON-NEXT: "emitted": false,
// JSON-NEXT: "unsupported": "no fused attention kernel (dropout is not fused yet): tfuse-compile decomposes it (tfuse-decompose-attention)",

// TEXT-LABEL: @attention
// TEXT:       not compiled: no fused attention kernel (dropout is not fused yet)
// TEXT:       3.03 us in 3 kernels; {{.*}} 24576 bytes read from L2
func.func @attention(%q: tensor<1x2x100x16xf16>, %k: tensor<1x2x100x16xf16>, %v: tensor<1x2x100x32xf16>, %m: tensor<1x1x1x100xf16>) -> (tensor<1x2x100x32xf16>, tensor<1x2x100x32xf16>, tensor<1x2x100x32xf16>) {
  %o = tfuse.attention %q, %k, %v scale = 2.500000e-01 causal : (tensor<1x2x100x16xf16>, tensor<1x2x100x16xf16>, tensor<1x2x100x32xf16>) -> tensor<1x2x100x32xf16>
  %p = tfuse.attention %q, %k, %v mask %m scale = 2.500000e-01 causal : (tensor<1x2x100x16xf16>, tensor<1x2x100x16xf16>, tensor<1x2x100x32xf16>, tensor<1x1x1x100xf16>) -> tensor<1x2x100x32xf16>
  %d = tfuse.attention %q, %k, %v scale = 2.500000e-01 dropout_p = 1.000000e-01 seed = 3 : (tensor<1x2x100x16xf16>, tensor<1x2x100x16xf16>, tensor<1x2x100x32xf16>) -> tensor<1x2x100x32xf16>
  return %o, %p, %d : tensor<1x2x100x32xf16>, tensor<1x2x100x32xf16>, tensor<1x2x100x32xf16>
}
