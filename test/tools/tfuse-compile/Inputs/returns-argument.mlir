func.func @returns_argument(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  return %x : tensor<2x8xf32>
}
