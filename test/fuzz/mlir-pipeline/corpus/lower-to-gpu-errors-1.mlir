func.func @reduce_not_last_axis(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %0 = tfuse.reduce sum %x axis = 0 : tensor<64x128xf32> -> tensor<128xf32>
  return %0 : tensor<128xf32>
}
