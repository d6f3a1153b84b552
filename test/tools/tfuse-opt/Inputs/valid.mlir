func.func @valid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tfuse.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
