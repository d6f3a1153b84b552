//===- Check.h - Compare GPU results with the CPU reference -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the checks of `tfuse-run --check`. Given a step's
// inputs and outputs as copied back from the GPU, a kernel step is
// recomputed with the reference interpreter on those very inputs and
// compared element by element; a GEMM step is recomputed on a sample of at
// least 4096 output elements (all of them for small outputs).
//
// Tolerances (docs/bundle.md, "Checking"): an element passes when
//   |gpu - ref| <= atol + rtol * |ref|   (+ the GEMM term below)
// with, L being the step's longest reduction (ref::longestReduction) and
// s = max(1, sqrt(L) / 8):
//   f32   rtol 1e-4   atol 1e-5 * s
//   f16   rtol 1e-2   atol 1e-3 * s
//   bf16  rtol 2e-2   atol 1e-2 * s
//   i32, i64: exact.
// With a reduction, float outputs of kernel steps add to atol the error of
// an f32 accumulation whose partial sums are of the output's size M:
// 8 * sqrt(L) * 2^-24 * M (a sum that cancels to near zero is otherwise
// held to a tolerance below f32's own rounding of its terms).
// GEMM elements add 8 * sqrt(K) * 2^-24 * sum_k |lhs_ik * rhs_kj|, the
// probabilistic bound of an f32 accumulation in any order. A fused
// attention step has its own atol, the kernel's error bound in units of
// max|value| (attentionTolerance); a fused attention_grad step adds to
// each gradient element the kernel's error bound (expectAttentionGrad).
// NaN must match NaN and an infinity the same infinity; any other NaN or
// infinity fails.
//
// No LLVM/MLIR, no CUDA, no exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_CHECK_H
#define TFUSE_RUNTIME_CHECK_H

#include "tfuse/Bundle/Plan.h"
#include "tfuse/Reference/Reference.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tfuse::rt {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// The tolerance for results of `dtype` of a step whose longest reduction
/// is `reductionLength` (0 for none). With `reference` (the expected
/// output) and a reduction, atol also gets the accumulation term
/// 8 * sqrt(L) * 2^-24 * max|reference|.
Tolerance toleranceFor(ref::DType dtype, int64_t reductionLength,
                       const ref::Tensor *reference = nullptr);

/// The tolerance of the fused attention kernel's output (docs/bundle.md,
/// "Checking"): the table's rtol for the output's one rounding, and atol
///   M_v * (u + Sk * eta + 2 * eps + 16 * sqrt(Sk) * 2^-24)
/// with M_v = max|value|, u the unit roundoff of `dtype` (P is rounded to it
/// before P·V), eta half its smallest subnormal (P underflowing), eps =
/// 2^-22 + 8 * 2^-24 * ((sqrt(D) + 1) * S + B) the relative error of one
/// probability from f32 scores and exp2, S = |scale| * max‖q_i‖ * max‖k_j‖,
/// B = the largest |max_j mask_ij| over finite mask rows. With dropout
/// (`dropoutP` > 0) M_v is max|value| / (1 - p): the kept probabilities are
/// scaled by that before P·V.
Tolerance attentionTolerance(ref::DType dtype, const ref::Tensor &query,
                             const ref::Tensor &key, const ref::Tensor &value,
                             const ref::Tensor *mask, double scale,
                             double dropoutP = 0);

/// A fused attention_grad step's expected dQ, dK and dV (ref::attentionGrad)
/// with each element's allowance beyond the table's tolerance: the error of
/// the kernel, which recomputes P in f32 and rounds P and dS to `dtype`
/// before its products (docs/bundle.md, "Checking"):
///   dQ_ic  2 * sum_j (w_ij + g(Sk) |dS_ij|) |k_jc|
///   dK_jc  2 * sum_i (w_ij + g(R) |dS_ij|) |q_ic|
///   dV_jc  2 * sum_i (u + eps + g(R)) p_ij keep_ij |dO_ic|
/// with w_ij = (u + eps) |dS_ij| + |scale| p_ij keep_ij g(Dv) sum_c
/// |dO_ic v_jc| the error of dS_ij, g(n) = 8 sqrt(n) 2^-24, R = Sq * H / Hkv
/// the query rows a key meets, u and eps as in attentionTolerance.
struct AttentionGradExpectation {
  ref::AttentionGrads expected;
  /// dQ, dK, dV: one allowance per element.
  std::array<std::vector<double>, 3> allowance;
};
AttentionGradExpectation
expectAttentionGrad(const ref::Tensor &query, const ref::Tensor &key,
                    const ref::Tensor &value, const ref::Tensor &outGrad,
                    const ref::Tensor &lse, const ref::Tensor &delta,
                    const ref::Tensor *mask, double scale, bool causal,
                    double dropoutP, uint64_t seed);

