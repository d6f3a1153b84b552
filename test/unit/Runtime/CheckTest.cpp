//===- CheckTest.cpp - Tests of tfuse-run's reference checks ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of the --check logic, without a GPU: the "GPU" results are the
// reference's own (which must pass), perturbed ones (which must fail at the
// right element), and NaNs. The sampled GEMM reference is compared with the
// interpreter evaluating the same graph.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Check.h"
#include "tfuse/Runtime/Results.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

ref::Tensor f32(std::vector<int64_t> shape, std::vector<double> values) {
  return ref::makeTensor(ref::DType::F32, std::move(shape), std::move(values));
}

TEST(Check, Tolerances) {
  Tolerance t = toleranceFor(ref::DType::BF16, 0);
  EXPECT_EQ(t.rtol, 2e-2);
  EXPECT_EQ(t.atol, 1e-2);
  t = toleranceFor(ref::DType::F16, 64);
  EXPECT_EQ(t.rtol, 1e-2);
  EXPECT_EQ(t.atol, 1e-3);
  // sqrt(1024) / 8 = 4.
  t = toleranceFor(ref::DType::F32, 1024);
  EXPECT_EQ(t.rtol, 1e-4);
  EXPECT_DOUBLE_EQ(t.atol, 4e-5);
  t = toleranceFor(ref::DType::I32, 4096);
  EXPECT_EQ(t.rtol, 0);
  EXPECT_EQ(t.atol, 0);
}

TEST(Check, AccumulationTermFollowsTheOutputsMagnitude) {
  ref::Tensor out = f32({3}, {-1000, 2, 0.5});
  Tolerance t = toleranceFor(ref::DType::F32, 1024, &out);
  EXPECT_DOUBLE_EQ(t.atol, 4e-5 + 8 * 32 * std::ldexp(1.0, -24) * 1000);
  // No reduction, no term.
  EXPECT_EQ(toleranceFor(ref::DType::F32, 0, &out).atol, 1e-5);
}

TEST(Check, F32RowSumsThatCancelPass) {
  // s[r] = sum_j x[r, j] in f32 on the "GPU" (a tree, as a block reduction
  // does) against the double reference: rows whose sum is near zero must
  // not fail, a wrong row must.
  const int64_t rows = 512, cols = 1024;
  ref::Tensor x = ref::randomTensor(ref::DType::F32, {rows, cols}, 3, 0);
  for (double &v : x.data)
    v = ref::roundTo(ref::DType::F32, v * 30);
  Plan p;
  PlanBuffer in, out;
  in.id = 0;
  in.name = "x";
  in.shape = {rows, cols};
  in.bytes = rows * cols * 4;
  in.kind = BufferKind::Input;
  out.id = 1;
  out.name = "s";
  out.shape = {rows};
  out.bytes = rows * 4;
  out.kind = BufferKind::Output;
  p.buffers = {in, out};
  PlanStep step;
  step.name = "row_sum";
  step.inputs = {0};
  step.outputs = {1};
  step.ops.arguments = {{ref::DType::F32, {rows, cols}}};
  step.ops.ops = {{"tfuse.reduce",
                   {0},
                   {{ref::DType::F32, {rows}}},
                   {{"kind", std::string("sum")},
                    {"axis", int64_t(1)},
                    {"keep_dims", false}}}};
  step.ops.yields = {1};
  p.steps = {step};
  ref::Tensor gpu = ref::zeros(ref::DType::F32, {rows});
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> partial(cols);
    for (int64_t j = 0; j < cols; ++j)
      partial[j] = static_cast<float>(x.data[r * cols + j]);
    for (int64_t width = cols / 2; width > 0; width /= 2)
      for (int64_t j = 0; j < width; ++j)
        partial[j] += partial[j + width];
    gpu.data[r] = partial[0];
  }
  StepCheck c = checkStep(p, 0, {x}, {gpu});
  EXPECT_TRUE(c.passed) << describeCheckFailure(p, c);
  EXPECT_GT(c.maxAbsError, 0);
  gpu.data[100] *= 1.01;
  EXPECT_FALSE(checkStep(p, 0, {x}, {gpu}).passed);
}

TEST(Check, CompareFindsTheWorstElement) {
  ref::Tensor want = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  ref::Tensor got = f32({2, 3}, {1, 2.0001, 3, 4, 5.01, 6});
  TensorComparison c = compareTensors(got, want, {1e-3, 0});
  EXPECT_EQ(c.compared, 6);
  EXPECT_EQ(c.failures, 1);
  EXPECT_EQ(c.worstIndex, 4);
  EXPECT_EQ(c.worstGpu, got.data[4]);
  EXPECT_EQ(c.worstRef, 5);
  EXPECT_NEAR(c.maxAbsError, 0.01, 1e-6);
  EXPECT_NEAR(c.maxRelError, 0.002, 1e-6);
  EXPECT_FALSE(c.passed());
  EXPECT_TRUE(compareTensors(got, want, {1e-2, 0}).passed());
  EXPECT_EQ(formatElementIndex({2, 3}, 4), "[1, 1]");
}

