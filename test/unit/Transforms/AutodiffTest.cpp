//===- AutodiffTest.cpp - gradients against finite differences --*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every backward rule of tfuse-autodiff against central finite differences
// of the CPU reference: for a forward f and a random seed dy, the training
// step's gradient of argument x must match
//   (L(x + h e_i) - L(x - h e_i)) / 2h,  L = sum(f(x) * dy),
// element by element. The reference rounds every op to f32, so the
// tolerance is that of f32 differences with h = 1e-2 (about 1e-3); a wrong
// rule misses by O(1).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Transforms/Autodiff.h"
#include "tfuse/Analysis/ReferenceGraph.h"
#include "tfuse/Pipelines/CompileBundle.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// How the inputs of a case are drawn.
enum class Inputs {
  /// Uniform in (-1, 1).
  Signed,
  /// Magnitudes in [0.25, 1], either sign: away from the kinks of relu,
  /// max and min.
  AwayFromZero,
  /// Uniform in [0.5, 1.5]: in the domain of log, sqrt and rsqrt.
  Positive,
};

class AutodiffTest : public ::testing::Test {
protected:
  AutodiffTest() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerCompileBundleDependencies(registry);
    return registry;
  }

  ref::Tensor random(RankedTensorType type, Inputs inputs) {
    ref::Tensor t;
    t.dtype = ref::DType::F32;
    t.shape.assign(type.getShape().begin(), type.getShape().end());
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      double u = unit(rng);
      double v = 2.0 * u - 1.0;
      if (inputs == Inputs::AwayFromZero)
        v = (unit(rng) < 0.5 ? -1.0 : 1.0) * (0.25 + 0.75 * u);
      else if (inputs == Inputs::Positive)
        v = 0.5 + u;
      t.data.push_back(static_cast<double>(static_cast<float>(v)));
    }
    return t;
  }

  /// sum over results of sum(result * seed), in double.
  double objective(func::FuncOp forward, const std::vector<ref::Tensor> &args,
                   const std::vector<ref::Tensor> &seeds) {
    FailureOr<std::vector<ref::Tensor>> out = evaluateFunction(forward, args);
    EXPECT_TRUE(succeeded(out));
    if (failed(out))
      return NAN;
    double sum = 0.0;
    for (size_t r = 0; r < out->size(); ++r)
      for (size_t i = 0; i < (*out)[r].data.size(); ++i)
        sum += (*out)[r].data[i] * seeds[r].data[i];
    return sum;
  }

  /// Checks every gradient of the first function of `text` (f32 arguments
  /// only) against finite differences, for every element.
  void checkGradients(StringRef text, Inputs inputs = Inputs::Signed,
                      RecomputePolicy recompute = RecomputePolicy::None) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    auto forward = *module->getOps<func::FuncOp>().begin();
    AutodiffOptions options;
    options.recompute = recompute;
    FailureOr<func::FuncOp> step = buildTrainingStep(forward, options);
    ASSERT_TRUE(succeeded(step));
    ASSERT_TRUE(succeeded(mlir::verify(*module)));
    compareWithFiniteDifferences(forward, *step, inputs);
  }

  /// Checks the hand-written step `@f_train` of `text` (the arguments of
  /// `@f`, then a seed per result; returns @f's results, then the gradient
  /// of every argument) against finite differences of `@f`.
  void checkStep(StringRef text, Inputs inputs = Inputs::Signed) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    auto forward = module->lookupSymbol<func::FuncOp>("f");
    auto step = module->lookupSymbol<func::FuncOp>("f_train");
    ASSERT_TRUE(forward && step);
    compareWithFiniteDifferences(forward, step, inputs);
  }

  void compareWithFiniteDifferences(func::FuncOp forward, func::FuncOp step,
                                    Inputs inputs) {
    std::vector<ref::Tensor> args, seeds;
    for (Type type : forward.getArgumentTypes())
      args.push_back(random(cast<RankedTensorType>(type), inputs));
    for (Type type : forward.getResultTypes())
      seeds.push_back(random(cast<RankedTensorType>(type), Inputs::Signed));
    std::vector<ref::Tensor> stepArgs = args;
    llvm::append_range(stepArgs, seeds);
    FailureOr<std::vector<ref::Tensor>> out = evaluateFunction(step, stepArgs);
    ASSERT_TRUE(succeeded(out));
    size_t numResults = forward.getNumResults();
    ASSERT_EQ(out->size(), numResults + args.size());

    const double h = 1e-2;
    for (size_t a = 0; a < args.size(); ++a) {
      const ref::Tensor &grad = (*out)[numResults + a];
      ASSERT_EQ(grad.data.size(), args[a].data.size());
      for (size_t i = 0; i < args[a].data.size(); ++i) {
        std::vector<ref::Tensor> plus = args, minus = args;
        plus[a].data[i] = static_cast<float>(args[a].data[i] + h);
        minus[a].data[i] = static_cast<float>(args[a].data[i] - h);
        double step = plus[a].data[i] - minus[a].data[i];
        double fd = (objective(forward, plus, seeds) -
                     objective(forward, minus, seeds)) /
                    step;
        EXPECT_NEAR(grad.data[i], fd, 2e-3 * std::max(1.0, std::fabs(fd)))
            << "argument " << a << " element " << i;
      }
    }
  }

  MLIRContext context;
  std::mt19937_64 rng{12};
};

