func.func @contraction(%x: tensor<2x4x8xbf16>, %w: tensor<8x16xbf16>, %q: tensor<2x3x4x8xf32>, %k: tensor<2x1x5x8xf32>) -> (tensor<2x4x16xbf16>, tensor<2x3x4x5xf32>, tensor<3x8x4xf32>) {
  %y = tfuse.matmul %x, %w : (tensor<2x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x16xbf16>
  %s = tfuse.matmul %q, %k transpose_rhs : (tensor<2x3x4x8xf32>, tensor<2x1x5x8xf32>) -> tensor<2x3x4x5xf32>
  %a = tfuse.reshape %q : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
  %b = tfuse.slice %a offsets = [0, 0, 0] : tensor<6x4x8xf32> -> tensor<3x4x8xf32>
  %bt = tfuse.transpose %b perm = [0, 2, 1] : tensor<3x4x8xf32> -> tensor<3x8x4xf32>
  %sq = tfuse.slice %a offsets = [0, 0, 0] : tensor<6x4x8xf32> -> tensor<1x4x4xf32>
  %sq2 = tfuse.reshape %sq : tensor<1x4x4xf32> -> tensor<4x4xf32>
  %t = tfuse.matmul %b, %sq2 transpose_lhs transpose_rhs : (tensor<3x4x8xf32>, tensor<4x4xf32>) -> tensor<3x8x4xf32>
  return %y, %s, %t : tensor<2x4x16xbf16>, tensor<2x3x4x5xf32>, tensor<3x8x4xf32>
}