TEST(Check, NaNAndInfinities) {
  ref::Tensor want = f32({4}, {kNaN, kInf, -kInf, 1});
  EXPECT_TRUE(compareTensors(want, want, {0, 0}).passed());
  // NaN where the reference is finite fails whatever the tolerance.
  TensorComparison c =
      compareTensors(f32({4}, {kNaN, kInf, -kInf, kNaN}), want, {1, 1});
  EXPECT_EQ(c.failures, 1);
  EXPECT_EQ(c.worstIndex, 3);
  EXPECT_TRUE(std::isinf(c.worstRatio));
  // The wrong infinity fails; a finite value for an infinity fails.
  EXPECT_EQ(
      compareTensors(f32({4}, {kNaN, -kInf, 1e30, 1}), want, {1, 1}).failures,
      2);
}

/// A one-kernel plan: y = gelu(x + b) in bf16.
Plan kernelPlan() {
  Plan p;
  p.function = "f";
  auto buffer = [](int64_t id, std::string name, std::vector<int64_t> shape,
                   BufferKind kind) {
    PlanBuffer b;
    b.id = id;
    b.name = std::move(name);
    b.shape = std::move(shape);
    b.dtype = ref::DType::BF16;
    b.bytes = ref::numElements(b.shape) * 2;
    b.kind = kind;
    b.storage = id;
    return b;
  };
  p.buffers = {buffer(0, "x", {8, 16}, BufferKind::Input),
               buffer(1, "b", {16}, BufferKind::Input),
               buffer(2, "y", {8, 16}, BufferKind::Output)};
  p.inputs = {0, 1};
  p.outputs = {2};
  PlanStep s;
  s.kind = StepKind::Kernel;
  s.name = "fusion_0";
  s.inputs = {0, 1};
  s.outputs = {2};
  ref::TensorType t{ref::DType::BF16, {8, 16}};
  s.ops.arguments = {t, {ref::DType::BF16, {16}}};
  s.ops.ops = {
      {"tfuse.add", {0, 1}, {t}, {}},
      {"tfuse.gelu", {2}, {t}, {{"approximate", std::string("none")}}}};
  s.ops.yields = {3};
  p.steps.push_back(s);
  return p;
}

