func.func @bias_dropout_residual_layer_norm(%y: tensor<128x1024xf32>, %bias: tensor<1024xf32>, %x: tensor<128x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> (tensor<128x1024xf32>, tensor<1024x128xf32>) {
  %yb = tfuse.add %y, %bias : (tensor<128x1024xf32>, tensor<1024xf32>) -> tensor<128x1024xf32>
  %d = tfuse.dropout %yb p = 0.1 seed = 2 : tensor<128x1024xf32>
  %r = tfuse.add %d, %x : (tensor<128x1024xf32>, tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %n = tfuse.layer_norm %r gamma %g beta %b eps = 1.0e-5 : (tensor<128x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<128x1024xf32>
  %t = tfuse.transpose %r perm = [1, 0] : tensor<128x1024xf32> -> tensor<1024x128xf32>
  return %n, %t : tensor<128x1024xf32>, tensor<1024x128xf32>
}
