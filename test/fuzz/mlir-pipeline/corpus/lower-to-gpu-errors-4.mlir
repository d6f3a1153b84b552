func.func @attention(%q: tensor<2x8x16x32xbf16>, %k: tensor<2x8x16x32xbf16>, %v: tensor<2x8x16x32xbf16>) -> tensor<2x8x16x32xbf16> {
  %0 = tfuse.attention %q, %k, %v scale = 0.125 : (tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>) -> tensor<2x8x16x32xbf16>
  return %0 : tensor<2x8x16x32xbf16>
}