TEST(Check, KernelStepPassesAndFails) {
  Plan p = kernelPlan();
  ref::Tensor x = ref::randomTensor(ref::DType::BF16, {8, 16}, 0, 0);
  ref::Tensor b = ref::randomTensor(ref::DType::BF16, {16}, 0, 1);
  std::string error;
  std::optional<std::vector<ref::Tensor>> y =
      ref::evaluateGraph(p.steps[0].ops, {x, b}, error);
  ASSERT_TRUE(y) << error;
  StepCheck ok = checkStep(p, 0, {x, b}, *y);
  EXPECT_TRUE(ok.passed);
  EXPECT_FALSE(ok.sampled);
  EXPECT_EQ(ok.maxAbsError, 0);

  // One bf16 ulp off everywhere passes; a wrong element fails.
  ref::Tensor gpu = (*y)[0];
  for (double &v : gpu.data)
    v = ref::roundTo(ref::DType::BF16, v * (1 + 1.0 / 128));
  EXPECT_TRUE(checkStep(p, 0, {x, b}, {gpu}).passed);
  gpu.data[37] += 0.5;
  StepCheck bad = checkStep(p, 0, {x, b}, {gpu});
  EXPECT_FALSE(bad.passed);
  ASSERT_EQ(bad.outputs.size(), 1u);
  EXPECT_EQ(bad.outputs[0].comparison.worstIndex, 37);
  EXPECT_EQ(bad.outputs[0].comparison.failures, 1);
  std::string message = describeCheckFailure(p, bad);
  EXPECT_EQ(message.rfind("check failed at step 0 ('fusion_0'): output buffer "
                          "2 ('y') [8, 16] bf16: 1 of 128 elements out of "
                          "tolerance (rtol 0.02, atol 0.01); worst at [2, 5] "
                          "(flat 37): gpu ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("worst at [2, 5] (flat 37)"), std::string::npos)
      << message;

  // A graph the reference cannot evaluate is an error, not a crash.
  p.steps[0].ops.ops[0].name = "tfuse.nope";
  StepCheck broken = checkStep(p, 0, {x, b}, *y);
  EXPECT_FALSE(broken.passed);
  EXPECT_EQ(broken.error, "op 0 (tfuse.nope): unknown op 'tfuse.nope'");
}

/// The scatter-add step of a tfuse.gather_grad: grad [N, 4] f32 and indices
/// [N] i32 into a [rows, 4] f32 accumulator.
Plan gatherGradPlan(int64_t positions, int64_t rows) {
  Plan p;
  p.function = "f";
  std::vector<std::vector<int64_t>> shapes = {
      {positions, 4}, {positions}, {rows, 4}};
  ref::DType dtypes[] = {ref::DType::F32, ref::DType::I32, ref::DType::F32};
  for (int64_t i = 0; i < 3; ++i) {
    PlanBuffer b;
    b.id = i;
    b.name = "b" + std::to_string(i);
    b.shape = shapes[i];
    b.dtype = dtypes[i];
    b.bytes = ref::numElements(b.shape) * 4;
    b.kind = i < 2 ? BufferKind::Input : BufferKind::Output;
    b.storage = i;
    p.buffers.push_back(b);
  }
  p.inputs = {0, 1};
  p.outputs = {2};
  PlanStep s;
  s.kind = StepKind::Kernel;
  s.name = "gather_grad_1";
  s.inputs = {0, 1};
  s.outputs = {2};
  s.ops.arguments = {{dtypes[0], shapes[0]}, {dtypes[1], shapes[1]}};
  s.ops.ops = {{"tfuse.gather_grad", {0, 1}, {{dtypes[2], shapes[2]}}, {}}};
  s.ops.yields = {2};
  p.steps.push_back(s);
  return p;
}

TEST(Check, GatherGradAllowanceFollowsEachRowsTerms) {
  // Row 0 gets positions 0 and 2 (index -1 clamps to 0), row 2 position 1
  // (index 5 clamps to 2), row 1 none.
  ref::Tensor grad = f32({3, 2}, {1, -2, 3, 4, -5, 6});
  ref::Tensor indices = ref::makeTensor(ref::DType::I32, {3}, {0, 5, -1});
  std::vector<double> allowance = gatherGradAllowance(grad, indices, {3, 2});
  double g1 = 8 * std::ldexp(1.0, -24), g2 = g1 * std::sqrt(2.0);
  ASSERT_EQ(allowance.size(), 6u);
  EXPECT_DOUBLE_EQ(allowance[0], g2 * 6);
  EXPECT_DOUBLE_EQ(allowance[1], g2 * 8);
  EXPECT_EQ(allowance[2], 0);
  EXPECT_EQ(allowance[3], 0);
  EXPECT_DOUBLE_EQ(allowance[4], g1 * 3);
  EXPECT_DOUBLE_EQ(allowance[5], g1 * 4);
  EXPECT_TRUE(gatherGradAllowance(grad, indices, {3, 3}).empty());
}

TEST(Check, GatherGradStepAcceptsAnyOrderOfItsSums) {
  // 4096 positions into 3 rows: sums of about 1365 terms that cancel.
  const int64_t positions = 4096, rows = 3;
  Plan p = gatherGradPlan(positions, rows);
  ref::Tensor grad = ref::randomTensor(ref::DType::F32, {positions, 4}, 0, 0);
  ref::Tensor indices{ref::DType::I32, {positions}, {}};
  for (int64_t i = 0; i < positions; ++i)
    indices.data.push_back(static_cast<double>((i * 7) % rows));
  // What f32 atomics may compute: each row summed in f32, last to first.
  ref::Tensor gpu = ref::zeros(ref::DType::F32, {rows, 4});
  std::vector<float> acc(rows * 4, 0.0f);
  for (int64_t i = positions - 1; i >= 0; --i)
    for (int64_t j = 0; j < 4; ++j)
      acc[static_cast<int64_t>(indices.data[i]) * 4 + j] +=
          static_cast<float>(grad.data[i * 4 + j]);
  for (size_t k = 0; k < acc.size(); ++k)
    gpu.data[k] = acc[k];
  StepCheck ok = checkStep(p, 0, {grad, indices}, {gpu});
  EXPECT_TRUE(ok.passed) << describeCheckFailure(p, ok);
  EXPECT_GT(ok.maxAbsError, 0);
  // A row that misses one term fails.
  gpu.data[5] -= grad.data[1 * 4 + 1];
  StepCheck bad = checkStep(p, 0, {grad, indices}, {gpu});
  EXPECT_FALSE(bad.passed);
  ASSERT_EQ(bad.outputs.size(), 1u);
  EXPECT_EQ(bad.outputs[0].comparison.worstIndex, 5);
}

/// One fused attention step in bf16: q [1,2,8,16], k and v [1,1,64,16]
/// (GQA 2:1), scale 0.25, no mask.
Plan attentionPlan() {
  Plan p;
  p.function = "f";
  std::vector<std::vector<int64_t>> shapes = {
      {1, 2, 8, 16}, {1, 1, 64, 16}, {1, 1, 64, 16}, {1, 2, 8, 16}};
  const char *names[] = {"q", "k", "v", "o"};
  for (int64_t i = 0; i < 4; ++i) {
    PlanBuffer b;
    b.id = i;
    b.name = names[i];
    b.shape = shapes[i];
    b.dtype = ref::DType::BF16;
    b.bytes = ref::numElements(b.shape) * 2;
    b.kind = i < 3 ? BufferKind::Input : BufferKind::Output;
    b.storage = i;
    p.buffers.push_back(b);
  }
  p.inputs = {0, 1, 2};
  p.outputs = {3};
  PlanStep s;
  s.kind = StepKind::Kernel;
  s.name = "attention_0";
  s.inputs = {0, 1, 2};
  s.outputs = {3};
  for (int64_t i = 0; i < 3; ++i)
    s.ops.arguments.push_back({ref::DType::BF16, shapes[i]});
  s.ops.ops = {{"tfuse.attention",
                {0, 1, 2},
                {{ref::DType::BF16, shapes[3]}},
                {{"scale", 0.25}, {"causal", false}}}};
  s.ops.yields = {3};
  p.steps.push_back(s);
  return p;
}

/// What the flash kernel computes (in double): the probabilities rounded to
/// bf16 before P·V, their sum unrounded, the output rounded once.
ref::Tensor kernelLikeAttention(const ref::Tensor &q, const ref::Tensor &k,
                                const ref::Tensor &v, double scale) {
  ref::Tensor o{ref::DType::BF16, q.shape, {}};
  int64_t heads = q.shape[1], rows = q.shape[2], dim = q.shape[3];
  int64_t keys = k.shape[2];
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < rows; ++i) {
      std::vector<double> s(keys);
      double top = -kInf;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < dim; ++c)
          dot += q.data[(h * rows + i) * dim + c] * k.data[j * dim + c];
        s[j] = scale * dot;
        top = std::max(top, s[j]);
      }
      double sum = 0;
      std::vector<double> acc(dim, 0.0);
      for (int64_t j = 0; j < keys; ++j) {
        double p = std::exp(s[j] - top);
        sum += p;
        double rounded = ref::roundTo(ref::DType::BF16, p);
        for (int64_t c = 0; c < dim; ++c)
          acc[c] += rounded * v.data[j * dim + c];
      }
      for (int64_t c = 0; c < dim; ++c)
        o.data.push_back(ref::roundTo(ref::DType::BF16, acc[c] / sum));
    }
  return o;
}

