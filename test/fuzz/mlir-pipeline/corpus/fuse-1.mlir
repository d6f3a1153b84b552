func.func @gemm_gelu_erf(%x: tensor<64x1024xbf16>, %w: tensor<1024x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<64x4096xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<64x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<64x4096xbf16>
  %a = tfuse.add %m, %b : (tensor<64x4096xbf16>, tensor<4096xbf16>) -> tensor<64x4096xbf16>
  %g = tfuse.gelu %a : tensor<64x4096xbf16>
  return %g : tensor<64x4096xbf16>
}
