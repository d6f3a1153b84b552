func.func @gather(%t: tensor<100x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = tfuse.gather %t[%i] : (tensor<100x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
