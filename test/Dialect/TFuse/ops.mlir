// RUN: tfuse-opt %s | tfuse-opt | FileCheck %s
// RUN: tfuse-opt %s --mlir-print-op-generic | tfuse-opt | FileCheck %s

// Every tfuse op prints in its custom form and parses back to the same IR.

// CHECK-LABEL: func.func @contraction
func.func @contraction(%x: tensor<2x4x8xbf16>, %w: tensor<8x16xbf16>, %q: tensor<2x3x4x8xf32>, %k: tensor<2x1x5x8xf32>) -> (tensor<2x4x16xbf16>, tensor<2x3x4x5xf32>, tensor<3x8x4xf32>) {
  // CHECK: tfuse.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x16xbf16>
  %y = tfuse.matmul %x, %w : (tensor<2x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x16xbf16>
  // CHECK: tfuse.matmul %{{.*}}, %{{.*}} transpose_rhs : (tensor<2x3x4x8xf32>, tensor<2x1x5x8xf32>) -> tensor<2x3x4x5xf32>
  %s = tfuse.matmul %q, %k transpose_rhs : (tensor<2x3x4x8xf32>, tensor<2x1x5x8xf32>) -> tensor<2x3x4x5xf32>
  %a = tfuse.reshape %q : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
  %b = tfuse.slice %a offsets = [0, 0, 0] : tensor<6x4x8xf32> -> tensor<3x4x8xf32>
  // CHECK: tfuse.matmul %{{.*}}, %{{.*}} transpose_lhs transpose_rhs : (tensor<3x4x8xf32>, tensor<4x4xf32>) -> tensor<3x8x4xf32>
  %bt = tfuse.transpose %b perm = [0, 2, 1] : tensor<3x4x8xf32> -> tensor<3x8x4xf32>
  %sq = tfuse.slice %a offsets = [0, 0, 0] : tensor<6x4x8xf32> -> tensor<1x4x4xf32>
  %sq2 = tfuse.reshape %sq : tensor<1x4x4xf32> -> tensor<4x4xf32>
  %t = tfuse.matmul %b, %sq2 transpose_lhs transpose_rhs : (tensor<3x4x8xf32>, tensor<4x4xf32>) -> tensor<3x8x4xf32>
  return %y, %s, %t : tensor<2x4x16xbf16>, tensor<2x3x4x5xf32>, tensor<3x8x4xf32>
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: tfuse.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = tfuse.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tfuse.sub %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %1 = tfuse.sub %0, %c : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  // CHECK: tfuse.mul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = tfuse.mul %1, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: tfuse.div %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = tfuse.div %c, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tfuse.max
  %4 = tfuse.max %2, %3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: tfuse.min
  %5 = tfuse.min %4, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: tfuse.neg %{{.*}} : tensor<4x8xf32>
  %6 = tfuse.neg %5 : tensor<4x8xf32>
  // CHECK: tfuse.exp
  %7 = tfuse.exp %6 : tensor<4x8xf32>
  // CHECK: tfuse.log
  %8 = tfuse.log %7 : tensor<4x8xf32>
  // CHECK: tfuse.tanh
  %9 = tfuse.tanh %8 : tensor<4x8xf32>
  // CHECK: tfuse.erf
  %10 = tfuse.erf %9 : tensor<4x8xf32>
  // CHECK: tfuse.sqrt
  %11 = tfuse.sqrt %10 : tensor<4x8xf32>
  // CHECK: tfuse.rsqrt
  %12 = tfuse.rsqrt %11 : tensor<4x8xf32>
  // CHECK: tfuse.sigmoid
  %13 = tfuse.sigmoid %12 : tensor<4x8xf32>
  // CHECK: tfuse.relu
  %14 = tfuse.relu %13 : tensor<4x8xf32>
  // CHECK: tfuse.silu
  %15 = tfuse.silu %14 : tensor<4x8xf32>
  // CHECK: tfuse.gelu %{{.*}} : tensor<4x8xf32>
  %16 = tfuse.gelu %15 : tensor<4x8xf32>
  // CHECK: tfuse.gelu %{{.*}} approximate = tanh : tensor<4x8xf32>
  %17 = tfuse.gelu %16 approximate = tanh : tensor<4x8xf32>
  // The default approximation is elided.
  // CHECK: tfuse.gelu %{{.*}} : tensor<4x8xf32>
  %18 = tfuse.gelu %17 approximate = none : tensor<4x8xf32>
  return %18 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @cast_and_constant
func.func @cast_and_constant(%a: tensor<4xf32>) -> (tensor<4xbf16>, tensor<4xf16>, tensor<bf16>, tensor<2xi32>) {
  // CHECK: tfuse.cast %{{.*}} : tensor<4xf32> to tensor<4xbf16>
  %0 = tfuse.cast %a : tensor<4xf32> to tensor<4xbf16>
  // CHECK: tfuse.cast %{{.*}} : tensor<4xbf16> to tensor<4xf16>
  %1 = tfuse.cast %0 : tensor<4xbf16> to tensor<4xf16>
  // CHECK: tfuse.constant dense<1.250000e-01> : tensor<bf16>
  %2 = tfuse.constant dense<0.125> : tensor<bf16>
  // CHECK: tfuse.constant dense<[3, 7]> : tensor<2xi32>
  %3 = tfuse.constant dense<[3, 7]> : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<4xbf16>, tensor<4xf16>, tensor<bf16>, tensor<2xi32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) -> (tensor<4x1xf16>, tensor<8xf16>, tensor<4xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) {
  // CHECK: tfuse.reduce sum %{{.*}} axis = 1 keep_dims : tensor<4x8xf16> -> tensor<4x1xf16>
  %0 = tfuse.reduce sum %x axis = 1 keep_dims : tensor<4x8xf16> -> tensor<4x1xf16>
  // CHECK: tfuse.reduce max %{{.*}} axis = 0 : tensor<4x8xf16> -> tensor<8xf16>
  %1 = tfuse.reduce max %x axis = 0 : tensor<4x8xf16> -> tensor<8xf16>
  // CHECK: tfuse.reduce mean %{{.*}} axis = 1 : tensor<4x8xf16> -> tensor<4xf16>
  %2 = tfuse.reduce mean %x axis = 1 : tensor<4x8xf16> -> tensor<4xf16>
  // CHECK: tfuse.softmax %{{.*}} axis = 1 : tensor<4x8xf16>
  %3 = tfuse.softmax %x axis = 1 : tensor<4x8xf16>
  // CHECK: tfuse.layer_norm %{{.*}} gamma %{{.*}} beta %{{.*}} eps = 9.9999999999999998E-13 : (tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %4 = tfuse.layer_norm %x gamma %g beta %b eps = 1.0e-12 : (tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  // CHECK: tfuse.layer_norm %{{.*}} eps = 1.000000e-05 : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %5 = tfuse.layer_norm %x eps = 1.0e-5 : (tensor<4x8xf16>) -> tensor<4x8xf16>
  // CHECK: tfuse.layer_norm %{{.*}} beta %{{.*}} eps = 1.000000e-05 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %6 = tfuse.layer_norm %x beta %b eps = 1.0e-5 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  // CHECK: tfuse.rms_norm %{{.*}} gamma %{{.*}} eps = 9.9999999999999995E-7 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %7 = tfuse.rms_norm %x gamma %g eps = 1.0e-6 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x1xf16>, tensor<8xf16>, tensor<4xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>
}

// CHECK-LABEL: func.func @norm_grads
func.func @norm_grads(%x: tensor<4x8xbf16>, %dy: tensor<4x8xbf16>, %g: tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x8xbf16>) {
  // CHECK: tfuse.norm_grad %{{.*}}, %{{.*}} gamma %{{.*}} eps = 9.9999999999999998E-13 : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  %dx, %mean, %rstd = tfuse.norm_grad %x, %dy gamma %g eps = 1.0e-12 : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  // CHECK: tfuse.norm_grad %{{.*}}, %{{.*}} eps = 9.9999999999999995E-7 rms : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  %dx2, %mean2, %rstd2 = tfuse.norm_grad %x, %dy eps = 1.0e-6 rms : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %dx, %rstd, %dx2 : tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @stochastic
func.func @stochastic(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // CHECK: tfuse.dropout %{{.*}} p = 1.000000e-01 seed = 42 : tensor<4x8xbf16>
  %0 = tfuse.dropout %x p = 0.1 seed = 42 : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<2x6x4xf32>, %t: tensor<100x4xf32>, %i: tensor<2x3xi64>) -> (tensor<2x3x4xf32>, tensor<4x2x6xf32>, tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<6x4xf32>) {
  // CHECK: tfuse.reshape %{{.*}} : tensor<2x6x4xf32> -> tensor<12x4xf32>
  %r = tfuse.reshape %x : tensor<2x6x4xf32> -> tensor<12x4xf32>
  // CHECK: tfuse.transpose %{{.*}} perm = [2, 0, 1] : tensor<2x6x4xf32> -> tensor<4x2x6xf32>
  %p = tfuse.transpose %x perm = [2, 0, 1] : tensor<2x6x4xf32> -> tensor<4x2x6xf32>
  // CHECK: tfuse.slice %{{.*}} offsets = [0, 3, 0] : tensor<2x6x4xf32> -> tensor<2x3x4xf32>
  %s = tfuse.slice %x offsets = [0, 3, 0] : tensor<2x6x4xf32> -> tensor<2x3x4xf32>
  // CHECK: %{{.*}}:2 = tfuse.split %{{.*}} axis = 1 : tensor<2x6x4xf32> -> tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %a, %b = tfuse.split %x axis = 1 : tensor<2x6x4xf32> -> tensor<2x3x4xf32>, tensor<2x3x4xf32>
  // CHECK: tfuse.concat %{{.*}}, %{{.*}} axis = 1 : (tensor<2x6x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
  %c = tfuse.concat %x, %b axis = 1 : (tensor<2x6x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
  // CHECK: tfuse.gather %{{.*}}[%{{.*}}] : (tensor<100x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %g = tfuse.gather %t[%i] : (tensor<100x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  // CHECK: tfuse.gather_grad %{{.*}}[%{{.*}}] : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<100x4xf32>
  %dt = tfuse.gather_grad %g[%i] : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<100x4xf32>
  %gr = tfuse.reshape %g : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %a, %p, %s, %c, %gr : tensor<2x3x4xf32>, tensor<4x2x6xf32>, tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<6x4xf32>
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x8x16x32xbf16>, %k: tensor<2x2x16x32xbf16>, %v: tensor<2x2x16x32xbf16>, %m: tensor<2x1x1x16xbf16>) -> (tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<16x16xbf16>) {
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 7 : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x1x1x16xbf16>) -> tensor<2x8x16x32xbf16>
  %0 = tfuse.attention %q, %k, %v mask %m scale = 0.125 dropout_p = 0.1 seed = 7 : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x1x1x16xbf16>) -> tensor<2x8x16x32xbf16>
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} scale = 0.17677670000000001 causal : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>) -> tensor<2x8x16x32xbf16>
  %1 = tfuse.attention %q, %k, %v scale = 0.1767767 causal : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>) -> tensor<2x8x16x32xbf16>
  // CHECK: tfuse.causal_mask : tensor<16x16xbf16>
  %2 = tfuse.causal_mask : tensor<16x16xbf16>
  return %0, %1, %2 : tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<16x16xbf16>
}

