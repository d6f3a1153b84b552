// A two-layer perceptron for tfuse-compile --train (train.test).
func.func @mlp(%x: tensor<64x256xf32>, %w1: tensor<256x512xf32>,
               %w2: tensor<512x256xf32>) -> tensor<64x256xf32> {
  %h = tfuse.matmul %x, %w1 : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %a = tfuse.gelu %h : tensor<64x512xf32>
  %y = tfuse.matmul %a, %w2 : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
