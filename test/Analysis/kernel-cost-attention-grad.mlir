// A tfuse.attention_grad the backward template covers is two kernels priced
// as they run (docs/cost-model.md): the query kernel reads Q, dO and the row
// statistics once and K and V once per 64-row query tile and query head;
// the key kernel reads K and V once and Q, dO and the statistics once per
// 64-key block and query head of the group. Other attention_grad is
// flagged, not priced as a kernel.
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200 format=json' -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: tfuse-opt %s --tfuse-traffic-report='targets=h200' -o /dev/null | FileCheck %s --check-prefix=TEXT

// Causal bf16, B 1, H 2 on Hkv 1, Sq = Sk = 100, D = Dv = 32. Bytes: Q and
// dO 2 x 100 x 32 x 2 = 12800 each, lse and delta 2 x 100 x 4 = 800 each
// (query rows 27200); K and V 100 x 32 x 2 = 6400 each (12800).
// Query kernel: tile 0 (64 rows) visits 64 keys, tile 1 (36 rows) all 100:
// 64 x 64 + 36 x 100 = 7696 scores a head, 15392 in all, x (4 x 32 + 2 x 32
// + 6) = 3047616 FLOPs. Its tiles read 2 heads x (64 + 100) keys x 64 x 2 =
// 41984 bytes of K and V, 29184 of them re-reads (from L2). Read: 27200 +
// 12800 + 29184 = 69184; written: dQ 12800.
// JSON-LABEL: "kernels": [
// JSON:      "id": "attention_grad_0",
// JSON-NEXT: "op_index": 0,
// JSON-NEXT: "template": "attention_grad",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 69184,
// JSON-NEXT: "bytes_written": 12800,
// JSON-NEXT: "flops": 3047616,
// JSON-NEXT: "integer_ops": 0,
// JSON-NEXT: "compute": "bf16_tensor",
// JSON:      "l2_bytes": 29184
// Key kernel: block 0 (64 keys) sees all 100 rows, block 1 (36 keys) the
// rows from tile 1 on (36): 64 x 100 + 36 x 36 = 7696 scores a head, x (4 x
// 32 + 4 x 32 + 6) x 2 heads = 4032704 FLOPs. Its blocks read 2 heads x
// (100 + 36) rows x (64 x 2 + 8) bytes = 36992, 9792 of them re-reads.
// Read: 27200 + 12800 + 9792 = 49792; written: dK and dV 12800.
// JSON:      "id": "attention_grad_1",
// JSON-NEXT: "op_index": 0,
// JSON-NEXT: "template": "attention_grad",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 49792,
// JSON-NEXT: "bytes_written": 12800,
// JSON-NEXT: "flops": 4032704,
// JSON-NEXT: "integer_ops": 0,
// JSON-NEXT: "compute": "bf16_tensor",
// JSON:      "l2_bytes": 9792
// Dropout is in both kernels; without causal masking the query kernel
// visits all 2 x 100 x 100 = 20000 scores, x 198 = 3960000 FLOPs, and its
// tiles read 2 x 200 x 64 x 2 = 51200 bytes of K and V, 38400 re-reads:
// 27200 + 12800 + 38400 = 78400 read. Both regenerate the mask: Sk 100 is
// whole fours, 20000 / 4 = 5000 calls x 80 = 400000 integer ops each.
// JSON:      "id": "attention_grad_2",
// JSON-NEXT: "op_index": 1,
// JSON-NEXT: "template": "attention_grad",
// JSON-NEXT: "emitted": true,
// JSON-NEXT: "bytes_read": 78400,
// JSON-NEXT: "bytes_written": 12800,
// JSON-NEXT: "flops": 3960000,
// JSON-NEXT: "integer_ops": 400000,
// JSON:      "id": "attention_grad_3",
// JSON:      "integer_ops": 400000,
// f32 runs on no tensor-core kernel: the op's own traffic, no id, the
// reason (op indices count over the module).
// JSON:      "id": "",
// JSON-NEXT: "op_index": 2,
// JSON-NEXT: "template": "tfuse.attention_grad",
// JSON-NEXT: "emitted": false,
// JSON-NEXT: "unsupported": "no fused attention backward kernel (the fused kernel runs on tensor cores: bf16 or f16 only)",
// Sk 70 (even, not whole fours): the query kernel draws a call per key
// pair (70 x 70 / 2 = 2450 calls, 196000 ops), the key kernel, whose
// fragments hold keys as rows, a call per score (4900, 392000 ops).
// JSON:      "op_index": 3,
// JSON:      "integer_ops": 196000,
// JSON:      "op_index": 3,
// JSON:      "integer_ops": 392000,

// TEXT-LABEL: @backward_f32
// TEXT:       not compiled: no fused attention backward kernel (the fused kernel runs on tensor cores: bf16 or f16 only)
func.func @backward(%q: tensor<1x2x100x32xbf16>, %k: tensor<1x1x100x32xbf16>, %v: tensor<1x1x100x32xbf16>, %do: tensor<1x2x100x32xbf16>, %lse: tensor<1x2x100xf32>, %delta: tensor<1x2x100xf32>) -> (tensor<1x2x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x2x100x32xbf16>) {
  %dq, %dk, %dv = tfuse.attention_grad %q, %k, %v, %do, %lse, %delta scale = 1.768e-01 causal : (tensor<1x2x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100xf32>, tensor<1x2x100xf32>) -> (tensor<1x2x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16>)
  %dq2, %dk2, %dv2 = tfuse.attention_grad %q, %k, %v, %do, %lse, %delta scale = 1.768e-01 dropout_p = 1.000000e-01 seed = 1 : (tensor<1x2x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x2x100x32xbf16>, tensor<1x2x100xf32>, tensor<1x2x100xf32>) -> (tensor<1x2x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16>)
  return %dq, %dk, %dv, %dq2 : tensor<1x2x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x1x100x32xbf16>, tensor<1x2x100x32xbf16>
}

func.func @backward_f32(%q: tensor<1x2x64x16xf32>, %lse: tensor<1x2x64xf32>) -> tensor<1x2x64x16xf32> {
  %dq, %dk, %dv = tfuse.attention_grad %q, %q, %q, %q, %lse, %lse scale = 2.500000e-01 : (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64xf32>, tensor<1x2x64xf32>) -> (tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>)
  return %dq : tensor<1x2x64x16xf32>
}

func.func @dropout_rows(%q: tensor<1x1x70x32xbf16>, %lse: tensor<1x1x70xf32>) -> (tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>) {
  %dq, %dk, %dv = tfuse.attention_grad %q, %q, %q, %q, %lse, %lse scale = 1.768e-01 dropout_p = 1.000000e-01 seed = 1 : (tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>, tensor<1x1x70xf32>, tensor<1x1x70xf32>) -> (tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>)
  return %dq, %dk, %dv : tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>, tensor<1x1x70x32xbf16>
}