// CHECK-LABEL: func.func @attention_backward
func.func @attention_backward(%q: tensor<2x8x16x32xbf16>, %k: tensor<2x2x16x32xbf16>, %v: tensor<2x2x16x32xbf16>, %m: tensor<2x1x1x16xbf16>, %do: tensor<2x8x16x32xbf16>, %delta: tensor<2x8x16xf32>) -> (tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>) {
  // CHECK: %[[O:.*]]:2 = tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale = 1.250000e-01 causal : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x1x1x16xbf16>) -> (tensor<2x8x16x32xbf16>, tensor<2x8x16xf32>)
  %o, %lse = tfuse.attention %q, %k, %v mask %m scale = 0.125 causal : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x1x1x16xbf16>) -> (tensor<2x8x16x32xbf16>, tensor<2x8x16xf32>)
  // CHECK: tfuse.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O]]#1, %{{.*}} mask %{{.*}} scale = 1.250000e-01 causal dropout_p = 1.000000e-01 seed = 3 : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x1x1x16xbf16>) -> (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>)
  %dq, %dk, %dv = tfuse.attention_grad %q, %k, %v, %do, %lse, %delta mask %m scale = 0.125 causal dropout_p = 0.1 seed = 3 : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x1x1x16xbf16>) -> (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>)
  return %o, %dq, %dk, %dv : tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>
}

