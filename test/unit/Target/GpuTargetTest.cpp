//===- GpuTargetTest.cpp - Tests of GPU target loading ----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of the GPU target loader: the shipped targets/*.json files load
// without a single diagnostic and carry the figures of REFERENCE.md, and every
// kind of bad input gives the expected message with position and JSON path.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/GpuTarget.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TFUSE_SOURCE_DIR
#error "TFUSE_SOURCE_DIR must be defined to the project root (CMake sets it)"
#endif

using namespace mlir::tfuse;

namespace {

const std::string kTargetsDir = std::string(TFUSE_SOURCE_DIR) + "/targets";

const std::vector<std::string> kShippedTargets = {
    "a100-80gb-sxm", "a40",          "h100-sxm",  "h200",   "l4",
    "l40s",          "rtx-6000-ada", "rtx-a6000", "rtx4090"};

/// A valid target file. Line numbers are fixed: tests below point into it
/// (a value on a top-level line starts at column len(key) + 7, in "memory"
/// and "peak_tflops" at len(key) + 9).
const char *const kValid = R"json({
  "schema_version": 1,
  "name": "test-gpu",
  "display_name": "Test GPU",
  "architecture": "Test (TG100)",
  "sm_arch": "sm_86",
  "sm_count": 84,
  "boost_clock_mhz": 1740,
  "memory": {
    "type": "GDDR6",
    "capacity_gb": 48,
    "bandwidth_gbps": 696,
    "achievable_fraction": 0.94,
    "l2_cache_mb": 6
  },
  "shared_memory_per_sm_kb": 100,
  "max_threads_per_sm": 1536,
  "peak_tflops": {
    "fp32": 37.4,
    "tf32_tensor": 74.8,
    "fp16_tensor": 149.7,
    "bf16_tensor": 149.7,
    "fp8_tensor": null
  },
  "kernel_launch_overhead_us": 1.0,
  "sources": {
    "sm_count": "s1",
    "boost_clock_mhz": "s2",
    "memory.capacity_gb": "s3",
    "memory.bandwidth_gbps": "s4",
    "memory.achievable_fraction": "s5",
    "memory.l2_cache_mb": "s6",
    "shared_memory_per_sm_kb": "s7",
    "max_threads_per_sm": "s8",
    "peak_tflops.fp32": "s9",
    "peak_tflops.tf32_tensor": "s10",
    "peak_tflops.fp16_tensor": "s11",
    "peak_tflops.bf16_tensor": "s12",
    "peak_tflops.fp8_tensor": "s13",
    "kernel_launch_overhead_us": "s14"
  }
}
)json";

/// `text` with the first occurrence of `from` replaced by `to`.
std::string edit(std::string text, const std::string &from,
                 const std::string &to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "not in the test input: " << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// Parses `text` as "test-gpu.json" and returns the formatted diagnostics.
std::string diagnosticsOf(const std::string &text,
                          const std::string &fileName = "test-gpu.json") {
  return parseGpuTarget(text, fileName).formatDiagnostics();
}

/// A fresh directory under the test temp dir.
std::string makeTempDir(const std::string &tag) {
  std::string dir = ::testing::TempDir() + "tfuse-gpu-target-" + tag + "-" +
                    std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  return dir;
}

void writeFile(const std::string &path, const std::string &contents) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  std::fwrite(contents.data(), 1, contents.size(), f);
  std::fclose(f);
}

//===----------------------------------------------------------------------===//
// Shipped targets
//===----------------------------------------------------------------------===//

TEST(ShippedTargets, AllPresent) {
  EXPECT_EQ(listTargetNames({kTargetsDir}), kShippedTargets);
}

