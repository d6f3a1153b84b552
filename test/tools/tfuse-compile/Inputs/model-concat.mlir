func.func @forward(%x: tensor<8x1024x512xf32>, %y: tensor<8x1024x256xf32>) -> tensor<8x1024x768xf32> {
  %0 = tfuse.concat %x, %y axis = 2 : (tensor<8x1024x512xf32>, tensor<8x1024x256xf32>) -> tensor<8x1024x768xf32>
  return %0 : tensor<8x1024x768xf32>
}
