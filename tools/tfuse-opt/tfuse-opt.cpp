//===- tfuse-opt.cpp - the tfuse optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt with the tfuse dialect and passes. Unlike plain mlir-opt it never
// replaces a file it reads: -o, and every file mlir-opt's own options write
// (--log-actions-to, --profile-actions-to, --mlir-generate-reproducer,
// --remarks-output-file, --mlir-pass-pipeline-crash-reproducer), are refused
// when they name the input or the --irdl-file; -o is written atomically and
// also refused at the end when it names a file a pass read (a target JSON),
// so a failing run never destroys a user's file.
//
//===----------------------------------------------------------------------===//

#include "tfuse/InitAll.h"
#include "tfuse/Support/OutputFile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfuse-opt") << message << "\n";
  return 1;
}

/// The value of a string option registered by MLIR without an accessor.
static std::string registeredStringOption(llvm::StringRef name) {
  auto options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it == options.end())
    return "";
  // MLIR declares it as a cl::opt<std::string> (lib/Pass/
  // PassManagerOptions.cpp); the options have no RTTI to check that with.
  return static_cast<llvm::cl::opt<std::string> *>(it->second)->getValue();
}

int main(int argc, char **argv) {
  // Signal handlers first (MlirOptMain's own InitLLVM then keeps them), so
  // that a write past the file size limit can be made a reported error.
  llvm::InitLLVM init(argc, argv);
  tfuse::reportWritesPastFileSizeLimit();
  tfuse::registerAllPasses();
  DialectRegistry registry;
  tfuse::registerAllDialects(registry);

  auto [input, output] = registerAndParseCLIOptions(
      argc, argv, "tfuse optimizer driver\n", registry);
  tfuse::recordInputFile(input);

  // mlir-opt opens these itself, before any pass runs.
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  tfuse::recordInputFile(config.getIrdlFile());
  std::pair<std::string, std::string> sideOutputs[] = {
      {"--log-actions-to", config.getDebugConfig().getLogActionsTo().str()},
      {"--profile-actions-to",
       config.getDebugConfig().getProfileActionsTo().str()},
      {"--mlir-generate-reproducer", config.getReproducerFilename().str()},
      {"--remarks-output-file", config.getRemarksOutputFile()},
      {"--mlir-pass-pipeline-crash-reproducer",
       registeredStringOption("mlir-pass-pipeline-crash-reproducer")},
      {"-o", output}};
  for (const auto &[flag, path] : sideOutputs)
    if (!path.empty())
      if (llvm::Error error = tfuse::checkOutputIsNotAnInput(path))
        return fail(flag + ": " + llvm::toString(std::move(error)));

  if (tfuse::writesInPlace(output))
    return asMainReturnCode(MlirOptMain(argc, argv, input, output, registry));

  // Write beside the destination, then rename: the destination is replaced
  // only by a complete output of a successful run, and never when it is a
  // file a pass read.
  llvm::Expected<std::string> temp = tfuse::createTemporaryBeside(output);
  if (!temp)
    return fail(llvm::toString(temp.takeError()));
  if (failed(MlirOptMain(argc, argv, input, *temp, registry))) {
    llvm::sys::fs::remove(*temp);
    return 1;
  }
  if (llvm::Error error = tfuse::commitTemporary(*temp, output))
    return fail("-o: " + llvm::toString(std::move(error)));
  return 0;
}