TEST(ShippedTargets, LoadWithoutDiagnosticsAndSourceEveryFigure) {
  for (const std::string &name : kShippedTargets) {
    SCOPED_TRACE(name);
    TargetLoadResult r = resolveGpuTarget(name, {kTargetsDir});
    EXPECT_EQ(r.formatDiagnostics(), "");
    ASSERT_TRUE(r.target.has_value());
    ASSERT_TRUE(r.target->interconnect.has_value());
    // The name in the file equals the file stem (otherwise a warning).
    EXPECT_EQ(r.target->name, name);
    EXPECT_EQ(r.path, kTargetsDir + "/" + name + ".json");
    for (const std::string &key : gpuTargetFigureKeys()) {
      // A GPU without NVLink has no NVLink figures to source.
      if (key.rfind("interconnect.nvlink.", 0) == 0 &&
          !r.target->interconnect->nvlink)
        continue;
      // Nor one without its own attention efficiency.
      if (key == "attention_efficiency" && !r.target->attentionEfficiency)
        continue;
      auto it = r.target->sources.find(key);
      ASSERT_NE(it, r.target->sources.end()) << key;
      EXPECT_GE(it->second.size(), 10u) << key;
    }
    EXPECT_TRUE(r.target->sources.count("sm_arch"));
    EXPECT_TRUE(r.target->sources.count("memory.type"));
    EXPECT_FALSE(r.target->displayName.empty());
    EXPECT_FALSE(r.target->architecture.empty());
    EXPECT_FALSE(r.target->memoryType.empty());
    // Estimates say so.
    const std::string &fraction =
        r.target->sources.at("memory.achievable_fraction");
    EXPECT_TRUE(fraction.find("measured") != std::string::npos ||
                fraction.find("estimate") != std::string::npos)
        << fraction;
  }
}

struct Figures {
  const char *name;
  const char *smArch;
  int smCount;
  double boostClockMhz, capacityGB, bandwidthGBps, fraction, l2MB, smemKB;
  int threads;
  double fp32, tf32, fp16, bf16;
  std::optional<double> fp8;
};

// REFERENCE.md section 1 (dense rates) and section 2 (achievable fractions).
// Where the value differs from that table, the comment says why.
const Figures kFigures[] = {
    {"a40", "sm_86", 84, 1740, 48, 696, 0.94, 6, 100, 1536, 37.4, 74.8, 149.7,
     149.7, std::nullopt},
    // FP16/BF16: the datasheet's dense 362.05 (the table rounds to 362).
    {"l40s", "sm_89", 142, 2520, 48, 864, 0.92, 96, 100, 1536, 91.6, 183,
     362.05, 362.05, 733},
    // L2: the 60 MiB the device reports. Tensor rates: datasheet sparse / 2
    // exactly (the table rounds to 495 and 989).
    {"h200", "sm_90", 132, 1980, 141, 4800, 0.90, 60, 228, 2048, 67, 494.5,
     989.5, 989.5, 1979},
    {"h100-sxm", "sm_90", 132, 1980, 80, 3350, 0.90, 50, 228, 2048, 67, 494.5,
     989.5, 989.5, 1979},
    // 0.88: the measured A100 triad fraction (REFERENCE.md section 2).
    {"a100-80gb-sxm", "sm_80", 108, 1410, 80, 2039, 0.88, 40, 164, 2048, 19.5,
     156, 312, 312, std::nullopt},
    {"rtx4090", "sm_89", 128, 2520, 24, 1008, 0.92, 72, 100, 1536, 82.6, 82.6,
     165.2, 165.2, 330.3},
    // FP8: datasheet 485 sparse / 2 (the table rounds to 242).
    {"l4", "sm_89", 58, 2040, 24, 300, 0.90, 48, 100, 1536, 30.3, 60, 121, 121,
     242.5},
    // The workstation siblings of the A40 and L40S (issue 12): tensor rates
    // from the datasheets' sparse "tensor performance" (A6000: FP16 309.7 /
    // 2; RTX 6000 Ada: FP8 1457.0 / 4 for FP16, / 2 for FP8).
    {"rtx-a6000", "sm_86", 84, 1800, 48, 768, 0.94, 6, 100, 1536, 38.7, 77.4,
     154.8, 154.8, std::nullopt},
    {"rtx-6000-ada", "sm_89", 142, 2505, 48, 960, 0.92, 96, 100, 1536, 91.1,
     182.1, 364.2, 364.2, 728.5},
};

