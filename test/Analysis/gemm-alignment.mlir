// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=text" | FileCheck %s --check-prefix=TEXT
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=json" | FileCheck %s --check-prefix=JSON

// A tensor-core GEMM whose rows, as stored, are not multiples of 16 bytes
// runs at gemm_efficiency x gemm_unaligned_factor (the toy target gives
// neither: 1 x 0.35). Toy target: bf16 tensor 100 TFLOP/s (10^8 FLOP/us),
// fp32 10 TFLOP/s, 1 us launch.

// TEXT: toy {{.*}} bf16 tensor 100.0 TFLOP/s x gemm_efficiency 1.00 = 100.0 (rows off 16-byte alignment x 0.35 more, flash attention x 1.00)
// TEXT-LABEL: @alignment
// JSON: "gemm_unaligned_factor": 0.3499
func.func @alignment(%x: tensor<1024x1024xbf16>, %w: tensor<1024x4096xbf16>, %wo: tensor<1024x4090xbf16>, %xk: tensor<1024x1020xbf16>, %wk: tensor<1020x4096xbf16>, %a: tensor<64x1001xf32>, %b: tensor<1001x64xf32>) -> (tensor<1024x4096xbf16>, tensor<1024x4090xbf16>, tensor<1024x4096xbf16>, tensor<64x64xf32>) {
  // Aligned, N = 4096: 2 x 1024 x 4096 x 1024 = 8589934592 FLOPs in
  // 85.90 us + 1 us.
  // TEXT: 0  tfuse.matmul contraction {{[0-9]+ [0-9]+}} 8589934592 {{[0-9.]+}} | 86.90 compute
  %0 = tfuse.matmul %x, %w : (tensor<1024x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<1024x4096xbf16>
  // N = 4090 (8180-byte rows of the weight and the result): 8577351680
  // FLOPs / (10^8 x 0.35) = 245.07 us + 1 us.
  // TEXT: 1  tfuse.matmul contraction {{[0-9]+ [0-9]+}} 8577351680 {{[0-9.]+}} | 246.07 compute
  %1 = tfuse.matmul %x, %wo : (tensor<1024x1024xbf16>, tensor<1024x4090xbf16>) -> tensor<1024x4090xbf16>
  // K = 1020 (2040-byte rows of the activation): 8556380160 FLOPs /
  // 3.5 x 10^7 = 244.47 us + 1 us.
  // TEXT: 2  tfuse.matmul contraction {{[0-9]+ [0-9]+}} 8556380160 {{[0-9.]+}} | 245.47 compute
  %2 = tfuse.matmul %xk, %wk : (tensor<1024x1020xbf16>, tensor<1020x4096xbf16>) -> tensor<1024x4096xbf16>
  // f32 on CUDA cores is priced at the fp32 peak either way: 2 x 64 x 64 x
  // 1001 = 8200192 FLOPs / 10^7 = 0.82 us against (256256 x 2 + 16384) /
  // 10^6 = 0.53 us of bytes: 1 us launch + 0.82 = 1.82 us.
  // TEXT: 3  tfuse.matmul contraction 512512 16384 8200192 {{[0-9.]+}} | 1.82 launch
  %3 = tfuse.matmul %a, %b : (tensor<64x1001xf32>, tensor<1001x64xf32>) -> tensor<64x64xf32>
  return %0, %1, %2, %3 : tensor<1024x4096xbf16>, tensor<1024x4090xbf16>, tensor<1024x4096xbf16>, tensor<64x64xf32>
}
