func.func @layer_norm_epilogue(%x: tensor<128x1024xf32>, %r: tensor<128x1024xf32>) -> tensor<128x1024xf32> {
  %n = tfuse.layer_norm %x eps = 1.0e-5 : (tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %o = tfuse.add %n, %r : (tensor<128x1024xf32>, tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %o : tensor<128x1024xf32>
}
