//===- Check.cpp - Compare GPU results with the CPU reference ---*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the per-step checks of `tfuse-run --check`: the
// tolerances, the element comparison, the full check of kernel steps through
// the reference interpreter and the sampled check of GEMM steps.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

Tolerance mlir::tfuse::rt::toleranceFor(ref::DType dtype,
                                        int64_t reductionLength,
                                        const ref::Tensor *reference) {
  double root = std::sqrt(static_cast<double>(reductionLength));
  double s = std::max(1.0, root / 8);
  Tolerance t;
  switch (dtype) {
  case ref::DType::F32:
    t = {1e-4, 1e-5 * s};
    break;
  case ref::DType::F16:
    t = {1e-2, 1e-3 * s};
    break;
  case ref::DType::BF16:
    t = {2e-2, 1e-2 * s};
    break;
  case ref::DType::I32:
  case ref::DType::I64:
    return {0, 0};
  }
  // An f32 accumulation of L terms whose partial sums are of the output's
  // magnitude M errs by about sqrt(L) * 2^-24 * M in any order; allow 8x.
  // This matters where a sum cancels to near zero.
  if (reference && reductionLength > 0) {
    double magnitude = 0;
    for (double v : reference->data)
      if (std::isfinite(v))
        magnitude = std::max(magnitude, std::fabs(v));
    t.atol += 8 * root * std::ldexp(1.0, -24) * magnitude;
  }
  return t;
}

namespace {

/// The unit roundoff u of `dtype` and half its smallest subnormal eta
/// (f32's flush to zero for bf16 and f32).
std::pair<double, double> roundingOf(ref::DType dtype) {
  switch (dtype) {
  case ref::DType::BF16:
    return {std::ldexp(1.0, -8), std::ldexp(1.0, -126)};
  case ref::DType::F16:
    return {std::ldexp(1.0, -11), std::ldexp(1.0, -25)};
  default:
    return {std::ldexp(1.0, -24), std::ldexp(1.0, -126)};
  }
}

/// The f32 accumulation term g(n) = 8 sqrt(n) 2^-24.
double accumulationError(int64_t terms) {
  return 8 * std::sqrt(static_cast<double>(terms)) * std::ldexp(1.0, -24);
}

/// The relative error eps of one probability the flash kernels compute from
/// f32 scores and exp2 (docs/bundle.md, "Checking"):
/// 2^-22 + 8 * 2^-24 * ((sqrt(D) + 1) * S + B).
double probabilityError(const ref::Tensor &query, const ref::Tensor &key,
                        const ref::Tensor *mask, double scale) {
  // The largest Euclidean norm of a row (the last dim) of `t`.
  auto maxRowNorm = [](const ref::Tensor &t) {
    int64_t width = t.shape.empty() ? 1 : t.shape.back();
    double best = 0;
    for (size_t r = 0; width > 0 && r + width <= t.data.size(); r += width) {
      double sum = 0;
      for (int64_t c = 0; c < width; ++c)
        sum += t.data[r + c] * t.data[r + c];
      best = std::max(best, std::sqrt(sum));
    }
    return best;
  };
  int64_t dim = query.shape.empty() ? 0 : query.shape.back();
  // |score| <= S by Cauchy-Schwarz; a row's largest masked score is within
  // S of its mask row's largest entry, bounded by B.
  double scoreBound = std::fabs(scale) * maxRowNorm(query) * maxRowNorm(key);
  double maskBound = 0;
  if (mask) {
    int64_t width = mask->shape.empty() ? 1 : mask->shape.back();
    for (size_t r = 0; width > 0 && r + width <= mask->data.size();
         r += width) {
      double rowMax = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < width; ++c)
        rowMax = std::max(rowMax, mask->data[r + c]);
      if (std::isfinite(rowMax))
        maskBound = std::max(maskBound, std::fabs(rowMax));
    }
  }
  return std::ldexp(1.0, -22) +
         8 * std::ldexp(1.0, -24) *
             (std::sqrt(static_cast<double>(dim)) * scoreBound + scoreBound +
              maskBound);
}

} // namespace

