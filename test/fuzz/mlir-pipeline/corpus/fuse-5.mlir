func.func @causal_softmax(%s: tensor<2x4x64x64xf32>) -> tensor<2x4x64x64xf32> {
  %c = tfuse.causal_mask : tensor<64x64xf32>
  %m = tfuse.add %s, %c : (tensor<2x4x64x64xf32>, tensor<64x64xf32>) -> tensor<2x4x64x64xf32>
  %p = tfuse.softmax %m axis = 3 : tensor<2x4x64x64xf32>
  return %p : tensor<2x4x64x64xf32>
}
