// RUN: tfuse-opt %s --tfuse-fuse=target=h200 | FileCheck %s
// RUN: rm -rf %t && not tfuse-compile %s --target=h200 -o %t 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not ls %t

// A chain nothing uses still becomes a fusion with a result (the last op's),
// as the unfused ops still computed it. Found by fuzzing: the fusion had no
// results, which does not verify, and tfuse-compile, which does not verify
// between its steps, read out of bounds. A function without results has no
// bundle (tfuse-run refuses a plan without outputs).
// COMPILE: fuse-dead-code.mlir:[[# @LINE + 7]]:1: error: 'func.func' op returns nothing; a bundle has at least one output

// CHECK-LABEL: func.func @dead_chain
// CHECK: %[[F:.*]] = tfuse.fusion loop(%arg0) {{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK:   %[[D:.*]] = tfuse.dropout
// CHECK:   tfuse.yield %[[D]] : tensor<4xf32>
// CHECK: return
func.func @dead_chain(%x: tensor<4xf32>) {
  %c = tfuse.constant dense<1.0> : tensor<4xf32>
  %y = tfuse.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = tfuse.dropout %y p = 0.5 seed = 1 : tensor<4xf32>
  return
}
