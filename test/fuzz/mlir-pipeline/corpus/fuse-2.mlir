func.func @gemm_not_a_bias(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>, %r: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %m = tfuse.matmul %x, %w : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  %a = tfuse.add %m, %r : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  return %a : tensor<64x256xf32>
}
