// A relu over 2^30 rows of 4 f32: 2^32 elements, 2^34 bytes per tensor.
func.func @relu(%x: tensor<1073741824x4xf32>) -> tensor<1073741824x4xf32> {
  %y = tfuse.relu %x : tensor<1073741824x4xf32>
  return %y : tensor<1073741824x4xf32>
}
