//===- ShardTensorParallelTest.cpp - shards against one GPU -----*- C++ -*-===//
//-*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tfuse-shard-tensor-parallel against the single-GPU layer it was made from.
// The layer (a tfuse-import output under Inputs/) is evaluated with the CPU
// reference on random inputs; the sharded program is evaluated for every
// rank, op by op in lockstep, on the rank's slices of the same inputs (cut
// as each argument's tfuse.shard says), with each tfuse.all_reduce given the
// true cross-rank sum (ref::allReduce). Every rank must return the
// single-GPU result within f32 rounding: the ranks regroup the sums of the
// row-split GEMMs, each rounded to f32, so the results differ by a few ulps
// of the partial sums (tolerance 1e-5 relative to the largest magnitude,
// against values of order 1).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/ReferenceGraph.h"
#include "tfuse/Pipelines/CompileBundle.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

class ShardTensorParallelTest : public ::testing::Test {
protected:
  ShardTensorParallelTest() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerCompileBundleDependencies(registry);
    return registry;
  }

  OwningOpRef<ModuleOp> load(StringRef name) {
    std::string path = std::string(TFUSE_SOURCE_DIR) +
                       "/test/unit/Transforms/Inputs/" + name.str();
    auto buffer = llvm::MemoryBuffer::getFile(path);
    EXPECT_TRUE(bool(buffer)) << path;
    if (!buffer)
      return nullptr;
    return parseSourceString<ModuleOp>((*buffer)->getBuffer(), &context);
  }

  /// Rank `rank`'s piece of the full tensor `x` for `shard` = {axis, degree,
  /// segments}: the rank-th 1/degree of every segment along the axis.
  static ref::Tensor piece(const ref::Tensor &x, DictionaryAttr shard,
                           int64_t rank) {
    int64_t axis = cast<IntegerAttr>(shard.get("axis")).getInt();
    int64_t degree = cast<IntegerAttr>(shard.get("degree")).getInt();
    ArrayRef<int64_t> segments =
        cast<DenseI64ArrayAttr>(shard.get("segments")).asArrayRef();
    std::vector<ref::Tensor> parts;
    int64_t start = 0;
    for (int64_t segment : segments) {
      std::vector<int64_t> offsets(x.shape.size(), 0), sizes = x.shape;
      offsets[axis] = start + rank * (segment / degree);
      sizes[axis] = segment / degree;
      parts.push_back(ref::slice(x, offsets, sizes));
      start += segment;
    }
    return parts.size() == 1 ? parts.front() : ref::concat(parts, axis);
  }

  /// Runs `func` for `ranks` ranks at once: ranksArgs[r] are rank r's
  /// arguments; returns each rank's results.
  static std::vector<std::vector<ref::Tensor>>
  runRanks(func::FuncOp func,
           const std::vector<std::vector<ref::Tensor>> &rankArgs) {
    size_t ranks = rankArgs.size();
    DenseMap<Value, std::vector<ref::Tensor>> values;
    for (BlockArgument arg : func.getArguments())
      for (size_t r = 0; r < ranks; ++r)
        values[arg].push_back(rankArgs[r][arg.getArgNumber()]);
    std::vector<std::vector<ref::Tensor>> results(ranks);
    for (Operation &op : func.getBody().front()) {
      if (isa<func::ReturnOp>(op)) {
        for (Value v : op.getOperands())
          for (size_t r = 0; r < ranks; ++r)
            results[r].push_back(values[v][r]);
        break;
      }
      if (auto reduce = dyn_cast<AllReduceOp>(op)) {
        EXPECT_EQ(static_cast<int64_t>(reduce.getGroupSize()),
                  static_cast<int64_t>(ranks));
        values[reduce.getResult()] = ref::allReduce(values[reduce.getInput()]);
        continue;
      }
      SetVector<Value> operands(op.getOperands().begin(),
                                op.getOperands().end());
      FailureOr<ref::RefGraph> graph =
          buildReferenceGraph(operands.getArrayRef(), {&op}, op.getResults());
      EXPECT_TRUE(succeeded(graph));
      if (failed(graph))
        return {};
      for (size_t r = 0; r < ranks; ++r) {
        std::vector<ref::Tensor> inputs;
        for (Value v : operands)
          inputs.push_back(values[v][r]);
        std::string error;
        auto out = ref::evaluateGraph(*graph, inputs, error);
        EXPECT_TRUE(out.has_value()) << error;
        if (!out)
          return {};
        for (auto [i, result] : llvm::enumerate(op.getResults()))
          values[result].push_back((*out)[i]);
      }
    }
    return results;
  }

  /// Shards the layer in `file` over `degree` ranks and compares every
  /// rank's result with the single-GPU one; returns the number of
  /// all-reduces of the sharded program.
  int checkLayer(StringRef file, int64_t degree) {
    OwningOpRef<ModuleOp> original = load(file);
    EXPECT_TRUE(original);
    if (!original)
      return -1;
    OwningOpRef<ModuleOp> sharded = original->clone();
    PassManager pm(&context);
    TFuseShardTensorParallelOptions options;
    options.degree = degree;
    pm.addPass(createTFuseShardTensorParallel(options));
    EXPECT_TRUE(succeeded(pm.run(*sharded)));
    EXPECT_TRUE(succeeded(verify(*sharded)));

    auto single = *original->getOps<func::FuncOp>().begin();
    auto rankFunc = *sharded->getOps<func::FuncOp>().begin();
    std::vector<ref::Tensor> args;
    for (auto [i, type] : llvm::enumerate(single.getArgumentTypes())) {
      auto tensor = cast<RankedTensorType>(type);
      std::vector<int64_t> shape(tensor.getShape().begin(),
                                 tensor.getShape().end());
      args.push_back(ref::randomTensor(ref::DType::F32, shape, 2026, i));
    }
    FailureOr<std::vector<ref::Tensor>> expected =
        evaluateFunction(single, args);
    EXPECT_TRUE(succeeded(expected));
    if (failed(expected))
      return -1;

    std::vector<std::vector<ref::Tensor>> rankArgs(degree);
    int splitArgs = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      auto shard = rankFunc.getArgAttrOfType<DictionaryAttr>(i, "tfuse.shard");
      splitArgs += shard ? 1 : 0;
      for (int64_t r = 0; r < degree; ++r)
        rankArgs[r].push_back(shard ? piece(args[i], shard, r) : args[i]);
    }
    EXPECT_GT(splitArgs, 0);
    std::vector<std::vector<ref::Tensor>> got = runRanks(rankFunc, rankArgs);
    EXPECT_EQ(got.size(), static_cast<size_t>(degree));
    for (const std::vector<ref::Tensor> &rank : got) {
      EXPECT_EQ(rank.size(), expected->size());
      for (size_t k = 0; k < rank.size() && k < expected->size(); ++k) {
        const ref::Tensor &want = (*expected)[k];
        EXPECT_EQ(rank[k].shape, want.shape);
        double scale = 0.0, worst = 0.0;
        for (double v : want.data)
          scale = std::max(scale, std::fabs(v));
        for (size_t e = 0; e < want.data.size(); ++e)
          worst = std::max(worst, std::fabs(rank[k].data[e] - want.data[e]));
        EXPECT_LE(worst, 1e-5 * scale) << file.str() << " degree " << degree;
        EXPECT_GT(scale, 0.0);
      }
    }
    int reduces = 0;
    rankFunc.walk([&](AllReduceOp) { ++reduces; });
    return reduces;
  }

  MLIRContext context;
};

// GPT-2: fused c_attn [16, 48] cut into q, k and v pieces per rank; 4 heads.
TEST_F(ShardTensorParallelTest, Gpt2LayerMatchesOneGpu) {
  EXPECT_EQ(checkLayer("tiny-gpt2-layer.mlir", 2), 2);
  EXPECT_EQ(checkLayer("tiny-gpt2-layer.mlir", 4), 2);
}

// LLaMA: 4 query heads, 2 key/value heads (GQA), rope, gated MLP, RMSNorm.
TEST_F(ShardTensorParallelTest, LlamaLayerMatchesOneGpu) {
  EXPECT_EQ(checkLayer("tiny-llama-layer.mlir", 2), 2);
}

// BERT: post-LayerNorm, additive attention mask, biases everywhere.
TEST_F(ShardTensorParallelTest, BertLayerMatchesOneGpu) {
  EXPECT_EQ(checkLayer("tiny-bert-layer.mlir", 2), 2);
  EXPECT_EQ(checkLayer("tiny-bert-layer.mlir", 4), 2);
}

} // namespace