TEST_F(AutodiffTest, Broadcasting) {
  checkGradients(R"mlir(
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x1xf32>,
             %d: tensor<2x1x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tfuse.add %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %1 = tfuse.mul %0, %c : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %2 = tfuse.sub %1, %d : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %3 = tfuse.mul %2, %a : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %3 : tensor<2x3x4xf32>
})mlir");
}

TEST_F(AutodiffTest, DivMaxMin) {
  checkGradients(R"mlir(
func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = tfuse.max %a, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = tfuse.min %0, %c : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %2 = tfuse.div %1, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
})mlir",
                 Inputs::AwayFromZero);
}

TEST_F(AutodiffTest, Transcendentals) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = tfuse.log %x : tensor<3x5xf32>
  %1 = tfuse.sqrt %x : tensor<3x5xf32>
  %2 = tfuse.rsqrt %x : tensor<3x5xf32>
  %3 = tfuse.exp %x : tensor<3x5xf32>
  %4 = tfuse.mul %3, %2 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0, %1, %4 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
})mlir",
                 Inputs::Positive);
}

TEST_F(AutodiffTest, Activations) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = tfuse.tanh %x : tensor<4x6xf32>
  %1 = tfuse.erf %x : tensor<4x6xf32>
  %2 = tfuse.sigmoid %x : tensor<4x6xf32>
  %3 = tfuse.silu %x : tensor<4x6xf32>
  %4 = tfuse.relu %x : tensor<4x6xf32>
  %5 = tfuse.neg %4 : tensor<4x6xf32>
  %6 = tfuse.add %5, %3 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0, %1, %2, %6 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
})mlir",
                 Inputs::AwayFromZero);
}

TEST_F(AutodiffTest, Gelu) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = tfuse.gelu %x : tensor<4x6xf32>
  %1 = tfuse.gelu %x approximate = tanh : tensor<4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<4x6xf32>
})mlir");
}

TEST_F(AutodiffTest, MatmulTransposesAndBatchBroadcast) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %wt: tensor<5x4xf32>,
             %y: tensor<2x4x3xf32>, %z: tensor<1x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x5x4xf32>) {
  %0 = tfuse.matmul %x, %w : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %1 = tfuse.matmul %x, %wt transpose_rhs : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  %2 = tfuse.matmul %z, %y transpose_lhs transpose_rhs : (tensor<1x3x5xf32>, tensor<2x4x3xf32>) -> tensor<2x5x4xf32>
  return %0, %1, %2 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x5x4xf32>
})mlir");
}