/// The allowance, beyond the table's tolerance, of each element of a
/// tfuse.gather_grad step's output (shape `tableShape`): its f32 atomics
/// add the n_v rows of `grad` whose index clamps to row v in any order, so
/// element (v, j) may err by g(n_v) * sum over those rows of |grad_ij|, with
/// g(n) = 8 sqrt(n) 2^-24 (the GEMM check's term; it is at least the
/// worst-case (n - 1) 2^-24 up to n = 64). Zero where no index selects the
/// row (the kernel adds nothing there). Empty when the shapes disagree.
std::vector<double> gatherGradAllowance(const ref::Tensor &grad,
                                        const ref::Tensor &indices,
                                        const std::vector<int64_t> &tableShape);

/// The outcome of comparing one tensor.
struct TensorComparison {
  Tolerance tolerance;
  int64_t compared = 0;
  int64_t failures = 0;
  double maxAbsError = 0;
  /// max |gpu - ref| / max(|ref|, atol).
  double maxRelError = 0;
  /// The element with the largest error relative to its allowance
  /// (|gpu - ref| / allowed; infinite for a NaN/Inf mismatch).
  int64_t worstIndex = -1;
  double worstRatio = 0;
  double worstGpu = 0;
  double worstRef = 0;

  bool passed() const { return failures == 0; }
};

/// Compares `gpu` with `reference` (same shape and dtype) at the flat
/// `indices`, or everywhere when `indices` is null. `extraAllowance`, when
/// given, adds a per-index term to the allowance (parallel to `indices`).
TensorComparison
compareTensors(const ref::Tensor &gpu, const ref::Tensor &reference,
               Tolerance tolerance,
               const std::vector<int64_t> *indices = nullptr,
               const std::vector<double> *extraAllowance = nullptr);

/// The check of one output of a step.
struct OutputCheck {
  /// Buffer index.
  size_t buffer = 0;
  TensorComparison comparison;
};

/// The check of one step.
struct StepCheck {
  size_t step = 0;
  bool passed = false;
  /// Set when the reference could not be computed (bad graph, bad inputs).
  std::string error;
  /// Whether only a sample of the elements was compared (GEMMs).
  bool sampled = false;
  std::vector<OutputCheck> outputs;
  double maxAbsError = 0;
  double maxRelError = 0;
  /// Seconds spent computing the reference.
  double referenceSeconds = 0;
};

/// Checks step `stepIndex` of `plan`: `inputs` and `outputs` are the step's
/// buffers (in the order of PlanStep::inputs/outputs) as read back from the
/// GPU. Kernel steps are compared fully; GEMM steps on at least `minSamples`
/// elements.
StepCheck checkStep(const Plan &plan, size_t stepIndex,
                    const std::vector<ref::Tensor> &inputs,
                    const std::vector<ref::Tensor> &outputs,
                    int64_t minSamples = 4096);

/// The reference value of element (b, i, j) of a GEMM's output, computed as
/// the step's `ops` graph would (tfuse.matmul, then + bias, then the
/// epilogue's activation, each rounded to the GEMM's dtype). `lhs`, `rhs`
/// and `bias` are whole buffers. `absSum` receives sum_k |lhs * rhs|.
double gemmReferenceElement(const GemmCall &gemm, const ref::Tensor &lhs,
                            const ref::Tensor &rhs, const ref::Tensor *bias,
                            bool geluTanh, int64_t b, int64_t i, int64_t j,
                            double &absSum);

/// Up to `count` distinct flat output offsets of a GEMM's output to check:
/// every element when there are at most 2 * count, otherwise the corners of
/// each matrix (of the first 16 batches) and deterministic pseudo-random
/// elements. Each entry is {b, i, j}.
std::vector<std::array<int64_t, 3>> sampleGemmElements(const GemmCall &gemm,
                                                       int64_t count);

/// "[3, 17]": the multi-dimensional index of flat element `flat` of `shape`.
std::string formatElementIndex(const std::vector<int64_t> &shape, int64_t flat);

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_CHECK_H
