// A GPT-2-sized LM head over 33 rows (cross-entropy-step.test).
func.func @head(%h: tensor<1x33x64xbf16>, %w: tensor<64x50257xbf16>) -> tensor<1x33x50257xbf16> {
  %y = tfuse.matmul %h, %w : (tensor<1x33x64xbf16>, tensor<64x50257xbf16>) -> tensor<1x33x50257xbf16>
  return %y : tensor<1x33x50257xbf16>
}
