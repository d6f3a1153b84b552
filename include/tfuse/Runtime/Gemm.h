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
#include "tfuse/Runtime/Bench.h"
#include "tfuse/Runtime/Device.h"

#include <cublasLt.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tfuse::rt {

class GemmRunner {
public:
  /// Workspace for cuBLASLt (32 MiB, as NVIDIA recommends for Hopper).
  static constexpr size_t kWorkspaceBytes = size_t(32) << 20;
  /// Algorithms asked of the heuristic per GEMM.
  static constexpr int kMaxCandidates = 8;

  /// With `autotune`, each GEMM's first execution outside a CUDA-graph
  /// capture times every candidate (GemmChoice).
  static std::unique_ptr<GemmRunner> create(bool autotune, std::string &error);
  ~GemmRunner();
  GemmRunner(const GemmRunner &) = delete;
  GemmRunner &operator=(const GemmRunner &) = delete;

  /// Builds the descriptors of `call` for step `step` and asks the heuristic
  /// for its candidates; `biasType` is the bias buffer's dtype (when the call
  /// has a bias) and `name` describes the step in errors.
  bool prepare(size_t step, const GemmCall &call, ref::DType biasType,
               const std::string &name, std::string &error);

  /// Enqueues the prepared GEMM of step `step` on `stream`. `bias` is 0 when
  /// the call has none. Tuning (the first time) synchronizes the stream.
  bool enqueue(size_t step, CUdeviceptr lhs, CUdeviceptr rhs, CUdeviceptr bias,
               CUdeviceptr out, CUstream stream, std::string &error);

  /// The algorithm choice of step `step`, or null when it is not a GEMM.
  const GemmChoice *choice(size_t step) const;

private:
  GemmRunner() = default;

  struct Prepared {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    std::vector<cublasLtMatmulAlgo_t> algos;
    GemmChoice choice;
    std::string name;
  };
  struct Operands {
    const void *lhs, *rhs;
    void *out;
  };

  cublasStatus_t launch(const Prepared &p, const cublasLtMatmulAlgo_t &algo,
                        const Operands &operands, CUstream stream);
  /// Times every candidate of `p` and keeps the fastest in p.choice.
  bool tune(Prepared &p, const Operands &operands, CUstream stream,
            std::string &error);

  bool autotune = true;
  cublasLtHandle_t handle = nullptr;
  DeviceMemory workspace;
  CUevent start = nullptr, stop = nullptr;
  std::map<size_t, Prepared> prepared;
};

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_GEMM_H
