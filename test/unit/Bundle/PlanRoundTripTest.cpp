//===- PlanRoundTripTest.cpp - plan.json written, read, written -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The compiler writes plan.json with formatPlan and the runtime reads it with
// parsePlan: one schema. Writing what was read gives the same text, and the
// text read back gives the same plan, field for field.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Bundle/Plan.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir::tfuse;
using namespace mlir::tfuse::bundle;

namespace {

/// A plan with every kind of buffer and step, and numbers JSON cannot spell.
Plan samplePlan() {
  Plan plan;
  plan.function = "layer";
  plan.target = {"h200", "sm_90", 4800, 4320};
  plan.ptxFile = "kernels.ptx";
  plan.ptxHash = contentHash("ptx");
  plan.cubinFile = "kernels.sm_90.cubin";
  plan.cubinHash = contentHash("cubin");
  plan.arenaBytes = 512;
  auto buffer = [&](int64_t id, std::string name, std::vector<int64_t> shape,
                    BufferKind kind) {
    PlanBuffer b;
    b.id = id;
    b.name = std::move(name);
    b.shape = std::move(shape);
    b.dtype = ref::DType::F32;
    b.bytes = 4 * ref::numElements(b.shape);
    b.kind = kind;
    plan.buffers.push_back(b);
    return plan.buffers.size() - 1;
  };
  size_t x = buffer(0, "x", {4, 8}, BufferKind::Input);
  size_t w = buffer(1, "w", {8, 8}, BufferKind::Input);
  size_t bias = buffer(2, "%2", {8}, BufferKind::Constant);
  plan.buffers[bias].values = {0.5, -1.0,     HUGE_VAL, -HUGE_VAL,
                               0,   0x1p-100, 3,        4};
  size_t y = buffer(3, "%3", {4, 8}, BufferKind::Temp);
  size_t out = buffer(4, "%4", {4, 8}, BufferKind::Output);
  size_t view = buffer(5, "%5", {32}, BufferKind::Alias);
  plan.buffers[view].aliasOf = out;
  plan.inputs = {x, w};
  plan.outputs = {out};

  PlanStep gemm;
  gemm.kind = StepKind::Gemm;
  gemm.name = "gemm_0";
  gemm.inputs = {x, w, bias};
  gemm.outputs = {y};
  gemm.predictedUs = 1.25;
  gemm.bytes = 416;
  gemm.flops = 512;
  gemm.gemm.lhs = x;
  gemm.gemm.rhs = w;
  gemm.gemm.bias = bias;
  gemm.gemm.out = y;
  gemm.gemm.epilogue = Epilogue::BiasGelu;
  gemm.gemm.m = 4;
  gemm.gemm.n = 8;
  gemm.gemm.k = 8;
  gemm.ops.arguments = {{ref::DType::F32, {4, 8}},
                        {ref::DType::F32, {8, 8}},
                        {ref::DType::F32, {8}}};
  ref::RefOp matmul{"tfuse.matmul", {0, 1}, {{ref::DType::F32, {4, 8}}}, {}};
  matmul.attributes["transpose_lhs"] = false;
  matmul.attributes["transpose_rhs"] = false;
  ref::RefOp add{"tfuse.add", {3, 2}, {{ref::DType::F32, {4, 8}}}, {}};
  ref::RefOp gelu{"tfuse.gelu", {4}, {{ref::DType::F32, {4, 8}}}, {}};
  gelu.attributes["approximate"] = std::string("tanh");
  gemm.ops.ops = {matmul, add, gelu};
  gemm.ops.yields = {5};
  plan.steps.push_back(gemm);

  PlanStep kernel;
  kernel.kind = StepKind::Kernel;
  kernel.name = "loop_0";
  kernel.inputs = {y};
  kernel.outputs = {out};
  kernel.predictedUs = 1.0000000000000002;
  kernel.bytes = 256;
  kernel.flops = 64;
  kernel.launch = {"loop_0",
                   "loop",
                   {2, 1, 1},
                   {128, 1, 1},
                   0,
                   {y, out},
                   {{ParamAccess::Read, 128}, {ParamAccess::Write, 128}}};
  kernel.ops.arguments = {{ref::DType::F32, {4, 8}}};
  ref::RefOp mul{"tfuse.mul", {0, 1}, {{ref::DType::F32, {4, 8}}}, {}};
  ref::RefOp half{"tfuse.constant", {}, {{ref::DType::F32, {}}}, {}};
  half.attributes["splat"] = std::nan("");
  kernel.ops.ops = {half, mul};
  kernel.ops.ops[1].operands = {0, 1};
  kernel.ops.yields = {2};
  plan.steps.push_back(kernel);
  return plan;
}

TEST(PlanRoundTrip, WriteReadWriteIsIdentical) {
  std::string text = formatPlan(samplePlan());
  PlanLoadResult loaded = parsePlan(text, "plan.json");
  ASSERT_FALSE(loaded.hasErrors()) << loaded.formatDiagnostics() << text;
  ASSERT_TRUE(loaded.plan);
  EXPECT_EQ(formatPlan(*loaded.plan), text);
}

TEST(PlanRoundTrip, ReadGivesTheFieldsWritten) {
  Plan written = samplePlan();
  PlanLoadResult loaded = parsePlan(formatPlan(written), "plan.json");
  ASSERT_TRUE(loaded.plan) << loaded.formatDiagnostics();
  const Plan &read = *loaded.plan;
  EXPECT_EQ(read.schemaVersion, kPlanSchemaVersion);
  EXPECT_EQ(read.function, "layer");
  EXPECT_EQ(read.target.achievableBandwidthGBps, 4320);
  EXPECT_EQ(read.cubinFile, written.cubinFile);
  EXPECT_EQ(read.ptxHash, written.ptxHash);
  EXPECT_EQ(read.cubinHash, written.cubinHash);
  ASSERT_EQ(read.buffers.size(), written.buffers.size());
  for (size_t i = 0; i < read.buffers.size(); ++i) {
    EXPECT_EQ(read.buffers[i].id, written.buffers[i].id);
    EXPECT_EQ(read.buffers[i].kind, written.buffers[i].kind);
    EXPECT_EQ(read.buffers[i].shape, written.buffers[i].shape);
  }
  // Non-finite constants survive as the strings the reader takes.
  EXPECT_EQ(read.buffers[2].values[2], HUGE_VAL);
  EXPECT_EQ(read.buffers[2].values[3], -HUGE_VAL);
  EXPECT_EQ(read.buffers[5].aliasOf, 4);
  EXPECT_EQ(read.buffers[5].storage, 4);
  ASSERT_EQ(read.steps.size(), 2u);
  EXPECT_EQ(read.steps[0].gemm.epilogue, Epilogue::BiasGelu);
  EXPECT_EQ(read.steps[0].gemm.bias, std::optional<size_t>(2));
  EXPECT_EQ(read.steps[0].ops.ops.size(), 3u);
  EXPECT_EQ(std::get<std::string>(
                read.steps[0].ops.ops[2].attributes.at("approximate")),
            "tanh");
  EXPECT_EQ(read.steps[1].predictedUs, 1.0000000000000002);
  EXPECT_EQ(read.steps[1].launch.args, (std::vector<size_t>{3, 4}));
  EXPECT_EQ(read.steps[1].launch.params, written.steps[1].launch.params);
  EXPECT_EQ(read.steps[1].launch.block[0], 128u);
}

TEST(PlanRoundTrip, NothingNonJsonIsWritten) {
  std::string text = formatPlan(samplePlan());
  for (const char *word : {"inf,", "nan,", "NaN", "Infinity", "null"})
    EXPECT_EQ(text.find(std::string(" ") + word), std::string::npos) << word;
}

} // namespace