Tolerance mlir::tfuse::rt::attentionTolerance(ref::DType dtype,
                                              const ref::Tensor &query,
                                              const ref::Tensor &key,
                                              const ref::Tensor &value,
                                              const ref::Tensor *mask,
                                              double scale, double dropoutP) {
  // The table's rtol covers the one rounding of the output; atol is the
  // kernel's error bound (docs/bundle.md, "Checking"), in units of M_v.
  Tolerance t = toleranceFor(dtype, 0);
  auto [u, eta] = roundingOf(dtype);
  double valueMax = 0;
  for (double v : value.data)
    if (std::isfinite(v))
      valueMax = std::max(valueMax, std::fabs(v));
  if (dropoutP > 0 && dropoutP < 1)
    valueMax /= 1 - dropoutP;
  int64_t keys = key.rank() >= 2 ? key.shape[key.rank() - 2] : 0;
  t.atol = valueMax * (u + static_cast<double>(keys) * eta +
                       2 * probabilityError(query, key, mask, scale) +
                       2 * accumulationError(keys));
  return t;
}

AttentionGradExpectation mlir::tfuse::rt::expectAttentionGrad(
    const ref::Tensor &query, const ref::Tensor &key, const ref::Tensor &value,
    const ref::Tensor &outGrad, const ref::Tensor &lse,
    const ref::Tensor &delta, const ref::Tensor *mask, double scale,
    bool causal, double dropoutP, uint64_t seed) {
  AttentionGradExpectation result;
  // References, not a structured binding: the visitor below captures them.
  std::vector<double> &dq = result.allowance[0], &dk = result.allowance[1],
                      &dv = result.allowance[2];
  dq.assign(query.data.size(), 0.0);
  dk.assign(key.data.size(), 0.0);
  dv.assign(value.data.size(), 0.0);
  bool shaped = query.rank() == 4 && key.rank() == 4 && value.rank() == 4 &&
                key.shape[1] > 0;
  int64_t d = shaped ? query.shape[3] : 0, dvDim = shaped ? value.shape[3] : 0;
  int64_t rowsPerKey =
      shaped ? query.shape[2] * query.shape[1] / key.shape[1] : 0;
  double u = roundingOf(query.dtype).first;
  double relative = u + probabilityError(query, key, mask, scale);
  double keySum = shaped ? accumulationError(key.shape[2]) : 0;
  double rowSum = accumulationError(rowsPerKey);
  double dotError = accumulationError(dvDim);
  ref::AttentionGradVisitor visit = [&](const ref::AttentionGradTerm &t) {
    const double *doi = outGrad.data.data() + t.row * dvDim;
    const double *vj = value.data.data() + t.keyRow * dvDim;
    const double *qi = query.data.data() + t.row * d;
    const double *kj = key.data.data() + t.keyRow * d;
    double weight = t.probability * t.keep;
    double dotMagnitude = 0;
    for (int64_t c = 0; c < dvDim; ++c) {
      dotMagnitude += std::fabs(doi[c] * vj[c]);
      dv[t.keyRow * dvDim + c] +=
          2 * (relative + rowSum) * weight * std::fabs(doi[c]);
    }
    double scoreGrad = std::fabs(t.scoreGrad);
    double error = relative * scoreGrad +
                   std::fabs(scale) * weight * dotError * dotMagnitude;
    for (int64_t c = 0; c < d; ++c) {
      dq[t.row * d + c] += 2 * (error + keySum * scoreGrad) * std::fabs(kj[c]);
      dk[t.keyRow * d + c] +=
          2 * (error + rowSum * scoreGrad) * std::fabs(qi[c]);
    }
  };
  result.expected =
      ref::attentionGrad(query, key, value, outGrad, lse, delta, mask, scale,
                         causal, dropoutP, seed, &visit);
  return result;
}

