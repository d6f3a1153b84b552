// Embedding lookups whose tables tfuse-autodiff trains (gather-grad.test):
// a word table read by every position, a 4-row table that most random
// indices (uniform in [0, 1024)) clamp to its last row, and a bf16 table.
func.func @embed(%words: tensor<1000x256xf32>, %ids: tensor<4x128xi32>,
                 %types: tensor<4x256xf32>, %tt: tensor<4x128xi64>,
                 %half: tensor<600x64xbf16>, %hids: tensor<2x300xi32>)
    -> (tensor<4x128x256xf32>, tensor<2x300x64xbf16>) {
  %w = tfuse.gather %words[%ids] : (tensor<1000x256xf32>, tensor<4x128xi32>) -> tensor<4x128x256xf32>
  %t = tfuse.gather %types[%tt] : (tensor<4x256xf32>, tensor<4x128xi64>) -> tensor<4x128x256xf32>
  %e = tfuse.add %w, %t : (tensor<4x128x256xf32>, tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  %h = tfuse.gather %half[%hids] : (tensor<600x64xbf16>, tensor<2x300xi32>) -> tensor<2x300x64xbf16>
  return %e, %h : tensor<4x128x256xf32>, tensor<2x300x64xbf16>
}