TEST(ShippedTargets, FiguresMatchReference) {
  for (const Figures &f : kFigures) {
    SCOPED_TRACE(f.name);
    TargetLoadResult r = resolveGpuTarget(f.name, {kTargetsDir});
    ASSERT_TRUE(r.target.has_value()) << r.formatDiagnostics();
    const GpuTarget &t = *r.target;
    EXPECT_EQ(t.smArch, f.smArch);
    EXPECT_EQ(t.smCount, f.smCount);
    EXPECT_EQ(t.boostClockMhz, f.boostClockMhz);
    EXPECT_EQ(t.memoryCapacityGB, f.capacityGB);
    EXPECT_EQ(t.memoryBandwidthGBps, f.bandwidthGBps);
    EXPECT_EQ(t.achievableBandwidthFraction, f.fraction);
    EXPECT_EQ(t.l2CacheMB, f.l2MB);
    EXPECT_EQ(t.sharedMemoryPerSmKB, f.smemKB);
    EXPECT_EQ(t.maxThreadsPerSm, f.threads);
    EXPECT_EQ(t.fp32Tflops, f.fp32);
    EXPECT_EQ(t.tf32TensorTflops, f.tf32);
    EXPECT_EQ(t.fp16TensorTflops, f.fp16);
    EXPECT_EQ(t.bf16TensorTflops, f.bf16);
    EXPECT_EQ(t.fp8TensorTflops, f.fp8);
    EXPECT_EQ(t.kernelLaunchOverheadUs, 1.0);
  }
}

TEST(ShippedTargets, DerivedFigures) {
  TargetLoadResult a40 = resolveGpuTarget("a40", {kTargetsDir});
  ASSERT_TRUE(a40.target.has_value());
  EXPECT_DOUBLE_EQ(a40.target->achievableBandwidthGBps(), 696 * 0.94);
  TargetLoadResult h200 = resolveGpuTarget("h200", {kTargetsDir});
  ASSERT_TRUE(h200.target.has_value());
  EXPECT_DOUBLE_EQ(h200.target->achievableBandwidthGBps(), 4320.0);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

TEST(GpuTargetParse, ValidText) {
  TargetLoadResult r = parseGpuTarget(kValid, "test-gpu.json");
  EXPECT_EQ(r.formatDiagnostics(), "");
  ASSERT_TRUE(r.target.has_value());
  const GpuTarget &t = *r.target;
  EXPECT_EQ(t.name, "test-gpu");
  EXPECT_EQ(t.displayName, "Test GPU");
  EXPECT_EQ(t.architecture, "Test (TG100)");
  EXPECT_EQ(t.smArch, "sm_86");
  EXPECT_EQ(t.memoryType, "GDDR6");
  EXPECT_EQ(t.memoryBandwidthGBps, 696.0);
  EXPECT_FALSE(t.fp8TensorTflops.has_value());
  EXPECT_EQ(t.sources.size(), 14u);
  EXPECT_EQ(t.sources.at("peak_tflops.fp8_tensor"), "s13");
}

TEST(GpuTargetParse, OptionalFieldsMayBeOmitted) {
  std::string text =
      edit(kValid, "  \"architecture\": \"Test (TG100)\",\n", "");
  text = edit(text, "    \"type\": \"GDDR6\",\n", "");
  TargetLoadResult r = parseGpuTarget(text, "test-gpu.json");
  EXPECT_EQ(r.formatDiagnostics(), "");
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->architecture, "");
  EXPECT_EQ(r.target->memoryType, "");
}

TEST(GpuTargetParse, Fp8Rate) {
  TargetLoadResult r = parseGpuTarget(
      edit(kValid, "\"fp8_tensor\": null", "\"fp8_tensor\": 733"),
      "test-gpu.json");
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->fp8TensorTflops, 733.0);
  EXPECT_EQ(diagnosticsOf(edit(kValid, ",\n    \"fp8_tensor\": null", "")),
            "test-gpu.json:18:18: error: $.peak_tflops.fp8_tensor: required "
            "key is missing (write null if the GPU has no FP8 tensor cores)\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"fp8_tensor\": null",
                               "\"fp8_tensor\": \"none\"")),
            "test-gpu.json:23:19: error: $.peak_tflops.fp8_tensor: expected a "
            "number in [0.01, 100000] or null, got \"none\"\n");
}

