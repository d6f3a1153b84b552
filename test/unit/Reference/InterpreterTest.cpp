//===- InterpreterTest.cpp - Tests of the reference interpreter -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of ref::evaluateGraph and friends: every op of the table is
// dispatched to the reference function it names (checked by comparing with
// a direct call), and every class of error has its exact message.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Interpreter.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

using namespace mlir::tfuse::ref;

namespace {

TensorType ty(std::vector<int64_t> shape, DType dtype = DType::F32) {
  return {dtype, std::move(shape)};
}

RefOp op(std::string name, std::vector<int> operands,
         std::vector<TensorType> results,
         std::map<std::string, RefAttribute> attributes = {}) {
  return {std::move(name), std::move(operands), std::move(results),
          std::move(attributes)};
}

Tensor random(std::vector<int64_t> shape, uint64_t stream,
              DType dtype = DType::F32) {
  return randomTensor(dtype, std::move(shape), 7, stream);
}

/// Evaluates a one-op graph over `inputs` and returns its only result.
Tensor evalOne(const RefOp &o, const std::vector<Tensor> &inputs) {
  RefGraph g;
  for (const Tensor &t : inputs)
    g.arguments.push_back({t.dtype, t.shape});
  g.ops.push_back(o);
  g.yields = {static_cast<int>(inputs.size())};
  std::string error;
  std::optional<std::vector<Tensor>> r = evaluateGraph(g, inputs, error);
  EXPECT_TRUE(r.has_value()) << error;
  return r ? (*r)[0] : Tensor{};
}

/// The error of evaluating `g` on `inputs`.
std::string evalError(const RefGraph &g, const std::vector<Tensor> &inputs) {
  std::string error;
  std::optional<std::vector<Tensor>> r = evaluateGraph(g, inputs, error);
  EXPECT_FALSE(r.has_value());
  return error;
}

std::string verifyError(const RefOp &o) {
  std::string error;
  EXPECT_FALSE(verifyRefOp(o, error));
  return error;
}

void expectSame(const Tensor &a, const Tensor &b) {
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.shape, b.shape);
  ASSERT_EQ(a.data.size(), b.data.size());
  for (size_t i = 0; i < a.data.size(); ++i) {
    if (std::isnan(b.data[i]))
      EXPECT_TRUE(std::isnan(a.data[i])) << "at " << i;
    else
      EXPECT_EQ(a.data[i], b.data[i]) << "at " << i;
  }
}

//===----------------------------------------------------------------------===//
// Dispatch: each op computes what its reference function computes
//===----------------------------------------------------------------------===//

TEST(Interpreter, OpNamesAreSortedAndComplete) {
  const std::vector<std::string> &names = getRefOpNames();
  EXPECT_EQ(names.size(), 46u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "tfuse.layer_norm"),
            names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "tfuse.gather_grad"),
            names.end());
}

TEST(Interpreter, BinaryOps) {
  Tensor a = random({3, 4}, 0), b = random({4}, 1);
  std::vector<std::pair<std::string, BinaryKind>> cases = {
      {"tfuse.add", BinaryKind::Add}, {"tfuse.sub", BinaryKind::Sub},
      {"tfuse.mul", BinaryKind::Mul}, {"tfuse.div", BinaryKind::Div},
      {"tfuse.max", BinaryKind::Max}, {"tfuse.min", BinaryKind::Min}};
  for (auto &[name, kind] : cases)
    expectSame(evalOne(op(name, {0, 1}, {ty({3, 4})}), {a, b}),
               binary(kind, a, b));
}

