// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=text" | FileCheck %s --check-prefix=TEXT
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=json" | FileCheck %s --check-prefix=JSON

// Device memory in program order against hand counts (the toy target holds
// 16 GB).

// The arguments (128 + 512 B) and the constant (64 B, its own allocation)
// stay resident; %y (256 B) is live until the relu adds %r (256 B): 704 +
// 512 = 1216 B. The reshapes share %r's bytes, and %s takes %y's place.
// TEXT-LABEL: @chain
// TEXT: device memory (program order, peak of arguments, constants and live values): 1216 bytes (0.000 GB): toy fits (16 GB)
// JSON-LABEL: "name": "chain"
// JSON: "peak_bytes": 1216
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %c = tfuse.constant dense<1.0> : tensor<16xf32>
  %y = tfuse.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %r = tfuse.relu %y : tensor<4x16xf32>
  %v = tfuse.reshape %r : tensor<4x16xf32> -> tensor<64xf32>
  %back = tfuse.reshape %v : tensor<64xf32> -> tensor<4x16xf32>
  %s = tfuse.add %back, %c : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// Freed values make room: %a (256 B) dies at %b, so the peak is the
// argument (256 B) plus %a and %b together, 768 B, not all three results.
// TEXT-LABEL: @reuse
// TEXT: 768 bytes
// JSON-LABEL: "name": "reuse"
// JSON: "peak_bytes": 768
func.func @reuse(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = tfuse.exp %x : tensor<64xf32>
  %b = tfuse.exp %a : tensor<64xf32>
  %c = tfuse.exp %b : tensor<64xf32>
  return %c : tensor<64xf32>
}

// 2^32 f32 elements are 17.18 GB, argument and result 34.36 GB: more than
// the toy's 16 GB.
// TEXT-LABEL: @too_big
// TEXT: 34359738368 bytes (34.360 GB): toy does not fit (16 GB)
func.func @too_big(%x: tensor<4x1024x1024x1024xf32>) -> tensor<4x1024x1024x1024xf32> {
  %y = tfuse.exp %x : tensor<4x1024x1024x1024xf32>
  return %y : tensor<4x1024x1024x1024xf32>
}
