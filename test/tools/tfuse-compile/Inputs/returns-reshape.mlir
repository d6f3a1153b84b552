func.func @identity_reshape(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = tfuse.reshape %x : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
