// An empty constant inside the function: refused at the op that makes it.
func.func @empty_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tfuse.constant dense<> : tensor<0xf32>
  %0 = tfuse.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
