func.func @no_dropout_no_cleanup(%q: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %unused = tfuse.exp %q : tensor<1x1x4x8xf32>
  %o = tfuse.attention %q, %q, %q scale = 0.5 dropout_p = 0.0 seed = 9 : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}
