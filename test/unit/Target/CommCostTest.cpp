//===- CommCostTest.cpp - Tests of links and collectives --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of the "interconnect" part of target files and of the ring
// collective times: the shipped links carry the datasheet figures, bad links
// give located errors, and every time is checked against hand arithmetic.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/CommCost.h"

#include "gtest/gtest.h"

#include <string>

#ifndef TFUSE_SOURCE_DIR
#error "TFUSE_SOURCE_DIR must be defined to the project root (CMake sets it)"
#endif

using namespace mlir::tfuse;

namespace {

const std::string kTargetsDir = std::string(TFUSE_SOURCE_DIR) + "/targets";

GpuTarget shipped(const std::string &name) {
  TargetLoadResult r = resolveGpuTarget(name, {kTargetsDir});
  EXPECT_TRUE(r.target.has_value()) << r.formatDiagnostics();
  return r.target ? *r.target : GpuTarget();
}

/// A minimal valid target whose "interconnect" is `interconnect` (JSON text
/// starting on line 20, column 19).
std::string withInterconnect(const std::string &interconnect) {
  return R"json({
  "schema_version": 1,
  "name": "t",
  "display_name": "T",
  "sm_arch": "sm_86",
  "sm_count": 84,
  "boost_clock_mhz": 1740,
  "memory": {"capacity_gb": 48, "bandwidth_gbps": 696,
             "achievable_fraction": 0.94, "l2_cache_mb": 6},
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
  "interconnect": )json" +
         interconnect + R"json(,
  "sources": {}
}
)json";
}

const char *const kPcie4 = R"json({"generation": 4, "lanes": 16,
    "achievable_fraction": 0.5, "latency_us": 2})json";

/// The errors (not the missing-source warnings) of a target whose
/// "interconnect" is `interconnect`.
std::string errorsOf(const std::string &interconnect) {
  std::string all = parseGpuTarget(withInterconnect(interconnect), "t.json")
                        .formatDiagnostics();
  std::string errors;
  for (std::size_t at = 0; at < all.size();) {
    std::size_t end = all.find('\n', at);
    std::string line = all.substr(at, end - at + 1);
    if (line.find(": error: ") != std::string::npos)
      errors += line;
    at = end + 1;
  }
  return errors;
}

} // namespace

TEST(Interconnect, PcieRatePerGeneration) {
  // Per direction: GT/s x coding x lanes / 8 bits.
  EXPECT_DOUBLE_EQ((PcieLink{3, 16, 1, 1}.bandwidthGBps()),
                   8 * 128.0 / 130 * 2);
  EXPECT_DOUBLE_EQ((PcieLink{4, 16, 1, 1}.bandwidthGBps()),
                   16 * 128.0 / 130 * 2); // 31.51 GB/s
  EXPECT_DOUBLE_EQ((PcieLink{5, 8, 1, 1}.bandwidthGBps()),
                   32 * 128.0 / 130); // 31.51 GB/s
  EXPECT_DOUBLE_EQ((PcieLink{2, 1, 1, 1}.bandwidthGBps()), 0.5);
}

TEST(Interconnect, ShippedLinks) {
  GpuTarget a40 = shipped("a40");
  ASSERT_TRUE(a40.interconnect.has_value());
  EXPECT_EQ(a40.interconnect->pcie.generation, 4);
  EXPECT_EQ(a40.interconnect->pcie.lanes, 16);
  ASSERT_TRUE(a40.interconnect->nvlink.has_value());
  EXPECT_EQ(a40.interconnect->nvlink->bandwidthGBps, 56.25); // 112.5 / 2
  EXPECT_EQ(a40.interconnect->nvlink->gpusPerDomain, 2);
  EXPECT_TRUE(a40.interconnect->nvlink->bridge);

  GpuTarget l40s = shipped("l40s");
  ASSERT_TRUE(l40s.interconnect.has_value());
  EXPECT_EQ(l40s.interconnect->pcie.generation, 4);
  EXPECT_FALSE(l40s.interconnect->nvlink.has_value());

  for (const char *name : {"h200", "h100-sxm"}) {
    GpuTarget t = shipped(name);
    ASSERT_TRUE(t.interconnect && t.interconnect->nvlink) << name;
    EXPECT_EQ(t.interconnect->pcie.generation, 5);
    EXPECT_EQ(t.interconnect->nvlink->version, 4);
    EXPECT_EQ(t.interconnect->nvlink->bandwidthGBps, 450); // 900 / 2
    EXPECT_EQ(t.interconnect->nvlink->gpusPerDomain, 8);
    EXPECT_FALSE(t.interconnect->nvlink->bridge);
  }
  GpuTarget a100 = shipped("a100-80gb-sxm");
  ASSERT_TRUE(a100.interconnect && a100.interconnect->nvlink);
  EXPECT_EQ(a100.interconnect->nvlink->bandwidthGBps, 300); // 600 / 2
}