std::vector<double>
mlir::tfuse::rt::gatherGradAllowance(const ref::Tensor &grad,
                                     const ref::Tensor &indices,
                                     const std::vector<int64_t> &tableShape) {
  if (tableShape.empty() || tableShape[0] <= 0)
    return {};
  int64_t rows = tableShape[0];
  int64_t rowSize = ref::numElements(tableShape) / rows;
  if (static_cast<int64_t>(grad.data.size()) !=
      static_cast<int64_t>(indices.data.size()) * rowSize)
    return {};
  std::vector<int64_t> count(static_cast<size_t>(rows), 0);
  std::vector<double> absSum(static_cast<size_t>(rows * rowSize), 0.0);
  for (size_t i = 0; i < indices.data.size(); ++i) {
    // The row as tfuse.gather clamps (ref::gatherGrad).
    double value = indices.data[i];
    int64_t row = value >= static_cast<double>(rows - 1) ? rows - 1
                  : value > 0                            ? int64_t(value)
                                                         : 0;
    ++count[row];
    for (int64_t j = 0; j < rowSize; ++j)
      absSum[row * rowSize + j] += std::fabs(grad.data[i * rowSize + j]);
  }
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t j = 0; j < rowSize; ++j)
      absSum[row * rowSize + j] *= accumulationError(count[row]);
  return absSum;
}

TensorComparison mlir::tfuse::rt::compareTensors(
    const ref::Tensor &gpu, const ref::Tensor &reference, Tolerance tolerance,
    const std::vector<int64_t> *indices,
    const std::vector<double> *extraAllowance) {
  TensorComparison c;
  c.tolerance = tolerance;
  const double inf = std::numeric_limits<double>::infinity();
  int64_t n = indices ? static_cast<int64_t>(indices->size())
                      : static_cast<int64_t>(
                            std::min(gpu.data.size(), reference.data.size()));
  for (int64_t k = 0; k < n; ++k) {
    int64_t index = indices ? (*indices)[k] : k;
    double g = gpu.data[index], r = reference.data[index];
    double allowed = tolerance.atol + tolerance.rtol * std::fabs(r) +
                     (extraAllowance ? (*extraAllowance)[k] : 0.0);
    double ratio;
    if (std::isnan(r) || std::isnan(g) || std::isinf(r) || std::isinf(g)) {
      bool same = (std::isnan(r) && std::isnan(g)) || g == r;
      ratio = same ? 0.0 : inf;
    } else {
      double diff = std::fabs(g - r);
      c.maxAbsError = std::max(c.maxAbsError, diff);
      double scale =
          std::max(std::fabs(r), tolerance.atol > 0 ? tolerance.atol : 1.0);
      c.maxRelError = std::max(c.maxRelError, diff / scale);
      ratio = diff == 0 ? 0.0 : allowed > 0 ? diff / allowed : inf;
    }
    ++c.compared;
    if (ratio > 1.0)
      ++c.failures;
    if (c.worstIndex < 0 || ratio > c.worstRatio) {
      c.worstIndex = index;
      c.worstRatio = ratio;
      c.worstGpu = g;
      c.worstRef = r;
    }
  }
  return c;
}

std::string
mlir::tfuse::rt::formatElementIndex(const std::vector<int64_t> &shape,
                                    int64_t flat) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0)
      continue;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return ref::formatShape(index);
}

double mlir::tfuse::rt::gemmReferenceElement(
    const GemmCall &g, const ref::Tensor &lhs, const ref::Tensor &rhs,
    const ref::Tensor *bias, bool geluTanh, int64_t b, int64_t i, int64_t j,
    double &absSum) {
  // As ref::matmul: the double sum of the products in increasing k, rounded
  // once to the result type.
  int64_t lhsBase = b * g.lhsBatchStride, rhsBase = b * g.rhsBatchStride;
  double sum = 0;
  absSum = 0;
  for (int64_t k = 0; k < g.k; ++k) {
    double a = lhs.data[lhsBase + (g.transposeLhs ? k * g.m + i : i * g.k + k)];
    double w = rhs.data[rhsBase + (g.transposeRhs ? j * g.k + k : k * g.n + j)];
    sum += a * w;
    absSum += std::fabs(a * w);
  }
  double value = ref::roundTo(g.dtype, sum);
  if (bias)
    value = ref::roundTo(g.dtype, value + bias->data[j]);
  auto apply = [&](ref::UnaryKind kind) {
    return ref::unary(kind, ref::scalar(g.dtype, value)).data[0];
  };
  switch (g.epilogue) {
  case Epilogue::Gelu:
  case Epilogue::BiasGelu:
    return apply(geluTanh ? ref::UnaryKind::GeluTanh : ref::UnaryKind::GeluErf);
  case Epilogue::Relu:
  case Epilogue::BiasRelu:
    return apply(ref::UnaryKind::Relu);
  case Epilogue::None:
  case Epilogue::Bias:
    return value;
  }
  return value;
}