TEST_F(AutodiffTest, MatmulTransposedLhsUnderSharedWeight) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<2x4x3xf32>, %w: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = tfuse.matmul %x, %w transpose_lhs : (tensor<2x4x3xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
})mlir");
}

TEST_F(AutodiffTest, Norms) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %0 = tfuse.layer_norm %x gamma %g beta %b eps = 1.0e-05 : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %1 = tfuse.layer_norm %x eps = 1.0e-05 : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %2 = tfuse.rms_norm %x gamma %g eps = 1.0e-06 : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0, %1, %2 : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
})mlir");
}

TEST_F(AutodiffTest, SoftmaxAndReductions) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x5xf32>, tensor<3x4x1xf32>, tensor<4x5xf32>) {
  %0 = tfuse.softmax %x axis = 2 : tensor<3x4x5xf32>
  %1 = tfuse.softmax %x axis = 1 : tensor<3x4x5xf32>
  %2 = tfuse.reduce sum %x axis = 1 : tensor<3x4x5xf32> -> tensor<3x5xf32>
  %3 = tfuse.reduce mean %x axis = 2 keep_dims : tensor<3x4x5xf32> -> tensor<3x4x1xf32>
  %4 = tfuse.reduce max %x axis = 0 : tensor<3x4x5xf32> -> tensor<4x5xf32>
  return %0, %1, %2, %3, %4 : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x5xf32>, tensor<3x4x1xf32>, tensor<4x5xf32>
})mlir");
}

TEST_F(AutodiffTest, Layout) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<2x6x4xf32>, %y: tensor<2x2x4xf32>) -> (tensor<3x2x8xf32>, tensor<2x3x2xf32>, tensor<2x8x4xf32>) {
  %r = tfuse.reshape %x : tensor<2x6x4xf32> -> tensor<2x3x8xf32>
  %t = tfuse.transpose %r perm = [1, 0, 2] : tensor<2x3x8xf32> -> tensor<3x2x8xf32>
  %s = tfuse.slice %x offsets = [0, 2, 1] : tensor<2x6x4xf32> -> tensor<2x3x2xf32>
  %a, %b = tfuse.split %x axis = 1 : tensor<2x6x4xf32> -> tensor<2x2x4xf32>, tensor<2x4x4xf32>
  %bb = tfuse.mul %b, %b : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = tfuse.concat %y, %bb, %y axis = 1 : (tensor<2x2x4xf32>, tensor<2x4x4xf32>, tensor<2x2x4xf32>) -> tensor<2x8x4xf32>
  return %t, %s, %c : tensor<3x2x8xf32>, tensor<2x3x2xf32>, tensor<2x8x4xf32>
})mlir");
}

// The table's gradient (tfuse.gather_grad) sums the rows of repeated
// indices and of those clamped into the table (-2 and 9 read rows 0 and 4),
// and leaves the rows no index reads (2) at zero; a second lookup of the
// same table adds its own.
TEST_F(AutodiffTest, Embedding) {
  checkGradients(R"mlir(
func.func @f(%t: tensor<5x3xf32>, %w: tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<4x3xf32>) {
  %ids = tfuse.constant dense<[[1, 3, 1], [-2, 9, 3]]> : tensor<2x3xi32>
  %e = tfuse.gather %t[%ids] : (tensor<5x3xf32>, tensor<2x3xi32>) -> tensor<2x3x3xf32>
  %y = tfuse.mul %e, %w : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %p = tfuse.constant dense<[0, 1, 1, 4]> : tensor<4xi64>
  %q = tfuse.gather %t[%p] : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %y, %q : tensor<2x3x3xf32>, tensor<4x3xf32>
})mlir");
}