TEST(Check, AttentionToleranceIsTheKernelsBound) {
  // bf16, no mask, |q|, |k| < 1 over D = 4, Sk = 16, M_v = 2:
  // S = 0.5 * 2 * 2 = 2, eps = 2^-22 + 8 * 2^-24 * (3 * 2), and
  // atol = 2 * (2^-8 + 16 * 2^-126 + 2 eps + 16 * 4 * 2^-24).
  ref::Tensor q = ref::makeTensor(ref::DType::BF16, {1, 1, 2, 4},
                                  {1, 1, 1, 1, -1, 0, 0, 0});
  ref::Tensor k = ref::makeTensor(ref::DType::BF16, {1, 1, 16, 4},
                                  std::vector<double>(64, 1.0));
  ref::Tensor v = ref::makeTensor(ref::DType::BF16, {1, 1, 16, 4},
                                  std::vector<double>(64, -2.0));
  double f32 = std::ldexp(1.0, -24);
  double eps = std::ldexp(1.0, -22) + 8 * f32 * 6;
  Tolerance t = attentionTolerance(ref::DType::BF16, q, k, v, nullptr, 0.5);
  EXPECT_EQ(t.rtol, 2e-2);
  EXPECT_DOUBLE_EQ(t.atol,
                   2 * (std::ldexp(1.0, -8) + 16 * std::ldexp(1.0, -126) +
                        2 * eps + 64 * f32));
  // f16: u = 2^-11 and P underflows below 2^-25 per key; the mask adds the
  // largest |row max| of its finite rows (-3 here; the -inf row is none).
  ref::Tensor mask =
      ref::makeTensor(ref::DType::F16, {2, 16}, std::vector<double>(32, -kInf));
  mask.data[5] = -3;
  mask.data[6] = -7;
  q.dtype = k.dtype = v.dtype = ref::DType::F16;
  eps = std::ldexp(1.0, -22) + 8 * f32 * (6 + 3);
  t = attentionTolerance(ref::DType::F16, q, k, v, &mask, 0.5);
  EXPECT_EQ(t.rtol, 1e-2);
  EXPECT_DOUBLE_EQ(t.atol,
                   2 * (std::ldexp(1.0, -11) + 16 * std::ldexp(1.0, -25) +
                        2 * eps + 64 * f32));
  // Dropout 0.75 scales the kept probabilities by 4: M_v = 2 / (1 - 0.75).
  t = attentionTolerance(ref::DType::F16, q, k, v, &mask, 0.5, 0.75);
  EXPECT_DOUBLE_EQ(t.atol,
                   8 * (std::ldexp(1.0, -11) + 16 * std::ldexp(1.0, -25) +
                        2 * eps + 64 * f32));
}

