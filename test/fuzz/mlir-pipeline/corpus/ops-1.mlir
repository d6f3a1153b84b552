func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  %0 = tfuse.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tfuse.sub %0, %c : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %2 = tfuse.mul %1, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = tfuse.div %c, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = tfuse.max %2, %3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = tfuse.min %4, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = tfuse.neg %5 : tensor<4x8xf32>
  %7 = tfuse.exp %6 : tensor<4x8xf32>
  %8 = tfuse.log %7 : tensor<4x8xf32>
  %9 = tfuse.tanh %8 : tensor<4x8xf32>
  %10 = tfuse.erf %9 : tensor<4x8xf32>
  %11 = tfuse.sqrt %10 : tensor<4x8xf32>
  %12 = tfuse.rsqrt %11 : tensor<4x8xf32>
  %13 = tfuse.sigmoid %12 : tensor<4x8xf32>
  %14 = tfuse.relu %13 : tensor<4x8xf32>
  %15 = tfuse.silu %14 : tensor<4x8xf32>
  %16 = tfuse.gelu %15 : tensor<4x8xf32>
  %17 = tfuse.gelu %16 approximate = tanh : tensor<4x8xf32>
  %18 = tfuse.gelu %17 approximate = none : tensor<4x8xf32>
  return %18 : tensor<4x8xf32>
}
