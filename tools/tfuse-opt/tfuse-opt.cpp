//===- tfuse-opt.cpp - the tfuse optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt with the tfuse dialect and passes. Unlike plain mlir-opt it never
// replaces a file it reads: -o, and every file or directory an option names
// (--log-actions-to, --mlir-pass-pipeline-crash-reproducer,
// --info-output-file, --mlir-print-ir-tree-dir, ...), are refused when they
// name the input or the --irdl-file or a directory holding one; -o is
// written atomically and also refused at the end when it names a file a pass
// read (a target JSON), so a failing run never destroys a user's file.
//
//===----------------------------------------------------------------------===//

#include "tfuse/InitAll.h"
#include "tfuse/Support/OutputFile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfuse-opt") << message << "\n";
  return 1;
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

  // mlir-opt and the LLVM libraries open their output files themselves,
  // before any pass runs (or, for --info-output-file, at exit).
  if (llvm::Error error = tfuse::checkOptionsNameNoInput(
          llvm::ArrayRef<const char *>(argv + 1, argc - 1), {"irdl-file"}, {},
          {"target", "targets", "measured"}))
    return fail(llvm::toString(std::move(error)));

  if (tfuse::writesInPlace(output))
    return asMainReturnCode(MlirOptMain(argc, argv, input, output, registry));

  // Write beside the destination, then rename: the destination is replaced
  // only by a complete output of a successful run, and never when it is a
  // file a pass read.
  llvm::Expected<std::string> temp = tfuse::createTemporaryBeside(output);
  if (!temp)
    return fail(llvm::toString(temp.takeError()));
  // Removed also when a write error ends the process (a full disk).
  llvm::sys::RemoveFileOnSignal(*temp);
  if (failed(MlirOptMain(argc, argv, input, *temp, registry))) {
    llvm::sys::fs::remove(*temp);
    return 1;
  }
  llvm::sys::DontRemoveFileOnSignal(*temp);
  if (llvm::Error error = tfuse::commitTemporary(*temp, output))
    return fail("-o: " + llvm::toString(std::move(error)));
  return 0;
}