TEST_F(AutodiffTest, DropoutRegeneratesItsMask) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = tfuse.dropout %x p = 3.000000e-01 seed = 5 : tensor<4x16xf32>
  %1 = tfuse.mul %0, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
})mlir");
}

// Attention through its decomposition: mask, causal, dropout, grouped heads.
TEST_F(AutodiffTest, Attention) {
  checkGradients(R"mlir(
func.func @f(%q: tensor<1x4x3x2xf32>, %k: tensor<1x2x3x2xf32>, %v: tensor<1x2x3x2xf32>,
             %m: tensor<1x1x1x3xf32>) -> tensor<1x4x3x2xf32> {
  %o = tfuse.attention %q, %k, %v mask %m scale = 7.0e-01 causal dropout_p = 2.0e-01 seed = 3
      : (tensor<1x4x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x3x2xf32>
  return %o : tensor<1x4x3x2xf32>
})mlir");
}

// The fused backward (tfuse-autodiff with fused-attention, here in f32 to
// be checked against differences): the forward's log-sum-exp, delta = the
// row sums of dO * O, and tfuse.attention_grad, with an additive mask,
// causal masking, dropout and grouped heads.
TEST_F(AutodiffTest, FusedAttentionBackward) {
  checkStep(R"mlir(
func.func @f(%q: tensor<1x4x3x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x3xf32>)
    -> tensor<1x4x3x3xf32> {
  %m = tfuse.constant dense<[[[[0.5, -1.0, 0.25, 0.0, -0.5]]]]> : tensor<1x1x1x5xf32>
  %o = tfuse.attention %q, %k, %v mask %m scale = 7.0e-01 causal dropout_p = 2.0e-01 seed = 3
      : (tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>, tensor<1x1x1x5xf32>) -> tensor<1x4x3x3xf32>
  return %o : tensor<1x4x3x3xf32>
}
func.func @f_train(%q: tensor<1x4x3x2xf32>, %k: tensor<1x2x5x2xf32>, %v: tensor<1x2x5x3xf32>,
                   %do: tensor<1x4x3x3xf32>)
    -> (tensor<1x4x3x3xf32>, tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>) {
  %m = tfuse.constant dense<[[[[0.5, -1.0, 0.25, 0.0, -0.5]]]]> : tensor<1x1x1x5xf32>
  %o, %lse = tfuse.attention %q, %k, %v mask %m scale = 7.0e-01 causal dropout_p = 2.0e-01 seed = 3
      : (tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>, tensor<1x1x1x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3xf32>)
  %p = tfuse.mul %do, %o : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %delta = tfuse.reduce sum %p axis = 3 : tensor<1x4x3x3xf32> -> tensor<1x4x3xf32>
  %dq, %dk, %dv = tfuse.attention_grad %q, %k, %v, %do, %lse, %delta mask %m scale = 7.0e-01 causal dropout_p = 2.0e-01 seed = 3
      : (tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1x1x1x5xf32>)
      -> (tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>)
  return %o, %dq, %dk, %dv : tensor<1x4x3x3xf32>, tensor<1x4x3x2xf32>, tensor<1x2x5x2xf32>, tensor<1x2x5x3xf32>
})mlir");
}

// Rotary embeddings: the transpose of a rotation, the same rope with the
// frequencies negated; partial rotary (6 of 8 dims), scaled.
TEST_F(AutodiffTest, Rope) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32> {
  %f = tfuse.constant dense<[1.0, 0.3, 0.05]> : tensor<3xf32>
  %r = tfuse.rope %x, %f attention_scaling = 1.25 : tensor<1x2x5x8xf32>, tensor<3xf32>
  %y = tfuse.mul %r, %x : (tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32>
  return %y : tensor<1x2x5x8xf32>
})mlir");
}

TEST_F(AutodiffTest, CastRoundTrip) {
  // Through f32 -> f32 casts only: f16 rounding would swamp the differences.
  checkGradients(R"mlir(
func.func @f(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tfuse.cast %x : tensor<3x4xf32> to tensor<3x4xf32>
  %1 = tfuse.mul %0, %0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
})mlir");
}

