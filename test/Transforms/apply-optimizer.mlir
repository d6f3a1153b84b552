// RUN: tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer | FileCheck %s
// RUN: tfuse-opt %s --tfuse-autodiff --tfuse-apply-optimizer="function=linear_train optimizer=sgd params=1 momentum=0.5 dampening=0.25 weight-decay=0.001 model-weight=bf16" | FileCheck %s --check-prefix=SGD
// RUN: tfuse-opt %s --tfuse-autodiff="loss=mse" --tfuse-apply-optimizer="function=norm_train params=1,2 beta1=0.8 beta2=0.95 eps=1e-6 weight-decay=0 model-weight=f16" | FileCheck %s --check-prefix=MSE

// Every argument with a gradient is a parameter by default: its state
// arguments come after the step's own, then lr and step; the updated
// tensors are appended to the results.
// CHECK-LABEL: func.func @linear_train(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x4xf32>, %[[W:[^:]*]]: tensor<5x4xf32>, %[[G:[^:]*]]: tensor<2x3x5xf32>, %[[MX:[^:]*]]: tensor<2x3x4xf32>, %[[VX:[^:]*]]: tensor<2x3x4xf32>, %[[MW:[^:]*]]: tensor<5x4xf32>, %[[VW:[^:]*]]: tensor<5x4xf32>, %[[LR:[^:]*]]: tensor<f32>, %[[T:[^:]*]]: tensor<f32>)
// CHECK-SAME: -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>)
// CHECK-SAME: tfuse.optimizer = {lr = 7 : i64, optimizer = "adamw", params = array<i64: 0, 1>, results = 3 : i64, state = 3 : i64, step = 8 : i64}
// CHECK: %[[Y:.*]] = tfuse.matmul %[[X]], %[[W]] transpose_rhs
// CHECK: %[[DX:.*]] = tfuse.matmul %[[G]], %[[W]] :
// CHECK: %[[DW:.*]] = tfuse.matmul %{{.*}}, %{{.*}} transpose_lhs
// CHECK: %[[PX:[^,]*]], %[[MX1:[^,]*]], %[[VX1:[^ ]*]] = tfuse.adamw %[[X]], %[[DX]], %[[MX]], %[[VX]] lr %[[LR]] step %[[T]] beta1 = 9.000000e-01 beta2 = 0.99899999999999999 eps = 1.000000e-08 weight_decay = 1.000000e-02 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
// CHECK: %[[PW:[^,]*]], %[[MW1:[^,]*]], %[[VW1:[^ ]*]] = tfuse.adamw %[[W]], %[[DW]], %[[MW]], %[[VW]] lr %[[LR]] step %[[T]] beta1 = 9.000000e-01 beta2 = 0.99899999999999999 eps = 1.000000e-08 weight_decay = 1.000000e-02
// CHECK: return %[[Y]], %[[DX]], %[[DW]], %[[PX]], %[[MX1]], %[[VX1]], %[[PW]], %[[MW1]], %[[VW1]] :

// SGD on the weight only, with a bf16 model weight; the other step is not
// touched.
// SGD-LABEL: func.func @linear_train(
// SGD-SAME: %[[X:[^:]*]]: tensor<2x3x4xf32>, %[[W:[^:]*]]: tensor<5x4xf32>, %[[G:[^:]*]]: tensor<2x3x5xf32>, %[[B:[^:]*]]: tensor<5x4xf32>, %[[LR:[^:]*]]: tensor<f32>, %[[T:[^:]*]]: tensor<f32>)
// SGD-SAME: -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xbf16>)
// SGD-SAME: tfuse.optimizer = {lr = 4 : i64, optimizer = "sgd", params = array<i64: 1>, results = 3 : i64, state = 3 : i64, step = 5 : i64}
// SGD: %[[DW:.*]] = tfuse.matmul %{{.*}}, %{{.*}} transpose_lhs
// SGD: %[[P1:[^,]*]], %[[B1:[^,]*]], %[[H:[^ ]*]] = tfuse.sgd %[[W]], %[[DW]], %[[B]] lr %[[LR]] step %[[T]] momentum = 5.000000e-01 dampening = 2.500000e-01 weight_decay = 1.000000e-03 : (tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xbf16>)
// SGD: return %{{.*}}, %{{.*}}, %[[DW]], %[[P1]], %[[B1]], %[[H]] :
// SGD-LABEL: func.func @norm_train(
// SGD-NOT: tfuse.optimizer
// SGD-NOT: tfuse.sgd
// SGD: return
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = tfuse.matmul %x, %w transpose_rhs : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// An mse step: the loss comes first, the gradients of gamma and beta
// (arguments 1 and 2) get AdamW with their f16 model weights.
// CHECK-LABEL: func.func @norm_train(
// CHECK-SAME: tfuse.optimizer = {lr = 10 : i64, optimizer = "adamw", params = array<i64: 0, 1, 2>, results = 4 : i64, state = 4 : i64, step = 11 : i64}
// CHECK-COUNT-3: tfuse.adamw
// MSE-LABEL: func.func @norm_train(
// MSE-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[GAMMA:[^:]*]]: tensor<8xf32>, %[[BETA:[^:]*]]: tensor<8xf32>, %[[TARGET:[^:]*]]: tensor<4x8xf32>, %[[M1:[^:]*]]: tensor<8xf32>, %[[V1:[^:]*]]: tensor<8xf32>, %[[M2:[^:]*]]: tensor<8xf32>, %[[V2:[^:]*]]: tensor<8xf32>, %[[LR:[^:]*]]: tensor<f32>, %[[T:[^:]*]]: tensor<f32>)
// MSE-SAME: -> (tensor<f32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>)
// MSE-SAME: tfuse.optimizer = {lr = 8 : i64, optimizer = "adamw", params = array<i64: 1, 2>, results = 4 : i64, state = 4 : i64, step = 9 : i64}
// MSE: %[[P1:[^,]*]], %[[M1N:[^,]*]], %[[V1N:[^,]*]], %[[H1:[^ ]*]] = tfuse.adamw %[[GAMMA]], %[[DG:[^,]*]], %[[M1]], %[[V1]] lr %[[LR]] step %[[T]] beta1 = 8.000000e-01 beta2 = 0.94999999999999996 eps = 9.9999999999999995E-7 weight_decay = 0.000000e+00
// MSE: %[[P2:[^,]*]], %[[M2N:[^,]*]], %[[V2N:[^,]*]], %[[H2:[^ ]*]] = tfuse.adamw %[[BETA]], %[[DB:[^,]*]], %[[M2]], %[[V2]] lr %[[LR]] step %[[T]]
// MSE: return %{{.*}}, %{{.*}}, %[[DG]], %[[DB]], %[[P1]], %[[M1N]], %[[V1N]], %[[H1]], %[[P2]], %[[M2N]], %[[V2N]], %[[H2]] :
func.func @norm(%x: tensor<4x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.layer_norm %x gamma %gamma beta %beta eps = 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
