func.func @identity_cast(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xf32>) {
  %a = tfuse.cast %x : tensor<4xbf16> to tensor<4xbf16>
  %b = tfuse.cast %x : tensor<4xbf16> to tensor<4xf32>
  return %a, %b : tensor<4xbf16>, tensor<4xf32>
}