TEST(GpuTargetParse, FiguresArePlausible) {
  // Tiny rates would make times infinite; huge ones are typos.
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"bandwidth_gbps\": 696",
                               "\"bandwidth_gbps\": 1e-310")),
            "test-gpu.json:12:23: error: $.memory.bandwidth_gbps: expected a "
            "number in [1, 100000], got 1e-310\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"bandwidth_gbps\": 696",
                               "\"bandwidth_gbps\": 1e999")),
            "test-gpu.json:12:23: error: $.memory.bandwidth_gbps: number 1e999 "
            "is out of range for a double\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"boost_clock_mhz\": 1740",
                               "\"boost_clock_mhz\": 17400")),
            "test-gpu.json:8:22: error: $.boost_clock_mhz: expected a number "
            "in [100, 10000], got 17400\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"kernel_launch_overhead_us\": 1.0",
                               "\"kernel_launch_overhead_us\": 0")),
            "test-gpu.json:25:32: error: $.kernel_launch_overhead_us: expected "
            "a number in (0, 1000], got 0\n");
}

TEST(GpuTargetParse, SmArchCheck) {
  // The compiler's check of sm_arch (its NVPTX backend) is asked, and its
  // answer is an error at the field.
  std::string asked;
  SmArchCheck refuse = [&](const std::string &smArch) {
    asked = smArch;
    return std::string("not for this backend");
  };
  TargetLoadResult r = parseGpuTarget(kValid, "test-gpu.json", refuse);
  EXPECT_EQ(asked, "sm_86");
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(), "test-gpu.json:6:14: error: $.sm_arch: not "
                                   "for this backend\n");
  SmArchCheck accept = [](const std::string &) { return std::string(); };
  EXPECT_TRUE(parseGpuTarget(kValid, "test-gpu.json", accept).target);
}

TEST(GpuTargetParse, SyntaxErrors) {
  // Truncated in the middle of "memory".
  std::string text = kValid;
  std::string truncated = text.substr(0, text.find("\"bandwidth_gbps\""));
  EXPECT_EQ(diagnosticsOf(truncated),
            "test-gpu.json:12:5: error: $.memory: unexpected end of input: the "
            "object opened at 9:13 is not closed\n");
  EXPECT_EQ(diagnosticsOf(text.substr(0, text.find("696") + 3)),
            "test-gpu.json:12:26: error: $.memory: unexpected end of input: "
            "the object opened at 9:13 is not closed\n");
  EXPECT_EQ(
      diagnosticsOf(""),
      "test-gpu.json:1:1: error: empty document: expected a JSON value\n");
  EXPECT_EQ(
      diagnosticsOf(edit(kValid, "\"sm_count\": 84,", "\"sm_count\": 84,,")),
      "test-gpu.json:7:18: error: expected a string key, got ','\n");
  EXPECT_EQ(
      diagnosticsOf(edit(kValid, "\"l2_cache_mb\": 6", "\"l2_cache_mb\": 6,")),
      "test-gpu.json:14:21: error: $.memory: trailing comma before '}' "
      "is not allowed in JSON\n");
  EXPECT_FALSE(parseGpuTarget("[1]", "x.json").target.has_value());
  EXPECT_EQ(diagnosticsOf("[1]"),
            "test-gpu.json:1:1: error: $: expected an object, got an array\n");
}

TEST(GpuTargetParse, DuplicateKey) {
  TargetLoadResult r =
      parseGpuTarget(edit(kValid, "\"l2_cache_mb\": 6",
                          "\"l2_cache_mb\": 6, \"capacity_gb\": 24"),
                     "test-gpu.json");
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            "test-gpu.json:14:23: error: $.memory.capacity_gb: duplicate key "
            "\"capacity_gb\" (first defined at 11:5)\n");
}

TEST(GpuTargetParse, UnknownFieldsAreWarnings) {
  std::string text =
      edit(kValid, "\"sm_count\": 84,", "\"sm_count\": 84, \"tdp_w\": 300,");
  text = edit(text, "\"bandwidth_gbps\": 696,",
              "\"bandwidth_gbps\": 696, \"bandwith_gbps\": 696,");
  TargetLoadResult r = parseGpuTarget(text, "test-gpu.json");
  ASSERT_TRUE(r.target.has_value()); // warnings do not block
  EXPECT_EQ(r.formatDiagnostics(),
            "test-gpu.json:7:19: warning: $.tdp_w: unknown key \"tdp_w\" "
            "(ignored)\n"
            "test-gpu.json:12:28: warning: $.memory.bandwith_gbps: unknown key "
            "\"bandwith_gbps\" (ignored); did you mean \"bandwidth_gbps\"?\n");
}

