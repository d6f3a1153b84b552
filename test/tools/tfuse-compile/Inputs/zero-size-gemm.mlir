// A GEMM with a zero-size contraction: the argument holds no elements.
func.func @empty_k(%a: tensor<64x0xf32>, %b: tensor<0x768xf32>) -> tensor<64x768xf32> {
  %0 = tfuse.matmul %a, %b : (tensor<64x0xf32>, tensor<0x768xf32>) -> tensor<64x768xf32>
  return %0 : tensor<64x768xf32>
}
