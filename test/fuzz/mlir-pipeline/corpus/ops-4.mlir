func.func @stochastic(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = tfuse.dropout %x p = 0.1 seed = 42 : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}
