func.func @reshape_chain(%x: tensor<2x8xf32>) -> tensor<4x4xf32> {
  %a = tfuse.reshape %x : tensor<2x8xf32> -> tensor<16xf32>
  %b = tfuse.reshape %a : tensor<16xf32> -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}
