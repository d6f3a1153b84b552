func.func @no_attention(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tfuse.softmax %x axis = 1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
