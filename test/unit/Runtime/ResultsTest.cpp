//===- ResultsTest.cpp - Tests of tfuse-run's results output ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of the results writer: JSON escaping, the --json document (read
// back with the project's strict JSON parser), the human table, atomic
// writes and the refusal to overwrite an input.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Results.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

namespace {

TEST(ResultsJson, StringEscaping) {
  EXPECT_EQ(jsonString("plain"), "\"plain\"");
  EXPECT_EQ(jsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(jsonString("l1\nl2\t\r"), "\"l1\\nl2\\t\\r\"");
  EXPECT_EQ(jsonString(std::string("\x01\x1f\x7f", 3)),
            "\"\\u0001\\u001f\\u007f\"");
  // Valid UTF-8 passes through; invalid bytes become U+FFFD.
  EXPECT_EQ(jsonString("µs → ok"), "\"µs → ok\"");
  EXPECT_EQ(jsonString("a\xff"
                       "b\xc3"),
            "\"a\\ufffdb\\ufffd\"");
  EXPECT_EQ(jsonString("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
}

TEST(ResultsJson, Numbers) {
  EXPECT_EQ(jsonNumber(3), "3");
  EXPECT_EQ(jsonNumber(0.1), "0.1");
  EXPECT_EQ(jsonNumber(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(jsonNumber(-std::numeric_limits<double>::infinity()), "null");
}

Plan samplePlan() {
  Plan p;
  p.function = "layer \"0\"";
  p.target = {"h200", "sm_90", 4800, 4320};
  PlanBuffer x;
  x.id = 0;
  x.name = "%x";
  x.shape = {4, 8};
  x.dtype = ref::DType::F32;
  x.bytes = 128;
  x.kind = BufferKind::Input;
  x.storage = 0;
  PlanBuffer y = x;
  y.id = 1;
  y.name = "%y";
  y.kind = BufferKind::Output;
  y.storage = 1;
  p.buffers = {x, y};
  p.inputs = {0};
  p.outputs = {1};
  PlanStep s;
  s.name = "fusion_0";
  s.inputs = {0};
  s.outputs = {1};
  s.predictedUs = 4;
  s.bytes = 256000000;
  s.flops = 32;
  p.steps = {s, s};
  p.steps[1].name = "fusion_1";
  return p;
}

RunResults sampleResults(const Plan &p) {
  RunResults r;
  r.bundleDir = "out/bundle";
  r.plan = &p;
  r.device = {"NVIDIA H200", "sm_90", 13000, 150000000000, 132, "PTX (JIT)"};
  r.seed = 5;
  r.inputSources = {"random(seed=5, stream=0)"};
  r.checked = true;
  StepCheck ok;
  ok.step = 0;
  ok.passed = true;
  OutputCheck o;
  o.buffer = 1;
  o.comparison.compared = 32;
  o.comparison.tolerance = {1e-4, 1e-5};
  o.comparison.maxAbsError = 1e-6;
  o.comparison.worstIndex = 9;
  ok.outputs = {o};
  ok.maxAbsError = 1e-6;
  StepCheck bad = ok;
  bad.step = 1;
  bad.passed = false;
  bad.outputs[0].comparison.failures = 2;
  bad.outputs[0].comparison.worstGpu = std::numeric_limits<double>::quiet_NaN();
  bad.outputs[0].comparison.worstRef = 1.5;
  bad.outputs[0].comparison.worstRatio =
      std::numeric_limits<double>::infinity();
  r.checks = {ok, bad};
  BenchResult b;
  b.usedGraph = true;
  b.planMedianUs = 100;
  b.planMinUs = 90;
  b.steps = {{0, 50, 45, 60}, {1, 50, 45, 60}};
  r.bench = b;
  return r;
}

TEST(ResultsJson, DocumentIsValidJsonWithTheFields) {
  Plan p = samplePlan();
  RunResults r = sampleResults(p);
  std::string text = formatResultsJson(r);
  JsonParseResult parsed = parseJson(text);
  ASSERT_TRUE(parsed.value.has_value())
      << parsed.error.format("results") << "\n"
      << text;
  const JsonValue &doc = *parsed.value;
  EXPECT_EQ(doc.find("schema_version")->getNumber(), 1);
  EXPECT_EQ(doc.find("function")->getString(), "layer \"0\"");
  EXPECT_EQ(doc.find("device")->find("name")->getString(), "NVIDIA H200");
  const JsonValue &steps = *doc.find("steps");
  ASSERT_EQ(steps.getArray().size(), 2u);
  const JsonValue &s0 = steps.getArray()[0];
  EXPECT_EQ(s0.find("measured_us")->getNumber(), 50);
  // 256e6 bytes in 50 us = 5120 GB/s.
  EXPECT_DOUBLE_EQ(s0.find("achieved_gbps")->getNumber(), 5120);
  EXPECT_DOUBLE_EQ(s0.find("pct_bandwidth")->getNumber(), 100.0 * 5120 / 4800);
  EXPECT_TRUE(s0.find("check")->find("passed")->getBool());
  const JsonValue &worst =
      *steps.getArray()[1].find("check")->find("outputs")->getArray()[0].find(
          "worst");
  // NaN is written as null; the index as numbers.
  EXPECT_TRUE(worst.find("gpu")->isNull());
  EXPECT_EQ(worst.find("index")->getArray()[0].getNumber(), 1);
  EXPECT_EQ(worst.find("index")->getArray()[1].getNumber(), 1);
  const JsonValue &check = *doc.find("check");
  EXPECT_FALSE(check.find("passed")->getBool());
  EXPECT_EQ(check.find("first_failing_step")->getNumber(), 1);
  EXPECT_EQ(doc.find("totals")->find("plan_median_us")->getNumber(), 100);
  EXPECT_EQ(doc.find("totals")->find("predicted_us")->getNumber(), 8);
}

TEST(ResultsTable, RowsAndTotals) {
  Plan p = samplePlan();
  RunResults r = sampleResults(p);
  std::string table = formatResultsTable(r);
  EXPECT_NE(table.find("fusion_0"), std::string::npos) << table;
  EXPECT_NE(table.find("5120"), std::string::npos) << table;
  EXPECT_NE(table.find("106.7"), std::string::npos) << table;
  EXPECT_NE(table.find("FAIL"), std::string::npos) << table;
  EXPECT_NE(table.find("check: 1/2 steps passed"), std::string::npos) << table;
  EXPECT_NE(
      table.find("whole plan (CUDA graph replay, median of 20): 100.00 us"),
      std::string::npos)
      << table;
}

class ResultsFiles : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/tfuse-results-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    for (const char *f : {"out.json", "in.npy", "link.npy"})
      std::remove((dir + "/" + f).c_str());
    ::rmdir(dir.c_str());
  }
  std::string read(const std::string &path) {
    std::string error;
    return readFile(path, error).value_or("<missing>");
  }
  std::string dir;
};

TEST_F(ResultsFiles, AtomicWrite) {
  std::string path = dir + "/out.json", error;
  ASSERT_TRUE(writeFileAtomically(path, "first", error)) << error;
  EXPECT_EQ(read(path), "first");
  ASSERT_TRUE(writeFileAtomically(path, "second", error)) << error;
  EXPECT_EQ(read(path), "second");
  struct stat s;
  ASSERT_EQ(::stat(path.c_str(), &s), 0);
  EXPECT_NE(s.st_mode & 0044, 0u) << "not readable by others";
  // A directory that does not exist: an error, nothing written.
  EXPECT_FALSE(writeFileAtomically(dir + "/nope/out.json", "x", error));
  EXPECT_EQ(error.rfind("cannot create a temporary file beside '" + dir +
                            "/nope/out.json': No such file or directory",
                        0),
            0u)
      << error;
}

TEST_F(ResultsFiles, RefusesToOverwriteAnInput) {
  std::string input = dir + "/in.npy", error;
  ASSERT_TRUE(writeFileAtomically(input, "data", error));
  EXPECT_FALSE(checkOutputIsNotAnInput(input, {input}, error));
  EXPECT_EQ(error, "refusing to write '" + input + "': it is the input '" +
                       input + "'");
  // Another spelling, and a symbolic link.
  EXPECT_FALSE(checkOutputIsNotAnInput(dir + "/./in.npy", {input}, error));
  ASSERT_EQ(::symlink(input.c_str(), (dir + "/link.npy").c_str()), 0);
  EXPECT_FALSE(checkOutputIsNotAnInput(dir + "/link.npy", {input}, error));
  EXPECT_TRUE(checkOutputIsNotAnInput(dir + "/out.json", {input}, error));
  EXPECT_EQ(read(input), "data");
}

} // namespace