TEST(GpuTargetParse, MissingFields) {
  std::string text = edit(kValid, "    \"bandwidth_gbps\": 696,\n", "");
  text = edit(text, "  \"max_threads_per_sm\": 1536,\n", "");
  TargetLoadResult r = parseGpuTarget(text, "test-gpu.json");
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            "test-gpu.json:1:1: error: $.max_threads_per_sm: required key is "
            "missing\n"
            "test-gpu.json:9:13: error: $.memory.bandwidth_gbps: required key "
            "is missing\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "  \"memory\": {", "  \"memori\": {")),
            "test-gpu.json:1:1: error: $.memory: required key is missing\n"
            "test-gpu.json:9:3: warning: $.memori: unknown key \"memori\" "
            "(ignored); did you mean \"memory\"?\n");
}

TEST(GpuTargetParse, WrongTypesAndRanges) {
  std::string text =
      edit(kValid, "\"bandwidth_gbps\": 696", "\"bandwidth_gbps\": \"fast\"");
  text = edit(text, "\"sm_count\": 84", "\"sm_count\": 84.5");
  text = edit(text, "\"achievable_fraction\": 0.94",
              "\"achievable_fraction\": 94");
  text = edit(text, "\"sm_arch\": \"sm_86\"", "\"sm_arch\": \"86\"");
  text = edit(text, "\"max_threads_per_sm\": 1536",
              "\"max_threads_per_sm\": 1536.0");
  text = edit(text, "\"fp32\": 37.4", "\"fp32\": -37.4");
  text = edit(text, "\"kernel_launch_overhead_us\": 1.0",
              "\"kernel_launch_overhead_us\": null");
  text = edit(text, "\"display_name\": \"Test GPU\"", "\"display_name\": \"\"");
  text = edit(text, "\"peak_tflops\": {", "\"peak_tflops\": [], \"x\": {");
  TargetLoadResult r = parseGpuTarget(text, "test-gpu.json");
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            "test-gpu.json:4:19: error: $.display_name: expected a non-empty "
            "string, got \"\"\n"
            "test-gpu.json:6:14: error: $.sm_arch: expected an SM architecture "
            "such as \"sm_86\", got \"86\"\n"
            "test-gpu.json:7:15: error: $.sm_count: expected an integer in "
            "[1, 1024], got 84.5\n"
            "test-gpu.json:12:23: error: $.memory.bandwidth_gbps: expected a "
            "number in [1, 100000], got \"fast\"\n"
            "test-gpu.json:13:28: error: $.memory.achievable_fraction: "
            "expected a number in [0.05, 1], got 94\n"
            "test-gpu.json:17:25: error: $.max_threads_per_sm: expected an "
            "integer in [32, 8192], got 1536.0\n"
            "test-gpu.json:18:18: error: $.peak_tflops: expected an object, "
            "got an array\n"
            "test-gpu.json:18:22: warning: $.x: unknown key \"x\" (ignored)\n"
            "test-gpu.json:25:32: error: $.kernel_launch_overhead_us: expected "
            "a number in (0, 1000], got null\n");
}

TEST(GpuTargetParse, AttentionEfficiency) {
  // Optional: without it the flash-attention kernels are priced at the GEMM
  // efficiency; with it, a fraction like gemm_efficiency's.
  TargetLoadResult plain = parseGpuTarget(kValid, "test-gpu.json");
  ASSERT_TRUE(plain.target.has_value());
  EXPECT_FALSE(plain.target->attentionEfficiency.has_value());
  std::string with = edit(kValid, "\"kernel_launch_overhead_us\": 1.0",
                          "\"kernel_launch_overhead_us\": 1.0, "
                          "\"attention_efficiency\": 0.29");
  TargetLoadResult r = parseGpuTarget(with, "test-gpu.json");
  ASSERT_TRUE(r.target.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.target->attentionEfficiency, 0.29);
  std::string bad = edit(kValid, "\"kernel_launch_overhead_us\": 1.0",
                         "\"kernel_launch_overhead_us\": 1.0, "
                         "\"attention_efficiency\": 1.5");
  EXPECT_EQ(diagnosticsOf(bad),
            "test-gpu.json:25:61: error: $.attention_efficiency: expected a "
            "number in [0.05, 1], got 1.5\n");
}

