func.func @forward(%x: tensor<16x1024x256xf32>, %b: tensor<1024x256xf32>) -> tensor<16x1024x256xf32> {
  %s = tfuse.add %x, %b : (tensor<16x1024x256xf32>, tensor<1024x256xf32>) -> tensor<16x1024x256xf32>
  %0 = tfuse.softmax %s axis = 1 : tensor<16x1024x256xf32>
  return %0 : tensor<16x1024x256xf32>
}