TEST(Interpreter, UnaryOps) {
  Tensor x = random({2, 5}, 0, DType::BF16);
  std::vector<std::pair<std::string, UnaryKind>> cases = {
      {"tfuse.neg", UnaryKind::Neg},     {"tfuse.exp", UnaryKind::Exp},
      {"tfuse.log", UnaryKind::Log},     {"tfuse.tanh", UnaryKind::Tanh},
      {"tfuse.erf", UnaryKind::Erf},     {"tfuse.sqrt", UnaryKind::Sqrt},
      {"tfuse.rsqrt", UnaryKind::Rsqrt}, {"tfuse.sigmoid", UnaryKind::Sigmoid},
      {"tfuse.relu", UnaryKind::Relu},   {"tfuse.silu", UnaryKind::Silu},
      {"tfuse.step", UnaryKind::Step}};
  for (auto &[name, kind] : cases)
    expectSame(evalOne(op(name, {0}, {ty({2, 5}, DType::BF16)}), {x}),
               unary(kind, x));
  expectSame(evalOne(op("tfuse.gelu", {0}, {ty({2, 5}, DType::BF16)},
                        {{"approximate", std::string("tanh")}}),
                     {x}),
             unary(UnaryKind::GeluTanh, x));
  expectSame(evalOne(op("tfuse.gelu", {0}, {ty({2, 5}, DType::BF16)},
                        {{"approximate", std::string("none")}}),
                     {x}),
             unary(UnaryKind::GeluErf, x));
  expectSame(evalOne(op("tfuse.cast", {0}, {ty({2, 5}, DType::F16)}), {x}),
             cast(x, DType::F16));
}

TEST(Interpreter, MatmulWithBroadcastBatch) {
  Tensor a = random({2, 3, 4}, 0), b = random({5, 4}, 1);
  expectSame(evalOne(op("tfuse.matmul", {0, 1}, {ty({2, 3, 5})},
                        {{"transpose_lhs", false}, {"transpose_rhs", true}}),
                     {a, b}),
             matmul(a, b, false, true));
}

TEST(Interpreter, Constants) {
  // An integer splat converts to a number; "-inf" is accepted.
  Tensor c = evalOne(op("tfuse.constant", {}, {ty({2, 2}, DType::BF16)},
                        {{"splat", int64_t(3)}}),
                     {});
  expectSame(c, makeTensor(DType::BF16, {2, 2}, {3, 3, 3, 3}));
  Tensor inf = evalOne(
      op("tfuse.constant", {}, {ty({1})}, {{"splat", std::string("-inf")}}),
      {});
  EXPECT_EQ(inf.data[0], -std::numeric_limits<double>::infinity());
  Tensor v = evalOne(op("tfuse.constant", {}, {ty({3}, DType::I32)},
                        {{"values", std::vector<int64_t>{1, 2, 3}}}),
                     {});
  expectSame(v, makeTensor(DType::I32, {3}, {1, 2, 3}));
  Tensor d = evalOne(op("tfuse.constant", {}, {ty({2})},
                        {{"values", std::vector<double>{0.5, -1.25}}}),
                     {});
  expectSame(d, makeTensor(DType::F32, {2}, {0.5, -1.25}));
}

TEST(Interpreter, ReductionsAndNorms) {
  Tensor x = random({4, 8}, 0), g = random({8}, 1), b = random({8}, 2);
  expectSame(evalOne(op("tfuse.reduce", {0}, {ty({4, 1})},
                        {{"kind", std::string("mean")},
                         {"axis", int64_t(-1)},
                         {"keep_dims", true}}),
                     {x}),
             reduce(ReduceKind::Mean, x, -1, true));
  expectSame(evalOne(op("tfuse.reduce", {0}, {ty({8})},
                        {{"kind", std::string("max")},
                         {"axis", int64_t(0)},
                         {"keep_dims", false}}),
                     {x}),
             reduce(ReduceKind::Max, x, 0, false));
  expectSame(
      evalOne(op("tfuse.softmax", {0}, {ty({4, 8})}, {{"axis", int64_t(1)}}),
              {x}),
      softmax(x, 1));
  expectSame(
      evalOne(op("tfuse.layer_norm", {0, 1, 2}, {ty({4, 8})},
                 {{"epsilon", 1e-5}, {"has_gamma", true}, {"has_beta", true}}),
              {x, g, b}),
      layerNorm(x, &g, &b, 1e-5));
  // Only beta: the second operand is beta.
  expectSame(
      evalOne(op("tfuse.layer_norm", {0, 1}, {ty({4, 8})},
                 {{"epsilon", 1e-5}, {"has_gamma", false}, {"has_beta", true}}),
              {x, b}),
      layerNorm(x, nullptr, &b, 1e-5));
  expectSame(evalOne(op("tfuse.rms_norm", {0, 1}, {ty({4, 8})},
                        {{"epsilon", 1e-6}, {"has_gamma", true}}),
                     {x, g}),
             rmsNorm(x, &g, 1e-6));
  expectSame(evalOne(op("tfuse.dropout", {0}, {ty({4, 8})},
                        {{"p", 0.25}, {"seed", int64_t(42)}}),
                     {x}),
             dropout(x, 0.25, 42));
}

