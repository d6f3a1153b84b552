//===- PlanReaderTest.cpp - plan.json loading and validation ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of rt::parsePlan/loadPlan: a valid plan, then one mutation per
// class of error, each checked with its exact message, JSON path and
// position. Expected positions are found by searching the mutated text for
// the offending token (never with the code under test).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Bundle/Plan.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace mlir::tfuse;
using namespace mlir::tfuse::bundle;

namespace {

const char kValidPlan[] = R"({
  "schema_version": 2,
  "function": "tiny",
  "target": {"name": "h200", "sm_arch": "sm_90", "bandwidth_gbps": 4800,
             "achievable_bandwidth_gbps": 4320},
  "module": {"ptx": "kernels.ptx", "ptx_hash": "fnv1a64:0123456789abcdef"},
  "arena_bytes": 512,
  "buffers": [
    {"id": 0, "name": "x", "shape": [2, 4], "dtype": "f32", "bytes": 32, "kind": "input"},
    {"id": 1, "name": "w", "shape": [4, 3], "dtype": "f32", "bytes": 48, "kind": "input"},
    {"id": 2, "name": "b", "shape": [3], "dtype": "f32", "bytes": 12, "kind": "constant", "values": [0.5, -1, "-inf"]},
    {"id": 3, "name": "t", "shape": [2, 4], "dtype": "f32", "bytes": 32, "kind": "temp", "offset": 0},
    {"id": 4, "name": "y", "shape": [2, 3], "dtype": "f32", "bytes": 24, "kind": "temp", "offset": 256},
    {"id": 5, "name": "y.flat", "shape": [6], "dtype": "f32", "bytes": 24, "kind": "alias", "alias_of": 4}
  ],
  "inputs": [0, 1],
  "outputs": [5],
  "steps": [
    {"kind": "kernel", "name": "exp_0", "kernel": "exp_kernel", "template": "loop",
     "grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 0, "args": [0, 3],
     "params": [{"access": "read", "bytes": 32}, {"access": "write", "bytes": 32}],
     "inputs": [0], "outputs": [3], "predicted_us": 2.5, "bytes": 64, "flops": 8,
     "ops": {"arguments": [{"shape": [2, 4], "dtype": "f32"}],
             "ops": [{"op": "tfuse.exp", "operands": [0],
                      "results": [{"shape": [2, 4], "dtype": "f32"}], "attributes": {}}],
             "yields": [1]}},
    {"kind": "gemm", "name": "matmul_1", "lhs": 3, "rhs": 1, "out": 4, "bias": 2,
     "epilogue": "bias_relu", "transpose_lhs": false, "transpose_rhs": false,
     "batch": 1, "m": 2, "n": 3, "k": 4,
     "lhs_batch_stride": 0, "rhs_batch_stride": 0, "out_batch_stride": 0, "dtype": "f32",
     "inputs": [3, 1, 2], "outputs": [4], "predicted_us": 5, "bytes": 104, "flops": 48,
     "ops": {"arguments": [{"shape": [2, 4], "dtype": "f32"}, {"shape": [4, 3], "dtype": "f32"},
                           {"shape": [3], "dtype": "f32"}],
             "ops": [{"op": "tfuse.matmul", "operands": [0, 1],
                      "results": [{"shape": [2, 3], "dtype": "f32"}],
                      "attributes": {"transpose_lhs": false, "transpose_rhs": false}},
                     {"op": "tfuse.add", "operands": [3, 2],
                      "results": [{"shape": [2, 3], "dtype": "f32"}]},
                     {"op": "tfuse.relu", "operands": [4],
                      "results": [{"shape": [2, 3], "dtype": "f32"}]}],
             "yields": [5]}}
  ]
}
)";

/// `text` with the only occurrence of `from` replaced by `to`.
std::string replace(const std::string &text, const std::string &from,
                    const std::string &to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "not found: " << from;
  EXPECT_EQ(text.find(from, pos + 1), std::string::npos)
      << "ambiguous: " << from;
  if (pos == std::string::npos)
    return text;
  return text.substr(0, pos) + to + text.substr(pos + from.size());
}

/// "plan.json:LINE:COL" of the first occurrence of `needle` (after `after`,
/// when given) in `text`.
std::string at(const std::string &text, const std::string &needle,
               const std::string &after = "") {
  size_t start = after.empty() ? 0 : text.find(after);
  size_t pos = text.find(needle, start);
  EXPECT_NE(pos, std::string::npos) << "not found: " << needle;
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "plan.json:" + std::to_string(line) + ":" + std::to_string(column);
}

/// All diagnostics of `text`, which must fail to load.
std::string errors(const std::string &text) {
  PlanLoadResult r = parsePlan(text, "plan.json");
  EXPECT_FALSE(r.plan.has_value());
  return r.formatDiagnostics();
}

//===----------------------------------------------------------------------===//
// A valid plan
//===----------------------------------------------------------------------===//

