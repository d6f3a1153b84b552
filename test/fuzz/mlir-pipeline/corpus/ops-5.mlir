func.func @layout(%x: tensor<2x6x4xf32>, %t: tensor<100x4xf32>, %i: tensor<2x3xi64>) -> (tensor<2x3x4xf32>, tensor<4x2x6xf32>, tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<6x4xf32>) {
  %r = tfuse.reshape %x : tensor<2x6x4xf32> -> tensor<12x4xf32>
  %p = tfuse.transpose %x perm = [2, 0, 1] : tensor<2x6x4xf32> -> tensor<4x2x6xf32>
  %s = tfuse.slice %x offsets = [0, 3, 0] : tensor<2x6x4xf32> -> tensor<2x3x4xf32>
  %a, %b = tfuse.split %x axis = 1 : tensor<2x6x4xf32> -> tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %c = tfuse.concat %x, %b axis = 1 : (tensor<2x6x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
  %g = tfuse.gather %t[%i] : (tensor<100x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %gr = tfuse.reshape %g : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %a, %p, %s, %c, %gr : tensor<2x3x4xf32>, tensor<4x2x6xf32>, tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<6x4xf32>
}
