func.func @swiglu(%gate: tensor<8x11008xbf16>, %up: tensor<8x11008xbf16>) -> tensor<8x11008xbf16> {
  %s = tfuse.silu %gate : tensor<8x11008xbf16>
  %h = tfuse.mul %s, %up : (tensor<8x11008xbf16>, tensor<8x11008xbf16>) -> tensor<8x11008xbf16>
  return %h : tensor<8x11008xbf16>
}