TEST(PlanLoad, ValidPlan) {
  PlanLoadResult r = parsePlan(kValidPlan, "plan.json");
  ASSERT_TRUE(r.plan.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.formatDiagnostics(), "");
  const Plan &p = *r.plan;
  EXPECT_EQ(p.function, "tiny");
  EXPECT_EQ(p.target.name, "h200");
  EXPECT_EQ(p.target.smArch, "sm_90");
  EXPECT_EQ(p.target.bandwidthGBps, 4800);
  EXPECT_EQ(p.target.achievableBandwidthGBps, 4320);
  EXPECT_EQ(p.ptxFile, "kernels.ptx");
  EXPECT_FALSE(p.cubinFile.has_value());
  EXPECT_EQ(p.arenaBytes, 512);
  ASSERT_EQ(p.buffers.size(), 6u);
  EXPECT_EQ(p.buffers[2].kind, BufferKind::Constant);
  ASSERT_EQ(p.buffers[2].values.size(), 3u);
  EXPECT_EQ(p.buffers[2].values[1], -1);
  EXPECT_TRUE(std::isinf(p.buffers[2].values[2]));
  EXPECT_EQ(p.buffers[4].offset, 256);
  EXPECT_EQ(p.buffers[5].kind, BufferKind::Alias);
  EXPECT_EQ(p.buffers[5].aliasOf, 4);
  EXPECT_EQ(p.buffers[5].storage, 4);
  EXPECT_EQ(p.buffers[3].storage, 3);
  EXPECT_EQ(p.inputs, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(p.outputs, (std::vector<size_t>{5}));
  ASSERT_EQ(p.steps.size(), 2u);

  const PlanStep &k = p.steps[0];
  EXPECT_EQ(k.kind, StepKind::Kernel);
  EXPECT_EQ(k.launch.kernel, "exp_kernel");
  EXPECT_EQ(k.launch.templateName, "loop");
  EXPECT_EQ(k.launch.block[0], 32u);
  EXPECT_EQ(k.launch.args, (std::vector<size_t>{0, 3}));
  EXPECT_EQ(k.launch.params,
            (std::vector<KernelParam>{{ParamAccess::Read, 32},
                                      {ParamAccess::Write, 32}}));
  EXPECT_EQ(p.ptxHash, "fnv1a64:0123456789abcdef");
  EXPECT_EQ(k.ops.ops.size(), 1u);
  EXPECT_EQ(k.ops.yields, (std::vector<int>{1}));

  const PlanStep &g = p.steps[1];
  EXPECT_EQ(g.kind, StepKind::Gemm);
  EXPECT_EQ(g.gemm.lhs, 3u);
  EXPECT_EQ(g.gemm.rhs, 1u);
  EXPECT_EQ(g.gemm.out, 4u);
  ASSERT_TRUE(g.gemm.bias.has_value());
  EXPECT_EQ(*g.gemm.bias, 2u);
  EXPECT_EQ(g.gemm.epilogue, Epilogue::BiasRelu);
  EXPECT_EQ(g.gemm.m, 2);
  EXPECT_EQ(g.gemm.n, 3);
  EXPECT_EQ(g.gemm.k, 4);
  EXPECT_EQ(g.gemm.dtype, ref::DType::F32);
  EXPECT_EQ(g.ops.ops.size(), 3u);
  // Attributes keep their JSON types.
  EXPECT_EQ(std::get<bool>(g.ops.ops[0].attributes.at("transpose_lhs")), false);
  EXPECT_EQ(p.predictedTotalUs(), 7.5);
  EXPECT_EQ(p.describeStep(1), "step 1 ('matmul_1')");
  EXPECT_EQ(p.describeBuffer(5), "buffer 5 ('y.flat')");
}

TEST(PlanLoad, BufferIdsNeedNotBeDense) {
  std::string text = kValidPlan;
  // Renumber buffer 5 to 50 and its one use.
  text = replace(text, R"("id": 5,)", R"("id": 50,)");
  text = replace(text, R"("outputs": [5],)", R"("outputs": [50],)");
  PlanLoadResult r = parsePlan(text, "plan.json");
  ASSERT_TRUE(r.plan.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.plan->buffers[5].id, 50);
  EXPECT_EQ(r.plan->outputs, (std::vector<size_t>{5}));
}

TEST(PlanLoad, OutputListedThroughAnAlias) {
  // tfuse-compile's plan for a function returning a reshape: the reshaped
  // buffer has kind "output" (outside the arena), and `outputs` lists the
  // alias. Found by fuzzing: the reader said the output was not listed.
  std::string text =
      replace(kValidPlan, R"("bytes": 24, "kind": "temp", "offset": 256},)",
              R"("bytes": 24, "kind": "output"},)");
  PlanLoadResult r = parsePlan(text, "plan.json");
  ASSERT_TRUE(r.plan.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.plan->buffers[4].kind, BufferKind::Output);
  EXPECT_EQ(r.plan->outputs, (std::vector<size_t>{5}));
  // An output reached by no entry of `outputs` is still an error.
  text = replace(text, R"("outputs": [5],)", R"("outputs": [0],)");
  EXPECT_NE(errors(text).find("$.buffers[4]: buffer 4 ('y') has kind "
                              "\"output\" but is not in $.outputs"),
            std::string::npos)
      << errors(text);
}

TEST(PlanLoad, UnknownKeysAreWarnings) {
  std::string text = replace(kValidPlan, R"("template": "loop",)",
                             R"("template": "loop", "colour": "red",)");
  PlanLoadResult r = parsePlan(text, "plan.json");
  ASSERT_TRUE(r.plan.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.formatDiagnostics(),
            at(text, R"("colour")") +
                ": warning: $.steps[0].colour: unknown key \"colour\" "
                "(ignored)\n");
}

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

TEST(PlanErrors, TruncatedFile) {
  std::string text = kValidPlan;
  text = text.substr(0, text.find(R"("outputs": [5],)"));
  // The error is at the end of the text.
  size_t lastNewline = text.rfind('\n');
  std::string end =
      "plan.json:" +
      std::to_string(std::count(text.begin(), text.end(), '\n') + 1) + ":" +
      std::to_string(text.size() - lastNewline);
  EXPECT_EQ(errors(text), end + ": error: unexpected end of input: the object "
                                "opened at 1:1 is not closed\n");
}

TEST(PlanErrors, Garbage) {
  EXPECT_EQ(errors("PK\x03\x04 not json"),
            "plan.json:1:1: error: unexpected word 'PK': expected a value "
            "(strings must be enclosed in double quotes)\n");
  EXPECT_EQ(errors(""),
            "plan.json:1:1: error: empty document: expected a JSON value\n");
  EXPECT_EQ(errors("[1, 2]"),
            "plan.json:1:1: error: $: expected an object, got an array\n");
}

TEST(PlanErrors, DuplicateKey) {
  std::string text = replace(kValidPlan, R"("arena_bytes": 512,)",
                             R"("arena_bytes": 512, "arena_bytes": 1024,)");
  EXPECT_EQ(errors(text),
            at(text, R"("arena_bytes": 1024)") +
                ": error: $.arena_bytes: duplicate key \"arena_bytes\" (first "
                "defined at " +
                at(text, R"("arena_bytes")").substr(10) + ")\n");
}

//===----------------------------------------------------------------------===//
// Schema
//===----------------------------------------------------------------------===//

TEST(PlanErrors, SchemaVersion) {
  std::string text =
      replace(kValidPlan, R"("schema_version": 2)", R"("schema_version": 1)");
  EXPECT_EQ(errors(text), at(text, "1,") +
                              ": error: $.schema_version: unsupported schema "
                              "version 1; this version of tfuse-run reads "
                              "schema version 2\n");
  text = replace(kValidPlan, "  \"schema_version\": 2,\n", "");
  EXPECT_EQ(errors(text), "plan.json:1:1: error: $.schema_version: required "
                          "key is missing (this version of tfuse-run reads "
                          "schema version 2)\n");
}

TEST(PlanErrors, MissingKey) {
  std::string text =
      replace(kValidPlan, R"("bytes": 64, "flops": 8,)", R"("bytes": 64,)");
  EXPECT_EQ(errors(text), at(text, R"({"kind": "kernel")") +
                              ": error: $.steps[0].flops: required key is "
                              "missing\n");
}

TEST(PlanErrors, WrongTypes) {
  std::string text =
      replace(kValidPlan, R"("grid": [1, 1, 1])", R"("grid": [0, 1, 1])");
  EXPECT_EQ(errors(text), at(text, "0, 1, 1]") +
                              ": error: $.steps[0].grid[0]: expected an "
                              "integer in [1, 2147483647], got 0\n");
  text = replace(kValidPlan, R"("grid": [1, 1, 1])", R"("grid": [1, 1])");
  EXPECT_EQ(errors(text), at(text, "[1, 1]") +
                              ": error: $.steps[0].grid: expected an array of "
                              "exactly 3 elements, got 2 elements\n");
  text = replace(kValidPlan, R"("predicted_us": 2.5)",
                 R"("predicted_us": "fast")");
  EXPECT_EQ(errors(text), at(text, R"("fast")") +
                              ": error: $.steps[0].predicted_us: expected a "
                              "non-negative number, got \"fast\"\n");
  text = replace(kValidPlan, R"("dtype": "f32", "bytes": 32, "kind": "input")",
                 R"("dtype": "f64", "bytes": 32, "kind": "input")");
  EXPECT_EQ(errors(text), at(text, R"("f64")") +
                              ": error: $.buffers[0].dtype: expected one of "
                              "\"f32\", \"f16\", \"bf16\", \"i32\", \"i64\", "
                              "got \"f64\"\n");
  text = replace(kValidPlan, R"({"kind": "kernel")", R"({"kind": "kernal")");
  EXPECT_EQ(errors(text).substr(0, errors(text).find('\n') + 1),
            at(text, R"("kernal")") +
                ": error: $.steps[0].kind: expected one of \"kernel\", "
                "\"gemm\", got \"kernal\" (did you mean \"kernel\"?)\n");
  text =
      replace(kValidPlan, R"("block": [32, 1, 1])", R"("block": [64, 32, 1])");
  EXPECT_EQ(errors(text), at(text, "[64, 32, 1]") +
                              ": error: $.steps[0].block: a block of 2048 "
                              "threads exceeds the limit of 1024\n");
  text = replace(kValidPlan, R"("sm_arch": "sm_90")", R"("sm_arch": "hopper")");
  EXPECT_EQ(errors(text), at(text, R"("hopper")") +
                              ": error: $.target.sm_arch: expected an SM "
                              "architecture such as \"sm_90\", got "
                              "\"hopper\"\n");
}

TEST(PlanErrors, NeverCrashesOnDamagedInput) {
  // Every truncation, and every scalar value replaced by each wrong kind,
  // gives errors and no plan.
  std::string text = kValidPlan;
  for (size_t n = 0; n + 2 < text.size(); ++n)
    EXPECT_FALSE(parsePlan(text.substr(0, n), "plan.json").plan.has_value())
        << n;
  size_t replaced = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    // The start of a number, true/false or string value (after ": " or
    // "[" or ", ").
    bool valueStart = pos >= 2 && (text.compare(pos - 2, 2, ": ") == 0 ||
                                   text[pos - 1] == '[' ||
                                   text.compare(pos - 2, 2, ", ") == 0);
    if (!valueStart || !(std::isdigit(static_cast<unsigned char>(text[pos])) ||
                         text[pos] == 't' || text[pos] == 'f'))
      continue;
    size_t end = pos;
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) ||
            text[end] == '.' || text[end] == '-'))
      ++end;
    for (const char *bad : {"-1", "\"x\"", "null", "[]", "{}", "1e300"}) {
      std::string mutated = text.substr(0, pos) + bad + text.substr(end);
      parsePlan(mutated, "plan.json");
      ++replaced;
    }
  }
  EXPECT_GT(replaced, 500u);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

