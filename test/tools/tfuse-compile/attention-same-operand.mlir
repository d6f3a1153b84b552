// RUN: rm -rf %t && tfuse-compile %s --target=h200 --fused-attention -o %t --quiet
// RUN: tfuse-run %t --validate | FileCheck %s
// RUN: FileCheck %s --check-prefix=PLAN < %t/plan.json

// Self-attention of one tensor: the flash kernel takes the buffer as its
// query, key and value parameters, and the step lists it once per operand
// (the step's graph has three arguments), which the bundle reader accepts.
// CHECK: a valid bundle of 'self' for h200 (1 steps)
// PLAN-LABEL: "steps": [
// PLAN:       "template": "attention",
// PLAN:       "args": [
// PLAN-NEXT:    0,
// PLAN-NEXT:    0,
// PLAN-NEXT:    0,
// PLAN-NEXT:    1
// PLAN-NEXT:  ],
// PLAN:       "inputs": [
// PLAN-NEXT:    0,
// PLAN-NEXT:    0,
// PLAN-NEXT:    0
// PLAN-NEXT:  ],
func.func @self(%x: tensor<1x2x70x64xbf16>) -> tensor<1x2x70x64xbf16> {
  %o = tfuse.attention %x, %x, %x scale = 0.125 : (tensor<1x2x70x64xbf16>, tensor<1x2x70x64xbf16>, tensor<1x2x70x64xbf16>) -> tensor<1x2x70x64xbf16>
  return %o : tensor<1x2x70x64xbf16>
}
