//===- MlirPipelineFuzzer.cpp - fuzz parse, report, fuse, plan --*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for the compiler's front half on arbitrary .mlir text, the
// path tfuse-opt and tfuse-compile take: parse (and verify) with the tfuse
// dialects registered, the traffic report in its three formats, attention
// decomposition, fusion for the H200, and the plan builder, which emits every
// kernel (row, loop, copy) into a gpu.module and writes plan.json.
// Diagnostics are swallowed: bad input must fail cleanly, never crash. Three
// invariants abort (a finding): a successful transformation must leave IR
// that verifies, the JSON report must be valid JSON, and the plan.json the
// builder writes must load without errors in the bundle reader.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Bundle/Plan.h"
#include "tfuse/Conversion/PlanBuilder.h"
#include "tfuse/InitAll.h"
#include "tfuse/Json/JsonReader.h"
#include "tfuse/Transforms/FusionPlanner.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

[[noreturn]] void finding(const std::string &what, Operation *ir = nullptr) {
  std::fprintf(stderr, "tfuse-fuzz-mlir-pipeline: %s\n", what.c_str());
  if (ir)
    ir->print(llvm::errs(), OpPrintingFlags().printGenericOpForm());
  std::abort();
}

/// The shipped targets the report compares and the fuser decides with.
const std::vector<GpuTarget> &getTargets() {
  static const std::vector<GpuTarget> targets = [] {
    MLIRContext context;
    FailureOr<std::vector<GpuTarget>> loaded =
        resolveTargets(UnknownLoc::get(&context), {"h200", "a40"});
    if (failed(loaded))
      finding("cannot load the h200 and a40 targets");
    return *loaded;
  }();
  return targets;
}

void checkReports(ModuleOp module) {
  // Sizes that overflow are refused with a diagnostic: nothing to report.
  FailureOr<TrafficReport> report =
      analyzeTraffic(module, getTargets(), {500, 1000});
  if (failed(report))
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  printTextReport(*report, os);
  printHtmlReport(*report, os);
  text.clear();
  // Refusing to write a non-finite number is allowed; writing one is not.
  if (llvm::Error error = printJsonReport(*report, os)) {
    llvm::consumeError(std::move(error));
    return;
  }
  JsonParseResult json = parseJson(text);
  if (!json)
    finding("the JSON report does not parse: " + json.error.format("") + "\n" +
            text);
}

void verifyOrDie(Operation *op, const char *after) {
  if (failed(verify(op)))
    finding(std::string("the IR does not verify after ") + after, op);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::vector<GpuTarget> &targets = getTargets();
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(reinterpret_cast<const char *>(data), size), "fuzz.mlir"),
      llvm::SMLoc());
  // Parsing verifies the module.
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 0;
  // The emitters build ops of every registered dialect, as in tfuse-compile.
  context.loadAllAvailableDialects();

  checkReports(*module);

  PassManager pm(&context);
  pm.enableVerifier(false);
  pm.addPass(createTFuseDecomposeAttention());
  if (failed(pm.run(*module)))
    return 0;
  verifyOrDie(*module, "tfuse-decompose-attention");

  if (failed(fuseModule(*module, targets.front())))
    return 0;
  verifyOrDie(*module, "tfuse-fuse");
  checkReports(*module);

  for (auto func : module->getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    OpBuilder builder(&context);
    OwningOpRef<ModuleOp> container = ModuleOp::create(module->getLoc());
    container.get()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                             builder.getUnitAttr());
    builder.setInsertionPointToStart(container->getBody());
    auto kernels =
        gpu::GPUModuleOp::create(builder, module->getLoc(), "kernels");
    FailureOr<bundle::Plan> built =
        buildPlan(func, targets.front(), kernels, "kernels.ptx", "");
    if (failed(built))
      continue;
    // The module's hash as compileBundle fills it in once it has the PTX.
    built->ptxHash = bundle::contentHash("");
    std::string planText = bundle::formatPlan(*built);
    verifyOrDie(func, "buildPlan (the function)");
    verifyOrDie(*container, "buildPlan (the kernels)");
    bundle::PlanLoadResult plan = bundle::parsePlan(planText, "plan.json");
    if (plan.hasErrors())
      finding("the bundle reader refuses the plan the builder wrote:\n" +
              plan.formatDiagnostics() + planText);
  }
  return 0;
}
