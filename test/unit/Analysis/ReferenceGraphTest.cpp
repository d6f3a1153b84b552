//===- ReferenceGraphTest.cpp - tfuse ops as reference graphs ---*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// buildReferenceGraph against the graphs tfuse-compile writes into plan.json
// (the same text, step by step, for the examples and both with and without
// fusion), plus what plan.json never carries: attention and the location of
// interpreter errors.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/ReferenceGraph.h"
#include "tfuse/Bundle/Plan.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Pipelines/CompileBundle.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#ifndef TFUSE_SOURCE_DIR
#error "TFUSE_SOURCE_DIR must be defined to the project root (CMake sets it)"
#endif

using namespace mlir;
using namespace mlir::tfuse;

namespace {

const std::string kSourceDir = TFUSE_SOURCE_DIR;

class ReferenceGraphTest : public ::testing::Test {
protected:
  ReferenceGraphTest() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerCompileBundleDependencies(registry);
    return registry;
  }

  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  OwningOpRef<ModuleOp> parseFile(const std::string &path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return nullptr;
    return parse((*buffer)->getBuffer());
  }

  MLIRContext context;
};

/// The JSON text without whitespace (no string of a graph contains any).
std::string compact(StringRef text) {
  std::string out;
  for (char c : text)
    if (!llvm::isSpace(c))
      out.push_back(c);
  return out;
}

std::string graphText(const ref::RefGraph &graph) {
  return bundle::formatGraph(graph);
}

/// The compact text of every step's `ops` object, in order.
std::vector<std::string> planGraphs(const std::string &plan) {
  std::string text = compact(plan);
  std::vector<std::string> graphs;
  const std::string key = "\"ops\":{\"arguments\"";
  for (size_t at = text.find(key); at != std::string::npos;
       at = text.find(key, at + 1)) {
    size_t begin = at + 6, depth = 0, end = begin;
    for (; end < text.size(); ++end) {
      depth += text[end] == '{';
      depth -= text[end] == '}';
      if (depth == 0)
        break;
    }
    graphs.push_back(text.substr(begin, end + 1 - begin));
  }
  return graphs;
}

/// The graphs of the steps PlanBuilder makes of a compiled (wrapped) body:
/// one per GEMM, fusion and copy kernel (one per piece of a split).
FailureOr<std::vector<std::string>> stepGraphs(func::FuncOp func) {
  std::vector<std::string> graphs;
  auto add = [&](FailureOr<ref::RefGraph> graph) {
    if (failed(graph))
      return failure();
    graphs.push_back(compact(graphText(*graph)));
    return success();
  };
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (isa<ReshapeOp, ConstantOp>(op))
      continue;
    if (auto fusion = dyn_cast<FusionOp>(op)) {
      SmallVector<Operation *> body;
      for (Operation &inner : fusion.getBody().front().without_terminator())
        body.push_back(&inner);
      if (failed(add(buildReferenceGraph(fusion.getBody().getArguments(), body,
                                         fusion.getYield().getValues()))))
        return failure();
      continue;
    }
    if (isa<TransposeOp, SliceOp, SplitOp>(op)) {
      for (Value result : op.getResults())
        if (failed(add(buildReferenceGraph(op.getOperands(), {&op}, result))))
          return failure();
      continue;
    }
    if (failed(
            add(buildReferenceGraph(op.getOperands(), {&op}, op.getResults()))))
      return failure();
  }
  return graphs;
}

TEST_F(ReferenceGraphTest, StepGraphsMatchPlanJson) {
  const std::vector<std::string> inputs = {
      kSourceDir + "/test/tools/tfuse-compile/bundle.mlir",
      kSourceDir + "/examples/gpt2.f32.small.mlir",
      kSourceDir + "/examples/llama-7b.bf16.small.mlir",
      kSourceDir + "/examples/bert-large.f32.small.mlir",
  };
  for (const std::string &input : inputs) {
    for (bool fuse : {true, false}) {
      SCOPED_TRACE(input + (fuse ? " (fused)" : " (unfused)"));
      OwningOpRef<ModuleOp> module = parseFile(input);
      ASSERT_TRUE(module);
      CompileOptions options;
      options.target = kSourceDir + "/targets/h200.json";
      options.fuse = fuse;
      FailureOr<BundleFiles> files = compileBundle(*module, options);
      ASSERT_TRUE(succeeded(files));
      std::vector<std::string> expected = planGraphs(files->at("plan.json"));
      auto func = *module->getOps<func::FuncOp>().begin();
      FailureOr<std::vector<std::string>> graphs = stepGraphs(func);
      ASSERT_TRUE(succeeded(graphs));
      ASSERT_GT(expected.size(), 2u);
      ASSERT_EQ(graphs->size(), expected.size());
      for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ((*graphs)[i], expected[i]) << "step " << i;
    }
  }
}

