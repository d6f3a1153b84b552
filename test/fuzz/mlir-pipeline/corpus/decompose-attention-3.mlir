func.func @grouped(%q: tensor<1x8x4x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>, %m: tensor<8x4x6xf32>) -> tensor<1x8x4x16xf32> {
  %o = tfuse.attention %q, %k, %v mask %m scale = 0.25 causal dropout_p = 0.2 seed = 5 : (tensor<1x8x4x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>, tensor<8x4x6xf32>) -> tensor<1x8x4x16xf32>
  return %o : tensor<1x8x4x16xf32>
}
