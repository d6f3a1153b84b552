func.func @broadcast_producer(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %e = tfuse.exp %b : tensor<1024xf32>
  %a = tfuse.add %x, %e : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  %t = tfuse.tanh %a : tensor<64x1024xf32>
  return %t : tensor<64x1024xf32>
}