TEST(GpuTargetParse, SchemaVersion) {
  // An unknown version stops the check: the rest may mean something else.
  TargetLoadResult r = parseGpuTarget(
      edit(kValid, "\"schema_version\": 1", "\"schema_version\": 2"),
      "test-gpu.json");
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            "test-gpu.json:2:21: error: $.schema_version: unsupported schema "
            "version 2; this version of tfuse reads schema version 1\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "  \"schema_version\": 1,\n", "")),
            "test-gpu.json:1:1: error: $.schema_version: required key is "
            "missing (this version of tfuse reads schema version 1)\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"schema_version\": 1",
                               "\"schema_version\": \"1\"")),
            "test-gpu.json:2:21: error: $.schema_version: expected an integer "
            "schema version, got \"1\" (this version of tfuse reads schema "
            "version 1)\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"schema_version\": 1",
                               "\"schema_version\": 1.0")),
            "test-gpu.json:2:21: error: $.schema_version: expected an integer "
            "schema version, got 1.0 (this version of tfuse reads schema "
            "version 1)\n");
}

TEST(GpuTargetParse, Sources) {
  // No sources at all: one warning, the target stays usable.
  std::string text = kValid;
  std::string noSources =
      text.substr(0, text.find(",\n  \"sources\"")) + "\n}\n";
  TargetLoadResult r = parseGpuTarget(noSources, "test-gpu.json");
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            "test-gpu.json:1:1: warning: $.sources: no sources given; every "
            "figure should name where it comes from (datasheet, whitepaper or "
            "measurement)\n");

  // A figure without a source, a misspelt source key, an empty source, a
  // source that is not a string.
  text = edit(kValid, "    \"memory.l2_cache_mb\": \"s6\",\n", "");
  text = edit(text, "\"peak_tflops.fp32\": \"s9\"",
              "\"peak_tflops.fp23\": \"s9\"");
  text = edit(text, "\"sm_count\": \"s1\"", "\"sm_count\": \"\"");
  text = edit(text, "\"boost_clock_mhz\": \"s2\"", "\"boost_clock_mhz\": 2");
  r = parseGpuTarget(text, "test-gpu.json");
  EXPECT_FALSE(r.target.has_value()); // the non-string source is an error
  EXPECT_EQ(r.formatDiagnostics(),
            "test-gpu.json:7:15: warning: $.sm_count: figure has no source; "
            "add \"sm_count\": \"...\" to \"sources\"\n"
            "test-gpu.json:8:22: warning: $.boost_clock_mhz: figure has no "
            "source; add \"boost_clock_mhz\": \"...\" to \"sources\"\n"
            "test-gpu.json:14:20: warning: $.memory.l2_cache_mb: figure has no "
            "source; add \"memory.l2_cache_mb\": \"...\" to \"sources\"\n"
            "test-gpu.json:19:13: warning: $.peak_tflops.fp32: figure has no "
            "source; add \"peak_tflops.fp32\": \"...\" to \"sources\"\n"
            "test-gpu.json:27:17: warning: $.sources.sm_count: empty source\n"
            "test-gpu.json:28:24: error: $.sources.boost_clock_mhz: expected "
            "a string, got 2\n"
            "test-gpu.json:34:5: warning: $.sources[\"peak_tflops.fp23\"]: no "
            "figure is named \"peak_tflops.fp23\" (source ignored); did you "
            "mean \"peak_tflops.fp32\"?\n");

  // Descriptive fields may have sources too; a source for a figure that
  // is in error adds no "no source" warning.
  text = edit(kValid, "\"sm_count\": \"s1\"",
              "\"sm_count\": \"s1\", \"sm_arch\": \"x\", \"architecture\": "
              "\"y\", \"memory.type\": \"z\"");
  r = parseGpuTarget(text, "test-gpu.json");
  EXPECT_EQ(r.formatDiagnostics(), "");
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->sources.at("memory.type"), "z");
  text = edit(kValid, "    \"sm_count\": \"s1\",\n", "");
  EXPECT_EQ(diagnosticsOf(edit(text, "\"sm_count\": 84", "\"sm_count\": 0")),
            "test-gpu.json:7:15: error: $.sm_count: expected an integer in "
            "[1, 1024], got 0\n");
}

