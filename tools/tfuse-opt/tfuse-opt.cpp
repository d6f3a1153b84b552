//===- tfuse-opt.cpp - the tfuse optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt with the tfuse dialect and passes. Unlike plain mlir-opt it refuses
// an output that is one of its inputs and writes its output atomically, so a
// failing run never destroys a user's file.
//
//===----------------------------------------------------------------------===//

#include "tfuse/InitAll.h"
#include "tfuse/Support/OutputFile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

int main(int argc, char **argv) {
  tfuse::registerAllPasses();
  DialectRegistry registry;
  tfuse::registerAllDialects(registry);

  auto [input, output] = registerAndParseCLIOptions(
      argc, argv, "tfuse optimizer driver\n", registry);
  if (llvm::Error error = tfuse::checkOutputIsNotAnInput(output, {input})) {
    llvm::WithColor::error(llvm::errs(), "tfuse-opt")
        << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  if (tfuse::writesInPlace(output))
    return asMainReturnCode(MlirOptMain(argc, argv, input, output, registry));

  // Write beside the destination, then rename: the destination is replaced
  // only by a complete output of a successful run.
  llvm::Expected<std::string> temp = tfuse::createTemporaryBeside(output);
  if (!temp) {
    llvm::WithColor::error(llvm::errs(), "tfuse-opt")
        << llvm::toString(temp.takeError()) << "\n";
    return 1;
  }
  if (failed(MlirOptMain(argc, argv, input, *temp, registry))) {
    llvm::sys::fs::remove(*temp);
    return 1;
  }
  if (std::error_code ec = llvm::sys::fs::rename(*temp, output)) {
    llvm::WithColor::error(llvm::errs(), "tfuse-opt")
        << "cannot write '" << output << "': " << ec.message() << "\n";
    llvm::sys::fs::remove(*temp);
    return 1;
  }
  return 0;
}
