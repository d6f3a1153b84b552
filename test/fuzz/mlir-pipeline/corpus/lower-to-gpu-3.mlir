func.func @standalone(%x: tensor<32x512xf32>) -> tensor<32x512xf32> {
  %c = tfuse.constant dense<0.5> : tensor<f32>
  %0 = tfuse.mul %x, %c : (tensor<32x512xf32>, tensor<f32>) -> tensor<32x512xf32>
  %1 = tfuse.softmax %0 axis = 1 : tensor<32x512xf32>
  return %1 : tensor<32x512xf32>
}
