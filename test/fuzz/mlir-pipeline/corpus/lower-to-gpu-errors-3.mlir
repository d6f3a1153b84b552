func.func @concat(%x: tensor<2x6x4xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x9x4xf32> {
  %0 = tfuse.concat %x, %y axis = 1 : (tensor<2x6x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
  return %0 : tensor<2x9x4xf32>
}