TEST(PlanErrors, DanglingBufferIds) {
  std::string text = replace(kValidPlan, R"("inputs": [0], "outputs": [3])",
                             R"("inputs": [9], "outputs": [3])");
  EXPECT_EQ(errors(text), at(text, "9]") +
                              ": error: $.steps[0].inputs[0]: no buffer has "
                              "id 9\n");
  text = replace(kValidPlan, R"("alias_of": 4)", R"("alias_of": 7)");
  EXPECT_EQ(errors(text), at(text, "7}") +
                              ": error: $.buffers[5].alias_of: no buffer has "
                              "id 7\n");
  text = replace(kValidPlan, R"("lhs": 3,)", R"("lhs": 42,)");
  EXPECT_EQ(errors(text),
            at(text, "42") + ": error: $.steps[1].lhs: no buffer has id 42\n");
}

TEST(PlanErrors, DuplicateBufferId) {
  std::string text = replace(kValidPlan, R"("id": 5,)", R"("id": 4,)");
  EXPECT_EQ(errors(text).substr(0, errors(text).find('\n') + 1),
            at(text, "4, \"name\": \"y.flat\"") +
                ": error: $.buffers[5].id: duplicate buffer id 4 (also "
                "$.buffers[4])\n");
}

TEST(PlanErrors, BytesMustMatchTheShape) {
  std::string text = replace(kValidPlan, R"("bytes": 48,)", R"("bytes": 47,)");
  EXPECT_EQ(errors(text), at(text, "47") +
                              ": error: $.buffers[1].bytes: expected 48 (12 "
                              "elements of f32), got 47\n");
}

