func.func @fusion(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0:2 = tfuse.fusion loop (%x, %b) attributes {bytes_before = 384 : i64, bytes_after = 256 : i64, predicted_unfused_us = 2.5 : f64, predicted_fused_us = 1.25 : f64, target = "a40"} : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %s = tfuse.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %g = tfuse.gelu %s : tensor<4x8xf32>
    tfuse.yield %s, %g : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %1 = tfuse.fusion row_reduction (%0#1) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = tfuse.softmax %a axis = 1 : tensor<4x8xf32>
    tfuse.yield %s : tensor<4x8xf32>
  }
  %2 = tfuse.fusion gemm_epilogue (%1, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<4x8xf32>):
    %m = tfuse.matmul %a, %c transpose_rhs : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
    %r = tfuse.reshape %m : tensor<4x4xf32> -> tensor<2x8xf32>
    %s = tfuse.concat %r, %r axis = 0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
    tfuse.yield %s : tensor<4x8xf32>
  }
  return %0#0, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}