/// attentionPlan's q, k and v with values of up to 192 (as after a GEMM)
/// that cancel: every query row puts weight 1 on key 0 (v = 64) and
/// e^-1.1015625 = 0.33235 on key 1 (v = -192), ~e^-100 on the others.
std::array<ref::Tensor, 3> cancellingAttentionInputs() {
  ref::Tensor q = ref::makeTensor(ref::DType::BF16, {1, 2, 8, 16},
                                  std::vector<double>(256, 0.0));
  for (int64_t row = 0; row < 16; ++row)
    q.data[row * 16] = 4;
  ref::Tensor k = ref::makeTensor(ref::DType::BF16, {1, 1, 64, 16},
                                  std::vector<double>(1024, 0.0));
  ref::Tensor v = ref::randomTensor(ref::DType::BF16, {1, 1, 64, 16}, 0, 2);
  for (int64_t key = 0; key < 64; ++key)
    k.data[key * 16] = key == 0 ? 0 : key == 1 ? -1.1015625 : -100;
  for (int64_t c = 0; c < 16; ++c) {
    v.data[c] = 64;
    v.data[16 + c] = -192;
  }
  return {q, k, v};
}

TEST(Check, AttentionStepScalesWithTheValues) {
  // The cancelling inputs: rounding key 1's weight to bf16
  // (0.33203) moves the output from 0.141 to 0.188, beyond the table's
  // atol of 0.01 but within the attention bound (192 * 2^-8 + ...); a wrong
  // element still fails.
  Plan p = attentionPlan();
  auto [q, k, v] = cancellingAttentionInputs();
  std::string error;
  std::optional<std::vector<ref::Tensor>> exact =
      ref::evaluateGraph(p.steps[0].ops, {q, k, v}, error);
  ASSERT_TRUE(exact) << error;
  ref::Tensor kernel = kernelLikeAttention(q, k, v, 0.25);
  Tolerance table = toleranceFor(ref::DType::BF16, 64, &(*exact)[0]);
  EXPECT_GT(compareTensors(kernel, (*exact)[0], table).failures, 0);
  StepCheck ok = checkStep(p, 0, {q, k, v}, {kernel});
  EXPECT_TRUE(ok.passed);
  EXPECT_GT(ok.maxAbsError, 0);

  // An output off by a tenth of max|v| at one element is rejected there.
  ref::Tensor wrong = kernel;
  wrong.data[21] += 6.4;
  StepCheck bad = checkStep(p, 0, {q, k, v}, {wrong});
  EXPECT_FALSE(bad.passed);
  ASSERT_EQ(bad.outputs.size(), 1u);
  EXPECT_EQ(bad.outputs[0].comparison.failures, 1);
  EXPECT_EQ(bad.outputs[0].comparison.worstIndex, 21);
  // So is attention over keys read one row off.
  ref::Tensor shifted = k;
  std::rotate(shifted.data.begin(), shifted.data.begin() + 16,
              shifted.data.end());
  StepCheck misread =
      checkStep(p, 0, {q, k, v}, {kernelLikeAttention(q, shifted, v, 0.25)});
  EXPECT_FALSE(misread.passed);
}

