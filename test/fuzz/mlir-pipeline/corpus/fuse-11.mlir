func.func @decisions(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %e = tfuse.exp %x : tensor<256x256xf32>
  %s = tfuse.sigmoid %e : tensor<256x256xf32>
  return %s : tensor<256x256xf32>
}
