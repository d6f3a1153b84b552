func.func @embed(%t: tensor<100x64xf32>, %i: tensor<8xi32>) -> tensor<8x64xf32> {
  %e = tfuse.gather %t[%i] : (tensor<100x64xf32>, tensor<8xi32>) -> tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}