TEST(Interpreter, CrossEntropyAndItsGradient) {
  Tensor x = random({2, 3, 5}, 0), dloss = random({2, 3}, 1);
  Tensor labels = makeTensor(DType::I64, {2, 3}, {4, 0, -100, 2, 9, -3});
  RefGraph g;
  g.arguments = {ty({2, 3, 5}), ty({2, 3}, DType::I64), ty({2, 3})};
  g.ops = {op("tfuse.cross_entropy", {0, 1}, {ty({2, 3}), ty({2, 3})},
              {{"ignore_index", int64_t(-100)}}),
           op("tfuse.cross_entropy_grad", {0, 1, 2}, {ty({2, 3, 5})},
              {{"ignore_index", int64_t(-100)}})};
  g.yields = {3, 4, 5};
  std::string error;
  std::optional<std::vector<Tensor>> r =
      evaluateGraph(g, {x, labels, dloss}, error);
  ASSERT_TRUE(r) << error;
  Tensor counted;
  expectSame((*r)[0], crossEntropy(x, labels, -100, counted));
  expectSame((*r)[1], counted);
  expectSame((*r)[2], crossEntropyGrad(x, labels, dloss, -100));
  // The ignored row counts 0; 9 and -3 clamp to classes 4 and 0.
  EXPECT_EQ(counted.data, (std::vector<double>{1, 1, 0, 1, 1, 1}));
  Tensor clamped = makeTensor(DType::I64, {2, 3}, {4, 0, -100, 2, 4, 0});
  expectSame((*r)[0], crossEntropy(x, clamped, -100, counted));
}

TEST(Interpreter, LayoutOps) {
  Tensor x = random({2, 6}, 0);
  expectSame(evalOne(op("tfuse.reshape", {0}, {ty({3, 4})}), {x}),
             reshape(x, {3, 4}));
  expectSame(evalOne(op("tfuse.transpose", {0}, {ty({6, 2})},
                        {{"perm", std::vector<int64_t>{1, 0}}}),
                     {x}),
             transpose(x, {1, 0}));
  expectSame(evalOne(op("tfuse.slice", {0}, {ty({1, 3})},
                        {{"offsets", std::vector<int64_t>{1, 2}}}),
                     {x}),
             slice(x, {1, 2}, {1, 3}));
  expectSame(
      evalOne(op("tfuse.concat", {0, 0}, {ty({2, 12})}, {{"axis", int64_t(1)}}),
              {x}),
      concat({x, x}, 1));
  Tensor ids = makeTensor(DType::I32, {3}, {1, 0, 1});
  expectSame(evalOne(op("tfuse.gather", {0, 1}, {ty({3, 6})}), {x, ids}),
             gather(x, ids));
  Tensor rows = gather(x, ids);
  expectSame(
      evalOne(op("tfuse.gather_grad", {0, 1}, {ty({2, 6})}), {rows, ids}),
      gatherGrad(rows, ids, {2, 6}, DType::F32));
  expectSame(
      evalOne(op("tfuse.causal_mask", {}, {ty({3, 4}, DType::BF16)}), {}),
      causalMask(3, 4, DType::BF16));

  // split has several results, numbered in order.
  RefGraph g;
  g.arguments = {ty({2, 6})};
  g.ops = {
      op("tfuse.split", {0}, {ty({2, 2}), ty({2, 4})}, {{"axis", int64_t(1)}})};
  g.yields = {2, 1};
  std::string error;
  std::optional<std::vector<Tensor>> r = evaluateGraph(g, {x}, error);
  ASSERT_TRUE(r) << error;
  std::vector<Tensor> pieces = split(x, 1, {2, 4});
  expectSame((*r)[0], pieces[1]);
  expectSame((*r)[1], pieces[0]);
}

