func.func @fused_reduce_not_last_axis(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %0 = tfuse.fusion row_reduction (%x) : (tensor<64x128xf32>) -> tensor<128xf32> {
  ^bb0(%a: tensor<64x128xf32>):
    %e = tfuse.exp %a : tensor<64x128xf32>
    %r = tfuse.reduce max %e axis = 0 : tensor<64x128xf32> -> tensor<128xf32>
    tfuse.yield %r : tensor<128xf32>
  }
  return %0 : tensor<128xf32>
}
