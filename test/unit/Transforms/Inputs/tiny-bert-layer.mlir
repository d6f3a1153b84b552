// Imported by tfuse-import from tiny-bert.json: model_type "bert", 1 of 1 layers, batch 2, sequence 4, f32.
// Hidden 16, 4 heads of 4, MLP 32, gelu (erf), post-LayerNorm.
// Arguments carry their state-dict names (tfuse.name); linear weights are
// stored [in, out].
// Dropout: left out (--no-dropout).
//
// Arguments, in order:
//   %arg0    [2, 4, 16]       hidden_states
//   %arg1    [2, 1, 1, 4]     attention_mask
//   %arg2    [16, 16]         encoder.layer.0.attention.self.query.weight
//   %arg3    [16]             encoder.layer.0.attention.self.query.bias
//   %arg4    [16, 16]         encoder.layer.0.attention.self.key.weight
//   %arg5    [16]             encoder.layer.0.attention.self.key.bias
//   %arg6    [16, 16]         encoder.layer.0.attention.self.value.weight
//   %arg7    [16]             encoder.layer.0.attention.self.value.bias
//   %arg8    [16, 16]         encoder.layer.0.attention.output.dense.weight
//   %arg9    [16]             encoder.layer.0.attention.output.dense.bias
//   %arg10   [16]             encoder.layer.0.attention.output.LayerNorm.weight
//   %arg11   [16]             encoder.layer.0.attention.output.LayerNorm.bias
//   %arg12   [16, 32]         encoder.layer.0.intermediate.dense.weight
//   %arg13   [32]             encoder.layer.0.intermediate.dense.bias
//   %arg14   [32, 16]         encoder.layer.0.output.dense.weight
//   %arg15   [16]             encoder.layer.0.output.dense.bias
//   %arg16   [16]             encoder.layer.0.output.LayerNorm.weight
//   %arg17   [16]             encoder.layer.0.output.LayerNorm.bias

module {
  func.func @forward(%arg0: tensor<2x4x16xf32> {tfuse.name = "hidden_states"}, %arg1: tensor<2x1x1x4xf32> {tfuse.name = "attention_mask"}, %arg2: tensor<16x16xf32> {tfuse.name = "encoder.layer.0.attention.self.query.weight"}, %arg3: tensor<16xf32> {tfuse.name = "encoder.layer.0.attention.self.query.bias"}, %arg4: tensor<16x16xf32> {tfuse.name = "encoder.layer.0.attention.self.key.weight"}, %arg5: tensor<16xf32> {tfuse.name = "encoder.layer.0.attention.self.key.bias"}, %arg6: tensor<16x16xf32> {tfuse.name = "encoder.layer.0.attention.self.value.weight"}, %arg7: tensor<16xf32> {tfuse.name = "encoder.layer.0.attention.self.value.bias"}, %arg8: tensor<16x16xf32> {tfuse.name = "encoder.layer.0.attention.output.dense.weight"}, %arg9: tensor<16xf32> {tfuse.name = "encoder.layer.0.attention.output.dense.bias"}, %arg10: tensor<16xf32> {tfuse.name = "encoder.layer.0.attention.output.LayerNorm.weight"}, %arg11: tensor<16xf32> {tfuse.name = "encoder.layer.0.attention.output.LayerNorm.bias"}, %arg12: tensor<16x32xf32> {tfuse.name = "encoder.layer.0.intermediate.dense.weight"}, %arg13: tensor<32xf32> {tfuse.name = "encoder.layer.0.intermediate.dense.bias"}, %arg14: tensor<32x16xf32> {tfuse.name = "encoder.layer.0.output.dense.weight"}, %arg15: tensor<16xf32> {tfuse.name = "encoder.layer.0.output.dense.bias"}, %arg16: tensor<16xf32> {tfuse.name = "encoder.layer.0.output.LayerNorm.weight"}, %arg17: tensor<16xf32> {tfuse.name = "encoder.layer.0.output.LayerNorm.bias"}) -> tensor<2x4x16xf32> {
    %0 = tfuse.matmul %arg0, %arg2 : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %1 = tfuse.add %0, %arg3 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %2 = tfuse.reshape %1 : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
    %3 = tfuse.transpose %2 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %4 = tfuse.matmul %arg0, %arg4 : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %5 = tfuse.add %4, %arg5 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %6 = tfuse.reshape %5 : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
    %7 = tfuse.transpose %6 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %8 = tfuse.matmul %arg0, %arg6 : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %9 = tfuse.add %8, %arg7 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %10 = tfuse.reshape %9 : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
    %11 = tfuse.transpose %10 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %12 = tfuse.attention %3, %7, %11 mask %arg1 scale = 5.000000e-01 : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x1x1x4xf32>) -> tensor<2x4x4x4xf32>
    %13 = tfuse.transpose %12 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %14 = tfuse.reshape %13 : tensor<2x4x4x4xf32> -> tensor<2x4x16xf32>
    %15 = tfuse.matmul %14, %arg8 : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %16 = tfuse.add %15, %arg9 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %17 = tfuse.add %16, %arg0 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %18 = tfuse.layer_norm %17 gamma %arg10 beta %arg11 eps = 9.9999999999999998E-13 : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %19 = tfuse.matmul %18, %arg12 : (tensor<2x4x16xf32>, tensor<16x32xf32>) -> tensor<2x4x32xf32>
    %20 = tfuse.add %19, %arg13 : (tensor<2x4x32xf32>, tensor<32xf32>) -> tensor<2x4x32xf32>
    %21 = tfuse.gelu %20 : tensor<2x4x32xf32>
    %22 = tfuse.matmul %21, %arg14 : (tensor<2x4x32xf32>, tensor<32x16xf32>) -> tensor<2x4x16xf32>
    %23 = tfuse.add %22, %arg15 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %24 = tfuse.add %23, %18 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %25 = tfuse.layer_norm %24 gamma %arg16 beta %arg17 eps = 9.9999999999999998E-13 : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    return %25 : tensor<2x4x16xf32>
  }
}

