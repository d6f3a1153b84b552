func.func @attention(%q: tensor<2x8x16x32xbf16>, %k: tensor<2x2x16x32xbf16>, %v: tensor<2x2x16x32xbf16>, %m: tensor<2x1x1x16xbf16>) -> (tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<16x16xbf16>) {
  %0 = tfuse.attention %q, %k, %v mask %m scale = 0.125 dropout_p = 0.1 seed = 7 : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x1x1x16xbf16>) -> tensor<2x8x16x32xbf16>
  %1 = tfuse.attention %q, %k, %v scale = 0.1767767 causal : (tensor<2x8x16x32xbf16>, tensor<2x2x16x32xbf16>, tensor<2x2x16x32xbf16>) -> tensor<2x8x16x32xbf16>
  %2 = tfuse.causal_mask : tensor<16x16xbf16>
  return %0, %1, %2 : tensor<2x8x16x32xbf16>, tensor<2x8x16x32xbf16>, tensor<16x16xbf16>
}
