func.func @masked_dropout(%q: tensor<2x4x8x16xbf16>, %k: tensor<2x4x8x16xbf16>, %v: tensor<2x4x8x16xbf16>, %m: tensor<2x1x1x8xbf16>) -> tensor<2x4x8x16xbf16> {
  %o = tfuse.attention %q, %k, %v mask %m scale = 0.25 dropout_p = 0.1 seed = 11 : (tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x1x1x8xbf16>) -> tensor<2x4x8x16xbf16>
  return %o : tensor<2x4x8x16xbf16>
}
