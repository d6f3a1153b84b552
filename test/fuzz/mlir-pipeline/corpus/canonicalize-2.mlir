func.func @reshape_round_trip(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = tfuse.reshape %x : tensor<2x8xf32> -> tensor<16xf32>
  %b = tfuse.reshape %a : tensor<16xf32> -> tensor<2x8xf32>
  return %b : tensor<2x8xf32>
}
