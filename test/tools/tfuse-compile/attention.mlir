// RUN: rm -rf %t && tfuse-compile %s --target=h200 --fused-attention -o %t/fused
// RUN: FileCheck %s --check-prefix=PLAN < %t/fused/plan.json
// RUN: FileCheck %s --check-prefix=PTX < %t/fused/kernels.ptx
// RUN: grep -c mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 %t/fused/kernels.ptx | FileCheck %s --check-prefix=MMA
// RUN: tfuse-compile %s --target=h200 -o %t/decomposed
// RUN: FileCheck %s --check-prefix=DECOMPOSED < %t/decomposed/plan.json

// With --fused-attention, a tfuse.attention the flash-attention template
// covers is one kernel step; without it, GEMMs and a softmax kernel.

// Grouped-query attention with tails: 2 x 4 query heads on 2 kv heads, 97
// query rows, 130 keys, D = Dv = 64, bf16. Grid: 1 query tile (128 rows: 4
// warps of two 16-row tiles) x 8 (batch, head) pairs, 4 warps a block.
// Bytes by hand: Q and O 2 x 4 x 97 x 64 x 2 = 99328 each; K + V 133120;
// every (pair, query tile) reads its kv head's 130 x 128 x 2 = 33280 bytes,
// 8 x 33280 = 266240 in all, 133120 of them re-reads from L2: 99328 +
// 133120 + 133120 + 99328 = 464896. FLOPs: 8 x 97 x 130 = 100880 scores x
// (2 x 128 + 5) = 26329680. Time on the H200: 331776 DRAM bytes / 4320 GB/s
// + 133120 L2 bytes / (2.5 x 4320 GB/s) = 0.0768 + 0.012326 us, above the
// 0.036 us of compute, + 1 us launch.
// PLAN:      "kind": "kernel",
// PLAN-NEXT: "name": "attention_0",
// PLAN-NEXT: "kernel": "attention_0",
// PLAN-NEXT: "template": "attention",
// PLAN-NEXT: "grid": [
// PLAN-NEXT:   1,
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
// PLAN-NEXT: "predicted_us": 1.0917554
// PLAN-NEXT: "bytes": 464896,
// PLAN-NEXT: "flops": 26329680,
// The step is checked against exact attention (the op itself).
// PLAN:      "op": "tfuse.attention",
// PLAN-NOT:  "kind": "gemm"

// PTX-LABEL: .visible .entry attention_0(
// Launch bounds: 128 threads, 2 blocks a multiprocessor.
// PTX:       .maxntid 128, 1, 1
// PTX:       .minnctapersm 2
// The cp.async pipeline, both fragment loads, the row reductions and
// exponentials, the stores (ptxas lays the loop's blocks out in its own
// order).
// PTX-DAG:   cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX-DAG:   cp.async.commit_group;
// PTX-DAG:   cp.async.wait_group 0;
// PTX-DAG:   bar.sync 0;
// PTX-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG:   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG:   shfl.sync.bfly.b32
// PTX-DAG:   ex2.approx.f32
// PTX-DAG:   st.global.b32
// 64 products for the scores and 64 for P V in the one loop body.
// MMA: 128

// DECOMPOSED:     "name": "gemm_0",
// DECOMPOSED:     "name": "row_reduction_0",
// DECOMPOSED:     "name": "gemm_2",
// DECOMPOSED-NOT: attention_
func.func @gqa_tails(%q: tensor<2x4x97x64xbf16>, %k: tensor<2x2x130x64xbf16>, %v: tensor<2x2x130x64xbf16>) -> tensor<2x4x97x64xbf16> {
  %o = tfuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<2x4x97x64xbf16>, tensor<2x2x130x64xbf16>, tensor<2x2x130x64xbf16>) -> tensor<2x4x97x64xbf16>
  return %o : tensor<2x4x97x64xbf16>
}
