func.func @matmul(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>, %b: tensor<256xbf16>, %v: tensor<256x32xbf16>) -> tensor<64x32xbf16> {
  %0 = tfuse.fusion gemm_epilogue (%x, %w, %b) : (tensor<64x128xbf16>, tensor<128x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %c: tensor<128x256xbf16>, %d: tensor<256xbf16>):
    %m = tfuse.matmul %a, %c : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xbf16>
    %s = tfuse.add %m, %d : (tensor<64x256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
    tfuse.yield %s : tensor<64x256xbf16>
  }
  %1 = tfuse.relu %0 : tensor<64x256xbf16>
  %2 = tfuse.matmul %1, %v : (tensor<64x256xbf16>, tensor<256x32xbf16>) -> tensor<64x32xbf16>
  return %2 : tensor<64x32xbf16>
}
