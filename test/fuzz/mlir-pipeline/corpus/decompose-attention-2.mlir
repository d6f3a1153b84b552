func.func @causal(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x12x16xf16>, %v: tensor<1x2x12x32xf16>) -> tensor<1x2x8x32xf16> {
  %o = tfuse.attention %q, %k, %v scale = 0.25 causal : (tensor<1x2x8x16xf16>, tensor<1x2x12x16xf16>, tensor<1x2x12x32xf16>) -> tensor<1x2x8x32xf16>
  return %o : tensor<1x2x8x32xf16>
}
