func.func private @external(tensor<4xf32>) -> tensor<4xf32>