TEST(PlanErrors, ArenaBoundsAndAlignment) {
  std::string text =
      replace(kValidPlan, R"("offset": 256)", R"("offset": 100)");
  EXPECT_EQ(errors(text), at(text, "100") +
                              ": error: $.buffers[4].offset: the arena offset "
                              "100 is not a multiple of 256\n");
  text = replace(kValidPlan, R"("offset": 256)", R"("offset": 512)");
  EXPECT_EQ(errors(text), at(text, "512}") +
                              ": error: $.buffers[4].offset: the temp's bytes "
                              "[512, 536) exceed the arena (arena_bytes = "
                              "512)\n");
}

TEST(PlanErrors, Aliases) {
  // 4 aliases 5 and 5 aliases 4.
  std::string text = replace(kValidPlan, R"("kind": "temp", "offset": 256})",
                             R"("kind": "alias", "alias_of": 5})");
  std::string diags = errors(text);
  EXPECT_NE(diags.find(": error: $.buffers[4].alias_of: the aliases form a "
                       "cycle\n"),
            std::string::npos)
      << diags;
  text = replace(kValidPlan, R"("alias_of": 4)", R"("alias_of": 5)");
  EXPECT_EQ(errors(text), at(text, "5}") +
                              ": error: $.buffers[5].alias_of: a buffer "
                              "cannot alias itself\n");
  // An alias larger than what it aliases.
  text =
      replace(kValidPlan,
              R"("shape": [6], "dtype": "f32", "bytes": 24, "kind": "alias")",
              R"("shape": [8], "dtype": "f32", "bytes": 32, "kind": "alias")");
  EXPECT_EQ(errors(text), at(text, "4}", R"("y.flat")") +
                              ": error: $.buffers[5].alias_of: the alias has "
                              "32 bytes but the buffer it shares, buffer 4 "
                              "('y'), has only 24\n");
}

TEST(PlanErrors, Constants) {
  std::string text = replace(kValidPlan, R"("values": [0.5, -1, "-inf"])",
                             R"("values": [0.1, -1, "-inf"])");
  EXPECT_EQ(errors(text), at(text, "0.1") +
                              ": error: $.buffers[2].values[0]: 0.1 is not "
                              "exactly representable in f32 (nearest: "
                              "0.10000000149011612)\n");
  text = replace(kValidPlan, R"("values": [0.5, -1, "-inf"])",
                 R"("values": [0.5, -1])");
  EXPECT_EQ(errors(text), at(text, "[0.5, -1]") +
                              ": error: $.buffers[2].values: expected 3 "
                              "values (the shape's elements), got 2\n");
}

TEST(PlanErrors, FunctionInputsAndOutputs) {
  std::string text =
      replace(kValidPlan, R"("outputs": [5],)", R"("outputs": [3],)");
  EXPECT_EQ(errors(text), at(text, "3],\n  \"steps\"") +
                              ": error: $.outputs[0]: buffer 3 ('t') has kind "
                              "\"temp\"; a function output must have kind "
                              "\"output\" or \"alias\"\n");
  text = replace(kValidPlan, R"("inputs": [0, 1],)", R"("inputs": [0],)");
  EXPECT_EQ(errors(text), at(text, R"({"id": 1,)") +
                              ": error: $.buffers[1]: buffer 1 ('w') has "
                              "kind \"input\" but is not in $.inputs\n");
}

//===----------------------------------------------------------------------===//
// Steps
//===----------------------------------------------------------------------===//

