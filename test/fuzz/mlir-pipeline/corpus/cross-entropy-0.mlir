func.func @loss_fusion(%x: tensor<64x1000xbf16>, %l: tensor<64xi32>, %g: tensor<64xf32>, %r: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x1000xf32>) {
  %y = tfuse.cast %x : tensor<64x1000xbf16> to tensor<64x1000xf32>
  %loss, %counted = tfuse.cross_entropy %y[%l] ignore = -100 : (tensor<64x1000xf32>, tensor<64xi32>) -> (tensor<64xf32>, tensor<64xf32>)
  %dy = tfuse.cross_entropy_grad %y[%l], %g ignore = -100 : (tensor<64x1000xf32>, tensor<64xi32>, tensor<64xf32>) -> tensor<64x1000xf32>
  %s = tfuse.add %dy, %r : (tensor<64x1000xf32>, tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %loss, %counted, %s : tensor<64xf32>, tensor<64xf32>, tensor<64x1000xf32>
}