// CHECK-LABEL: func.func @fusion
func.func @fusion(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: %[[F:.*]]:2 = tfuse.fusion loop(%{{.*}}, %{{.*}}) attributes {bytes_after = 256 : i64, bytes_before = 384 : i64, predicted_fused_us = 1.250000e+00 : f64, predicted_unfused_us = 2.500000e+00 : f64, target = "a40"} : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<8xf32>):
  // CHECK-NEXT:   %[[S:.*]] = tfuse.add %[[A]], %[[C]]
  // CHECK-NEXT:   %[[G:.*]] = tfuse.gelu %[[S]]
  // CHECK-NEXT:   tfuse.yield %[[S]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>
  %0:2 = tfuse.fusion loop (%x, %b) attributes {bytes_before = 384 : i64, bytes_after = 256 : i64, predicted_unfused_us = 2.5 : f64, predicted_fused_us = 1.25 : f64, target = "a40"} : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %s = tfuse.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %g = tfuse.gelu %s : tensor<4x8xf32>
    tfuse.yield %s, %g : tensor<4x8xf32>, tensor<4x8xf32>
  }
  // CHECK: tfuse.fusion row_reduction
  %1 = tfuse.fusion row_reduction (%0#1) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = tfuse.softmax %a axis = 1 : tensor<4x8xf32>
    tfuse.yield %s : tensor<4x8xf32>
  }
  // CHECK: tfuse.fusion gemm_epilogue
  %2 = tfuse.fusion gemm_epilogue (%1, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<4x8xf32>):
    %m = tfuse.matmul %a, %c transpose_rhs : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
    %r = tfuse.reshape %m : tensor<4x4xf32> -> tensor<2x8xf32>
    %s = tfuse.concat %r, %r axis = 0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
    tfuse.yield %s : tensor<4x8xf32>
  }
  return %0#0, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// Decisions taken by a rule carry no costs; those of the cost model do.
