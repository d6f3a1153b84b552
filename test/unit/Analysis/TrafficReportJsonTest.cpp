//===- TrafficReportJsonTest.cpp - the JSON report refuses non-JSON -------===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Validated targets give finite times; a report that still holds an
// infinite or NaN number (which llvm::json would spell `inf`, `nan`) is
// refused rather than written.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TrafficAnalysis.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <limits>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

TrafficReport reportWithL2(double l2CacheMB) {
  TrafficReport report;
  GpuTarget target;
  target.name = "toy";
  target.l2CacheMB = l2CacheMB;
  report.targets.push_back(target);
  report.totals.targets.push_back(TargetTotals());
  return report;
}

TEST(TrafficReportJson, FiniteReportIsJson) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::Error error = printJsonReport(reportWithL2(6), os);
  ASSERT_FALSE(error) << llvm::toString(std::move(error));
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
}

TEST(TrafficReportJson, NonFiniteNumbersAreRefused) {
  for (double bad : {std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::Error error = printJsonReport(reportWithL2(bad), os);
    ASSERT_TRUE(bool(error));
    EXPECT_NE(llvm::toString(std::move(error))
                  .find("refusing to write a JSON report holding a number "
                        "JSON cannot spell (infinite or NaN)"),
              std::string::npos);
    EXPECT_EQ(text, ""); // nothing written
  }
}

} // namespace
