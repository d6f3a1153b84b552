// RUN: tfuse-opt %s --tfuse-allow-tf32 | FileCheck %s
// RUN: tfuse-opt %s --tfuse-allow-tf32 --tfuse-traffic-report='targets=h200 format=json' -o /dev/null | FileCheck %s --check-prefix=COST

// Every f32 matmul multiplies in TF32; bf16 ones are left as they are.
// CHECK-LABEL: func.func @gemms
// CHECK: tfuse.matmul %{{.*}}, %{{.*}} tf32 : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
// CHECK: tfuse.matmul %{{.*}}, %{{.*}} transpose_rhs tf32 : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
// CHECK: tfuse.matmul %{{.*}}, %{{.*}} : (tensor<2048x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<2048x4096xbf16>

// Priced on the H200's TF32 tensor cores: 2 x 2048 x 4096 x 4096 =
// 68719476736 FLOP at 494.5 TFLOP/s x the GEMM efficiency 0.74 (h200.json)
// = 187.794050 us + 1 us launch, against 1025.7 us at the 67 TFLOP/s f32
// SIMT peak (the bf16 GEMM: 989 TFLOP/s, 94.85 us).
// COST:       "compute": "tf32_tensor",
// COST:       "flops": 68719476736,
// COST:       "time_us": 188.794050
// COST-NEXT:  "bound": "compute",
// COST:       "compute": "tf32_tensor",
// COST:       "compute": "bf16_tensor",
func.func @gemms(%x: tensor<2048x4096xf32>, %w: tensor<4096x4096xf32>, %xb: tensor<2048x4096xbf16>, %wb: tensor<4096x4096xbf16>) -> (tensor<2048x4096xf32>, tensor<2048x4096xf32>, tensor<2048x4096xbf16>) {
  %a = tfuse.matmul %x, %w : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
  %b = tfuse.matmul %x, %w transpose_rhs : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
  %c = tfuse.matmul %xb, %wb : (tensor<2048x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<2048x4096xbf16>
  return %a, %b, %c : tensor<2048x4096xf32>, tensor<2048x4096xf32>, tensor<2048x4096xbf16>
}
