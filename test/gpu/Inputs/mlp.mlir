// A two-layer MLP whose training step test/gpu/optimizer-step.test checks.
func.func @mlp(%x: tensor<64x256xf32>, %w1: tensor<256x512xf32>, %b1: tensor<512xf32>, %w2: tensor<512x256xf32>) -> tensor<64x256xf32> {
  %0 = tfuse.matmul %x, %w1 : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %1 = tfuse.add %0, %b1 : (tensor<64x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
  %2 = tfuse.gelu %1 : tensor<64x512xf32>
  %3 = tfuse.matmul %2, %w2 : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
  return %3 : tensor<64x256xf32>
}
