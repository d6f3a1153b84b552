func.func @tensor_parallel(%x: tensor<64x256xbf16>, %w: tensor<256x1024xbf16>) -> tensor<64x1024xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<64x256xbf16>, tensor<256x1024xbf16>) -> tensor<64x1024xbf16>
  %r = tfuse.all_reduce %m group_size = 4 : tensor<64x1024xbf16>
  %g = tfuse.gelu %r approximate = tanh : tensor<64x1024xbf16>
  return %g : tensor<64x1024xbf16>
}
