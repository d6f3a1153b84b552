func.func @forward(%t: tensor<32000x4096xbf16>, %i: tensor<4x512xi32>) -> tensor<4x512x4096xbf16> {
  %0 = tfuse.gather %t[%i] : (tensor<32000x4096xbf16>, tensor<4x512xi32>) -> tensor<4x512x4096xbf16>
  return %0 : tensor<4x512x4096xbf16>
}