TEST(PlanErrors, StepWritesAnInput) {
  std::string text = replace(kValidPlan, R"("outputs": [3], "predicted_us")",
                             R"("outputs": [1], "predicted_us")");
  std::string diags = errors(text);
  EXPECT_EQ(diags.substr(0, diags.find('\n') + 1),
            at(text, "1], \"predicted_us\"") +
                ": error: $.steps[0].outputs[0]: a step cannot write buffer 1 "
                "('w'), whose bytes are those of a function input\n");
}

TEST(PlanErrors, Gemm) {
  std::string text = replace(kValidPlan, R"("bias": 2,)", "");
  std::string diags = errors(text);
  EXPECT_EQ(diags.substr(0, diags.find('\n') + 1),
            at(text, R"("bias_relu")") +
                ": error: $.steps[1].epilogue: the epilogue \"bias_relu\" adds "
                "a bias but the step has no \"bias\"\n");
  text = replace(kValidPlan, R"("k": 4,)", R"("k": 5,)");
  diags = errors(text);
  EXPECT_EQ(diags.substr(0, diags.find('\n') + 1),
            at(text, R"(3, "rhs")") +
                ": error: $.steps[1].lhs: buffer 3 ('t') has 8 elements but "
                "the GEMM reads or writes up to element 10 (batch 1, 2 x 5, "
                "stride 0)\n");
  text = replace(kValidPlan, R"("epilogue": "bias_relu")",
                 R"("epilogue": "bias_swish")");
  EXPECT_EQ(errors(text),
            at(text, R"("bias_swish")") +
                ": error: $.steps[1].epilogue: expected one of \"none\", "
                "\"bias\", \"gelu\", \"bias_gelu\", \"relu\", \"bias_relu\", "
                "got \"bias_swish\"\n");
}

TEST(PlanLoad, Tf32Gemm) {
  std::string text =
      replace(kValidPlan, R"("out_batch_stride": 0, "dtype": "f32",)",
              R"("out_batch_stride": 0, "dtype": "f32", "tf32": true,)");
  PlanLoadResult r = parsePlan(text, "plan.json");
  ASSERT_TRUE(r.plan.has_value()) << r.formatDiagnostics();
  EXPECT_TRUE(r.plan->steps[1].gemm.tf32);
  EXPECT_FALSE(parsePlan(kValidPlan, "plan.json").plan->steps[1].gemm.tf32);
  text = replace(kValidPlan, R"("out_batch_stride": 0, "dtype": "f32",)",
                 R"("out_batch_stride": 0, "dtype": "bf16", "tf32": true,)");
  EXPECT_NE(errors(text).find(
                "error: $.steps[1].tf32: a TF32 GEMM needs f32 operands, "
                "not bf16"),
            std::string::npos)
      << errors(text);
}

TEST(PlanErrors, Graphs) {
  std::string text =
      replace(kValidPlan, R"({"op": "tfuse.exp")", R"({"op": "tfuse.expp")");
  EXPECT_EQ(errors(text), at(text, R"("tfuse.expp")") +
                              ": error: $.steps[0].ops.ops[0].op: unknown op "
                              "\"tfuse.expp\" (did you mean \"tfuse.exp\"?)\n");
  text = replace(
      kValidPlan,
      R"("attributes": {"transpose_lhs": false, "transpose_rhs": false})",
      R"("attributes": {"transpose_lhs": false})");
  EXPECT_EQ(errors(text), at(text, R"({"op": "tfuse.matmul")") +
                              ": error: $.steps[1].ops.ops[0]: missing "
                              "attribute 'transpose_rhs'\n");
  text = replace(kValidPlan, R"("operands": [4],)", R"("operands": [6],)");
  EXPECT_EQ(errors(text), at(text, "6],", R"("tfuse.relu")") +
                              ": error: $.steps[1].ops.ops[2].operands[0]: "
                              "value 6 is not defined before this op (values "
                              "0..4 are)\n");
  text =
      replace(kValidPlan,
              R"("ops": {"arguments": [{"shape": [2, 4], "dtype": "f32"}],)",
              R"("ops": {"arguments": [{"shape": [2, 4], "dtype": "bf16"}],)");
  EXPECT_EQ(errors(text), at(text, R"({"shape": [2, 4], "dtype": "bf16"})") +
                              ": error: $.steps[0].ops.arguments[0]: argument "
                              "0 is [2, 4] bf16 but the step's input 0, "
                              "buffer 0 ('x'), is [2, 4] f32\n");
  text = replace(kValidPlan, R"("yields": [5])", R"("yields": [2])");
  EXPECT_EQ(errors(text), at(text, "2]}}\n  ]") +
                              ": error: $.steps[1].ops.yields[0]: value 2 is "
                              "[3] f32 but the step's output 0, buffer 4 "
                              "('y'), is [2, 3] f32\n");
}

//===----------------------------------------------------------------------===//
// Sizes and offsets near the limits of int64
//===----------------------------------------------------------------------===//

TEST(PlanErrors, TempOffsetNearInt64Max) {
  // 2^63 - 256: aligned, 32 bytes below INT64_MAX.
  std::string text =
      replace(kValidPlan, R"("kind": "temp", "offset": 0})",
              R"("kind": "temp", "offset": 9223372036854775552})");
  EXPECT_EQ(errors(text),
            at(text, "9223372036854775552") +
                ": error: $.buffers[3].offset: the temp's bytes "
                "[9223372036854775552, 9223372036854775584) exceed the "
                "arena (arena_bytes = 512)\n");
}

