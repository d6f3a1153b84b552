// Imported by tfuse-import from tiny-llama.json: model_type "llama", 1 of 2 layers, batch 2, sequence 4, f32.
// Hidden 64, 4 heads of 16 (2 key/value heads), gated MLP 128, silu, pre-RMSNorm, causal.
// Arguments carry their state-dict names (tfuse.name); linear weights are
// stored [in, out].
// Dropout: left out (--no-dropout).
// Rotary embeddings (tfuse.rope) on q and k: default, theta 10000, 16 of 16 dims.
//
// Arguments, in order:
//   %arg0    [2, 4, 64]       hidden_states
//   %arg1    [64]             layers.0.input_layernorm.weight
//   %arg2    [64, 64]         layers.0.self_attn.q_proj.weight
//   %arg3    [64, 32]         layers.0.self_attn.k_proj.weight
//   %arg4    [64, 32]         layers.0.self_attn.v_proj.weight
//   %arg5    [64, 64]         layers.0.self_attn.o_proj.weight
//   %arg6    [64]             layers.0.post_attention_layernorm.weight
//   %arg7    [64, 128]        layers.0.mlp.gate_proj.weight
//   %arg8    [64, 128]        layers.0.mlp.up_proj.weight
//   %arg9    [128, 64]        layers.0.mlp.down_proj.weight

module {
  func.func @forward(%arg0: tensor<2x4x64xf32> {tfuse.name = "hidden_states"}, %arg1: tensor<64xf32> {tfuse.name = "layers.0.input_layernorm.weight"}, %arg2: tensor<64x64xf32> {tfuse.name = "layers.0.self_attn.q_proj.weight"}, %arg3: tensor<64x32xf32> {tfuse.name = "layers.0.self_attn.k_proj.weight"}, %arg4: tensor<64x32xf32> {tfuse.name = "layers.0.self_attn.v_proj.weight"}, %arg5: tensor<64x64xf32> {tfuse.name = "layers.0.self_attn.o_proj.weight"}, %arg6: tensor<64xf32> {tfuse.name = "layers.0.post_attention_layernorm.weight"}, %arg7: tensor<64x128xf32> {tfuse.name = "layers.0.mlp.gate_proj.weight"}, %arg8: tensor<64x128xf32> {tfuse.name = "layers.0.mlp.up_proj.weight"}, %arg9: tensor<128x64xf32> {tfuse.name = "layers.0.mlp.down_proj.weight"}) -> tensor<2x4x64xf32> {
    %0 = tfuse.rms_norm %arg0 gamma %arg1 eps = 9.9999999999999995E-7 : (tensor<2x4x64xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
    %1 = tfuse.matmul %0, %arg2 : (tensor<2x4x64xf32>, tensor<64x64xf32>) -> tensor<2x4x64xf32>
    %2 = tfuse.reshape %1 : tensor<2x4x64xf32> -> tensor<2x4x4x16xf32>
    %3 = tfuse.transpose %2 perm = [0, 2, 1, 3] : tensor<2x4x4x16xf32> -> tensor<2x4x4x16xf32>
    %4 = tfuse.matmul %0, %arg3 : (tensor<2x4x64xf32>, tensor<64x32xf32>) -> tensor<2x4x32xf32>
    %5 = tfuse.reshape %4 : tensor<2x4x32xf32> -> tensor<2x4x2x16xf32>
    %6 = tfuse.transpose %5 perm = [0, 2, 1, 3] : tensor<2x4x2x16xf32> -> tensor<2x2x4x16xf32>
    %7 = tfuse.matmul %0, %arg4 : (tensor<2x4x64xf32>, tensor<64x32xf32>) -> tensor<2x4x32xf32>
    %8 = tfuse.reshape %7 : tensor<2x4x32xf32> -> tensor<2x4x2x16xf32>
    %9 = tfuse.transpose %8 perm = [0, 2, 1, 3] : tensor<2x4x2x16xf32> -> tensor<2x2x4x16xf32>
    %10 = tfuse.constant dense<[1.000000e+00, 0.316227764, 1.000000e-01, 0.0316227786, 0.00999999977, 0.00316227786, 1.000000e-03, 3.16227786E-4]> : tensor<8xf32>
    %11 = tfuse.rope %3, %10 attention_scaling = 1.000000e+00 : tensor<2x4x4x16xf32>, tensor<8xf32>
    %12 = tfuse.rope %6, %10 attention_scaling = 1.000000e+00 : tensor<2x2x4x16xf32>, tensor<8xf32>
    %13 = tfuse.attention %11, %12, %9 scale = 2.500000e-01 causal : (tensor<2x4x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) -> tensor<2x4x4x16xf32>
    %14 = tfuse.transpose %13 perm = [0, 2, 1, 3] : tensor<2x4x4x16xf32> -> tensor<2x4x4x16xf32>
    %15 = tfuse.reshape %14 : tensor<2x4x4x16xf32> -> tensor<2x4x64xf32>
    %16 = tfuse.matmul %15, %arg5 : (tensor<2x4x64xf32>, tensor<64x64xf32>) -> tensor<2x4x64xf32>
    %17 = tfuse.add %arg0, %16 : (tensor<2x4x64xf32>, tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
    %18 = tfuse.rms_norm %17 gamma %arg6 eps = 9.9999999999999995E-7 : (tensor<2x4x64xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
    %19 = tfuse.matmul %18, %arg7 : (tensor<2x4x64xf32>, tensor<64x128xf32>) -> tensor<2x4x128xf32>
    %20 = tfuse.silu %19 : tensor<2x4x128xf32>
    %21 = tfuse.matmul %18, %arg8 : (tensor<2x4x64xf32>, tensor<64x128xf32>) -> tensor<2x4x128xf32>
    %22 = tfuse.mul %20, %21 : (tensor<2x4x128xf32>, tensor<2x4x128xf32>) -> tensor<2x4x128xf32>
    %23 = tfuse.matmul %22, %arg9 : (tensor<2x4x128xf32>, tensor<128x64xf32>) -> tensor<2x4x64xf32>
    %24 = tfuse.add %17, %23 : (tensor<2x4x64xf32>, tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
    return %24 : tensor<2x4x64xf32>
  }
}

