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