TEST(PlanErrors, BytesNearInt64Max) {
  std::string text = replace(
      kValidPlan, R"("bytes": 24, "kind": "temp", "offset": 256})",
      R"("bytes": 9223372036854775807, "kind": "temp", "offset": 256})");
  EXPECT_EQ(errors(text),
            at(text, "9223372036854775807") +
                ": error: $.buffers[4].bytes: expected 24 (6 elements of "
                "f32), got 9223372036854775807\n" +
                at(text, "256}", "9223372036854775807") +
                ": error: $.buffers[4].offset: the temp's bytes [256, 256 + "
                "9223372036854775807) exceed the arena (arena_bytes = 512)\n");
}

//===----------------------------------------------------------------------===//
// Kernel arguments against the kernel's parameters
//===----------------------------------------------------------------------===//

const char kParams[] =
    R"("params": [{"access": "read", "bytes": 32}, {"access": "write", "bytes": 32}])";

TEST(PlanErrors, FewerArgumentsThanParameters) {
  std::string text = replace(
      kValidPlan, kParams,
      R"("params": [{"access": "read", "bytes": 32}, {"access": "write", "bytes": 32}, {"access": "write", "bytes": 32}])");
  EXPECT_EQ(errors(text), at(text, "[0, 3]") +
                              ": error: $.steps[0].args: the step passes 2 "
                              "arguments but its kernel has 3 parameters "
                              "($.params)\n");
}

TEST(PlanErrors, KernelWritesAFunctionInput) {
  // The kernel writes its first parameter, bound to the input x.
  std::string text = replace(
      kValidPlan, kParams,
      R"("params": [{"access": "read_write", "bytes": 32}, {"access": "write", "bytes": 32}])");
  EXPECT_EQ(errors(text), at(text, "0, 3]") +
                              ": error: $.steps[0].args[0]: argument 0, "
                              "buffer 0 ('x'), has the bytes of a function "
                              "input, but the kernel writes its parameter 0\n");
  // The arguments swapped: x is written, t only read.
  text = replace(kValidPlan, R"("args": [0, 3])", R"("args": [3, 0])");
  EXPECT_EQ(errors(text),
            at(text, "[3, 0]") +
                ": error: $.steps[0].args: the step's output buffer 3 ('t') "
                "is not written by any kernel parameter\n" +
                at(text, "3, 0]") +
                ": error: $.steps[0].args[0]: argument 0, buffer 3 ('t'), is "
                "only read by the kernel but is not among the step's "
                "inputs\n" +
                at(text, "0]", "[3, 0]") +
                ": error: $.steps[0].args[1]: argument 1, buffer 0 ('x'), "
                "has the bytes of a function input, but the kernel writes its "
                "parameter 1\n");
}

TEST(PlanErrors, KernelWritesAConstant) {
  std::string text =
      replace(kValidPlan, R"("args": [0, 3])", R"("args": [0, 2])");
  text = replace(
      text, kParams,
      R"("params": [{"access": "read", "bytes": 32}, {"access": "write", "bytes": 12}])");
  EXPECT_EQ(errors(text),
            at(text, "[0, 2]") +
                ": error: $.steps[0].args: the step's output buffer 3 ('t') "
                "is not written by any kernel parameter\n" +
                at(text, "2]", "[0, 2]") +
                ": error: $.steps[0].args[1]: argument 1, buffer 2 ('b'), has "
                "the bytes of a function constant, but the kernel writes its "
                "parameter 1\n");
}

TEST(PlanErrors, ArgumentSizesAndRoles) {
  std::string text = replace(
      kValidPlan, kParams,
      R"("params": [{"access": "read", "bytes": 16}, {"access": "write", "bytes": 32}])");
  EXPECT_EQ(errors(text), at(text, "0, 3]") +
                              ": error: $.steps[0].args[0]: argument 0, "
                              "buffer 0 ('x'), has 32 bytes but the kernel's "
                              "parameter 0 is 16\n");
  // An input the kernel is not given.
  text = replace(kValidPlan, R"("args": [0, 3])", R"("args": [3])");
  text =
      replace(text, kParams, R"("params": [{"access": "write", "bytes": 32}])");
  EXPECT_EQ(errors(text), at(text, "[3]", R"("args")") +
                              ": error: $.steps[0].args: the step's input "
                              "buffer 0 ('x') is not among the kernel's "
                              "arguments\n");
  text = replace(
      kValidPlan, kParams,
      R"("params": [{"access": "read"}, {"access": "copy", "bytes": 32}])");
  EXPECT_EQ(errors(text),
            at(text, R"({"access": "read"})") +
                ": error: $.steps[0].params[0].bytes: required key is "
                "missing\n" +
                at(text, R"("copy")") +
                ": error: $.steps[0].params[1].access: expected one of "
                "\"read\", \"write\", \"read_write\", got \"copy\"\n");
  text = replace(kValidPlan, std::string(kParams) + ",\n", "");
  EXPECT_EQ(errors(text), at(text, R"({"kind": "kernel")") +
                              ": error: $.steps[0].params: required key is "
                              "missing\n");
}