// CHECK-LABEL: func.func @fusion_decisions
// CHECK-SAME: tfuse.fusion_decisions = [{consumer = "c", fused = false, kind = "gemm_epilogue", producer = "p", reason = "r", rule = "no_gemm_input"}, {bytes_apart = 8 : i64, bytes_merged = 4 : i64, consumer = "c", fused = true, kind = "loop", producer = "p", reason = "r", rule = "", us_apart = 2.000000e+00 : f64, us_merged = 1.000000e+00 : f64}]
func.func @fusion_decisions() attributes {tfuse.fusion_decisions = [{fused = false, kind = "gemm_epilogue", producer = "p", consumer = "c", rule = "no_gemm_input", reason = "r"}, {fused = true, kind = "loop", producer = "p", consumer = "c", rule = "", reason = "r", bytes_apart = 8 : i64, bytes_merged = 4 : i64, us_apart = 2.0 : f64, us_merged = 1.0 : f64}]} {
  return
}

// Optimizer updates: the model weight is an optional last result.
// CHECK-LABEL: func.func @optimizers
func.func @optimizers(%p: tensor<2x3xf32>, %g: tensor<2x3xbf16>, %m: tensor<2x3xf32>, %v: tensor<2x3xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x3xf32>, tensor<2x3xf16>) {
  // CHECK: tfuse.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lr %{{.*}} step %{{.*}} beta1 = 9.000000e-01 beta2 = 0.99899999999999999 eps = 1.000000e-08 weight_decay = 0.000000e+00 : (tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %0:3 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.0 : (tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  // CHECK: tfuse.adamw {{.*}} -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xbf16>)
  %1:4 = tfuse.adamw %0#0, %g, %0#1, %0#2 lr %lr step %t beta1 = 0.9 beta2 = 0.95 eps = 1.0e-06 weight_decay = 0.1 : (tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xbf16>)
  // CHECK: tfuse.sgd %{{.*}}, %{{.*}}, %{{.*}} lr %{{.*}} step %{{.*}} momentum = 9.000000e-01 dampening = 0.000000e+00 weight_decay = 1.000000e-04 nesterov : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %2:2 = tfuse.sgd %1#0, %1#1, %1#2 lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 1.0e-04 nesterov : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  // CHECK: tfuse.sgd {{.*}} momentum = 5.000000e-01 dampening = 5.000000e-01 weight_decay = 0.000000e+00 : {{.*}} -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16>)
  %3:3 = tfuse.sgd %2#0, %g, %2#1 lr %lr step %t momentum = 0.5 dampening = 0.5 weight_decay = 0.0 : (tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16>)
  return %3#0, %1#3, %3#1, %3#2 : tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x3xf32>, tensor<2x3xf16>
}

