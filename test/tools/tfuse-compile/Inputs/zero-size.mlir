// A loop kernel over a tensor with a zero-size dimension: no elements.
func.func @empty(%x: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %0 = tfuse.relu %x : tensor<0x4xf32>
  %1 = tfuse.mul %0, %x : (tensor<0x4xf32>, tensor<0x4xf32>) -> tensor<0x4xf32>
  return %1 : tensor<0x4xf32>
}
