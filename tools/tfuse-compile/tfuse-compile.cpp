//===- tfuse-compile.cpp - one-shot compiler to a bundle --------*- C++ -*-===//
//
// tfuse-compile FILE --target=h200 -o bundle/ [--no-fuse] [--dump-dir DIR]
// writes plan.json, kernels.ptx, kernels.sm_XX.cubin and report.json.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Pipelines/CompileBundle.h"
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

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfuse-compile") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tfuse one-shot compiler\n");

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
  options.function = functionName;
  options.dumpDir = dumpDir;
  FailureOr<tfuse::BundleFiles> files = tfuse::compileBundle(*module, options);
  if (failed(files))
    return 1;

  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return fail("cannot create '" + outputDir + "': " + ec.message());
  for (const auto &[name, contents] : *files) {
    SmallString<256> path(outputDir);
    llvm::sys::path::append(path, name);
    if (llvm::Error err =
            tfuse::checkOutputIsNotAnInput(path, {inputFile.getValue()}))
      return fail(llvm::toString(std::move(err)));
    auto file = tfuse::AtomicOutputFile::create(path);
    if (!file)
      return fail(llvm::toString(file.takeError()));
    (*file)->os() << contents;
    if (llvm::Error err = (*file)->commit())
      return fail(llvm::toString(std::move(err)));
  }
  return 0;
}
