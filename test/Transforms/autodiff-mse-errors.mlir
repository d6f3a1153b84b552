// RUN: tfuse-opt %s --tfuse-autodiff=loss=mse -verify-diagnostics

// expected-error @+1 {{'func.func' op returns results of different element types: the mean-squared loss needs one}}
func.func @mixed(%x: tensor<4xf32>, %y: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xbf16>) {
  return %x, %y : tensor<4xf32>, tensor<4xbf16>
}