TEST(Check, TokenMajorAttentionStepKeepsTheAttentionBound) {
  // The step of AttentionStepScalesWithTheValues as tfuse-compile writes
  // it when the kernel absorbs the head layout: its buffers are
  // token-major [B, S, H, D], its graph transposes them, runs the op and
  // transposes the output back. The check still holds the kernel to the
  // attention bound (the table's tolerance would reject it), and still
  // finds a wrong element where it is stored.
  const std::vector<int64_t> perm = {0, 2, 1, 3};
  Plan p = attentionPlan();
  PlanStep &s = p.steps[0];
  for (int64_t i = 0; i < 4; ++i) {
    std::vector<int64_t> &shape = p.buffers[i].shape;
    std::swap(shape[1], shape[2]);
  }
  s.ops.arguments.clear();
  std::vector<ref::RefOp> ops;
  for (int i = 0; i < 3; ++i) {
    std::vector<int64_t> shape = p.buffers[i].shape;
    s.ops.arguments.push_back({ref::DType::BF16, shape});
    std::swap(shape[1], shape[2]);
    ops.push_back({"tfuse.transpose",
                   {i},
                   {{ref::DType::BF16, shape}},
                   {{"perm", perm}}});
  }
  ref::RefOp attention = s.ops.ops[0];
  attention.operands = {3, 4, 5};
  ops.push_back(attention);
  ops.push_back({"tfuse.transpose",
                 {6},
                 {{ref::DType::BF16, p.buffers[3].shape}},
                 {{"perm", perm}}});
  s.ops.ops = ops;
  s.ops.yields = {7};

  auto [q, k, v] = cancellingAttentionInputs();
  std::vector<ref::Tensor> stored = {ref::transpose(q, perm),
                                     ref::transpose(k, perm),
                                     ref::transpose(v, perm)};
  ref::Tensor kernel = ref::transpose(kernelLikeAttention(q, k, v, 0.25), perm);
  std::string error;
  std::optional<std::vector<ref::Tensor>> exact =
      ref::evaluateGraph(s.ops, stored, error);
  ASSERT_TRUE(exact) << error;
  Tolerance table = toleranceFor(ref::DType::BF16, 64, &(*exact)[0]);
  EXPECT_GT(compareTensors(kernel, (*exact)[0], table).failures, 0);
  EXPECT_TRUE(checkStep(p, 0, stored, {kernel}).passed);

  ref::Tensor wrong = kernel;
  wrong.data[21] += 6.4;
  StepCheck bad = checkStep(p, 0, stored, {wrong});
  EXPECT_FALSE(bad.passed);
  ASSERT_EQ(bad.outputs.size(), 1u);
  EXPECT_EQ(bad.outputs[0].comparison.failures, 1);
  EXPECT_EQ(bad.outputs[0].comparison.worstIndex, 21);
}

TEST(Check, AttentionGradAllowanceIsTheKernelsBound) {
  // bf16, one query row (q = 1), two keys (k = 1, 0), values (2, 0),
  // dO = 1, scale 1, D = Dv = 1: s = (1, 0), p = (e, 1) / (1 + e),
  // o = 2 p0, delta = o, dP = (2, 0), dS = p (dP - delta) = (a, -a) with
  // a = 2 p0 p1. u = 2^-8; S = 1, so eps = 2^-22 + 8 * 2^-24 * 2;
  // g(n) = 8 sqrt(n) 2^-24 with Sk = 2, R = 1, Dv = 1.
  ref::DType bf = ref::DType::BF16;
  ref::Tensor q = ref::makeTensor(bf, {1, 1, 1, 1}, {1});
  ref::Tensor k = ref::makeTensor(bf, {1, 1, 2, 1}, {1, 0});
  ref::Tensor v = ref::makeTensor(bf, {1, 1, 2, 1}, {2, 0});
  ref::Tensor dO = ref::makeTensor(bf, {1, 1, 1, 1}, {1});
  double e = std::exp(1.0), p0 = e / (1 + e), p1 = 1 / (1 + e);
  ref::Tensor lse =
      ref::makeTensor(ref::DType::F32, {1, 1, 1}, {std::log(1 + e)});
  ref::Tensor delta = ref::makeTensor(ref::DType::F32, {1, 1, 1}, {2 * p0});
  AttentionGradExpectation got =
      expectAttentionGrad(q, k, v, dO, lse, delta, nullptr, 1.0, false, 0.0, 0);
  double a = 2 * p0 * p1, g1 = 8 * std::ldexp(1.0, -24);
  double g2 = std::sqrt(2.0) * g1;
  double relative =
      std::ldexp(1.0, -8) + std::ldexp(1.0, -22) + 2 * g1; // u + eps
  // w_j = relative |dS_j| + |scale| p_j g(Dv) |dO v_j|. lse and delta are
  // f32, so the reference's p (from exp(s - lse)) is p to about 2^-24: the
  // allowances agree to 1e-6 of their size.
  double w0 = relative * a + p0 * g1 * 2, w1 = relative * a;
  ASSERT_EQ(got.allowance[0].size(), 1u);
  const double close = 1e-6 * 0.003;
  EXPECT_NEAR(got.allowance[0][0], 2 * (w0 + g2 * a) * 1, close);
  ASSERT_EQ(got.allowance[1].size(), 2u);
  EXPECT_NEAR(got.allowance[1][0], 2 * (w0 + g1 * a), close);
  EXPECT_NEAR(got.allowance[1][1], 2 * (w1 + g1 * a), close);
  ASSERT_EQ(got.allowance[2].size(), 2u);
  EXPECT_NEAR(got.allowance[2][0], 2 * (relative + g1) * p0, 2 * close);
  EXPECT_NEAR(got.allowance[2][1], 2 * (relative + g1) * p1, close);
  // The gradients are the reference's: dQ = a, dK = (a, -a), dV = p.
  EXPECT_EQ(got.expected.query.data[0], ref::roundTo(bf, a));
  EXPECT_EQ(got.expected.key.data[1], ref::roundTo(bf, -a));
  EXPECT_EQ(got.expected.value.data[1], ref::roundTo(bf, p1));
}

