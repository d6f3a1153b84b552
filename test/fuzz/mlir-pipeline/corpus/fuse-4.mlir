func.func @scale_mask_softmax_dropout(%q: tensor<2x4x64x16xbf16>, %k: tensor<2x4x64x16xbf16>, %mask: tensor<2x1x1x64xbf16>) -> tensor<2x4x64x64xbf16> {
  %s = tfuse.matmul %q, %k transpose_rhs : (tensor<2x4x64x16xbf16>, tensor<2x4x64x16xbf16>) -> tensor<2x4x64x64xbf16>
  %c = tfuse.constant dense<0.125> : tensor<bf16>
  %sc = tfuse.mul %s, %c : (tensor<2x4x64x64xbf16>, tensor<bf16>) -> tensor<2x4x64x64xbf16>
  %m = tfuse.add %sc, %mask : (tensor<2x4x64x64xbf16>, tensor<2x1x1x64xbf16>) -> tensor<2x4x64x64xbf16>
  %p = tfuse.softmax %m axis = 3 : tensor<2x4x64x64xbf16>
  %d = tfuse.dropout %p p = 0.1 seed = 7 : tensor<2x4x64x64xbf16>
  return %d : tensor<2x4x64x64xbf16>
}
