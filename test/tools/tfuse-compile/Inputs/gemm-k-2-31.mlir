// A GEMM whose reduction is 2^31 long: each operand holds 2^31 elements, which
// the verifier admits, but cuBLAS takes k as a 32-bit int.
func.func @dot(%x: tensor<1x2147483648xbf16>, %w: tensor<2147483648x1xbf16>) -> tensor<1x1xbf16> {
  %y = tfuse.matmul %x, %w : (tensor<1x2147483648xbf16>, tensor<2147483648x1xbf16>) -> tensor<1x1xbf16>
  return %y : tensor<1x1xbf16>
}