TEST(Check, AttentionGradStepAddsTheAllowance) {
  // One fused attention_grad step (GQA 2:1, causal, bf16): a dQ element off
  // by the table's allowance plus half its own passes, plus 1.5x of it
  // fails, at that element.
  ref::DType bf = ref::DType::BF16;
  std::vector<int64_t> qs{1, 2, 8, 16}, ks{1, 1, 8, 16}, rows{1, 2, 8};
  ref::Tensor q = ref::randomTensor(bf, qs, 1, 11);
  ref::Tensor k = ref::randomTensor(bf, ks, 1, 12);
  ref::Tensor v = ref::randomTensor(bf, ks, 1, 13);
  ref::Tensor dO = ref::randomTensor(bf, qs, 1, 14);
  ref::Tensor lse;
  ref::Tensor o = ref::attention(q, k, v, nullptr, 0.25, true, 0.0, 0, &lse);
  ref::Tensor delta =
      ref::makeTensor(ref::DType::F32, rows, std::vector<double>(16, 0.0));
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 16; ++c)
      delta.data[r] += dO.data[r * 16 + c] * o.data[r * 16 + c];

  Plan p;
  p.function = "f";
  std::vector<std::vector<int64_t>> shapes = {qs,   ks, ks, qs, rows,
                                              rows, qs, ks, ks};
  for (size_t i = 0; i < shapes.size(); ++i) {
    PlanBuffer b;
    b.id = i;
    b.name = "b" + std::to_string(i);
    b.shape = shapes[i];
    b.dtype = i == 4 || i == 5 ? ref::DType::F32 : bf;
    b.bytes = ref::numElements(b.shape) * (i == 4 || i == 5 ? 4 : 2);
    b.kind = i < 6 ? BufferKind::Input : BufferKind::Output;
    b.storage = i;
    p.buffers.push_back(b);
  }
  p.inputs = {0, 1, 2, 3, 4, 5};
  p.outputs = {6, 7, 8};
  PlanStep s;
  s.kind = StepKind::Kernel;
  s.name = "attention_grad_0";
  s.inputs = p.inputs;
  s.outputs = p.outputs;
  for (size_t i = 0; i < 6; ++i)
    s.ops.arguments.push_back({p.buffers[i].dtype, shapes[i]});
  s.ops.ops = {{"tfuse.attention_grad",
                {0, 1, 2, 3, 4, 5},
                {{bf, qs}, {bf, ks}, {bf, ks}},
                {{"scale", 0.25}, {"causal", true}}}};
  s.ops.yields = {6, 7, 8};
  p.steps.push_back(s);

  std::vector<ref::Tensor> inputs = {q, k, v, dO, lse, delta};
  AttentionGradExpectation want =
      expectAttentionGrad(q, k, v, dO, lse, delta, nullptr, 0.25, true, 0, 0);
  std::vector<ref::Tensor> gpu = {want.expected.query, want.expected.key,
                                  want.expected.value};
  StepCheck exact = checkStep(p, 0, inputs, gpu);
  ASSERT_TRUE(exact.error.empty()) << exact.error;
  EXPECT_TRUE(exact.passed);
  ASSERT_EQ(exact.outputs.size(), 3u);

  const int64_t element = 37;
  Tolerance table = exact.outputs[0].comparison.tolerance;
  double extra = want.allowance[0][element];
  ASSERT_GT(extra, 0);
  double base = want.expected.query.data[element];
  double tableAllowance = table.atol + table.rtol * std::fabs(base);
  gpu[0].data[element] = base + tableAllowance + 0.5 * extra;
  EXPECT_TRUE(checkStep(p, 0, inputs, gpu).passed);
  gpu[0].data[element] = base + tableAllowance + 1.5 * extra;
  StepCheck bad = checkStep(p, 0, inputs, gpu);
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.outputs[0].comparison.failures, 1);
  EXPECT_EQ(bad.outputs[0].comparison.worstIndex, element);

  // As the plan builds it: the query kernel's step yields dQ, the key
  // kernel's dK and dV; each step's outputs get their own allowances.
  PlanStep query = s, keys = s;
  query.outputs = {6};
  query.ops.yields = {6};
  keys.outputs = {7, 8};
  keys.ops.yields = {7, 8};
  p.steps = {query, keys};
  StepCheck split = checkStep(p, 0, inputs, {gpu[0]});
  ASSERT_TRUE(split.error.empty()) << split.error;
  ASSERT_EQ(split.outputs.size(), 1u);
  EXPECT_FALSE(split.passed);
  EXPECT_EQ(split.outputs[0].comparison.worstIndex, element);
  std::vector<ref::Tensor> keyGrads = {want.expected.key, want.expected.value};
  const int64_t last = want.expected.value.data.size() - 1;
  double extraValue = want.allowance[2][last];
  ASSERT_GT(extraValue, 0);
  Tolerance valueTable = exact.outputs[2].comparison.tolerance;
  double baseValue = want.expected.value.data[last];
  keyGrads[1].data[last] = baseValue + valueTable.atol +
                           valueTable.rtol * std::fabs(baseValue) +
                           0.5 * extraValue;
  StepCheck keyCheck = checkStep(p, 1, inputs, keyGrads);
  ASSERT_TRUE(keyCheck.error.empty()) << keyCheck.error;
  ASSERT_EQ(keyCheck.outputs.size(), 2u);
  EXPECT_TRUE(keyCheck.passed);
  keyGrads[1].data[last] += 1.0 * extraValue;
  EXPECT_FALSE(checkStep(p, 1, inputs, keyGrads).passed);
}

