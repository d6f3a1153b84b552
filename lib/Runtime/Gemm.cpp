//===- Gemm.cpp - The plan's GEMMs through cuBLASLt -------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements GemmRunner: the row-major to column-major mapping,
// the descriptors, the heuristic algorithm choice and the launch.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Gemm.h"

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

/// Calls a cuBLASLt function; on failure stores a message naming it in ERROR
/// and returns `{}`.
#define TFUSE_CUBLAS(error, call)                                              \
  do {                                                                         \
    cublasStatus_t tfuseStatus_ = (call);                                      \
    if (tfuseStatus_ != CUBLAS_STATUS_SUCCESS) {                               \
      (error) = describeCublasError(#call, tfuseStatus_);                      \
      return {};                                                               \
    }                                                                          \
  } while (0)

namespace {

std::string describeCublasError(const char *call, cublasStatus_t status) {
  std::string name(call);
  size_t paren = name.find('(');
  if (paren != std::string::npos)
    name.resize(paren);
  const char *statusName = cublasLtGetStatusName(status);
  const char *statusText = cublasLtGetStatusString(status);
  return name + " failed: " + (statusName ? statusName : "?") +
         (statusText ? std::string(" (") + statusText + ")" : "");
}

cudaDataType_t cudaTypeOf(ref::DType dtype) {
  switch (dtype) {
  case ref::DType::F16:
    return CUDA_R_16F;
  case ref::DType::BF16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

cublasLtEpilogue_t epilogueOf(Epilogue e) {
  switch (e) {
  case Epilogue::None:
    return CUBLASLT_EPILOGUE_DEFAULT;
  case Epilogue::Bias:
    return CUBLASLT_EPILOGUE_BIAS;
  case Epilogue::Gelu:
    return CUBLASLT_EPILOGUE_GELU;
  case Epilogue::BiasGelu:
    return CUBLASLT_EPILOGUE_GELU_BIAS;
  case Epilogue::Relu:
    return CUBLASLT_EPILOGUE_RELU;
  case Epilogue::BiasRelu:
    return CUBLASLT_EPILOGUE_RELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

/// A column-major layout with a batch.
bool makeLayout(cublasLtMatrixLayout_t &layout, cudaDataType_t type,
                int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                int64_t stride, std::string &error) {
  TFUSE_CUBLAS(error,
               cublasLtMatrixLayoutCreate(&layout, type, rows, cols, ld));
  int32_t count = static_cast<int32_t>(batch);
  TFUSE_CUBLAS(error, cublasLtMatrixLayoutSetAttribute(
                          layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                          sizeof(count)));
  TFUSE_CUBLAS(error, cublasLtMatrixLayoutSetAttribute(
                          layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                          &stride, sizeof(stride)));
  return true;
}

} // namespace

std::unique_ptr<GemmRunner>
mlir::tfuse::rt::GemmRunner::create(bool autotune, std::string &error) {
  std::unique_ptr<GemmRunner> r(new GemmRunner());
  r->autotune = autotune;
  TFUSE_CUBLAS(error, cublasLtCreate(&r->handle));
  if (!r->workspace.allocate(kWorkspaceBytes, error))
    return nullptr;
  TFUSE_CU(error, cuEventCreate, &r->start, CU_EVENT_DEFAULT);
  TFUSE_CU(error, cuEventCreate, &r->stop, CU_EVENT_DEFAULT);
  return r;
}

mlir::tfuse::rt::GemmRunner::~GemmRunner() {
  for (auto &[step, p] : prepared) {
    if (p.a)
      cublasLtMatrixLayoutDestroy(p.a);
    if (p.b)
      cublasLtMatrixLayoutDestroy(p.b);
    if (p.d)
      cublasLtMatrixLayoutDestroy(p.d);
    if (p.desc)
      cublasLtMatmulDescDestroy(p.desc);
  }
  if (handle)
    cublasLtDestroy(handle);
  if (start)
    driver().cuEventDestroy(start);
  if (stop)
    driver().cuEventDestroy(stop);
}

bool mlir::tfuse::rt::GemmRunner::prepare(size_t step, const GemmCall &g,
                                          ref::DType biasDType,
                                          const std::string &name,
                                          std::string &error) {
  Prepared &p = prepared[step];
  p.name = name;
  p.algos.clear();
  p.choice = {};
  cudaDataType_t type = cudaTypeOf(g.dtype);
  cublasComputeType_t compute =
      g.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  TFUSE_CUBLAS(error, cublasLtMatmulDescCreate(&p.desc, compute, CUDA_R_32F));
  // Column-major C^T[N,M] = op(rhs)[N,K] * op(lhs)[K,M].
  cublasOperation_t opA = g.transposeRhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = g.transposeLhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  TFUSE_CUBLAS(
      error, cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                            &opA, sizeof(opA)));
  TFUSE_CUBLAS(
      error, cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                            &opB, sizeof(opB)));
  cublasLtEpilogue_t epilogue = epilogueOf(g.epilogue);
  TFUSE_CUBLAS(error, cublasLtMatmulDescSetAttribute(
                          p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                          sizeof(epilogue)));
  if (g.bias) {
    // The bias buffer's own type (the GEMM's dtype or f32); the plan loader
    // allowed only those.
    int32_t biasType = static_cast<int32_t>(cudaTypeOf(biasDType));
    TFUSE_CUBLAS(error, cublasLtMatmulDescSetAttribute(
                            p.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                            &biasType, sizeof(biasType)));
  }

  // rhs, stored row-major [K,N] (or [N,K] when transposed), is column-major
  // [N,K] with ld N (or [K,N] with ld K).
  if (!(g.transposeRhs ? makeLayout(p.a, type, g.k, g.n, g.k, g.batch,
                                    g.rhsBatchStride, error)
                       : makeLayout(p.a, type, g.n, g.k, g.n, g.batch,
                                    g.rhsBatchStride, error)))
    return false;
  // lhs, stored row-major [M,K] (or [K,M]), is column-major [K,M] with ld K
  // (or [M,K] with ld M).
  if (!(g.transposeLhs ? makeLayout(p.b, type, g.m, g.k, g.m, g.batch,
                                    g.lhsBatchStride, error)
                       : makeLayout(p.b, type, g.k, g.m, g.k, g.batch,
                                    g.lhsBatchStride, error)))
    return false;
  if (!makeLayout(p.d, type, g.n, g.m, g.n, g.batch, g.outBatchStride, error))
    return false;

  cublasLtMatmulPreference_t preference = nullptr;
  TFUSE_CUBLAS(error, cublasLtMatmulPreferenceCreate(&preference));
  uint64_t workspaceBytes = kWorkspaceBytes;
  cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
      sizeof(workspaceBytes));
  cublasLtMatmulHeuristicResult_t results[kMaxCandidates] = {};
  int found = 0;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulAlgoGetHeuristic(handle, p.desc, p.a, p.b, p.d, p.d,
                                       preference, kMaxCandidates, results,
                                       &found);
  cublasLtMatmulPreferenceDestroy(preference);
  for (int i = 0; s == CUBLAS_STATUS_SUCCESS && i < found; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS)
      p.algos.push_back(results[i].algo);
  if (s != CUBLAS_STATUS_SUCCESS || p.algos.empty()) {
    error =
        name + ": cuBLASLt has no algorithm for this GEMM (" +
        ref::dtypeName(g.dtype) + ", batch " + std::to_string(g.batch) +
        ", m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " +
        std::to_string(g.k) + ", epilogue " + epilogueName(g.epilogue) + ")" +
        (s != CUBLAS_STATUS_SUCCESS
             ? ": " + describeCublasError("cublasLtMatmulAlgoGetHeuristic", s)
             : "");
    return false;
  }
  p.choice.candidates = static_cast<int>(p.algos.size());
  return true;
}

cublasStatus_t
mlir::tfuse::rt::GemmRunner::launch(const Prepared &p,
                                    const cublasLtMatmulAlgo_t &algo,
                                    const Operands &operands, CUstream stream) {
  float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(handle, p.desc, &alpha, operands.rhs, p.a, operands.lhs,
                        p.b, &beta, operands.out, p.d, operands.out, p.d, &algo,
                        reinterpret_cast<void *>(workspace.get()),
                        kWorkspaceBytes, stream);
}

bool mlir::tfuse::rt::GemmRunner::tune(Prepared &p, const Operands &operands,
                                       CUstream stream, std::string &error) {
  // beta is 0 and the epilogue writes `out` only, so every trial leaves the
  // same result; the last launch (by enqueue) writes it with the winner.
  constexpr int kTimedRuns = 3;
  double best = 0;
  for (size_t i = 0; i < p.algos.size(); ++i) {
    // An algorithm that fails to launch is skipped (the heuristic's first
    // is checked by the real launch).
    if (launch(p, p.algos[i], operands, stream) != CUBLAS_STATUS_SUCCESS)
      continue;
    TFUSE_CU(error, cuEventRecord, start, stream);
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    for (int run = 0; run < kTimedRuns && status == CUBLAS_STATUS_SUCCESS;
         ++run)
      status = launch(p, p.algos[i], operands, stream);
    TFUSE_CU(error, cuEventRecord, stop, stream);
    TFUSE_CU(error, cuEventSynchronize, stop);
    if (status != CUBLAS_STATUS_SUCCESS)
      continue;
    float ms = 0;
    TFUSE_CU(error, cuEventElapsedTime, &ms, start, stop);
    double us = static_cast<double>(ms) * 1e3 / kTimedRuns;
    if (i == 0)
      p.choice.heuristicUs = us;
    if (best == 0 || us < best) {
      best = us;
      p.choice.chosen = static_cast<int>(i);
    }
  }
  p.choice.chosenUs = best;
  p.choice.tuned = true;
  return true;
}

const GemmChoice *mlir::tfuse::rt::GemmRunner::choice(size_t step) const {
  auto it = prepared.find(step);
  return it == prepared.end() ? nullptr : &it->second.choice;
}

bool mlir::tfuse::rt::GemmRunner::enqueue(size_t step, CUdeviceptr lhs,
                                          CUdeviceptr rhs, CUdeviceptr bias,
                                          CUdeviceptr out, CUstream stream,
                                          std::string &error) {
  auto it = prepared.find(step);
  if (it == prepared.end()) {
    error = "internal error: GEMM step " + std::to_string(step) +
            " was not prepared";
    return false;
  }
  Prepared &p = it->second;
  if (bias) {
    void *biasPointer = reinterpret_cast<void *>(bias);
    TFUSE_CUBLAS(error, cublasLtMatmulDescSetAttribute(
                            p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                            &biasPointer, sizeof(biasPointer)));
  }
  Operands operands{reinterpret_cast<const void *>(lhs),
                    reinterpret_cast<const void *>(rhs),
                    reinterpret_cast<void *>(out)};
  if (autotune && !p.choice.tuned && p.algos.size() > 1) {
    // Never while a CUDA graph is being captured: the trials would be
    // recorded, not run.
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    TFUSE_CU(error, cuStreamIsCapturing, stream, &capture);
    if (capture == CU_STREAM_CAPTURE_STATUS_NONE &&
        !tune(p, operands, stream, error))
      return false;
  }
  cublasStatus_t s = launch(p, p.algos[p.choice.chosen], operands, stream);
  if (s != CUBLAS_STATUS_SUCCESS) {
    error = p.name + ": " + describeCublasError("cublasLtMatmul", s);
    return false;
  }
  return true;
}
