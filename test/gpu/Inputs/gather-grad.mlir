// Embedding gradients for gather-grad.test. Random indices are uniform in
// [0, 1024): into 1000 rows a few a row (some clamped to the last); into 4
// rows nearly all clamp to row 3; rows of 6 are no whole 16-byte vectors.
func.func @f32(%g: tensor<8x512x768xf32>, %i: tensor<8x512xi32>) -> tensor<1000x768xf32> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<8x512x768xf32>, tensor<8x512xi32>) -> tensor<1000x768xf32>
  return %0 : tensor<1000x768xf32>
}

func.func @crowded(%g: tensor<4096x64xbf16>, %i: tensor<4096xi64>) -> tensor<4x64xbf16> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<4096x64xbf16>, tensor<4096xi64>) -> tensor<4x64xbf16>
  return %0 : tensor<4x64xbf16>
}

func.func @odd(%g: tensor<3x100x6xf16>, %i: tensor<3x100xi32>) -> tensor<700x6xf16> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<3x100x6xf16>, tensor<3x100xi32>) -> tensor<700x6xf16>
  return %0 : tensor<700x6xf16>
}

// BERT-Large's word-table gradient at batch 32, sequence 512 (timed by
// bench/device-gather-grad.sh): 16.8 M bf16 gradient elements added into a
// 30522 x 1024 table.
func.func @bert_words(%g: tensor<32x512x1024xbf16>, %i: tensor<32x512xi32>) -> tensor<30522x1024xbf16> {
  %0 = tfuse.gather_grad %g[%i] : (tensor<32x512x1024xbf16>, tensor<32x512xi32>) -> tensor<30522x1024xbf16>
  return %0 : tensor<30522x1024xbf16>
}