TEST(Check, GemmReferenceMatchesTheInterpreter) {
  // out[b] = gelu(lhs[b] x rhs^T + bias) with rhs broadcast over the batch,
  // in f16, against the interpreter on the same graph.
  GemmCall g;
  g.batch = 3;
  g.m = 5;
  g.n = 7;
  g.k = 11;
  g.transposeRhs = true;
  g.lhsBatchStride = g.m * g.k;
  g.rhsBatchStride = 0;
  g.outBatchStride = g.m * g.n;
  g.dtype = ref::DType::F16;
  g.epilogue = Epilogue::BiasGelu;
  ref::Tensor lhs = ref::randomTensor(g.dtype, {3, 5, 11}, 1, 0);
  ref::Tensor rhs = ref::randomTensor(g.dtype, {7, 11}, 1, 1);
  ref::Tensor bias = ref::randomTensor(g.dtype, {7}, 1, 2);

  ref::TensorType out{g.dtype, {3, 5, 7}};
  ref::RefGraph graph;
  graph.arguments = {{g.dtype, {3, 5, 11}}, {g.dtype, {7, 11}}, {g.dtype, {7}}};
  graph.ops = {
      {"tfuse.matmul",
       {0, 1},
       {out},
       {{"transpose_lhs", false}, {"transpose_rhs", true}}},
      {"tfuse.add", {3, 2}, {out}, {}},
      {"tfuse.gelu", {4}, {out}, {{"approximate", std::string("tanh")}}}};
  graph.yields = {5};
  std::string error;
  std::optional<std::vector<ref::Tensor>> want =
      ref::evaluateGraph(graph, {lhs, rhs, bias}, error);
  ASSERT_TRUE(want) << error;
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 7; ++j) {
        double absSum = 0;
        double v =
            gemmReferenceElement(g, lhs, rhs, &bias, true, b, i, j, absSum);
        EXPECT_EQ(v, (*want)[0].data[(b * 5 + i) * 7 + j])
            << b << "," << i << "," << j;
        EXPECT_GT(absSum, 0);
      }

  // The transposed lhs reads [K, M].
  g.transposeLhs = true;
  g.transposeRhs = false;
  g.epilogue = Epilogue::Relu;
  ref::Tensor lhsT = ref::transpose(lhs, {0, 2, 1});
  ref::Tensor rhsT = ref::transpose(rhs, {1, 0});
  double absSum = 0;
  double direct =
      gemmReferenceElement(g, lhsT, rhsT, nullptr, true, 2, 4, 6, absSum);
  ref::Tensor row = ref::slice(lhs, {2, 4, 0}, {1, 1, 11});
  ref::Tensor col = ref::slice(rhs, {6, 0}, {1, 11});
  ref::Tensor dot = ref::matmul(ref::reshape(row, {1, 11}),
                                ref::reshape(col, {1, 11}), false, true);
  EXPECT_EQ(direct, ref::unary(ref::UnaryKind::Relu, dot).data[0]);
}

TEST(Check, GemmSamples) {
  GemmCall g;
  g.batch = 2;
  g.m = 3;
  g.n = 4;
  // Small outputs are checked everywhere.
  EXPECT_EQ(sampleGemmElements(g, 4096).size(), 24u);
  g.batch = 4;
  g.m = 256;
  g.n = 1024;
  std::vector<std::array<int64_t, 3>> s = sampleGemmElements(g, 4096);
  EXPECT_EQ(s.size(), 4096u);
  // The corners of every batch are included, all distinct and in range.
  std::set<std::array<int64_t, 3>> unique(s.begin(), s.end());
  EXPECT_EQ(unique.size(), s.size());
  for (int64_t b = 0; b < 4; ++b) {
    EXPECT_TRUE(unique.count({b, 0, 0}));
    EXPECT_TRUE(unique.count({b, 255, 1023}));
  }
  for (const auto &e : s) {
    EXPECT_LT(e[0], 4);
    EXPECT_LT(e[1], 256);
    EXPECT_LT(e[2], 1024);
  }
}

} // namespace
