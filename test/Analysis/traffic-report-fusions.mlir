// RUN: tfuse-opt %s --tfuse-fuse=target=%S/Inputs/toy.json -o %t.mlir
// RUN: tfuse-opt %t.mlir -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json,%S/Inputs/toy2.json format=json" | FileCheck %s --check-prefix=JSON
// RUN: tfuse-opt %t.mlir -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=text" | FileCheck %s --check-prefix=TEXT

// The report lists the fusions with the bytes tfuse-fuse recorded and every
// decision; the fused kernel is one op of the report with its own traffic.

// exp + sigmoid + add over f32 [256, 256] (262144 B per tensor): apart the
// three kernels move 2 + 2 + 3 tensors = 1835008 B; fused, 2 in + 1 out =
// 786432 B.
// JSON:      "op": "tfuse.fusion",
// JSON:      "class": "elementwise",
// JSON:      "bytes_read": 524288,
// JSON-NEXT: "bytes_written": 262144,
// JSON-NEXT: "flops": 393216,
// The comparison of two targets: toy2 has twice the bandwidth and FLOP/s.
// 0.786432 + 1 us on toy, 0.393216 + 1 us on toy2: 1.786432 / 1.393216.
// JSON:      "comparisons": [
// JSON-NEXT:   {
// JSON-NEXT:     "baseline": "toy",
// JSON-NEXT:     "target": "toy2",
// JSON-NEXT:     "speedup": 1.2822{{[0-9]*}},
// JSON-NEXT:     "memory_system_speedup": 1.2822{{[0-9]*}},
// JSON-NEXT:     "compute_speedup": 1{{$}}

// JSON:      "fusions": [
// JSON-NEXT:   {
// JSON-NEXT:     "function": "chain",
// JSON-NEXT:     "op_index": 0,
// JSON-NEXT:     "kind": "loop",
// JSON-NEXT:     "members": [
// JSON-NEXT:       "tfuse.exp",
// JSON-NEXT:       "tfuse.sigmoid",
// JSON-NEXT:       "tfuse.add"
// JSON-NEXT:     ],
// JSON-NEXT:     "bytes_before": 1835008,
// JSON-NEXT:     "bytes_after": 786432,
// JSON:          "target": "toy"
// JSON:      "decisions": [
// JSON:          "fused": true,
// JSON-NEXT:     "kind": "loop",
// JSON-NEXT:     "producer": "tfuse.sigmoid at
// JSON:          "rule": "",
// JSON-NEXT:     "reason": "fused: 786432 bytes in
// Fused against unfused: the same function with the fusion inlined runs
// exp (524288 B), sigmoid (524288 B, its input 262144 B from L2) and add
// (786432 B, 262144 B of it from L2) on toy: 3 us of launches +
// (524288 + 262144 + 524288) / 1e6 + 2 x 262144 / 2.5e6 = 4.520 us,
// against 1 + 0.786432 = 1.786 us fused: 4.5204 / 1.7864 = 2.530x.
// TEXT: fusion: 3 kernels moving 1835008 bytes unfused, 1 kernels moving 786432 bytes fused (2.33x less traffic)
// TEXT-NEXT: toy 4.52 us unfused -> 1.79 us fused: 2.530x
// TEXT: fusions (bytes and times as tfuse-fuse predicted them on its target, each member alone):
// TEXT-NEXT: #0 loop 1835008 -> 786432 bytes, 4.84 -> 1.79 us on toy: tfuse.exp + tfuse.sigmoid + tfuse.add
// Identical reasons print once, with every pair they cover.
// TEXT: fusion decisions (2: 2 fused, 0 not), grouped by reason:
// TEXT-NEXT: fused 2x fused: 786432 bytes in 1.79 us as one loop kernel
// TEXT-NEXT: tfuse.sigmoid at {{.*}} into the loop kernel of tfuse.add at
// TEXT-NEXT: tfuse.exp at {{.*}} into the loop kernel of tfuse.add at
// JSON:      "fused": {
// JSON-NEXT:   "kernels": 1,
// JSON-NEXT:   "bytes": 786432,
// JSON:      "unfused": {
// JSON-NEXT:   "kernels": 3,
// JSON-NEXT:   "bytes": 1835008,
// JSON-NEXT:   "time_us": {
// JSON-NEXT:     "toy": 4.52{{[0-9]*}},
func.func @chain(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %e = tfuse.exp %x : tensor<256x256xf32>
  %s = tfuse.sigmoid %e : tensor<256x256xf32>
  %a = tfuse.add %s, %y : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %a : tensor<256x256xf32>
}
