func.func @embedding_grad(%g: tensor<2x3x4xf32>, %i: tensor<2x3xi64>, %h: tensor<5x8xbf16>, %j: tensor<5xi32>) -> (tensor<100x4xf32>, tensor<7x8xbf16>) {
  %t = tfuse.gather_grad %g[%i] : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<100x4xf32>
  %u = tfuse.gather_grad %h[%j] : (tensor<5x8xbf16>, tensor<5xi32>) -> tensor<7x8xbf16>
  return %t, %u : tensor<100x4xf32>, tensor<7x8xbf16>
}
