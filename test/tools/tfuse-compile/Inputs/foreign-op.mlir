func.func @foreign(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = arith.addf %x, %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
