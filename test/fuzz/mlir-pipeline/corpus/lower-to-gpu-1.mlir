func.func @row_reduction(%x: tensor<128x1024xbf16>, %r: tensor<128x1024xbf16>, %g: tensor<1024xbf16>) -> tensor<128x1024xbf16> {
  %0 = tfuse.fusion row_reduction (%x, %r, %g) : (tensor<128x1024xbf16>, tensor<128x1024xbf16>, tensor<1024xbf16>) -> tensor<128x1024xbf16> {
  ^bb0(%a: tensor<128x1024xbf16>, %b: tensor<128x1024xbf16>, %c: tensor<1024xbf16>):
    %s = tfuse.add %a, %b : (tensor<128x1024xbf16>, tensor<128x1024xbf16>) -> tensor<128x1024xbf16>
    %n = tfuse.layer_norm %s gamma %c eps = 1.0e-5 : (tensor<128x1024xbf16>, tensor<1024xbf16>) -> tensor<128x1024xbf16>
    tfuse.yield %n : tensor<128x1024xbf16>
  }
  return %0 : tensor<128x1024xbf16>
}
