//===- Gemm.h - The plan's GEMMs through cuBLASLt ---------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares GemmRunner, which executes the `gemm` steps of a plan
// with cuBLASLt: row-major, strided-batched, with the epilogues none, bias,
// gelu, bias_gelu, relu and bias_relu (docs/bundle.md, "gemm").
//
// cuBLASLt is column-major; a row-major C[M,N] = A[M,K] B[K,N] is computed
// as the column-major C^T[N,M] = B^T[N,K] A^T[K,M], which reads the same
// bytes with no copy: cuBLASLt's A is the plan's rhs and its B the plan's
// lhs, and the bias (one value per column of the row-major result) is
// cuBLASLt's per-row bias of C^T.
//
// bf16 and f16 compute in f32 (CUBLAS_COMPUTE_32F, f32 scale); f32 computes
// in true f32 (CUBLAS_COMPUTE_32F, never TF32). The algorithm is chosen once
// per step by cuBLASLt's heuristic and cached with the step's descriptors.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_GEMM_H
#define TFUSE_RUNTIME_GEMM_H

#include "tfuse/Bundle/Plan.h"
#include "tfuse/Runtime/Device.h"

#include <cublasLt.h>

#include <map>
#include <memory>
#include <string>

namespace mlir::tfuse::rt {

class GemmRunner {
public:
  /// Workspace for cuBLASLt (32 MiB, as NVIDIA recommends for Hopper).
  static constexpr size_t kWorkspaceBytes = size_t(32) << 20;

  static std::unique_ptr<GemmRunner> create(std::string &error);
  ~GemmRunner();
  GemmRunner(const GemmRunner &) = delete;
  GemmRunner &operator=(const GemmRunner &) = delete;

  /// Builds the descriptors of `call` for step `step` and picks the
  /// algorithm; `biasType` is the bias buffer's dtype (when the call has a
  /// bias) and `name` describes the step in errors.
  bool prepare(size_t step, const GemmCall &call, ref::DType biasType,
               const std::string &name, std::string &error);

  /// Enqueues the prepared GEMM of step `step` on `stream`. `bias` is 0 when
  /// the call has none.
  bool enqueue(size_t step, CUdeviceptr lhs, CUdeviceptr rhs, CUdeviceptr bias,
               CUdeviceptr out, CUstream stream, std::string &error);

private:
  GemmRunner() = default;

  struct Prepared {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo;
    std::string name;
  };

  cublasLtHandle_t handle = nullptr;
  DeviceMemory workspace;
  std::map<size_t, Prepared> prepared;
};

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_GEMM_H
