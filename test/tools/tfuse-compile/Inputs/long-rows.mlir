func.func @long_rows(%x: tensor<64x50257xbf16>, %b: tensor<50257xbf16>, %r: tensor<16x128256xf32>, %g: tensor<128256xf32>) -> (tensor<64x50257xbf16>, tensor<16x128256xf32>) {
  %0 = tfuse.add %x, %b : (tensor<64x50257xbf16>, tensor<50257xbf16>) -> tensor<64x50257xbf16>
  %1 = tfuse.softmax %0 axis = 1 : tensor<64x50257xbf16>
  %2 = tfuse.mul %r, %r : (tensor<16x128256xf32>, tensor<16x128256xf32>) -> tensor<16x128256xf32>
  %3 = tfuse.layer_norm %2 gamma %g beta %g eps = 1.0e-05 : (tensor<16x128256xf32>, tensor<128256xf32>, tensor<128256xf32>) -> tensor<16x128256xf32>
  %4 = tfuse.add %3, %r : (tensor<16x128256xf32>, tensor<16x128256xf32>) -> tensor<16x128256xf32>
  return %1, %4 : tensor<64x50257xbf16>, tensor<16x128256xf32>
}
