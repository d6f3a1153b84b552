func.func @step(%p: tensor<64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>, %lr: tensor<f32>, %t: tensor<f32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0:2 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>) -> (tensor<64xf32>, tensor<64xf32>)
  return %0#0, %0#1 : tensor<64xf32>, tensor<64xf32>
}
