//===- kernels.cu - Kernels of the axpy test bundle ------------*- CUDA -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The kernels of test/gpu/Inputs/axpy-bundle, written by hand the way
// tfuse-compile emits them (docs/bundle.md): extern "C" entry points that
// take one device pointer per `args` entry and nothing else (shapes are
// compiled in). Regenerate kernels.ptx with
//
//   nvcc -ptx -arch=sm_90 -O3 -o kernels.ptx kernels.cu
//
// Each kernel rounds to bf16 where the step's `ops` graph does, so that the
// GPU and the reference differ only by f32 vs double arithmetic.
//
//===----------------------------------------------------------------------===//

#include <cuda_bf16.h>
#include <stdint.h>

namespace {

__device__ __forceinline__ float roundBf16(float x) {
  return __bfloat162float(__float2bfloat16(x));
}

/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as ref::GeluTanh.
__device__ __forceinline__ float geluTanh(float x) {
  const float k = 0.7978845608028654f;
  return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

} // namespace

/// Step 0 (loop template): t = gelu_tanh(x + b), x and t [1024, 4096] bf16,
/// b [4096] bf16 broadcast over the rows. Each thread handles 8 elements
/// (one 16-byte vector); grid [2048], block [256].
extern "C" __global__ void __launch_bounds__(256)
    add_gelu(const __nv_bfloat16 *__restrict__ x,
             const __nv_bfloat16 *__restrict__ b,
             __nv_bfloat16 *__restrict__ t) {
  constexpr int64_t kCols = 4096, kRows = 1024, kVectors = kRows * kCols / 8;
  int64_t v = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= kVectors)
    return;
  int64_t col = (v * 8) % kCols;
  uint4 xv = reinterpret_cast<const uint4 *>(x)[v];
  uint4 bv = reinterpret_cast<const uint4 *>(b)[col / 8];
  const __nv_bfloat16 *xe = reinterpret_cast<const __nv_bfloat16 *>(&xv);
  const __nv_bfloat16 *be = reinterpret_cast<const __nv_bfloat16 *>(&bv);
  uint4 out;
  __nv_bfloat16 *oe = reinterpret_cast<__nv_bfloat16 *>(&out);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    float sum = roundBf16(__bfloat162float(xe[i]) + __bfloat162float(be[i]));
    oe[i] = __float2bfloat16(geluTanh(sum));
  }
  reinterpret_cast<uint4 *>(t)[v] = out;
}

/// Step 2 (row_reduction template): s[r] = sum_j f32(bf16(y[r, j] * g[j])),
/// y [1024, 1024] bf16, g [1024] bf16, s [1024] f32. One block of 256
/// threads per row; grid [1024].
extern "C" __global__ void __launch_bounds__(256)
    scale_row_sum(const __nv_bfloat16 *__restrict__ y,
                  const __nv_bfloat16 *__restrict__ g, float *__restrict__ s) {
  constexpr int kCols = 1024;
  __shared__ float partial[8];
  const __nv_bfloat16 *row = y + int64_t(blockIdx.x) * kCols;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < kCols; j += blockDim.x)
    acc += roundBf16(__bfloat162float(row[j]) * __bfloat162float(g[j]));
  for (int offset = 16; offset > 0; offset /= 2)
    acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
      acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (threadIdx.x == 0)
      s[blockIdx.x] = acc;
  }
}
