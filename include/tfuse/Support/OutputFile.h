//===- OutputFile.h - safe output files for tfuse tools ---------*- C++ -*-===//
//
// The tools never modify a user's input: an output that names an input is
// refused before anything runs, and outputs are written to a temporary file in
// the same directory and renamed into place only when everything succeeded.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_OUTPUTFILE_H
#define TFUSE_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mlir::tfuse {

/// Fails when `output` (not "-") is the same file as one of `inputs`, whether
/// by name, by a link, or by a different spelling of the path.
llvm::Error checkOutputIsNotAnInput(llvm::StringRef output,
                                    llvm::ArrayRef<std::string> inputs);

/// A file written through a temporary in the same directory and renamed into
/// place by commit(). Destroying it uncommitted removes the temporary, so a
/// failed run leaves the previous file (if any) untouched. "-" is stdout.
class AtomicOutputFile {
public:
  static llvm::Expected<std::unique_ptr<AtomicOutputFile>>
  create(llvm::StringRef path);
  ~AtomicOutputFile();

  llvm::raw_ostream &os() { return *stream; }
  /// The temporary's path (the final path for stdout).
  llvm::StringRef tempPath() const { return temp; }
  /// Flushes, closes and renames the temporary onto the final path.
  llvm::Error commit();

private:
  AtomicOutputFile(std::string path, std::string temp,
                   std::unique_ptr<llvm::raw_ostream> stream)
      : path(std::move(path)), temp(std::move(temp)),
        stream(std::move(stream)) {}

  std::string path;
  std::string temp;
  std::unique_ptr<llvm::raw_ostream> stream;
  bool committed = false;
};

/// True for "-" and for existing non-regular files (/dev/null, pipes), which
/// are written in place rather than replaced through a temporary.
bool writesInPlace(llvm::StringRef path);

/// The temporary name an output at `path` is first written to.
llvm::Expected<std::string> createTemporaryBeside(llvm::StringRef path);

} // namespace mlir::tfuse

#endif // TFUSE_SUPPORT_OUTPUTFILE_H