// Collectives: an axis of 0 (the default) is not printed.
// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<8x4xbf16>, %h: tensor<2x4xf16>) -> (tensor<8x4xbf16>, tensor<2x4xbf16>, tensor<8x2xbf16>, tensor<8x4xf16>, tensor<2x12xf16>) {
  // CHECK: tfuse.all_reduce %{{.*}} group_size = 8 : tensor<8x4xbf16>
  %0 = tfuse.all_reduce %x group_size = 8 : tensor<8x4xbf16>
  // CHECK: tfuse.reduce_scatter %{{.*}} group_size = 4 : tensor<8x4xbf16> -> tensor<2x4xbf16>
  %1 = tfuse.reduce_scatter %0 axis = 0 group_size = 4 : tensor<8x4xbf16> -> tensor<2x4xbf16>
  // CHECK: tfuse.reduce_scatter %{{.*}} axis = 1 group_size = 2 : tensor<8x4xbf16> -> tensor<8x2xbf16>
  %2 = tfuse.reduce_scatter %x axis = 1 group_size = 2 : tensor<8x4xbf16> -> tensor<8x2xbf16>
  // CHECK: tfuse.all_gather %{{.*}} group_size = 4 : tensor<2x4xf16> -> tensor<8x4xf16>
  %3 = tfuse.all_gather %h group_size = 4 : tensor<2x4xf16> -> tensor<8x4xf16>
  // CHECK: tfuse.all_gather %{{.*}} axis = 1 group_size = 3 : tensor<2x4xf16> -> tensor<2x12xf16>
  %4 = tfuse.all_gather %h axis = 1 group_size = 3 : tensor<2x4xf16> -> tensor<2x12xf16>
  return %0, %1, %2, %3, %4 : tensor<8x4xbf16>, tensor<2x4xbf16>, tensor<8x2xbf16>, tensor<8x4xf16>, tensor<2x12xf16>
}

// CHECK-LABEL: func.func @losses
func.func @losses(%x: tensor<2x3x10xbf16>, %l: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x10xbf16>) {
  // CHECK: %[[LOSS:.*]], %[[COUNTED:.*]] = tfuse.cross_entropy %{{.*}}[%{{.*}}] ignore = -100 : (tensor<2x3x10xbf16>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %loss, %counted = tfuse.cross_entropy %x[%l] ignore = -100 : (tensor<2x3x10xbf16>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  // CHECK: tfuse.cross_entropy_grad %{{.*}}[%{{.*}}], %[[LOSS]] ignore = 0 : (tensor<2x3x10xbf16>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<2x3x10xbf16>
  %dx = tfuse.cross_entropy_grad %x[%l], %loss ignore = 0 : (tensor<2x3x10xbf16>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<2x3x10xbf16>
  return %loss, %counted, %dx : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x10xbf16>
}

// Argument and result names; an input and an output may share one (an
// optimizer's updated weight).
// CHECK-LABEL: func.func @names
// CHECK-SAME: (%{{.*}}: tensor<2x4xf32> {tfuse.name = "x"}, %{{.*}}: tensor<4x3xf32> {tfuse.checkpoint_transposed, tfuse.name = "fc.weight"})
// CHECK-SAME: -> (tensor<2x3xf32> {tfuse.name = "y"}, tensor<4x3xf32> {tfuse.name = "fc.weight"})
func.func @names(%x: tensor<2x4xf32> {tfuse.name = "x"}, %w: tensor<4x3xf32> {tfuse.name = "fc.weight", tfuse.checkpoint_transposed}) -> (tensor<2x3xf32> {tfuse.name = "y"}, tensor<4x3xf32> {tfuse.name = "fc.weight"}) {
  %y = tfuse.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %w2 = tfuse.exp %w : tensor<4x3xf32>
  return %y, %w2 : tensor<2x3xf32>, tensor<4x3xf32>
}
