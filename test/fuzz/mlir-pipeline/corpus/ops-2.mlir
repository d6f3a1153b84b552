func.func @cast_and_constant(%a: tensor<4xf32>) -> (tensor<4xbf16>, tensor<4xf16>, tensor<bf16>, tensor<2xi32>) {
  %0 = tfuse.cast %a : tensor<4xf32> to tensor<4xbf16>
  %1 = tfuse.cast %0 : tensor<4xbf16> to tensor<4xf16>
  %2 = tfuse.constant dense<0.125> : tensor<bf16>
  %3 = tfuse.constant dense<[3, 7]> : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<4xbf16>, tensor<4xf16>, tensor<bf16>, tensor<2xi32>
}