TEST_F(ReferenceGraphTest, FusionsAreInlinedIntoFunctionGraphs) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<8xf16>) -> (tensor<8xf16>, tensor<8xf16>) {
      %y = tfuse.fusion loop (%x) : (tensor<8xf16>) -> tensor<8xf16> {
      ^bb0(%a: tensor<8xf16>):
        %h = tfuse.constant dense<0.5> : tensor<f16>
        %m = tfuse.mul %a, %h : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
        tfuse.yield %m : tensor<8xf16>
      }
      %e = tfuse.exp %y : tensor<8xf16>
      return %e, %x : tensor<8xf16>, tensor<8xf16>
    })mlir");
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  SmallVector<Operation *> sources;
  FailureOr<ref::RefGraph> graph = buildReferenceGraph(func, &sources);
  ASSERT_TRUE(succeeded(graph));
  EXPECT_EQ(compact(graphText(*graph)),
            compact(R"json({"arguments":[{"shape":[8],"dtype":"f16"}],
              "ops":[
                {"op":"tfuse.constant","operands":[],
                 "results":[{"shape":[],"dtype":"f16"}],
                 "attributes":{"splat":0.5}},
                {"op":"tfuse.mul","operands":[0,1],
                 "results":[{"shape":[8],"dtype":"f16"}],"attributes":{}},
                {"op":"tfuse.exp","operands":[2],
                 "results":[{"shape":[8],"dtype":"f16"}],"attributes":{}}],
              "yields":[3,0]})json"));
  ASSERT_EQ(sources.size(), 3u);
  EXPECT_TRUE(isa<ConstantOp>(sources[0]));
  EXPECT_TRUE(isa<MulOp>(sources[1]));
  EXPECT_TRUE(isa<ExpOp>(sources[2]));
}

TEST_F(ReferenceGraphTest, AttentionAndSpecialNumbers) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%q: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<2xf32>) {
      %o = tfuse.attention %q, %q, %q scale = 0.25 causal dropout_p = 0.125 seed = 3 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
      %c = tfuse.constant dense<[0xFF800000, 0x7FC00000]> : tensor<2xf32>
      return %o, %c : tensor<1x2x4x8xf32>, tensor<2xf32>
    })mlir");
  ASSERT_TRUE(module);
  FailureOr<ref::RefGraph> graph =
      buildReferenceGraph(*module->getOps<func::FuncOp>().begin());
  ASSERT_TRUE(succeeded(graph));
  std::string text = compact(graphText(*graph));
  EXPECT_NE(text.find(R"("attributes":{"causal":true,"dropout_p":0.125,)"
                      R"("scale":0.25,"seed":3})"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("values":["-inf","nan"])"), std::string::npos) << text;
}

TEST_F(ReferenceGraphTest, OpsWithoutReferenceSemanticsAreLocated) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func private @g(tensor<4xf32>) -> tensor<4xf32>
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %y : tensor<4xf32>
    })mlir");
  ASSERT_TRUE(module);
  func::FuncOp func = module->lookupSymbol<func::FuncOp>("f");
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(buildReferenceGraph(func)));
  EXPECT_EQ(message, "'func.call' op has no reference semantics");
}

TEST_F(ReferenceGraphTest, InterpreterErrorsGoToTheirOp) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = tfuse.exp %x : tensor<4xf32> loc("a.mlir":1:1)
      %b = tfuse.neg %a : tensor<4xf32> loc("b.mlir":2:3)
      return %b : tensor<4xf32>
    })mlir");
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  SmallVector<Operation *> sources;
  ASSERT_TRUE(succeeded(buildReferenceGraph(func, &sources)));
  std::string message, where;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    message = d.str();
    llvm::raw_string_ostream os(where);
    where.clear();
    os << d.getLocation();
    return success();
  });
  locatedGraphError("op 1 (tfuse.neg): the reference rejected it", sources,
                    func.getLoc());
  EXPECT_EQ(message, "'tfuse.neg' op the reference rejected it");
  EXPECT_EQ(where, "loc(\"b.mlir\":2:3)");
  // Messages about no single op stay at the fallback.
  locatedGraphError("yield 0 refers to value 9", sources, sources[0]->getLoc());
  EXPECT_EQ(message, "yield 0 refers to value 9");
  EXPECT_EQ(where, "loc(\"a.mlir\":1:1)");
  locatedGraphError("op 7 (tfuse.neg): out of range", sources,
                    sources[0]->getLoc());
  EXPECT_EQ(message, "op 7 (tfuse.neg): out of range");
}

} // namespace
