func.func @reductions(%x: tensor<4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) -> (tensor<4x1xf16>, tensor<8xf16>, tensor<4xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) {
  %0 = tfuse.reduce sum %x axis = 1 keep_dims : tensor<4x8xf16> -> tensor<4x1xf16>
  %1 = tfuse.reduce max %x axis = 0 : tensor<4x8xf16> -> tensor<8xf16>
  %2 = tfuse.reduce mean %x axis = 1 : tensor<4x8xf16> -> tensor<4xf16>
  %3 = tfuse.softmax %x axis = 1 : tensor<4x8xf16>
  %4 = tfuse.layer_norm %x gamma %g beta %b eps = 1.0e-12 : (tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %5 = tfuse.layer_norm %x eps = 1.0e-5 : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %6 = tfuse.layer_norm %x beta %b eps = 1.0e-5 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %7 = tfuse.rms_norm %x gamma %g eps = 1.0e-6 : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x1xf16>, tensor<8xf16>, tensor<4xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>
}
