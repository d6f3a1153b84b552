// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=text" | FileCheck %s

// Optimizer updates read every operand once and write every result once,
// on the toy target (10^6 bytes/us, 10^7 FLOP/us fp32, 1 us launch). Ops
// are numbered across the module. A function's updates are the one
// multi_tensor kernel tfuse-compile runs them as (here one update each;
// @two_updates has two).

// AdamW over N = 2^20 elements with a bf16 gradient and a bf16 model
// weight: read p, m, v (4 N each), g (2 N), lr and step (4 B each) =
// 14 N + 8 = 14680072 B; written p, m, v (4 N each) and the weight (2 N) =
// 14 N = 14680064 B. FLOPs: 15 per element with weight decay, plus one to
// convert the gradient and one to round the weight: 17 N = 17825792.
// 29360136 B / 10^6 B/us = 29.36 us + 1 us launch = 30.36 us, memory-bound
// (1.78 us of arithmetic); intensity 17825792 / 29360136 = 0.61.
// CHECK-LABEL: @adamw
// CHECK: 0  tfuse.adamw optimizer 14680072 14680064 17825792 0.61 | 30.36 memory
// CHECK-NOT: not compiled
// CHECK: function totals: 29360136 bytes (29.360 MB: 14680072 read, 14680064 written), 17825792 flops
func.func @adamw(%p: tensor<1024x1024xf32>, %g: tensor<1024x1024xbf16>, %m: tensor<1024x1024xf32>, %v: tensor<1024x1024xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xbf16>) {
  %0:4 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<1024x1024xf32>, tensor<1024x1024xbf16>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xbf16>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xbf16>
}

// Without weight decay, an f32 gradient and no model weight: 13 FLOPs per
// element. N = 2^18: read 4 x 4 N + 8 = 4194312 B, written 3 x 4 N =
// 3145728 B, 13 N = 3407872 FLOPs; 7340040 B = 7.34 us + 1 us = 8.34 us;
// intensity 0.46.
// CHECK-LABEL: @adamw_no_decay
// CHECK: 1  tfuse.adamw optimizer 4194312 3145728 3407872 0.46 | 8.34 memory
func.func @adamw_no_decay(%p: tensor<256x1024xf32>, %g: tensor<256x1024xf32>, %m: tensor<256x1024xf32>, %v: tensor<256x1024xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>) {
  %0:3 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.0 : (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>)
  return %0#0, %0#1, %0#2 : tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>
}

// SGD with Nesterov momentum, no decay, f32 gradient, N = 2^18: read p, g,
// buffer (4 N each) + 8 = 3145736 B, written p and buffer = 2097152 B;
// 3 (buffer) + 2 (Nesterov) + 2 (step) = 7 FLOPs per element = 1835008.
// 5242888 B = 5.24 us + 1 us = 6.24 us; intensity 0.35.
// CHECK-LABEL: @sgd
// CHECK: 2  tfuse.sgd optimizer 3145736 2097152 1835008 0.35 | 6.24 memory
// CHECK: toy 6.24 us in 1 kernels
func.func @sgd(%p: tensor<256x1024xf32>, %g: tensor<256x1024xf32>, %b: tensor<256x1024xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>) {
  %0:2 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 nesterov : (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>)
  return %0#0, %0#1 : tensor<256x1024xf32>, tensor<256x1024xf32>
}

// Two independent updates sharing lr and step, N = 2^18 each: one kernel
// reading every distinct input once, p, g, m, v (16 N) + p, g, buffer (12 N)
// + lr and step (8 B) = 7340040 B, writing 12 N + 8 N = 5242880 B:
// 12582920 B = 12.58 us + one 1 us launch = 13.58 us (the ops alone: 8.34 +
// 6.24 = 14.58 us, two launches). The kernel is listed at the last update;
// the function's byte totals are the ops' own (lr and step counted twice:
// 12582928).
// CHECK-LABEL: @two_updates
// CHECK: 3  tfuse.adamw optimizer 4194312 3145728 3407872 0.46 | 0.00 none
// CHECK: 4  tfuse.sgd optimizer 3145736 2097152 1835008 0.35 | 13.58 memory
// CHECK: function totals: 12582928 bytes
// CHECK-NEXT: toy 13.58 us in 1 kernels
func.func @two_updates(%p: tensor<256x1024xf32>, %g: tensor<256x1024xf32>, %m: tensor<256x1024xf32>, %v: tensor<256x1024xf32>, %q: tensor<256x1024xf32>, %h: tensor<256x1024xf32>, %b: tensor<256x1024xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>) {
  %0:3 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.0 : (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>)
  %1:2 = tfuse.sgd %q, %h, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 nesterov : (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<256x1024xf32>, tensor<256x1024xf32>)
  return %0#0, %0#1, %0#2, %1#0, %1#1 : tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>
}

// An update that reads another's result cannot share its kernel: each is
// priced alone, and the report says why.
// CHECK-LABEL: @chained_updates
// CHECK: not compiled: priced alone: reads the result of another optimizer update; the multi-tensor kernel runs independent updates
func.func @chained_updates(%p: tensor<1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %0:2 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<1024xf32>, tensor<1024xf32>)
  %1:2 = tfuse.sgd %0#0, %g, %0#1 lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<1024xf32>, tensor<1024xf32>)
  return %1#0, %1#1 : tensor<1024xf32>, tensor<1024xf32>
}