std::vector<std::array<int64_t, 3>>
mlir::tfuse::rt::sampleGemmElements(const GemmCall &g, int64_t count) {
  std::vector<std::array<int64_t, 3>> samples;
  int64_t total = g.batch * g.m * g.n;
  auto decode = [&](int64_t flat) -> std::array<int64_t, 3> {
    return {flat / (g.m * g.n), (flat / g.n) % g.m, flat % g.n};
  };
  if (total <= 2 * count) {
    for (int64_t flat = 0; flat < total; ++flat)
      samples.push_back(decode(flat));
    return samples;
  }
  std::set<int64_t> chosen;
  for (int64_t b = 0; b < std::min<int64_t>(g.batch, 16); ++b)
    for (int64_t i : {int64_t(0), g.m - 1})
      for (int64_t j : {int64_t(0), g.n - 1})
        chosen.insert((b * g.m + i) * g.n + j);
  for (uint64_t t = 0; static_cast<int64_t>(chosen.size()) < count; ++t)
    chosen.insert(static_cast<int64_t>(ref::splitmix64(0x7475736eULL + t) %
                                       static_cast<uint64_t>(total)));
  for (int64_t flat : chosen)
    samples.push_back(decode(flat));
  return samples;
}

namespace {

size_t positionOf(const std::vector<size_t> &list, size_t buffer) {
  return static_cast<size_t>(std::find(list.begin(), list.end(), buffer) -
                             list.begin());
}

void summarize(StepCheck &check) {
  check.passed = check.error.empty();
  for (const OutputCheck &o : check.outputs) {
    check.passed = check.passed && o.comparison.passed();
    check.maxAbsError = std::max(check.maxAbsError, o.comparison.maxAbsError);
    check.maxRelError = std::max(check.maxRelError, o.comparison.maxRelError);
  }
}

/// The op of a step that is exactly one `name` op on the step's arguments,
/// or null.
const ref::RefOp *singleOpStep(const PlanStep &step,
                               const std::vector<ref::Tensor> &inputs,
                               const char *name) {
  const ref::RefGraph &graph = step.ops;
  if (graph.ops.size() != 1 || graph.ops[0].name != name)
    return nullptr;
  for (int operand : graph.ops[0].operands)
    if (operand < 0 || static_cast<size_t>(operand) >= inputs.size())
      return nullptr;
  return &graph.ops[0];
}

/// A step that is one `name` op between the layout ops a flash-attention
/// kernel absorbs: transposes (reshapes, a split) of the step's arguments,
/// the op, transposes of its results (tfuse-compile's attention steps read
/// and write token-major buffers so).
struct LayoutWrappedOp {
  const ref::RefOp *op = nullptr;
  /// The op's operands, the absorbed layout ops applied.
  std::vector<ref::Tensor> operands;
  /// Per yield, the op's result it is and the transpose applied to it
  /// (empty: none).
  std::vector<size_t> results;
  std::vector<std::vector<int64_t>> perms;
};

std::optional<std::vector<int64_t>> transposePerm(const ref::RefOp &op) {
  auto perm = op.attributes.find("perm");
  if (op.name != "tfuse.transpose" || op.operands.size() != 1 ||
      perm == op.attributes.end() ||
      !std::get_if<std::vector<int64_t>>(&perm->second))
    return std::nullopt;
  return std::get<std::vector<int64_t>>(perm->second);
}

std::optional<LayoutWrappedOp>
unwrapLayout(const PlanStep &step, const std::vector<ref::Tensor> &inputs,
             const char *name) {
  const ref::RefGraph &graph = step.ops;
  const int arguments = static_cast<int>(inputs.size());
  if (graph.arguments.size() != inputs.size())
    return std::nullopt;
  // Value ids number the arguments first, then each op's results. The
  // layout ops before the op (transposes, reshapes, a split) are evaluated
  // on the step's inputs: they give the op's operands.
  ref::RefGraph prefix;
  prefix.arguments = graph.arguments;
  std::map<int, std::pair<size_t, std::vector<int64_t>>> wrapped;
  LayoutWrappedOp result;
  int next = arguments, first = 0;
  for (const ref::RefOp &op : graph.ops) {
    std::optional<std::vector<int64_t>> perm = transposePerm(op);
    if (!result.op && op.name == name) {
      result.op = &op;
      first = next;
      prefix.yields = op.operands;
    } else if (!result.op && (perm || op.name == "tfuse.reshape" ||
                              op.name == "tfuse.split")) {
      prefix.ops.push_back(op);
    } else if (perm && result.op && op.operands[0] >= first &&
               op.operands[0] <
                   first + static_cast<int>(result.op->results.size())) {
      wrapped[next] = {static_cast<size_t>(op.operands[0] - first), *perm};
    } else {
      return std::nullopt;
    }
    next += static_cast<int>(op.results.size());
  }
  if (!result.op)
    return std::nullopt;
  if (prefix.ops.empty()) {
    for (int operand : prefix.yields) {
      if (operand < 0 || operand >= arguments)
        return std::nullopt;
      result.operands.push_back(inputs[operand]);
    }
  } else {
    // A malformed prefix: evaluateGraph of the whole step says why.
    std::string error;
    std::optional<std::vector<ref::Tensor>> operands =
        ref::evaluateGraph(prefix, inputs, error);
    if (!operands)
      return std::nullopt;
    result.operands = std::move(*operands);
  }
  if (!result.op)
    return std::nullopt;
  for (int yield : graph.yields) {
    int r = yield - first;
    if (wrapped.count(yield)) {
      result.results.push_back(wrapped[yield].first);
      result.perms.push_back(wrapped[yield].second);
    } else if (r >= 0 && r < static_cast<int>(result.op->results.size())) {
      result.results.push_back(static_cast<size_t>(r));
      result.perms.emplace_back();
    } else {
      return std::nullopt;
    }
  }
  return result;
}

/// tfuse.attention's and tfuse.attention_grad's attributes as the plan
/// carries them, or nothing where one is missing or of the wrong kind (the
/// interpreter then says which).
struct AttentionAttributes {
  double scale = 0;
  std::optional<bool> causal;
  double dropout = 0;
  uint64_t seed = 0;
};
std::optional<AttentionAttributes>
readAttentionAttributes(const ref::RefOp &op) {
  auto attribute = [&](const char *name) -> const ref::RefAttribute * {
    auto it = op.attributes.find(name);
    return it == op.attributes.end() ? nullptr : &it->second;
  };
  AttentionAttributes a;
  const ref::RefAttribute *scale = attribute("scale");
  if (!scale || !std::get_if<double>(scale))
    return std::nullopt;
  a.scale = std::get<double>(*scale);
  if (const ref::RefAttribute *causal = attribute("causal")) {
    if (!std::get_if<bool>(causal))
      return std::nullopt;
    a.causal = std::get<bool>(*causal);
  }
  if (const ref::RefAttribute *p = attribute("dropout_p")) {
    if (!std::get_if<double>(p))
      return std::nullopt;
    a.dropout = std::get<double>(*p);
  }
  if (const ref::RefAttribute *seed = attribute("seed")) {
    if (!std::get_if<int64_t>(seed))
      return std::nullopt;
    a.seed = static_cast<uint64_t>(std::get<int64_t>(*seed));
  }
  return a;
}

/// The tolerance of a fused attention kernel step (one tfuse.attention on
/// the step's arguments, through the transposes it absorbs), nothing for
/// any other step.
std::optional<Tolerance>
fusedAttentionTolerance(const PlanStep &step,
                        const std::vector<ref::Tensor> &inputs) {
  std::optional<LayoutWrappedOp> step1 =
      unwrapLayout(step, inputs, "tfuse.attention");
  if (!step1 || step1->operands.size() < 3)
    return std::nullopt;
  std::optional<AttentionAttributes> a = readAttentionAttributes(*step1->op);
  if (!a)
    return std::nullopt;
  const std::vector<ref::Tensor> &in = step1->operands;
  return attentionTolerance(in[0].dtype, in[0], in[1], in[2],
                            in.size() > 3 ? &in[3] : nullptr, a->scale,
                            a->dropout);
}

/// A step's expected outputs, each with its per-element allowance (empty:
/// none beyond the tolerance table).
struct StepExpectation {
  std::vector<ref::Tensor> expected;
  std::vector<std::vector<double>> allowance;
};

/// The expectation of a fused attention_grad kernel step (one
/// tfuse.attention_grad on the step's arguments through the transposes it
/// absorbs, its results' too; the plan's query kernel
/// yields dQ, its key kernel dK and dV, or one step all three), nothing for
/// any other step or where the reference rejects the operands
/// (evaluateGraph then says why).
std::optional<StepExpectation>
fusedAttentionGradExpectation(const PlanStep &step,
                              const std::vector<ref::Tensor> &inputs) {
  std::optional<LayoutWrappedOp> grad =
      unwrapLayout(step, inputs, "tfuse.attention_grad");
  if (!grad || grad->results.empty() || grad->op->results.size() != 3 ||
      grad->operands.size() < 6)
    return std::nullopt;
  const ref::RefOp &op = *grad->op;
  std::optional<AttentionAttributes> a = readAttentionAttributes(op);
  if (!a || !a->causal)
    return std::nullopt;
  const std::vector<ref::Tensor> &in = grad->operands;
  AttentionGradExpectation e =
      expectAttentionGrad(in[0], in[1], in[2], in[3], in[4], in[5],
                          in.size() > 6 ? &in[6] : nullptr, a->scale,
                          *a->causal, a->dropout, a->seed);
  ref::Tensor *grads[] = {&e.expected.query, &e.expected.key,
                          &e.expected.value};
  for (size_t r = 0; r < 3; ++r)
    if (grads[r]->data.size() !=
        static_cast<size_t>(ref::numElements(op.results[r].shape)))
      return std::nullopt;
  StepExpectation out;
  for (size_t y = 0; y < grad->results.size(); ++y) {
    size_t r = grad->results[y];
    const std::vector<int64_t> &perm = grad->perms[y];
    ref::Tensor expected = *grads[r];
    // The allowance moves with its elements.
    ref::Tensor allowance{ref::DType::F32, expected.shape, e.allowance[r]};
    if (!perm.empty()) {
      expected = ref::transpose(expected, perm);
      allowance = ref::transpose(allowance, perm);
      if (expected.shape.size() != perm.size())
        return std::nullopt;
    }
    out.expected.push_back(std::move(expected));
    out.allowance.push_back(std::move(allowance.data));
  }
  return out;
}

/// The allowance of a tfuse.gather_grad step (one op on the step's
/// arguments), nothing for any other step.
std::optional<std::vector<double>>
gatherGradStepAllowance(const PlanStep &step,
                        const std::vector<ref::Tensor> &inputs) {
  const ref::RefOp *op = singleOpStep(step, inputs, "tfuse.gather_grad");
  if (!op || op->operands.size() != 2 || op->results.size() != 1)
    return std::nullopt;
  std::vector<double> allowance = gatherGradAllowance(
      inputs[op->operands[0]], inputs[op->operands[1]], op->results[0].shape);
  if (allowance.empty())
    return std::nullopt;
  return allowance;
}

void checkKernel(const Plan &plan, const PlanStep &step,
                 const std::vector<ref::Tensor> &inputs,
                 const std::vector<ref::Tensor> &outputs, StepCheck &check) {
  std::optional<StepExpectation> grad =
      fusedAttentionGradExpectation(step, inputs);
  std::optional<std::vector<ref::Tensor>> expected =
      grad ? std::optional(grad->expected)
           : ref::evaluateGraph(step.ops, inputs, check.error);
  if (!expected)
    return;
  if (expected->size() != outputs.size()) {
    check.error = "step yields " + std::to_string(expected->size()) +
                  " values but has " + std::to_string(outputs.size()) +
                  " outputs";
    return;
  }
  int64_t reduction = ref::longestReduction(step.ops);
  std::optional<Tolerance> attention = fusedAttentionTolerance(step, inputs);
  std::optional<std::vector<double>> scatter =
      gatherGradStepAllowance(step, inputs);
  for (size_t o = 0; o < outputs.size(); ++o) {
    const PlanBuffer &buffer = plan.buffers[step.outputs[o]];
    OutputCheck out;
    out.buffer = step.outputs[o];
    out.comparison = compareTensors(
        outputs[o], (*expected)[o],
        attention ? *attention
                  : toleranceFor(buffer.dtype, reduction, &(*expected)[o]),
        nullptr,
        grad      ? &grad->allowance[o]
        : scatter ? &*scatter
                  : nullptr);
    check.outputs.push_back(out);
  }
}

void checkGemm(const PlanStep &step, const std::vector<ref::Tensor> &inputs,
               const std::vector<ref::Tensor> &outputs, int64_t minSamples,
               StepCheck &check) {
  const GemmCall &g = step.gemm;
  const ref::Tensor &lhs = inputs[positionOf(step.inputs, g.lhs)];
  const ref::Tensor &rhs = inputs[positionOf(step.inputs, g.rhs)];
  const ref::Tensor *bias =
      g.bias ? &inputs[positionOf(step.inputs, *g.bias)] : nullptr;
  size_t outPosition = positionOf(step.outputs, g.out);
  const ref::Tensor &out = outputs[outPosition];

  // The GELU of the graph decides the form; cuBLASLt's is the tanh one.
  bool geluTanh = true;
  for (const ref::RefOp &op : step.ops.ops) {
    auto it = op.attributes.find("approximate");
    if (op.name == "tfuse.gelu" && it != op.attributes.end())
      if (const std::string *s = std::get_if<std::string>(&it->second))
        geluTanh = *s == "tanh";
  }

  std::vector<std::array<int64_t, 3>> samples =
      sampleGemmElements(g, minSamples);
  ref::Tensor gpuSample{g.dtype, {static_cast<int64_t>(samples.size())}, {}};
  ref::Tensor refSample = gpuSample;
  std::vector<int64_t> flatIndices;
  std::vector<double> extra;
  // TF32 rounds both factors of each product to 10-bit mantissas (each
  // within 2^-11 relative): up to 2^-10 of |a| |b| per product.
  const double accumulation =
      8 * std::sqrt(static_cast<double>(g.k)) * std::ldexp(1.0, -24) +
      (g.tf32 ? std::ldexp(1.0, -10) : 0.0);
  for (const std::array<int64_t, 3> &s : samples) {
    int64_t flat = s[0] * g.outBatchStride + s[1] * g.n + s[2];
    double absSum = 0;
    refSample.data.push_back(gemmReferenceElement(g, lhs, rhs, bias, geluTanh,
                                                  s[0], s[1], s[2], absSum));
    gpuSample.data.push_back(out.data[flat]);
    flatIndices.push_back(flat);
    extra.push_back(accumulation * absSum);
  }
  OutputCheck o;
  o.buffer = g.out;
  o.comparison = compareTensors(gpuSample, refSample,
                                toleranceFor(g.dtype, g.k), nullptr, &extra);
  if (o.comparison.worstIndex >= 0)
    o.comparison.worstIndex = flatIndices[o.comparison.worstIndex];
  check.sampled = samples.size() < static_cast<size_t>(g.batch * g.m * g.n);
  check.outputs.push_back(o);
}

} // namespace

StepCheck mlir::tfuse::rt::checkStep(const Plan &plan, size_t stepIndex,
                                     const std::vector<ref::Tensor> &inputs,
                                     const std::vector<ref::Tensor> &outputs,
                                     int64_t minSamples) {
  StepCheck check;
  check.step = stepIndex;
  const PlanStep &step = plan.steps[stepIndex];
  auto start = std::chrono::steady_clock::now();
  if (inputs.size() != step.inputs.size() ||
      outputs.size() != step.outputs.size()) {
    check.error = "internal error: wrong number of tensors for the step";
  } else if (step.kind == StepKind::Kernel) {
    checkKernel(plan, step, inputs, outputs, check);
  } else {
    checkGemm(step, inputs, outputs, minSamples, check);
  }
  check.referenceSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  summarize(check);
  return check;
}
