// A splat constant of 2^24 + 1 elements, which plan.json would spell out.
func.func @f(%x: tensor<16777217xf32>) -> tensor<16777217xf32> {
  %c = tfuse.constant dense<1.0> : tensor<16777217xf32>
  %y = tfuse.add %x, %c : (tensor<16777217xf32>, tensor<16777217xf32>) -> tensor<16777217xf32>
  return %y : tensor<16777217xf32>
}
