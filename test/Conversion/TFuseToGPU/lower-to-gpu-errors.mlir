// RUN: tfuse-opt %s --tfuse-lower-to-gpu -split-input-file -verify-diagnostics

// What the kernel emitters refuse fails the pass, as it fails tfuse-compile.

func.func @reduce_not_last_axis(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  // expected-error @+1 {{'tfuse.reduce' op row kernels reduce the last axis only}}
  %0 = tfuse.reduce sum %x axis = 0 : tensor<64x128xf32> -> tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

func.func @gather(%t: tensor<100x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'tfuse.gather' op has no GPU code generation yet (gather and concat have no emitter)}}
  %0 = tfuse.gather %t[%i] : (tensor<100x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @concat(%x: tensor<2x6x4xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x9x4xf32> {
  // expected-error @+1 {{'tfuse.concat' op has no GPU code generation yet}}
  %0 = tfuse.concat %x, %y axis = 1 : (tensor<2x6x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
  return %0 : tensor<2x9x4xf32>
}

// -----

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

func.func @attention_dropout(%q: tensor<2x8x16x32xbf16>, %k: tensor<2x8x16x32xbf16>, %v: tensor<2x8x16x32xbf16>) -> tensor<2x8x16x32xbf16> {
  // expected-error @+1 {{dropout is not fused yet}}
  %0 = tfuse.attention %q, %k, %v scale = 0.125 dropout_p = 1.000000e-01 seed = 7 : (tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>) -> tensor<2x8x16x32xbf16>
  return %0 : tensor<2x8x16x32xbf16>
}

// -----

func.func @attention_too_many_heads(%q: tensor<2x32768x1x16xbf16>, %k: tensor<2x1x1x16xbf16>, %v: tensor<2x1x1x16xbf16>) -> tensor<2x32768x1x16xbf16> {
  // expected-error @+1 {{more than 65535 (batch, head) pairs}}
  %0 = tfuse.attention %q, %k, %v scale = 0.125 : (tensor<2x32768x1x16xbf16>, tensor<2x1x1x16xbf16>, tensor<2x1x1x16xbf16>) -> tensor<2x32768x1x16xbf16>
  return %0 : tensor<2x32768x1x16xbf16>
}

// -----

// A fusion whose row op reduces another axis, refused inside the region.
func.func @fused_reduce_not_last_axis(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %0 = tfuse.fusion row_reduction (%x) : (tensor<64x128xf32>) -> tensor<128xf32> {
  ^bb0(%a: tensor<64x128xf32>):
    %e = tfuse.exp %a : tensor<64x128xf32>
    // expected-error @+1 {{'tfuse.reduce' op row kernels reduce the last axis only}}
    %r = tfuse.reduce max %e axis = 0 : tensor<64x128xf32> -> tensor<128xf32>
    tfuse.yield %r : tensor<128xf32>
  }
  return %0 : tensor<128xf32>
}
