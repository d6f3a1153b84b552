func.func @forward(%x: tensor<4x2048x32x128xbf16>) -> tensor<4x32x2048x128xbf16> {
  %f = tfuse.constant dense<1.0e-1> : tensor<64xf32>
  %t = tfuse.transpose %x perm = [0, 2, 1, 3] : tensor<4x2048x32x128xbf16> -> tensor<4x32x2048x128xbf16>
  %r = tfuse.rope %t, %f attention_scaling = 1.0 : tensor<4x32x2048x128xbf16>, tensor<64xf32>
  return %r : tensor<4x32x2048x128xbf16>
}
