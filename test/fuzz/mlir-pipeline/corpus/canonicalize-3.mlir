func.func @identity_transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x4x3xf32>) {
  %a = tfuse.transpose %x perm = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %b = tfuse.transpose %x perm = [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  return %a, %b : tensor<2x3x4xf32>, tensor<2x4x3xf32>
}
