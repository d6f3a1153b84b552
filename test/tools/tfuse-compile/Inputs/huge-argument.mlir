// An argument no op uses, of 2^31 x 2^20 elements.
func.func @f(%unused: tensor<2147483648x1048576xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tfuse.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
