// RUN: rm -rf %t && tfuse-compile %s --target=h200 -o %t/bundle --dump-dir %t/ir
// RUN: FileCheck %s --check-prefix=PLAN < %t/bundle/plan.json
// RUN: FileCheck %s --check-prefix=KERNELS < %t/ir/03-kernels.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t/bundle/kernels.ptx
// RUN: FileCheck %s --check-prefix=REPORT < %t/bundle/report.json
// RUN: tfuse-compile %s --target=a40 -o %t/a40 && FileCheck %s --check-prefix=A40 < %t/a40/plan.json
// RUN: tfuse-compile %s --target=h200 --no-fuse -o %t/unfused && FileCheck %s --check-prefix=UNFUSED < %t/unfused/plan.json

// A small layer: GEMM + bias (a cuBLASLt epilogue), bias + dropout + residual
// + layer_norm (a row kernel), a head transpose (a copy kernel) and an
// elementwise tail (a loop kernel).

// PLAN:      "schema_version": 2,
// PLAN-NEXT: "function": "layer",
// PLAN:      "name": "h200",
// PLAN-NEXT: "sm_arch": "sm_90",
// PLAN:      "ptx": "kernels.ptx",
// PLAN-NEXT: "ptx_hash": "fnv1a64:{{[0-9a-f]+}}"
// PLAN:      "kind": "input"
// PLAN:      "kind": "gemm",
// PLAN:      "epilogue": "bias",
// PLAN:      "batch": 1,
// PLAN-NEXT: "m": 512,
// PLAN-NEXT: "n": 256,
// PLAN-NEXT: "k": 128,
// PLAN:      "ops": {
// PLAN:        "op": "tfuse.matmul",
// PLAN:        "op": "tfuse.add",
// PLAN:      "kind": "kernel",
// PLAN-NEXT: "name": "row_reduction_0",
// PLAN-NEXT: "kernel": "row_reduction_0",
// PLAN-NEXT: "template": "row_reduction",
// PLAN-NEXT: "grid": [
// PLAN-NEXT:   512,
// PLAN:      "block": [
// PLAN-NEXT:   32,
// The row kernel's parameters: 4x128x256 bf16 = 262144 bytes (%5, %res),
// gamma 256 bf16 = 512 bytes, then its output.
// PLAN:      "args": [
// PLAN-NEXT:   5,
// PLAN-NEXT:   3,
// PLAN-NEXT:   4,
// PLAN-NEXT:   6
// PLAN-NEXT: ],
// PLAN-NEXT: "params": [
// PLAN-NEXT:   {
// PLAN-NEXT:     "access": "read",
// PLAN-NEXT:     "bytes": 262144
// PLAN-NEXT:   },
// PLAN-NEXT:   {
// PLAN-NEXT:     "access": "read",
// PLAN-NEXT:     "bytes": 262144
// PLAN-NEXT:   },
// PLAN-NEXT:   {
// PLAN-NEXT:     "access": "read",
// PLAN-NEXT:     "bytes": 512
// PLAN-NEXT:   },
// PLAN-NEXT:   {
// PLAN-NEXT:     "access": "write",
// PLAN-NEXT:     "bytes": 262144
// PLAN-NEXT:   }
// PLAN-NEXT: ],
// PLAN:        "op": "tfuse.dropout",
// PLAN:        "attributes": {
// PLAN-NEXT:     "p": 0.1,
// PLAN-NEXT:     "seed": 5
// PLAN:        "op": "tfuse.layer_norm",
// PLAN:          "epsilon": 1e-05,
// PLAN-NEXT:     "has_beta": false,
// PLAN-NEXT:     "has_gamma": true
// PLAN:      "template": "layout",
// PLAN:      "template": "loop",

// The row kernel keeps the row in registers: 16-byte loads, warp shuffles.
// KERNELS-LABEL: gpu.func @row_reduction_0
// KERNELS-SAME:  workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
// KERNELS-SAME:  kernel
// KERNELS:       vector.load {{.*}} {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>
// KERNELS:       gpu.shuffle xor
// KERNELS:       math.rsqrt
// KERNELS:       vector.store {{.*}} {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>
// The head transpose keeps the last dimension: vectors of 8 bf16.
// KERNELS-LABEL: gpu.func @copy_1
// KERNELS:       vector.load {{.*}} : memref<131072xbf16>, vector<8xbf16>
// KERNELS-LABEL: gpu.func @loop_2
// KERNELS:       vector.load

// PTX: .target sm_90
// PTX: .entry row_reduction_0
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: st.global.v4.b32
// PTX: .entry copy_1
// PTX: .entry loop_2

// REPORT: "schema_version": 1,
// REPORT: "op": "tfuse.fusion",

// A40: "sm_arch": "sm_86",

// Unfused: every op its own kernel (dropout, add, layer_norm apart).
// UNFUSED: "kind": "gemm",
// UNFUSED: "epilogue": "none",
// UNFUSED: "name": "loop_0",
// UNFUSED: "name": "loop_1",
// UNFUSED: "name": "loop_2",
// UNFUSED: "name": "row_reduction_3",
func.func @layer(%x: tensor<4x128x128xbf16>, %w: tensor<128x256xbf16>, %b: tensor<256xbf16>, %res: tensor<4x128x256xbf16>, %g: tensor<256xbf16>) -> tensor<4x8x128x32xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<4x128x128xbf16>, tensor<128x256xbf16>) -> tensor<4x128x256xbf16>
  %mb = tfuse.add %m, %b : (tensor<4x128x256xbf16>, tensor<256xbf16>) -> tensor<4x128x256xbf16>
  %d = tfuse.dropout %mb p = 0.1 seed = 5 : tensor<4x128x256xbf16>
  %r = tfuse.add %d, %res : (tensor<4x128x256xbf16>, tensor<4x128x256xbf16>) -> tensor<4x128x256xbf16>
  %n = tfuse.layer_norm %r gamma %g eps = 1.0e-5 : (tensor<4x128x256xbf16>, tensor<256xbf16>) -> tensor<4x128x256xbf16>
  %h = tfuse.reshape %n : tensor<4x128x256xbf16> -> tensor<4x128x8x32xbf16>
  %t = tfuse.transpose %h perm = [0, 2, 1, 3] : tensor<4x128x8x32xbf16> -> tensor<4x8x128x32xbf16>
  %s = tfuse.silu %t : tensor<4x8x128x32xbf16>
  %o = tfuse.mul %s, %t : (tensor<4x8x128x32xbf16>, tensor<4x8x128x32xbf16>) -> tensor<4x8x128x32xbf16>
  return %o : tensor<4x8x128x32xbf16>
}
