func.func @gemm_batched_weight(%x: tensor<4x64x128xf32>, %w: tensor<4x128x256xf32>) -> tensor<4x64x256xf32> {
  %m = tfuse.matmul %x, %w : (tensor<4x64x128xf32>, tensor<4x128x256xf32>) -> tensor<4x64x256xf32>
  %r = tfuse.relu %m : tensor<4x64x256xf32>
  return %r : tensor<4x64x256xf32>
}