TEST(Interconnect, ParseErrors) {
  EXPECT_EQ(
      errorsOf(std::string("{\"pcie\": ") + kPcie4 + ", \"nvlink\": null}"),
      "");
  EXPECT_EQ(errorsOf(std::string("{\"pcie\": ") + kPcie4 + "}"),
            "t.json:20:19: error: $.interconnect.nvlink: required key is "
            "missing\n");
  EXPECT_EQ(errorsOf("{\"pcie\": {\"generation\": 7, \"lanes\": 12, "
                     "\"achievable_fraction\": 0.5, \"latency_us\": 2}, "
                     "\"nvlink\": null}"),
            "t.json:20:43: error: $.interconnect.pcie.generation: expected an "
            "integer in [1, 6], got 7\n"
            "t.json:20:55: error: $.interconnect.pcie.lanes: expected 1, 2, "
            "4, 8 or 16 lanes, got 12\n");
  EXPECT_EQ(
      errorsOf(std::string("{\"pcie\": ") + kPcie4 +
               ", \"nvlink\": {\"version\": 4, \"bandwidth_gbps\": 0, "
               "\"gpus_per_domain\": 1, \"bridge\": 1, "
               "\"achievable_fraction\": 0.8, \"latency_us\": 1}}"),
      "t.json:21:94: error: $.interconnect.nvlink.bandwidth_gbps: expected a "
      "number in [1, 100000], got 0\n"
      "t.json:21:116: error: $.interconnect.nvlink.gpus_per_domain: expected "
      "an integer in [2, 1024], got 1\n"
      "t.json:21:129: error: $.interconnect.nvlink.bridge: expected true or "
      "false, got 1\n");
  EXPECT_EQ(errorsOf("[]"),
            "t.json:20:19: error: $.interconnect: expected an object, got an "
            "array\n");
}

TEST(CommLink, SelectsTheSlowestLinkOfTheRing) {
  std::string why;
  GpuTarget a40 = shipped("a40");
  // Two bridged A40s talk over NVLink; four cross PCIe between the pairs;
  // without the bridge every ring is PCIe.
  std::optional<CommLink> pair = selectCommLink(a40, 2, BridgeFitted::Yes, why);
  ASSERT_TRUE(pair.has_value()) << why;
  EXPECT_EQ(pair->name, "nvlink");
  EXPECT_DOUBLE_EQ(pair->bandwidthGBps, 56.25 * 0.8);
  std::optional<CommLink> four = selectCommLink(a40, 4, BridgeFitted::Yes, why);
  ASSERT_TRUE(four.has_value());
  EXPECT_EQ(four->name, "pcie");
  EXPECT_DOUBLE_EQ(four->bandwidthGBps, 16 * 128.0 / 130 * 2 * 0.65);
  EXPECT_EQ(selectCommLink(a40, 2, BridgeFitted::No, why)->name, "pcie");
  // Built-in NVLink ignores the bridge question.
  GpuTarget h200 = shipped("h200");
  EXPECT_EQ(selectCommLink(h200, 8, BridgeFitted::No, why)->name, "nvlink");
  EXPECT_EQ(selectCommLink(h200, 16, BridgeFitted::No, why)->name, "pcie");

  EXPECT_FALSE(selectCommLink(h200, 1, BridgeFitted::No, why));
  EXPECT_EQ(why, "a collective needs at least 2 GPUs, got 1");
  GpuTarget bare = h200;
  bare.interconnect.reset();
  EXPECT_FALSE(selectCommLink(bare, 2, BridgeFitted::No, why));
  EXPECT_EQ(why, "target \"h200\" describes no interconnect (add "
                 "\"interconnect\" to its file, docs/targets.md)");
}

TEST(CollectiveTime, RingFactorsByHand) {
  const CommLink link{"nvlink", 360, 1.0}; // 450 GB/s x 0.8
  const int64_t gib = int64_t(1) << 30;
  // All-reduce of 1 GiB over 8 GPUs: 2 * 7 / 8 GiB over each link,
  // 1879048192 B / 360e3 B/us = 5219.58 us, plus 14 steps of 1 us.
  CollectiveTime ar =
      predictCollectiveTime(Collective::AllReduce, gib, 8, link);
  EXPECT_DOUBLE_EQ(ar.busBytes, 1879048192.0);
  EXPECT_NEAR(ar.bandwidthUs, 5219.578, 1e-3);
  EXPECT_DOUBLE_EQ(ar.latencyUs, 14);
  EXPECT_DOUBLE_EQ(ar.totalUs, ar.bandwidthUs + 14);
  // Reduce-scatter and all-gather move half of that, in 7 steps.
  for (Collective c : {Collective::ReduceScatter, Collective::AllGather}) {
    CollectiveTime t = predictCollectiveTime(c, gib, 8, link);
    EXPECT_DOUBLE_EQ(t.busBytes, 939524096.0) << stringifyCollective(c);
    EXPECT_DOUBLE_EQ(t.latencyUs, 7);
  }
  // Two GPUs: an all-reduce sends the whole buffer once (2 * 1 / 2).
  EXPECT_DOUBLE_EQ(
      predictCollectiveTime(Collective::AllReduce, 1000, 2, link).busBytes,
      1000);
  // One GPU, or nothing to send: no communication.
  EXPECT_EQ(predictCollectiveTime(Collective::AllReduce, gib, 1, link).totalUs,
            0);
  EXPECT_EQ(predictCollectiveTime(Collective::AllGather, 0, 8, link).totalUs,
            0);
}