// A cross-entropy inside the forward: the loss's gradient through
// tfuse.cross_entropy_grad (an ignored row and a label past the classes,
// clamped, included); counted has no derivative.
TEST_F(AutodiffTest, CrossEntropyRows) {
  checkGradients(R"mlir(
func.func @f(%x: tensor<2x3x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %l = tfuse.constant dense<[[0, 4, -100], [2, 7, 1]]> : tensor<2x3xi32>
  %y = tfuse.mul %x, %x : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %loss, %counted = tfuse.cross_entropy %y[%l] ignore = -100 : (tensor<2x3x5xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %loss, %counted : tensor<2x3xf32>, tensor<2x3xf32>
})mlir");
}

// The built-in loss: the step's own loss result, differenced, against its
// gradients; the mean is over the rows not labelled -100.
TEST_F(AutodiffTest, CrossEntropyLoss) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%x: tensor<4x6xf32>, %w: tensor<6x7xf32>) -> tensor<4x7xf32> {
  %y = tfuse.matmul %x, %w : (tensor<4x6xf32>, tensor<6x7xf32>) -> tensor<4x7xf32>
  return %y : tensor<4x7xf32>
})mlir",
                                                             &context);
  ASSERT_TRUE(module);
  auto forward = *module->getOps<func::FuncOp>().begin();
  AutodiffOptions options;
  options.loss = LossKind::CrossEntropy;
  FailureOr<func::FuncOp> step = buildTrainingStep(forward, options);
  ASSERT_TRUE(succeeded(step));
  ASSERT_TRUE(succeeded(mlir::verify(*module)));
  std::vector<ref::Tensor> args;
  for (Type type : forward.getArgumentTypes())
    args.push_back(random(cast<RankedTensorType>(type), Inputs::Signed));
  args.push_back(ref::Tensor{ref::DType::I32, {4}, {3, -100, 0, 6}});
  FailureOr<std::vector<ref::Tensor>> out = evaluateFunction(*step, args);
  ASSERT_TRUE(succeeded(out));
  ASSERT_EQ(out->size(), 3u);
  auto loss = [&](const std::vector<ref::Tensor> &at) {
    FailureOr<std::vector<ref::Tensor>> result = evaluateFunction(*step, at);
    return succeeded(result) ? (*result)[0].data[0] : NAN;
  };
  const double h = 1e-2;
  for (size_t a = 0; a < 2; ++a)
    for (size_t i = 0; i < args[a].data.size(); ++i) {
      std::vector<ref::Tensor> plus = args, minus = args;
      plus[a].data[i] = static_cast<float>(args[a].data[i] + h);
      minus[a].data[i] = static_cast<float>(args[a].data[i] - h);
      double fd =
          (loss(plus) - loss(minus)) / (plus[a].data[i] - minus[a].data[i]);
      EXPECT_NEAR((*out)[1 + a].data[i], fd,
                  2e-3 * std::max(1.0, std::fabs(fd)))
          << "argument " << a << " element " << i;
    }
}

// Recomputing forward values changes where they come from, not the result.
TEST_F(AutodiffTest, RecomputePoliciesKeepTheGradients) {
  const char *block = R"mlir(
func.func @f(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tfuse.layer_norm %x gamma %g eps = 1.0e-05 : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %1 = tfuse.matmul %0, %w : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %2 = tfuse.gelu %1 approximate = tanh : tensor<2x4x8xf32>
  %3 = tfuse.add %2, %x : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %3 : tensor<2x4x8xf32>
})mlir";
  for (RecomputePolicy policy :
       {RecomputePolicy::None, RecomputePolicy::NormsAndElementwise,
        RecomputePolicy::Full})
    checkGradients(block, Inputs::Signed, policy);
}

} // namespace
