//===- tfuse-compile.cpp - one-shot compiler to a bundle --------*- C++ -*-===//
//
// tfuse-compile FILE --target=h200 -o bundle/ [--no-fuse] [--dump-dir DIR]
// writes plan.json, kernels.ptx, kernels.sm_XX.cubin and report.json, as one
// transaction (writeBundle); no output may replace a file the compile read.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Pipelines/CompileBundle.h"
#include "tfuse/Pipelines/CompileSummary.h"
#include "tfuse/Support/OutputFile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<input .mlir>"));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Bundle directory to write"),
                                      cl::value_desc("dir"));
static cl::opt<bool> fusedAttention(
    "fused-attention",
    cl::desc("Emit attention as one flash-attention kernel where it can "
             "(otherwise decomposed into GEMMs and a softmax)"));
static cl::opt<bool>
    tf32("tf32", cl::desc("Run every f32 matmul in TF32 on tensor cores "
                          "(PyTorch's allow_tf32), backward included"));
static cl::opt<bool> decomposedAttentionBackward(
    "decomposed-attention-backward",
    cl::desc("With --train and --fused-attention: differentiate attention "
             "through its decomposition (GEMMs and a softmax) instead of the "
             "fused flash backward (tfuse.attention_grad), the default"));
static cl::opt<std::string>
    targetName("target", cl::init(mlir::tfuse::kDefaultTargetName),
               cl::desc("GPU target: a name (a40, l40s, h200, ...) or a JSON "
                        "target file"));
static cl::opt<bool> noFuse("no-fuse",
                            cl::desc("Skip fusion (the unfused baseline)"));
static cl::opt<std::string>
    dumpDir("dump-dir", cl::desc("Write every intermediate IR here"),
            cl::value_desc("dir"));
static cl::opt<std::string>
    functionName("function", cl::desc("Function to compile (default: first)"));
static cl::opt<bool>
    train("train", cl::desc("Compile the training step of --function (forward, "
                            "loss, backward: tfuse-autodiff) instead"));
static cl::opt<std::string>
    loss("loss", cl::init("seed"),
         cl::desc("With --train: seed (the output gradients are arguments), "
                  "mse (mean squared error against target arguments) or "
                  "cross-entropy (of logits against i32 label arguments)"));
static cl::opt<std::string> recompute(
    "recompute", cl::init("none"),
    cl::desc("With --train: none, norms-and-elementwise or full (activation "
             "checkpointing)"));
static cl::list<int64_t>
    noGrad("no-grad", cl::CommaSeparated,
           cl::desc("With --train: float arguments (by index) that get no "
                    "gradient, e.g. an attention mask"),
           cl::value_desc("i,j,..."));
static cl::opt<bool> quiet("quiet",
                           cl::desc("Print nothing on success (no summary)"));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfuse-compile") << message << "\n";
  return 1;
}

/// The one-screen summary: the bundle's target (as compiled) first, then the
/// reference GPUs.
static void printSummary(ModuleOp module, StringRef function,
                         const tfuse::BundleFiles &files) {
  ScopedDiagnosticHandler quietTarget(module.getContext(),
                                      [](Diagnostic &) { return success(); });
  FailureOr<std::vector<tfuse::GpuTarget>> target =
      tfuse::resolveTargets(module.getLoc(), {targetName.getValue()});
  if (failed(target))
    return;
  std::vector<tfuse::GpuTarget> targets = *target;
  for (tfuse::GpuTarget &other :
       tfuse::loadSummaryTargets(module.getContext(), targets.front().name))
    targets.push_back(std::move(other));
  std::vector<std::string> names;
  for (const auto &entry : files)
    names.push_back(entry.first);
  tfuse::printCompileSummary(module, function, targets, outputDir, names,
                             llvm::outs());
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tfuse::reportWritesPastFileSizeLimit();
  cl::ParseCommandLineOptions(argc, argv, "tfuse one-shot compiler\n");
  tfuse::recordInputFile(inputFile);
  // -o and --dump-dir are checked file by file as they are written.
  if (llvm::Error error = tfuse::checkOptionsNameNoInput(
          ArrayRef<const char *>(argv + 1, argc - 1), {"target"},
          {"o", "dump-dir"}))
    return fail(llvm::toString(std::move(error)));

  if (!train && (loss.getNumOccurrences() || recompute.getNumOccurrences() ||
                 noGrad.getNumOccurrences()))
    return fail("--loss, --recompute and --no-grad apply to --train only");
  if (decomposedAttentionBackward && (!train || !fusedAttention))
    return fail("--decomposed-attention-backward needs --train and "
                "--fused-attention");
  std::optional<tfuse::AutodiffOptions> trainOptions;
  if (train) {
    std::optional<tfuse::LossKind> lossKind = tfuse::parseLossKind(loss);
    if (!lossKind)
      return fail("unknown --loss '" + loss +
                  "' (expected seed, mse or cross-entropy)");
    std::optional<tfuse::RecomputePolicy> policy =
        tfuse::parseRecomputePolicy(recompute);
    if (!policy)
      return fail("unknown --recompute '" + recompute +
                  "' (expected none, norms-and-elementwise or full)");
    trainOptions = tfuse::AutodiffOptions{*lossKind, *policy, {}};
    trainOptions->noGrad.assign(noGrad.begin(), noGrad.end());
    // The fused backward passes --check on sm_90 for every shape of
    // bench/compile-attn-grad-bundles.sh (bench/NOTES.md, 2026-12-07).
    trainOptions->fusedAttention =
        fusedAttention && !decomposedAttentionBackward;
  }

  // The bundle directory must not be (or contain) the input file.
  if (llvm::sys::fs::is_regular_file(outputDir))
    return fail("'" + outputDir + "' is a file; -o names a bundle directory");
  DialectRegistry registry;
  tfuse::registerCompileBundleDependencies(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto buffer = openInputFile(inputFile, &error);
  if (!buffer)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  tfuse::CompileOptions options;
  options.target = targetName;
  options.fuse = !noFuse;
  options.fusedAttention = fusedAttention;
  options.tf32 = tf32;
  options.function = functionName;
  options.dumpDir = dumpDir;
  options.train = trainOptions;
  std::string compiled;
  FailureOr<tfuse::BundleFiles> files =
      tfuse::compileBundle(*module, options, &compiled);
  if (failed(files))
    return 1;

  if (llvm::Error err = tfuse::writeBundle(outputDir, *files))
    return fail(llvm::toString(std::move(err)));
  if (!quiet)
    printSummary(*module, compiled, *files);
  return 0;
}
