func.func @split(%x: tensor<64x3x256xbf16>) -> (tensor<64x1x256xbf16>, tensor<64x2x256xbf16>) {
  %a, %b = tfuse.split %x axis = 1 : tensor<64x3x256xbf16> -> tensor<64x1x256xbf16>, tensor<64x2x256xbf16>
  return %a, %b : tensor<64x1x256xbf16>, tensor<64x2x256xbf16>
}