TEST(Interpreter, Attention) {
  Tensor q = random({1, 2, 3, 4}, 0), k = random({1, 1, 5, 4}, 1),
         v = random({1, 1, 5, 4}, 2), m = random({1, 1, 1, 5}, 3);
  expectSame(evalOne(op("tfuse.attention", {0, 1, 2, 3}, {ty({1, 2, 3, 4})},
                        {{"scale", 0.5}, {"causal", true}}),
                     {q, k, v, m}),
             attention(q, k, v, &m, 0.5, true));
  expectSame(evalOne(op("tfuse.attention", {0, 1, 2}, {ty({1, 2, 3, 4})},
                        {{"scale", 0.5},
                         {"causal", false},
                         {"dropout_p", 0.1},
                         {"seed", int64_t(9)}}),
                     {q, k, v}),
             attention(q, k, v, nullptr, 0.5, false, 0.1, 9));
}

TEST(Interpreter, AttentionLogSumExpAndBackward) {
  Tensor q = random({1, 2, 3, 4}, 0), k = random({1, 1, 5, 4}, 1),
         v = random({1, 1, 5, 4}, 2), m = random({1, 1, 1, 5}, 3),
         dO = random({1, 2, 3, 4}, 4), delta = random({1, 2, 3}, 5);
  RefGraph forward;
  forward.arguments = {ty({1, 2, 3, 4}), ty({1, 1, 5, 4}), ty({1, 1, 5, 4}),
                       ty({1, 1, 1, 5})};
  forward.ops = {op("tfuse.attention", {0, 1, 2, 3},
                    {ty({1, 2, 3, 4}), ty({1, 2, 3})},
                    {{"scale", 0.5}, {"causal", true}})};
  forward.yields = {4, 5};
  std::string error;
  std::optional<std::vector<Tensor>> out =
      evaluateGraph(forward, {q, k, v, m}, error);
  ASSERT_TRUE(out) << error;
  Tensor lse;
  expectSame((*out)[0], attention(q, k, v, &m, 0.5, true, 0.0, 0, &lse));
  expectSame((*out)[1], lse);
  // Row 0 sees key 0 only (causal): its log-sum-exp is its one score.
  double s00 = 0.0;
  for (int c = 0; c < 4; ++c)
    s00 += q.data[c] * k.data[c];
  EXPECT_NEAR(lse.data[0], s00 * 0.5 + m.data[0], 1e-6);

  RefGraph backward;
  backward.arguments = {ty({1, 2, 3, 4}), ty({1, 1, 5, 4}), ty({1, 1, 5, 4}),
                        ty({1, 2, 3, 4}), ty({1, 2, 3}),    ty({1, 2, 3}),
                        ty({1, 1, 1, 5})};
  backward.ops = {op("tfuse.attention_grad", {0, 1, 2, 3, 4, 5, 6},
                     {ty({1, 2, 3, 4}), ty({1, 1, 5, 4}), ty({1, 1, 5, 4})},
                     {{"scale", 0.5}, {"causal", true}})};
  backward.yields = {7, 8, 9};
  out = evaluateGraph(backward, {q, k, v, dO, lse, delta, m}, error);
  ASSERT_TRUE(out) << error;
  AttentionGrads grads = attentionGrad(q, k, v, dO, lse, delta, &m, 0.5, true);
  expectSame((*out)[0], grads.query);
  expectSame((*out)[1], grads.key);
  expectSame((*out)[2], grads.value);
  // Causal: keys 3 and 4 come after every row and get no gradient.
  for (int64_t i = 3 * 4; i < 5 * 4; ++i) {
    EXPECT_EQ(grads.key.data[i], 0.0);
    EXPECT_EQ(grads.value.data[i], 0.0);
  }

  // Three results of attention are refused.
  forward.ops[0].results.push_back(ty({1, 2, 3}));
  forward.yields = {4, 5, 6};
  EXPECT_FALSE(evaluateGraph(forward, {q, k, v, m}, error));
  EXPECT_NE(error.find("expected 1 or 2 results"), std::string::npos) << error;
}

