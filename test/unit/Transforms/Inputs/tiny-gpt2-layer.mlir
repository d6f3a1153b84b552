// Imported by tfuse-import from tiny-gpt2.json: model_type "gpt2", 1 of 1 layers, batch 2, sequence 4, f32.
// Hidden 16, 4 heads of 4, MLP 64, gelu (tanh), pre-LayerNorm, causal.
// Arguments carry their state-dict names (tfuse.name); linear weights are
// stored [in, out].
// Dropout: left out (--no-dropout).
//
// Arguments, in order:
//   %arg0    [2, 4, 16]       hidden_states
//   %arg1    [16]             h.0.ln_1.weight
//   %arg2    [16]             h.0.ln_1.bias
//   %arg3    [16, 48]         h.0.attn.c_attn.weight
//   %arg4    [48]             h.0.attn.c_attn.bias
//   %arg5    [16, 16]         h.0.attn.c_proj.weight
//   %arg6    [16]             h.0.attn.c_proj.bias
//   %arg7    [16]             h.0.ln_2.weight
//   %arg8    [16]             h.0.ln_2.bias
//   %arg9    [16, 64]         h.0.mlp.c_fc.weight
//   %arg10   [64]             h.0.mlp.c_fc.bias
//   %arg11   [64, 16]         h.0.mlp.c_proj.weight
//   %arg12   [16]             h.0.mlp.c_proj.bias

module {
  func.func @forward(%arg0: tensor<2x4x16xf32> {tfuse.name = "hidden_states"}, %arg1: tensor<16xf32> {tfuse.name = "h.0.ln_1.weight"}, %arg2: tensor<16xf32> {tfuse.name = "h.0.ln_1.bias"}, %arg3: tensor<16x48xf32> {tfuse.name = "h.0.attn.c_attn.weight"}, %arg4: tensor<48xf32> {tfuse.name = "h.0.attn.c_attn.bias"}, %arg5: tensor<16x16xf32> {tfuse.name = "h.0.attn.c_proj.weight"}, %arg6: tensor<16xf32> {tfuse.name = "h.0.attn.c_proj.bias"}, %arg7: tensor<16xf32> {tfuse.name = "h.0.ln_2.weight"}, %arg8: tensor<16xf32> {tfuse.name = "h.0.ln_2.bias"}, %arg9: tensor<16x64xf32> {tfuse.name = "h.0.mlp.c_fc.weight"}, %arg10: tensor<64xf32> {tfuse.name = "h.0.mlp.c_fc.bias"}, %arg11: tensor<64x16xf32> {tfuse.name = "h.0.mlp.c_proj.weight"}, %arg12: tensor<16xf32> {tfuse.name = "h.0.mlp.c_proj.bias"}) -> tensor<2x4x16xf32> {
    %0 = tfuse.layer_norm %arg0 gamma %arg1 beta %arg2 eps = 1.000000e-05 : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %1 = tfuse.matmul %0, %arg3 : (tensor<2x4x16xf32>, tensor<16x48xf32>) -> tensor<2x4x48xf32>
    %2 = tfuse.add %1, %arg4 : (tensor<2x4x48xf32>, tensor<48xf32>) -> tensor<2x4x48xf32>
    %3:3 = tfuse.split %2 axis = 2 : tensor<2x4x48xf32> -> tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
    %4 = tfuse.reshape %3#0 : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
    %5 = tfuse.transpose %4 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %6 = tfuse.reshape %3#1 : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
    %7 = tfuse.transpose %6 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %8 = tfuse.reshape %3#2 : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
    %9 = tfuse.transpose %8 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %10 = tfuse.attention %5, %7, %9 scale = 5.000000e-01 causal : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
    %11 = tfuse.transpose %10 perm = [0, 2, 1, 3] : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
    %12 = tfuse.reshape %11 : tensor<2x4x4x4xf32> -> tensor<2x4x16xf32>
    %13 = tfuse.matmul %12, %arg5 : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32>
    %14 = tfuse.add %13, %arg6 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %15 = tfuse.add %arg0, %14 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %16 = tfuse.layer_norm %15 gamma %arg7 beta %arg8 eps = 1.000000e-05 : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %17 = tfuse.matmul %16, %arg9 : (tensor<2x4x16xf32>, tensor<16x64xf32>) -> tensor<2x4x64xf32>
    %18 = tfuse.add %17, %arg10 : (tensor<2x4x64xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
    %19 = tfuse.gelu %18 approximate = tanh : tensor<2x4x64xf32>
    %20 = tfuse.matmul %19, %arg11 : (tensor<2x4x64xf32>, tensor<64x16xf32>) -> tensor<2x4x16xf32>
    %21 = tfuse.add %20, %arg12 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    %22 = tfuse.add %15, %21 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    return %22 : tensor<2x4x16xf32>
  }
}