TEST(GpuTargetParse, NameAndFileStem) {
  // Without a .json file name, the name in the file is used.
  TargetLoadResult r = parseGpuTarget(kValid, "");
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->name, "test-gpu");
  EXPECT_EQ(r.formatDiagnostics(), "");
  r = parseGpuTarget(kValid, "<stdin>");
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->name, "test-gpu");

  // From a file, the file stem wins, with a warning when they differ.
  r = parseGpuTarget(kValid, "/some/dir/my-a40-oc.json");
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->name, "my-a40-oc");
  EXPECT_EQ(r.formatDiagnostics(),
            "/some/dir/my-a40-oc.json:3:11: warning: $.name: name \"test-gpu\" "
            "differs from the file name \"my-a40-oc.json\"; the target is "
            "called \"my-a40-oc\" (the file name wins)\n");

  EXPECT_EQ(diagnosticsOf(
                edit(kValid, "\"name\": \"test-gpu\"", "\"name\": \"my gpu\"")),
            "test-gpu.json:3:11: error: $.name: expected a target name of "
            "letters, digits, '.', '_', '+' and '-' such as \"a40\", got \"my "
            "gpu\"\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "\"name\": \"test-gpu\"",
                               "\"name\": \"a40.json\"")),
            "test-gpu.json:3:11: error: $.name: expected a target name of "
            "letters, digits, '.', '_', '+' and '-' such as \"a40\", got "
            "\"a40.json\"\n");
  EXPECT_EQ(diagnosticsOf(edit(kValid, "  \"name\": \"test-gpu\",\n", "")),
            "test-gpu.json:1:1: error: $.name: required key is missing\n");
}

//===----------------------------------------------------------------------===//
// Files and lookup
//===----------------------------------------------------------------------===//

TEST(GpuTargetResolve, ByNameAndByPath) {
  TargetLoadResult byName = resolveGpuTarget("l40s", {kTargetsDir});
  ASSERT_TRUE(byName.target.has_value()) << byName.formatDiagnostics();
  EXPECT_EQ(byName.target->displayName, "NVIDIA L40S");

  std::string path = kTargetsDir + "/l40s.json";
  TargetLoadResult byPath = resolveGpuTarget(path, {});
  ASSERT_TRUE(byPath.target.has_value()) << byPath.formatDiagnostics();
  EXPECT_EQ(byPath.path, path);
  EXPECT_EQ(byPath.target->memoryBandwidthGBps, 864.0);

  // A user file, given by a path ending in .json: named after its stem.
  std::string dir = makeTempDir("user");
  std::string user = dir + "/my-gpu.json";
  writeFile(user, kValid);
  TargetLoadResult r = resolveGpuTarget(user, {kTargetsDir});
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->name, "my-gpu");
  EXPECT_EQ(r.diagnostics.size(), 1u); // the name warning

  // A name is looked up in the directories in order: the first one wins.
  writeFile(
      dir + "/a40.json",
      edit(edit(kValid, "\"bandwidth_gbps\": 696", "\"bandwidth_gbps\": 700"),
           "\"name\": \"test-gpu\"", "\"name\": \"a40\""));
  r = resolveGpuTarget("a40", {dir, kTargetsDir});
  ASSERT_TRUE(r.target.has_value()) << r.formatDiagnostics();
  EXPECT_EQ(r.target->memoryBandwidthGBps, 700.0);
  EXPECT_EQ(r.path, dir + "/a40.json");
  r = resolveGpuTarget("a40", {kTargetsDir, dir});
  ASSERT_TRUE(r.target.has_value());
  EXPECT_EQ(r.target->memoryBandwidthGBps, 696.0);

  // The union of names, without duplicates; missing directories are skipped.
  std::vector<std::string> names =
      listTargetNames({dir, kTargetsDir, dir + "/missing"});
  EXPECT_EQ(names.size(), kShippedTargets.size() + 1);
  EXPECT_TRUE(std::find(names.begin(), names.end(), "my-gpu") != names.end());

  std::remove((dir + "/a40.json").c_str());
  std::remove(user.c_str());
  ::rmdir(dir.c_str());
}

