func.func @order(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tfuse.exp %x : tensor<64x64xf32>
  %t = tfuse.transpose %e perm = [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %n = tfuse.neg %t : tensor<64x64xf32>
  %a = tfuse.add %e, %n : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %a : tensor<64x64xf32>
}
