//===- PlanFuzzer.cpp - fuzz the plan.json reader ---------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for a bundle's plan.json: parsePlan, the reader tfuse-run
// loads bundles with (without a bundle directory, so no other file is read).
// A plan it accepts must survive the round trip the schema promises:
// parsePlan(formatPlan(p)) loads without errors and formats to the same
// text.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Bundle/Plan.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace mlir::tfuse;
using namespace mlir::tfuse::bundle;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  PlanLoadResult result = parsePlan(text, "plan.json");
  (void)result.formatDiagnostics();
  if (!result.plan)
    return 0;
  const Plan &plan = *result.plan;
  (void)plan.predictedTotalUs();
  for (size_t i = 0; i < plan.steps.size(); ++i)
    (void)plan.describeStep(i);
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    (void)plan.describeBuffer(i);

  std::string written = formatPlan(plan);
  PlanLoadResult reread = parsePlan(written, "written.json");
  if (!reread.plan) {
    std::fprintf(stderr, "formatPlan wrote a plan the reader refuses:\n%s%s\n",
                 reread.formatDiagnostics().c_str(), written.c_str());
    std::abort();
  }
  std::string rewritten = formatPlan(*reread.plan);
  if (rewritten != written) {
    std::fprintf(stderr, "formatPlan(parsePlan(t)) != t for t =\n%s\ngot\n%s\n",
                 written.c_str(), rewritten.c_str());
    std::abort();
  }
  return 0;
}
