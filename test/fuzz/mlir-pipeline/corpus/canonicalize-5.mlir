func.func @dead_code(%x: tensor<4xf32>) {
  %c = tfuse.constant dense<1.0> : tensor<4xf32>
  %y = tfuse.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = tfuse.dropout %y p = 0.5 seed = 1 : tensor<4xf32>
  return
}