TEST(PlanLoad, OneBufferReadAsSeveralOperands) {
  // exp's step as attention of %x, %x, %x compiles it: x read through two
  // parameters and listed as two inputs, one per graph argument.
  std::string text =
      replace(kValidPlan, R"("args": [0, 3])", R"("args": [0, 0, 3])");
  text = replace(
      text, kParams,
      R"("params": [{"access": "read", "bytes": 32}, {"access": "read", "bytes": 32}, {"access": "write", "bytes": 32}])");
  text = replace(text, R"("inputs": [0], "outputs": [3])",
                 R"("inputs": [0, 0], "outputs": [3])");
  text = replace(
      text, R"("ops": {"arguments": [{"shape": [2, 4], "dtype": "f32"}],
             "ops": [{"op": "tfuse.exp", "operands": [0],)",
      R"("ops": {"arguments": [{"shape": [2, 4], "dtype": "f32"}, {"shape": [2, 4], "dtype": "f32"}],
             "ops": [{"op": "tfuse.exp", "operands": [1],)");
  text = replace(text, R"("yields": [1]}},)", R"("yields": [2]}},)");
  PlanLoadResult r = parsePlan(text, "plan.json");
  ASSERT_TRUE(r.plan.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.plan->steps[0].launch.args, (std::vector<size_t>{0, 0, 3}));
}

TEST(PlanErrors, WrittenBufferPassedTwice) {
  // t written through parameter 1 and read through parameter 2: the kernel
  // would read what it overwrites.
  std::string text =
      replace(kValidPlan, R"("args": [0, 3])", R"("args": [0, 3, 3])");
  text = replace(
      text, kParams,
      R"("params": [{"access": "read", "bytes": 32}, {"access": "write", "bytes": 32}, {"access": "read", "bytes": 32}])");
  EXPECT_EQ(errors(text),
            at(text, "3, 3]") +
                ": error: $.steps[0].args[1]: argument 1, buffer 3 ('t'), is "
                "written by the kernel (write) and passed to another of its "
                "parameters too\n" +
                at(text, "3]", "[0, 3, 3]") +
                ": error: $.steps[0].args[2]: argument 2, buffer 3 ('t'), is "
                "only read by the kernel but is not among the step's "
                "inputs\n");
}

//===----------------------------------------------------------------------===//
// Content hashes
//===----------------------------------------------------------------------===//

TEST(ContentHash, Fnv1a64) {
  // The FNV-1a test vectors of the FNV specification.
  EXPECT_EQ(contentHash(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(contentHash("a"), "fnv1a64:af63dc4c8601ec8c");
  EXPECT_EQ(contentHash("foobar"), "fnv1a64:85944171f73967e8");
}

TEST(PlanErrors, HashFields) {
  std::string text =
      replace(kValidPlan, R"("fnv1a64:0123456789abcdef")", R"("md5:0123")");
  EXPECT_EQ(errors(text), at(text, R"("md5:0123")") +
                              ": error: $.module.ptx_hash: expected "
                              "\"fnv1a64:\" and 16 hex digits, got "
                              "\"md5:0123\"\n");
  text = replace(kValidPlan, R"(, "ptx_hash": "fnv1a64:0123456789abcdef")", "");
  EXPECT_EQ(errors(text), at(text, R"({"ptx": )") +
                              ": error: $.module.ptx_hash: required key is "
                              "missing\n");
  text = replace(kValidPlan, R"("ptx": "kernels.ptx",)",
                 R"("ptx": "kernels.ptx", "cubin": "k.cubin",)");
  EXPECT_EQ(errors(text), at(text, R"({"ptx": )") +
                              ": error: $.module.cubin_hash: required key is "
                              "missing\n");
  text = replace(
      kValidPlan, R"("ptx": "kernels.ptx",)",
      R"("ptx": "kernels.ptx", "cubin_hash": "fnv1a64:0123456789abcdef",)");
  EXPECT_EQ(errors(text), at(text, R"("fnv1a64:0123456789abcdef",)") +
                              ": error: $.module.cubin_hash: a hash of a "
                              "cubin the module does not name\n");
}

//===----------------------------------------------------------------------===//
// Bundle files
//===----------------------------------------------------------------------===//

class PlanFiles : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/tfuse-plan-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    for (const char *f : {"plan.json", "kernels.ptx"})
      std::remove((dir + "/" + f).c_str());
    ::rmdir(dir.c_str());
  }
  void write(const std::string &name, const std::string &text) {
    std::FILE *f = std::fopen((dir + "/" + name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  std::string dir;
};

const char kPtx[] = ".version 9.0\n.target sm_90\n.address_size 64\n"
                    "\t// .globl\texp_kernel\n"
                    ".visible .entry exp_kernel(\n\t.param .u64 p0,\n"
                    "\t.param .u64 p1\n)\n{\n}\n"
                    ".visible .entry other_kernel(\n)\n{\n}\n";

/// `plan` recording the hash of `ptx`.
std::string withPtxHash(const std::string &plan, const std::string &ptx) {
  return replace(plan, "fnv1a64:0123456789abcdef", contentHash(ptx));
}

TEST_F(PlanFiles, LoadsWithTheKernelsPtx) {
  write("plan.json", withPtxHash(kValidPlan, kPtx));
  write("kernels.ptx", kPtx);
  PlanLoadResult r = loadPlan(dir);
  ASSERT_TRUE(r.plan.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.plan->bundleDir, dir);
  EXPECT_EQ(r.path, dir + "/plan.json");
  // The runtime loads the bytes that were checked.
  EXPECT_EQ(r.plan->ptxText, kPtx);
}

TEST_F(PlanFiles, TornOrMixedBundle) {
  // kernels.ptx of another compile beside this plan.json.
  std::string other = std::string(kPtx) + "// recompiled\n";
  std::string text = withPtxHash(kValidPlan, kPtx);
  write("plan.json", text);
  write("kernels.ptx", other);
  PlanLoadResult r = loadPlan(dir);
  EXPECT_FALSE(r.plan.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            dir + "/" + at(text, R"("fnv1a64:)") +
                ": error: $.module.ptx_hash: kernels.ptx is not the file this "
                "plan was written with (its hash is " +
                contentHash(other) + ", the plan records " + contentHash(kPtx) +
                "): the bundle is torn or mixed from two compiles; compile "
                "it again\n");
}

TEST_F(PlanFiles, PlanParametersAgainstThePtx) {
  // The PTX's exp_kernel takes one pointer; the plan lists two parameters.
  std::string ptx = replace(kPtx, "\t.param .u64 p0,\n", "");
  std::string text = withPtxHash(kValidPlan, ptx);
  write("plan.json", text);
  write("kernels.ptx", ptx);
  EXPECT_EQ(loadPlan(dir).formatDiagnostics(),
            dir + "/" + at(text, R"([{"access": "read")") +
                ": error: $.steps[0].params: kernel \"exp_kernel\" has 1 "
                "parameters in kernels.ptx but the plan lists 2\n");
  // A parameter that is not a pointer.
  ptx = replace(kPtx, ".param .u64 p1", ".param .f32 p1");
  text = withPtxHash(kValidPlan, ptx);
  write("plan.json", text);
  write("kernels.ptx", ptx);
  EXPECT_EQ(loadPlan(dir).formatDiagnostics(),
            dir + "/" + at(text, R"([{"access": "read")") +
                ": error: $.steps[0].params: parameter 1 of kernel "
                "\"exp_kernel\" in kernels.ptx is .f32, not a 64-bit "
                "pointer\n");
}

TEST_F(PlanFiles, KernelNotInThePtx) {
  std::string text = replace(kValidPlan, R"("kernel": "exp_kernel")",
                             R"("kernel": "exp_kernal")");
  text = withPtxHash(text, kPtx);
  write("plan.json", text);
  write("kernels.ptx", kPtx);
  PlanLoadResult r = loadPlan(dir);
  EXPECT_FALSE(r.plan.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            dir + "/" + at(text, R"("exp_kernal")") +
                ": error: $.steps[0].kernel: kernel \"exp_kernal\" is not an "
                "entry of kernels.ptx (entries: \"exp_kernel\", "
                "\"other_kernel\") (did you mean \"exp_kernel\"?)\n");
}

TEST_F(PlanFiles, MissingFiles) {
  PlanLoadResult r = loadPlan(dir);
  EXPECT_FALSE(r.plan.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            dir + "/plan.json: error: cannot open '" + dir +
                "/plan.json': No such file or directory\n");
  write("plan.json", kValidPlan);
  r = loadPlan(dir);
  EXPECT_EQ(r.formatDiagnostics(),
            dir + "/" + at(kValidPlan, R"("kernels.ptx")") +
                ": error: $.module.ptx: cannot open '" + dir +
                "/kernels.ptx': No such file or directory\n");
}

TEST(PlanFileNames, MustStayInTheBundle) {
  std::string text = replace(kValidPlan, R"({"ptx": "kernels.ptx",)",
                             R"({"ptx": "../../etc/passwd",)");
  EXPECT_EQ(errors(text), at(text, R"("../../etc/passwd")") +
                              ": error: $.module.ptx: expected a file name "
                              "inside the bundle directory, got "
                              "\"../../etc/passwd\"\n");
}

TEST(PtxEntries, ListsEntriesInOrder) {
  EXPECT_EQ(listPtxEntries(kPtx),
            (std::vector<PtxEntry>{{"exp_kernel", {".u64", ".u64"}},
                                   {"other_kernel", {}}}));
  EXPECT_EQ(listPtxEntries(".func helper()\n.entry\tk$1 (\n"),
            (std::vector<PtxEntry>{{"k$1", {}}}));
  EXPECT_TRUE(listPtxEntries("no entries; .entryfoo").empty());
  // Alignments and state spaces are not the type.
  EXPECT_EQ(listPtxEntries(".entry k(.param .align 8 .b8 s[16], .param "
                           ".u64 .ptr .global .align 16 p)"),
            (std::vector<PtxEntry>{{"k", {".b8", ".u64"}}}));
}

TEST(PtxEntries, FindsTheParametersStoredThrough) {
  // p0 is loaded from; p1 is stored through after cvta and an add; p2 is
  // only the source of an address loaded from memory, which is stored
  // through (marking nothing); p3 is stored through in a loop, its register
  // assigned after the store; shared-memory stores mark nothing.
  const char *ptx = R"(.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1,
	.param .u64 k_param_2,
	.param .u64 k_param_3
)
{
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u64 	%rd2, [k_param_1];
	ld.param.u64 	%rd3, [k_param_2];
	ld.param.u64 	%rd9, [k_param_3];
	cvta.to.global.u64 	%rd4, %rd2;
	mul.wide.s32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f1, [%rd1];
	st.global.f32 	[%rd6+16], %f1;
	ld.global.u64 	%rd7, [%rd3];
	st.global.f32 	[%rd7], %f1;
	st.shared.f32 	[%rd1], %f1;
$L__BB0_1:
	@%p1 st.global.v2.f32 	[%rd10], {%f1, %f1};
	add.s64 	%rd10, %rd9, 8;
	@!%p1 bra 	$L__BB0_1;
	ret;
}
.visible .entry other()
{
	ret;
}
)";
  std::vector<PtxEntry> entries = listPtxEntries(ptx);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].paramStored,
            (std::vector<bool>{false, true, false, true}));
  EXPECT_TRUE(entries[1].paramStored.empty());
}

} // namespace
