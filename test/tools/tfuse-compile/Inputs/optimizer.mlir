func.func @step(%p: tensor<64xf32>, %g: tensor<64xbf16>, %m: tensor<64xf32>, %v: tensor<64xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %0:3 = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : (tensor<64xf32>, tensor<64xbf16>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>)
  return %0#0, %0#1, %0#2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
