func.func @loop_fusion(%x: tensor<64x256xbf16>, %b: tensor<256xbf16>) -> tensor<64x256xbf16> {
  %0 = tfuse.fusion loop (%x, %b) : (tensor<64x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16> {
  ^bb0(%a: tensor<64x256xbf16>, %c: tensor<256xbf16>):
    %s = tfuse.add %a, %c : (tensor<64x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
    %g = tfuse.gelu %s approximate = tanh : tensor<64x256xbf16>
    tfuse.yield %g : tensor<64x256xbf16>
  }
  return %0 : tensor<64x256xbf16>
}
