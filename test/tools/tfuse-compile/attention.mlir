// RUN: rm -rf %t && tfuse-compile %s --target=h200 --fused-attention -o %t/fused
// RUN: FileCheck %s --check-prefix=PLAN < %t/fused/plan.json
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/kernels.ptx
// RUN: tfuse-compile %s --target=h200 -o %t/decomposed
// RUN: FileCheck %s --check-prefix=DECOMPOSED < %t/decomposed/plan.json

// With --fused-attention, a tfuse.attention the flash-attention template
// covers is one kernel step; without it, GEMMs and a softmax kernel.

// Grouped-query attention with tails: 2 x 4 query heads on 2 kv heads, 97
// query rows, 130 keys, D = Dv = 64, bf16. Grid: 2 query tiles x 8 (batch,
// head) pairs, 4 warps a block. Bytes by hand: Q and O 2 x 4 x 97 x 64 x 2 =
// 99328 each; K + V 133120; every (pair, query tile) reads its kv head's
// 130 x 128 x 2 = 33280 bytes, 8 x 2 x 33280 = 532480 in all, 399360 of them
// re-reads from L2: 99328 + 133120 + 399360 + 99328 = 731136. FLOPs: 8 x 97
// x 130 = 100880 scores x (2 x 128 + 5) = 26329680. Time on the H200:
// 331776 DRAM bytes / 4320 GB/s + 399360 L2 bytes / (2.5 x 4320 GB/s) =
// 0.0768 + 0.036978 us, above the 0.036 us of compute, + 1 us launch.
// PLAN:      "kind": "kernel",
// PLAN-NEXT: "name": "attention_0",
// PLAN-NEXT: "kernel": "attention_0",
// PLAN-NEXT: "template": "attention",
// PLAN-NEXT: "grid": [
// PLAN-NEXT:   2,
// PLAN-NEXT:   8,
// PLAN-NEXT:   1
// PLAN-NEXT: ],
// PLAN-NEXT: "block": [
// PLAN-NEXT:   128,
// PLAN-NEXT:   1,
// PLAN-NEXT:   1
// PLAN-NEXT: ],
// PLAN:      "inputs": [
// PLAN-NEXT:   0,
// PLAN-NEXT:   1,
// PLAN-NEXT:   2
// PLAN-NEXT: ],
// PLAN-NEXT: "outputs": [
// PLAN-NEXT:   3
// PLAN-NEXT: ],
// PLAN-NEXT: "predicted_us": 1.11377777
// PLAN-NEXT: "bytes": 731136,
// PLAN-NEXT: "flops": 26329680,
// The step is checked against exact attention (the op itself).
// PLAN:      "op": "tfuse.attention",
// PLAN-NOT:  "kind": "gemm"

// PTX-LABEL: .visible .entry attention_0(
// The key and value tiles, 64 rows of 64 + 8 (padding) bf16, 16-byte
// aligned for the vector stores and ldmatrix.
// PTX:       .shared .align 16 .b8 __wg_attention_0_0[9216];
// PTX:       .shared .align 16 .b8 __wg_attention_0_1[9216];
// PTX:       ld.global.v4.b32
// PTX:       st.shared.v4.b32
// PTX:       bar.sync 0;
// PTX:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX:       shfl.sync.bfly.b32
// PTX:       ex2.approx.f32
// PTX:       ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT:   mma.sync
// PTX:       st.global.b32

// DECOMPOSED:     "name": "gemm_0",
// DECOMPOSED:     "name": "row_reduction_0",
// DECOMPOSED:     "name": "gemm_2",
// DECOMPOSED-NOT: attention_
func.func @gqa_tails(%q: tensor<2x4x97x64xbf16>, %k: tensor<2x2x130x64xbf16>, %v: tensor<2x2x130x64xbf16>) -> tensor<2x4x97x64xbf16> {
  %o = tfuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x4x97x64xbf16>, tensor<2x2x130x64xbf16>, tensor<2x2x130x64xbf16>) -> tensor<2x4x97x64xbf16>
  return %o : tensor<2x4x97x64xbf16>
}