TEST(Interpreter, Optimizers) {
  Tensor p = random({2, 3}, 0), g = random({2, 3}, 1, DType::BF16),
         m = random({2, 3}, 2), r3 = random({2, 3}, 3);
  Tensor v = binary(BinaryKind::Mul, r3, r3);
  Tensor lr = scalar(DType::F32, 0.01), step = scalar(DType::F32, 3.0);
  RefGraph g1;
  g1.arguments = {ty({2, 3}), ty({2, 3}, DType::BF16),
                  ty({2, 3}), ty({2, 3}),
                  ty({}),     ty({})};
  g1.ops = {op("tfuse.adamw", {0, 1, 2, 3, 4, 5},
               {ty({2, 3}), ty({2, 3}), ty({2, 3}), ty({2, 3}, DType::BF16)},
               {{"beta1", 0.9},
                {"beta2", 0.95},
                {"epsilon", 1e-6},
                {"weight_decay", 0.1}})};
  g1.yields = {6, 7, 8, 9};
  std::string error;
  std::optional<std::vector<Tensor>> r =
      evaluateGraph(g1, {p, g, m, v, lr, step}, error);
  ASSERT_TRUE(r) << error;
  AdamWOptions adamOptions{0.9, 0.95, 1e-6, 0.1};
  DType bf16 = DType::BF16;
  std::vector<Tensor> expected =
      adamw(p, g, m, v, lr, step, adamOptions, &bf16);
  ASSERT_EQ(r->size(), 4u);
  for (size_t i = 0; i < 4; ++i)
    expectSame((*r)[i], expected[i]);

  RefGraph g2;
  g2.arguments = {ty({2, 3}), ty({2, 3}, DType::BF16), ty({2, 3}), ty({}),
                  ty({})};
  g2.ops = {op("tfuse.sgd", {0, 1, 2, 3, 4}, {ty({2, 3}), ty({2, 3})},
               {{"momentum", 0.9},
                {"dampening", 0.0},
                {"weight_decay", 1e-4},
                {"nesterov", true}})};
  g2.yields = {5, 6};
  r = evaluateGraph(g2, {p, g, m, lr, step}, error);
  ASSERT_TRUE(r) << error;
  SgdOptions sgdOptions{0.9, 0.0, 1e-4, true};
  expected = sgd(p, g, m, lr, step, sgdOptions);
  ASSERT_EQ(r->size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    expectSame((*r)[i], expected[i]);
}

TEST(Interpreter, ChainedGraphYieldsInOrder) {
  // gelu(x + b) and x + b.
  Tensor x = random({4, 8}, 0, DType::BF16), b = random({8}, 1, DType::BF16);
  RefGraph g;
  g.arguments = {ty({4, 8}, DType::BF16), ty({8}, DType::BF16)};
  g.ops = {op("tfuse.add", {0, 1}, {ty({4, 8}, DType::BF16)}),
           op("tfuse.gelu", {2}, {ty({4, 8}, DType::BF16)},
              {{"approximate", std::string("tanh")}})};
  g.yields = {3, 2};
  std::string error;
  std::optional<std::vector<Tensor>> r = evaluateGraph(g, {x, b}, error);
  ASSERT_TRUE(r) << error;
  Tensor sum = binary(BinaryKind::Add, x, b);
  expectSame((*r)[0], unary(UnaryKind::GeluTanh, sum));
  expectSame((*r)[1], sum);
}

TEST(Interpreter, LongestReduction) {
  RefGraph g;
  g.arguments = {ty({4, 64}), ty({64, 16})};
  g.ops = {op("tfuse.matmul", {0, 1}, {ty({4, 16})},
              {{"transpose_lhs", false}, {"transpose_rhs", false}}),
           op("tfuse.softmax", {2}, {ty({4, 16})}, {{"axis", int64_t(-1)}})};
  EXPECT_EQ(longestReduction(g), 64);
  g.ops.erase(g.ops.begin());
  g.ops[0].operands = {0};
  g.ops[0].results = {ty({4, 64})};
  EXPECT_EQ(longestReduction(g), 64);
  g.ops.clear();
  EXPECT_EQ(longestReduction(g), 0);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(InterpreterErrors, UnknownOpAndArity) {
  EXPECT_EQ(verifyError(op("tfuse.addd", {0, 1}, {ty({1})})),
            "unknown op 'tfuse.addd'");
  EXPECT_EQ(verifyError(op("tfuse.add", {0}, {ty({1})})),
            "expected 2 operands, got 1");
  EXPECT_EQ(verifyError(op("tfuse.layer_norm", {}, {ty({1})})),
            "expected 1 to 3 operands, got 0");
  EXPECT_EQ(
      verifyError(op("tfuse.concat", {}, {ty({1})}, {{"axis", int64_t(0)}})),
      "expected at least 1 operand, got 0");
  EXPECT_EQ(verifyError(op("tfuse.exp", {0}, {})), "expected 1 result, got 0");
  EXPECT_EQ(verifyError(op("tfuse.split", {0}, {}, {{"axis", int64_t(0)}})),
            "expected at least 1 result, got 0");
}

TEST(Interpreter, CollectivesAssumeIdenticalRanks) {
  // One rank's program: every rank holds the operand.
  Tensor x = random({4, 6}, 0, DType::BF16);
  expectSame(evalOne(op("tfuse.all_reduce", {0}, {ty({4, 6}, DType::BF16)},
                        {{"group_size", int64_t(4)}}),
                     {x}),
             collectiveOfIdenticalRanks(CollectiveKind::AllReduce, x, 4, 0));
  expectSame(
      evalOne(op("tfuse.reduce_scatter", {0}, {ty({4, 2}, DType::BF16)},
                 {{"axis", int64_t(1)}, {"group_size", int64_t(3)}}),
              {x}),
      collectiveOfIdenticalRanks(CollectiveKind::ReduceScatter, x, 3, 1));
  expectSame(evalOne(op("tfuse.all_gather", {0}, {ty({8, 6}, DType::BF16)},
                        {{"axis", int64_t(0)}, {"group_size", int64_t(2)}}),
                     {x}),
             collectiveOfIdenticalRanks(CollectiveKind::AllGather, x, 2, 0));
  EXPECT_EQ(verifyError(op("tfuse.all_reduce", {0}, {ty({1})})),
            "missing attribute 'group_size'");
  EXPECT_EQ(verifyError(op("tfuse.all_gather", {0}, {ty({1})},
                           {{"axis", int64_t(0)}, {"group_size", int64_t(0)}})),
            "attribute 'group_size' must be at least 1");
  EXPECT_EQ(verifyError(op("tfuse.reduce_scatter", {0}, {ty({1})},
                           {{"group_size", int64_t(1)}})),
            "missing attribute 'axis'");
}

TEST(InterpreterErrors, Attributes) {
  EXPECT_EQ(verifyError(op("tfuse.layer_norm", {0}, {ty({1})},
                           {{"has_gamma", false}, {"has_beta", false}})),
            "missing attribute 'epsilon'");
  EXPECT_EQ(verifyError(
                op("tfuse.matmul", {0, 1}, {ty({1, 1})},
                   {{"transpose_lhs", int64_t(0)}, {"transpose_rhs", false}})),
            "attribute 'transpose_lhs' must be true or false, got a number");
  EXPECT_EQ(verifyError(op("tfuse.gelu", {0}, {ty({1})},
                           {{"approximate", std::string("fast")}})),
            "attribute 'approximate' must be \"none\" or \"tanh\", got "
            "\"fast\"");
  EXPECT_EQ(
      verifyError(op(
          "tfuse.reduce", {0}, {ty({1})},
          {{"kind", std::string("sum")}, {"axis", 1.5}, {"keep_dims", false}})),
      "attribute 'axis' must be an integer, got a number");
  EXPECT_EQ(verifyError(op("tfuse.transpose", {0}, {ty({1})},
                           {{"perm", std::string("0")}})),
            "attribute 'perm' must be an array of integers, got a string");
  EXPECT_EQ(verifyError(op("tfuse.constant", {}, {ty({2})})),
            "missing attribute 'splat' or 'values'");
  EXPECT_EQ(
      verifyError(op("tfuse.constant", {}, {ty({2})},
                     {{"splat", 1.0}, {"values", std::vector<double>{1, 2}}})),
      "has both 'splat' and 'values'; give one");
  EXPECT_EQ(verifyError(op("tfuse.constant", {}, {ty({2})},
                           {{"values", std::vector<double>{1, 2, 3}}})),
            "attribute 'values' has 3 elements, the result [2] f32 needs 2");
  EXPECT_EQ(verifyError(op("tfuse.constant", {}, {ty({2})},
                           {{"splat", std::string("lots")}})),
            "attribute 'splat' must be a number, got a string");
  EXPECT_EQ(verifyError(op(
                "tfuse.layer_norm", {0, 1}, {ty({1})},
                {{"epsilon", 1e-5}, {"has_gamma", true}, {"has_beta", true}})),
            "has 2 operands but has_gamma = true and has_beta = true need 3");
  EXPECT_EQ(verifyError(op("tfuse.dropout", {0}, {ty({1})},
                           {{"p", 1.0}, {"seed", int64_t(1)}})),
            "attribute 'p' must be in [0, 1)");
  EXPECT_EQ(verifyError(op("tfuse.causal_mask", {}, {ty({4})})),
            "the result must have rank 2, got [4] f32");

  std::map<std::string, RefAttribute> adam = {{"beta1", 0.9},
                                              {"beta2", 0.999},
                                              {"epsilon", 1e-8},
                                              {"weight_decay", 0.01}};
  std::vector<int> six = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(verifyError(op("tfuse.adamw", six, {ty({2}), ty({2})}, adam)),
            "expected 3 or 4 results, got 2");
  EXPECT_EQ(verifyError(op("tfuse.adamw", six,
                           {ty({2}), ty({2}), ty({2}), ty({2})}, adam)),
            "the model weight (result 3) must be f16 or bf16, got [2] f32");
  for (auto [name, value, message] :
       {std::tuple("beta1", 1.0, "attribute 'beta1' must be in [0, 1)"),
        std::tuple("beta2", -0.5, "attribute 'beta2' must be in [0, 1)"),
        std::tuple("epsilon", 0.0,
                   "attribute 'epsilon' must be positive and finite"),
        std::tuple("weight_decay", -1.0,
                   "attribute 'weight_decay' must be non-negative and "
                   "finite")}) {
    std::map<std::string, RefAttribute> bad = adam;
    bad[name] = value;
    EXPECT_EQ(
        verifyError(op("tfuse.adamw", six, {ty({2}), ty({2}), ty({2})}, bad)),
        message);
  }
  std::map<std::string, RefAttribute> sgdAttrs = {{"momentum", 0.9},
                                                  {"dampening", 0.0},
                                                  {"weight_decay", 0.0},
                                                  {"nesterov", true}};
  std::vector<int> five = {0, 1, 2, 3, 4};
  EXPECT_EQ(verifyError(op("tfuse.sgd", five, {ty({2})}, sgdAttrs)),
            "expected 2 or 3 results, got 1");
  for (auto [name, value, message] :
       {std::tuple("momentum", 0.0,
                   "attribute 'momentum' must be positive and finite"),
        std::tuple("dampening", 2.0, "attribute 'dampening' must be in [0, 1]"),
        std::tuple("weight_decay", -1.0,
                   "attribute 'weight_decay' must be non-negative and "
                   "finite")}) {
    std::map<std::string, RefAttribute> bad = sgdAttrs;
    bad["nesterov"] = false;
    bad[name] = value;
    EXPECT_EQ(verifyError(op("tfuse.sgd", five, {ty({2}), ty({2})}, bad)),
              message);
  }
  sgdAttrs["dampening"] = 0.5;
  EXPECT_EQ(verifyError(op("tfuse.sgd", five, {ty({2}), ty({2})}, sgdAttrs)),
            "attribute 'nesterov' needs 'dampening' 0");
}

TEST(InterpreterErrors, GraphStructure) {
  RefGraph g;
  g.arguments = {ty({2})};
  g.ops = {op("tfuse.add", {0, 3}, {ty({2})})};
  g.yields = {1};
  EXPECT_EQ(evalError(g, {random({2}, 0)}),
            "op 0 (tfuse.add): operand 1 refers to value 3, which is not "
            "defined before the op (values 0..0 are)");
  g.ops[0].operands = {0, 0};
  g.yields = {2};
  EXPECT_EQ(evalError(g, {random({2}, 0)}),
            "yield 0 refers to value 2, but the graph defines values 0..1");
  g.ops[0].name = "tfuse.frobnicate";
  g.yields = {1};
  EXPECT_EQ(evalError(g, {random({2}, 0)}),
            "op 0 (tfuse.frobnicate): unknown op 'tfuse.frobnicate'");
}

TEST(InterpreterErrors, TensorSizes) {
  // Declared tensors are checked before anything is allocated: a plan.json
  // may say anything.
  RefGraph g;
  g.arguments = {ty({int64_t(1) << 31, int64_t(1) << 31})};
  g.ops = {op("tfuse.exp", {0}, {ty({2})})};
  g.yields = {1};
  std::string error;
  EXPECT_FALSE(verifyGraph(g, error));
  EXPECT_EQ(error, "argument 0: [2147483648, 2147483648] f32 has a negative "
                   "dimension or more than 2^40 elements");
  g.arguments = {ty({2})};
  g.ops[0].results = {ty({-2})};
  EXPECT_FALSE(verifyGraph(g, error));
  EXPECT_EQ(error, "op 0 (tfuse.exp): result 0: [-2] f32 has a negative "
                   "dimension or more than 2^40 elements");
  // 2^40 elements exactly are admitted (not allocated here).
  g.ops[0].results = {ty({int64_t(1) << 40})};
  EXPECT_TRUE(verifyGraph(g, error)) << error;
}

TEST(InterpreterErrors, InputsAndResultTypes) {
  RefGraph g;
  g.arguments = {ty({2, 3})};
  g.ops = {op("tfuse.exp", {0}, {ty({2, 3})})};
  g.yields = {1};
  EXPECT_EQ(evalError(g, {}), "the graph has 1 argument but 0 inputs were "
                              "given");
  EXPECT_EQ(evalError(g, {random({3, 2}, 0)}),
            "input 0 is [3, 2] f32 but argument 0 is [2, 3] f32");
  // The declared result type is checked against the computed one.
  g.ops[0].results = {ty({2, 3}, DType::BF16)};
  EXPECT_EQ(evalError(g, {random({2, 3}, 0)}),
            "op 0 (tfuse.exp): result 0 is [2, 3] f32 but the graph declares "
            "[2, 3] bf16");
  // A shape the reference rejects.
  g.arguments = {ty({2, 3}), ty({4})};
  g.ops = {op("tfuse.add", {0, 1}, {ty({2, 3})})};
  g.yields = {2};
  EXPECT_EQ(evalError(g, {random({2, 3}, 0), random({4}, 1)}),
            "op 0 (tfuse.add): the reference rejected the operands ([2, 3] "
            "f32, [4] f32) for result [2, 3] f32");
}

} // namespace
