func.func @softmax_bias(%x: tensor<64x16384xf32>, %b: tensor<16384xf32>) -> tensor<64x16384xf32> {
  %0 = tfuse.add %x, %b : (tensor<64x16384xf32>, tensor<16384xf32>) -> tensor<64x16384xf32>
  %1 = tfuse.softmax %0 axis = 1 : tensor<64x16384xf32>
  return %1 : tensor<64x16384xf32>
}
