//===- ResultsTest.cpp - Tests of tfuse-run's results output ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of the results writer: the --json document (read back with the
// project's strict JSON parser: keys, numbers, escaping), the human table,
// atomic writes and the refusal to overwrite an input.
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

TEST(ResultsJson, KeysInSchemaOrder) {
  Plan p = samplePlan();
  RunResults r = sampleResults(p);
  JsonParseResult parsed = parseJson(formatResultsJson(r));
  ASSERT_TRUE(parsed.value.has_value()) << parsed.error.format("results");
  auto keys = [](const JsonValue &object) {
    std::string out;
    for (const JsonMember &m : object.getObject())
      out += m.key + " ";
    return out;
  };
  const JsonValue &doc = *parsed.value;
  EXPECT_EQ(keys(doc), "schema_version bundle function target device seed "
                       "inputs steps totals check saved_outputs ");
  const JsonValue &step = doc.find("steps")->getArray()[1];
  EXPECT_EQ(keys(step),
            "index name kind predicted_us bytes flops measured_us "
            "measured_min_us measured_max_us achieved_gbps pct_bandwidth "
            "pct_achievable_bandwidth achieved_tflops measured_over_predicted "
            "check ");
  EXPECT_EQ(keys(*step.find("check")),
            "passed sampled max_abs_error max_rel_error reference_seconds "
            "outputs ");
  EXPECT_EQ(keys(*doc.find("totals")),
            "predicted_us bytes flops warmup reps l2_flushed cuda_graph "
            "plan_median_us plan_min_us sum_of_step_medians_us achieved_gbps "
            "pct_bandwidth pct_achievable_bandwidth measured_over_predicted ");
  EXPECT_EQ(keys(*doc.find("check")),
            "passed steps_checked first_failing_step message ");
}

TEST(ResultsJson, NumbersIntegralNonFiniteAndExact) {
  Plan p = samplePlan();
  RunResults r = sampleResults(p);
  r.seed = 18446744073709551615ull;
  std::string text = formatResultsJson(r);
  // Integral doubles read as integers; fractions round-trip; NaN and
  // infinities, which JSON lacks, are null.
  EXPECT_NE(text.find("\"measured_us\": 50,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"rtol\": 0.0001,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"max_abs_error\": 1e-06,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"seed\": 18446744073709551615,"), std::string::npos)
      << text;
  for (const char *bad : {": nan", ": inf", ": -inf", "NaN", "Infinity"})
    EXPECT_EQ(text.find(bad), std::string::npos) << bad << " in " << text;
  JsonParseResult parsed = parseJson(text);
  ASSERT_TRUE(parsed.value.has_value()) << parsed.error.format("results");
  const JsonValue &worst = *parsed.value->find("steps")
                                ->getArray()[1]
                                .find("check")
                                ->find("outputs")
                                ->getArray()[0]
                                .find("worst");
  EXPECT_TRUE(worst.find("gpu")->isNull());
  EXPECT_TRUE(worst.find("error_over_allowance")->isNull());
  EXPECT_EQ(worst.find("reference")->getNumber(), 1.5);
  EXPECT_EQ(text.back(), '\n');
}

TEST(ResultsJson, StringsEscapedAndNonUtf8Replaced) {
  Plan p = samplePlan();
  p.function = std::string("a\"b\\c\nd\x01 \xC2\xB5s \xff\xed\xa0\x80", 17);
  RunResults r = sampleResults(p);
  r.checked = false;
  r.savedOutputs = {"out/\xc3"};
  std::string text = formatResultsJson(r);
  EXPECT_NE(text.find(R"("a\"b\\c\nd\u0001 )"), std::string::npos) << text;
  JsonParseResult parsed = parseJson(text);
  ASSERT_TRUE(parsed.value.has_value())
      << parsed.error.format("results") << "\n"
      << text;
  const std::string replacement = "\xEF\xBF\xBD";
  // Valid UTF-8 (µ) is kept; each invalid byte becomes U+FFFD.
  EXPECT_EQ(parsed.value->find("function")->getString(),
            "a\"b\\c\nd\x01 \xC2\xB5s " + replacement + replacement +
                replacement + replacement);
  EXPECT_EQ(parsed.value->find("saved_outputs")->getArray()[0].getString(),
            "out/" + replacement);
  EXPECT_EQ(parsed.value->find("check"), nullptr);
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

// A GEMM step's algorithm choice goes to its JSON step and to one summary
// line of the table; untuned or kernel steps have none.
TEST(ResultsGemm, AlgorithmChoiceInJsonAndTable) {
  Plan p = samplePlan();
  p.steps[1].kind = StepKind::Gemm;
  RunResults r = sampleResults(p);
  EXPECT_EQ(formatResultsTable(r).find("gemm algorithms"), std::string::npos);
  GemmChoice g;
  g.candidates = 8;
  g.chosen = 3;
  g.tuned = true;
  g.heuristicUs = 120.5;
  g.chosenUs = 100.25;
  r.gemmChoices = {std::nullopt, g};
  JsonParseResult parsed = parseJson(formatResultsJson(r));
  ASSERT_TRUE(parsed.value.has_value()) << parsed.error.format("results");
  const JsonValue &steps = *parsed.value->find("steps");
  EXPECT_EQ(steps.getArray()[0].find("gemm_algorithm"), nullptr);
  const JsonValue &algorithm = *steps.getArray()[1].find("gemm_algorithm");
  EXPECT_EQ(algorithm.find("candidates")->getNumber(), 8);
  EXPECT_EQ(algorithm.find("chosen")->getNumber(), 3);
  EXPECT_TRUE(algorithm.find("tuned")->getBool());
  EXPECT_EQ(algorithm.find("heuristic_us")->getNumber(), 120.5);
  EXPECT_EQ(algorithm.find("chosen_us")->getNumber(), 100.25);
  std::string table = formatResultsTable(r);
  EXPECT_NE(table.find("gemm algorithms: 1 GEMMs tuned over up to 8 "
                       "candidates, 1 kept one other than the heuristic's "
                       "first: 120.50 -> 100.25 us in the trials"),
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
