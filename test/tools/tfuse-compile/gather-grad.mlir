// RUN: rm -rf %t && tfuse-compile %s --target=h200 -o %t/bundle
// RUN: FileCheck %s --check-prefix=PLAN < %t/bundle/plan.json
// RUN: FileCheck %s --check-prefix=PTX < %t/bundle/kernels.ptx
// RUN: tfuse-run %t/bundle --validate | FileCheck %s --check-prefix=VALID

// An embedding gradient into a bf16 table: three kernel steps over an f32
// accumulator that is a temporary of the plan. Each step is checked as what
// it computes: zeros (a splat), the scatter-add with an f32 result (the
// reference's double sums rounded once to f32), then the rounding to bf16.

// PLAN:      "id": 2,
// PLAN-NEXT: "name": "%2",
// PLAN:      "dtype": "bf16",
// PLAN-NEXT: "bytes": 1600,
// PLAN-NEXT: "kind": "output"
// PLAN:      "id": 3,
// PLAN-NEXT: "name": "%3",
// PLAN:      "dtype": "f32",
// PLAN-NEXT: "bytes": 3200,
// PLAN-NEXT: "kind": "temp",
// PLAN:      "name": "gather_grad_0",
// PLAN:      "access": "write",
// PLAN-NEXT: "bytes": 3200
// PLAN:      "inputs": [],
// PLAN:      "bytes": 3200,
// PLAN-NEXT: "flops": 0,
// PLAN:      "op": "tfuse.constant",
// PLAN:      "dtype": "f32"
// PLAN:      "splat": 0.0
// PLAN:      "name": "gather_grad_1",
// PLAN:      "access": "read",
// PLAN-NEXT: "bytes": 1280
// PLAN:      "access": "read",
// PLAN-NEXT: "bytes": 320
// PLAN:      "access": "read_write",
// PLAN-NEXT: "bytes": 3200
// PLAN:      "bytes": 4160,
// PLAN-NEXT: "flops": 640,
// PLAN:      "op": "tfuse.gather_grad",
// PLAN:      "dtype": "f32"
// PLAN:      "name": "gather_grad_2",
// PLAN:      "access": "read",
// PLAN-NEXT: "bytes": 3200
// PLAN:      "access": "write",
// PLAN-NEXT: "bytes": 1600
// PLAN:      "bytes": 4800,
// PLAN:      "op": "tfuse.cast",
// PLAN:      "dtype": "bf16"

// PTX-LABEL: .entry gather_grad_1(
// PTX:       atom.global.add.f32
// PTX-LABEL: .entry gather_grad_2(
// PTX:       cvt.rn.bf16x2.f32

// VALID: bundle: a valid bundle of 'embedding_grad' for h200 (3 steps)

func.func @embedding_grad(%g: tensor<4x10x16xbf16>, %i: tensor<4x10xi64>) -> tensor<50x16xbf16> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<4x10x16xbf16>, tensor<4x10xi64>) -> tensor<50x16xbf16>
  return %0 : tensor<50x16xbf16>
}
