// RUN: rm -rf %t && tfuse-compile %s --target=h200 -o %t/b
// RUN: FileCheck %s --check-prefix=PLAN < %t/b/plan.json
// RUN: FileCheck %s --check-prefix=PTX < %t/b/kernels.ptx

// Every optimizer update of a function is one multi_tensor kernel: an
// AdamW over [8, 64] (512 elements: 128 threads of 4, one block of 256)
// and an SGD over [3] (3 threads of 1: one block), so 2 blocks in all.
// Each operand is one parameter of the kernel, lr and step once; bytes by
// hand: p, m, v 2048 each, the bf16 gradient 1024, lr and step 4, the SGD
// tensors 12 each; written: 3 x 2048, the bf16 weight 1024, 2 x 12.
// PLAN:      "kind": "kernel",
// PLAN-NEXT: "name": "multi_tensor_0",
// PLAN-NEXT: "kernel": "multi_tensor_0",
// PLAN-NEXT: "template": "multi_tensor",
// PLAN-NEXT: "grid": [
// PLAN-NEXT:   2,
// PLAN-NEXT:   1,
// PLAN-NEXT:   1
// PLAN-NEXT: ],
// PLAN-NEXT: "block": [
// PLAN-NEXT:   256,
// PLAN:      "params": [
// PLAN-NEXT:   {
// PLAN-NEXT:     "access": "read",
// PLAN-NEXT:     "bytes": 2048
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 1024
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 2048
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 2048
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 4
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 4
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 12
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 12
// PLAN:          "access": "read",
// PLAN-NEXT:     "bytes": 12
// PLAN:          "access": "write",
// PLAN-NEXT:     "bytes": 2048
// PLAN:          "access": "write",
// PLAN-NEXT:     "bytes": 2048
// PLAN:          "access": "write",
// PLAN-NEXT:     "bytes": 2048
// PLAN:          "access": "write",
// PLAN-NEXT:     "bytes": 1024
// PLAN:          "access": "write",
// PLAN-NEXT:     "bytes": 12
// PLAN:          "access": "write",
// PLAN-NEXT:     "bytes": 12
// PLAN-NEXT:   }
// PLAN-NEXT: ],
// PLAN-NOT:  "kind": "kernel"

// In the AdamW segment, thread 0 computes the bias corrections in f64 (pow
// inlined from libdevice) and shares them through shared memory; then
// 16-byte vectors (8 bytes of the bf16 gradient) in, f32 arithmetic, the
// model weight rounded to bf16 on the store. The SGD segment moves single
// elements.
// PTX-LABEL: .visible .entry multi_tensor_0(
// PTX:       .maxntid 256, 1, 1
// PTX:       .shared .align 4 .f32
// PTX:       ld.global.b32
// PTX:       ld.global.b32
// PTX:       div.rn.f64
// PTX:       sqrt.rn.f64
// PTX:       st.shared.b32
// PTX:       bar.sync 0;
// PTX:       ld.shared.b32
// PTX:       ld.global.v4.b32
// PTX:       ld.global.v4.b16
// PTX:       ld.global.v4.b32
// PTX:       ld.global.v4.b32
// PTX:       div.rn.f32
// PTX:       st.global.v4.b32
// PTX:       st.global.v4.b32
// PTX:       st.global.v4.b32
// PTX:       cvt.rn.bf16x2.f32
// PTX:       st.global.v2.b32
// PTX:       ld.global.b32
// PTX:       ld.global.b32
// PTX:       ld.global.b32
// PTX:       st.global.b32
// PTX:       st.global.b32
// PTX-NOT:   st.global
// PTX:       ret;
func.func @step(%p: tensor<8x64xf32>, %g: tensor<8x64xbf16>, %m: tensor<8x64xf32>, %v: tensor<8x64xf32>, %q: tensor<3xf32>, %h: tensor<3xf32>, %b: tensor<3xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xbf16>, tensor<3xf32>, tensor<3xf32>) {
  %0:4 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<8x64xf32>, tensor<8x64xbf16>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<f32>, tensor<f32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xbf16>)
  %1:2 = tfuse.sgd %q, %h, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 nesterov : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2, %0#3, %1#0, %1#1 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xbf16>, tensor<3xf32>, tensor<3xf32>
}
