// A causal grouped-query attention (4 query heads on 2 kv heads), bf16: the
// flash-attention kernels cover it, forward and backward.
func.func @attn(%q: tensor<2x4x80x64xbf16>, %k: tensor<2x2x80x64xbf16>, %v: tensor<2x2x80x64xbf16>) -> tensor<2x4x80x64xbf16> {
  %o = tfuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<2x4x80x64xbf16>, tensor<2x2x80x64xbf16>, tensor<2x2x80x64xbf16>) -> tensor<2x4x80x64xbf16>
  return %o : tensor<2x4x80x64xbf16>
}