TEST(GpuTargetResolve, BadFileNamesTheFile) {
  std::string dir = makeTempDir("bad");
  std::string bad = dir + "/bad.json";
  writeFile(bad, edit(kValid, "\"sm_count\": 84", "\"sm_count\": \"many\""));
  TargetLoadResult r = resolveGpuTarget("bad", {dir});
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            bad +
                ":3:11: warning: $.name: name \"test-gpu\" differs from the "
                "file name \"bad.json\"; the target is called \"bad\" (the "
                "file name wins)\n" +
                bad +
                ":7:15: error: $.sm_count: expected an integer in [1, "
                "1024], got \"many\"\n");
  std::remove(bad.c_str());
  ::rmdir(dir.c_str());
}

TEST(GpuTargetResolve, UnknownNameListsTargets) {
  TargetLoadResult r = resolveGpuTarget("b200", {kTargetsDir});
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            "error: unknown target \"b200\"; available targets: a100-80gb-sxm, "
            "a40, h100-sxm, h200, l4, l40s, rtx-6000-ada, rtx-a6000, rtx4090 "
            "(searched: " +
                kTargetsDir +
                "); a target file can also be given by its path\n");
  r = resolveGpuTarget("A40", {kTargetsDir});
  EXPECT_EQ(
      r.formatDiagnostics(),
      "error: unknown target \"A40\" (did you mean \"a40\"?); available "
      "targets: a100-80gb-sxm, a40, h100-sxm, h200, l4, l40s, rtx-6000-ada, "
      "rtx-a6000, rtx4090 (searched: " +
          kTargetsDir + "); a target file can also be given by its path\n");
  r = resolveGpuTarget("h100", {kTargetsDir});
  EXPECT_NE(r.formatDiagnostics().find("(did you mean \"h100-sxm\"?)"),
            std::string::npos);
  r = resolveGpuTarget("a100", {kTargetsDir});
  EXPECT_NE(r.formatDiagnostics().find("(did you mean \"a100-80gb-sxm\"?)"),
            std::string::npos);
  r = resolveGpuTarget("l", {kTargetsDir}); // l4 or l40s: no hint
  EXPECT_EQ(r.formatDiagnostics().find("did you mean"), std::string::npos);
  r = resolveGpuTarget("a40", {});
  EXPECT_EQ(r.formatDiagnostics(),
            "error: unknown target \"a40\"; no target files were found "
            "(searched: no directories); a target file can also be given by "
            "its path\n");
  r = resolveGpuTarget("", {kTargetsDir});
  EXPECT_EQ(r.formatDiagnostics(), "error: empty target name\n");
}

TEST(GpuTargetResolve, MissingOrUnreadableFile) {
  TargetLoadResult r = resolveGpuTarget("/nonexistent/gpu.json", {});
  EXPECT_FALSE(r.target.has_value());
  EXPECT_EQ(r.formatDiagnostics(),
            "/nonexistent/gpu.json: error: cannot open '/nonexistent/gpu.json'"
            ": No such file or directory\n");
  r = resolveGpuTarget("./nothere", {});
  EXPECT_EQ(r.formatDiagnostics(), "./nothere: error: cannot open "
                                   "'./nothere': No such file or directory\n");
  r = loadGpuTarget(kTargetsDir);
  EXPECT_EQ(r.formatDiagnostics(), kTargetsDir + ": error: cannot read '" +
                                       kTargetsDir + "': Is a directory\n");
}

TEST(GpuTargetResolve, DefaultSearchDirs) {
  // Built with TFUSE_SOURCE_TARGETS_DIR (CMake sets it): the source tree's
  // targets come last; TFUSE_TARGET_PATH entries come first.
  ::unsetenv("TFUSE_TARGET_PATH");
  std::vector<std::string> dirs = getDefaultTargetSearchDirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs.back(), kTargetsDir);

  std::string mine = makeTempDir("path");
  ::setenv("TFUSE_TARGET_PATH",
           (mine + "::/nonexistent:" + kTargetsDir + "/").c_str(), 1);
  dirs = getDefaultTargetSearchDirs();
  ::unsetenv("TFUSE_TARGET_PATH");
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], mine);
  EXPECT_EQ(dirs[1], kTargetsDir); // not repeated at the end
  EXPECT_EQ(std::count(dirs.begin(), dirs.end(), kTargetsDir), 1);
  ::rmdir(mine.c_str());
}

} // namespace
