// RUN: tfuse-opt %s --tfuse-lower-to-gpu -split-input-file -verify-diagnostics

// What the kernel emitters refuse fails the pass, as it fails tfuse-compile.

// Attention the fused kernel does not cover runs as the ops it decomposes
// into (tfuse-decompose-attention): each reason the kernel refuses.
func.func @attention_f32(%q: tensor<2x8x16x32xf32>, %k: tensor<2x8x16x32xf32>, %v: tensor<2x8x16x32xf32>) -> tensor<2x8x16x32xf32> {
  // expected-error @+1 {{'tfuse.attention' op has no fused attention kernel (the fused kernel runs on tensor cores: bf16 or f16 only): decompose it first (tfuse-decompose-attention)}}
  %0 = tfuse.attention %q, %k, %v scale = 0.125 : (tensor<2x8x16x32xf32>, tensor<2x8x16x32xf32>, tensor<2x8x16x32xf32>) -> tensor<2x8x16x32xf32>
  return %0 : tensor<2x8x16x32xf32>
}

// -----

func.func @attention_head_dim(%q: tensor<1x2x16x80xbf16>, %k: tensor<1x2x16x80xbf16>, %v: tensor<1x2x16x160xbf16>) -> tensor<1x2x16x160xbf16> {
  // expected-error @+1 {{head dims must be multiples of 16 up to 128, got 80 and 160}}
  %0 = tfuse.attention %q, %k, %v scale = 0.125 : (tensor<1x2x16x80xbf16>, tensor<1x2x16x80xbf16>, tensor<1x2x16x160xbf16>) -> tensor<1x2x16x160xbf16>
  return %0 : tensor<1x2x16x160xbf16>
}

// -----

func.func @attention_head_dim_8(%q: tensor<1x2x16x8xf16>, %k: tensor<1x2x16x8xf16>, %v: tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16> {
  // expected-error @+1 {{head dims must be multiples of 16 up to 128, got 8 and 16}}
  %0 = tfuse.attention %q, %k, %v scale = 0.125 : (tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  return %0 : tensor<1x2x16x16xf16>
}

// -----

func.func @attention_too_many_heads(%q: tensor<2x32768x1x16xbf16>, %k: tensor<2x1x1x16xbf16>, %v: tensor<2x1x1x16xbf16>) -> tensor<2x32768x1x16xbf16> {
  // expected-error @+1 {{more than 65535 (batch, head) pairs}}
  %0 = tfuse.attention %q, %k, %v scale = 0.125 : (tensor<2x32768x1x16xbf16>, tensor<2x1x1x16xbf16>, tensor<2x1x1x16xbf16>) -> tensor<2x32768x1x16xbf16>
  return %0 : tensor<2x32768x1x16xbf16>
}

// -----

// The multi-tensor kernel runs every update of a function at once: one may
// not read another's result ...
func.func @chained_updates(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  // expected-error @+1 {{'tfuse.sgd' op reads the result of another optimizer update; the multi-tensor kernel runs independent updates}}
  %1:2 = tfuse.sgd %0#0, %g, %0#1 lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %1#0, %1#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// ... and no op may use an update's result before the last update.
func.func @used_between(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %q: tensor<4xf32>, %c: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.sgd' op has a result used before the last optimizer update of the function; the multi-tensor kernel runs them all at once}}
  %0:2 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  %e = tfuse.exp %0#0 : tensor<4xf32>
  %1:2 = tfuse.sgd %q, %e, %c lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#1, %1#0, %1#1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A hand-written multi_tensor fusion holds optimizer updates only ...
func.func @multi_tensor_exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.fusion multi_tensor (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'tfuse.exp' op is not an optimizer update: a multi_tensor kernel runs tfuse.adamw and tfuse.sgd only}}
    %e = tfuse.exp %a : tensor<4xf32>
    tfuse.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// ... each reading only the kernel's inputs.
func.func @multi_tensor_chain(%p: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> tensor<4xf32> {
  %0 = tfuse.fusion multi_tensor (%p, %g, %b, %lr, %t) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>, %l: tensor<f32>, %s: tensor<f32>):
    %1:2 = tfuse.sgd %a, %c, %d lr %l step %s momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
    // expected-error @+1 {{'tfuse.sgd' op reads a value computed in its multi_tensor kernel}}
    %2:2 = tfuse.sgd %1#0, %c, %1#1 lr %l step %s momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
    tfuse.yield %2#0 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// A collective runs between GPUs: no kernel emits it yet.
func.func @collective(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{collectives are not emitted yet; see docs/multi-gpu.md}}
  %y = tfuse.all_reduce %x group_size = 2 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
