//===- OutputFile.h - safe output files for tfuse tools ---------*- C++ -*-===//
//
// The tools never modify a user's input: every file a tool reads is recorded
// (recordInputFile), an output that is the same file as a recorded input (by
// device and inode, so other spellings and links are caught) is refused, and
// outputs are written to a temporary file in the same directory and renamed
// into place only when everything succeeded.
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
#include <utility>

namespace mlir::tfuse {

/// Records that this process reads `path` (its input, a target file, ...):
/// from then on no output of the process may replace it. "-" (stdin) is
/// ignored. Thread-safe: passes record the files they read.
void recordInputFile(llvm::StringRef path);

/// Fails when `output` (not "-") is the same file as a recorded input or one
/// of `inputs`, whether by name, by a link, or by another spelling of the
/// path. An output that does not exist yet is no input.
llvm::Error checkOutputIsNotAnInput(llvm::StringRef output,
                                    llvm::ArrayRef<std::string> inputs = {});

/// Fails when an option on the command line `args` (argv without argv[0])
/// names a recorded input, by any spelling or link, or names a directory an
/// input lies in (mlir-opt's --mlir-print-ir-tree-dir writes files under
/// it). Every option registered with llvm::cl is taken as one that may write
/// where it points: --log-actions-to, --info-output-file, and the many file
/// options of the LLVM libraries the tools link. `readers` name the options
/// that read a file (--irdl-file, --target): their files are recorded as
/// inputs first. `ownChecks` name the options the tool checks itself (a
/// bundle directory -o, whose files are checked one by one).
/// `readerPassOptions` name the pass options that read files (tfuse-fuse's
/// target=, the traffic report's targets= and measured=): the files they
/// name inside a pipeline option are inputs too, known before a pass runs.
llvm::Error
checkOptionsNameNoInput(llvm::ArrayRef<const char *> args,
                        llvm::ArrayRef<llvm::StringRef> readers,
                        llvm::ArrayRef<llvm::StringRef> ownChecks,
                        llvm::ArrayRef<llvm::StringRef> readerPassOptions = {});

/// Checks `path` against the recorded inputs, then renames `temp` onto it
/// (removing `temp` on failure): how every output is put into place.
llvm::Error commitTemporary(llvm::StringRef temp, llvm::StringRef path);

/// A file written through a temporary in the same directory and renamed into
/// place by commit(). Destroying it uncommitted removes the temporary, so a
/// failed run leaves the previous file (if any) untouched. "-" is stdout;
/// devices and pipes (/dev/null) are written in place.
class AtomicOutputFile {
public:
  /// Fails when `path` is a recorded input.
  static llvm::Expected<std::unique_ptr<AtomicOutputFile>>
  create(llvm::StringRef path);
  ~AtomicOutputFile();

  llvm::raw_ostream &os() { return *stream; }
  /// The temporary's path (the final path for stdout).
  llvm::StringRef tempPath() const { return temp; }
  /// Flushes and closes the temporary: fails when a write failed (a full
  /// disk, a file size limit). The final path is not touched yet.
  llvm::Error close();
  /// close(), then commitTemporary.
  llvm::Error commit();

private:
  AtomicOutputFile(std::string path, std::string temp,
                   std::unique_ptr<llvm::raw_ostream> stream)
      : path(std::move(path)), temp(std::move(temp)),
        stream(std::move(stream)) {}

  std::string path;
  std::string temp;
  std::unique_ptr<llvm::raw_ostream> stream;
  bool closed = false, committed = false;
};

/// Writes files into the directory `dir` as one transaction: every file is
/// written to a temporary in `dir` and closed first, then the temporaries
/// are renamed into place in the order given. A failure before the renames
/// (a full disk) leaves `dir` as it was; the last file is the commit record
/// (a bundle's plan.json, whose hashes let a reader refuse a bundle torn by
/// a failure among the renames).
llvm::Error
writeFilesAtomically(llvm::StringRef dir,
                     llvm::ArrayRef<std::pair<std::string, std::string>> files);

/// True for "-" and for existing non-regular files (/dev/null, pipes), which
/// are written in place rather than replaced through a temporary.
bool writesInPlace(llvm::StringRef path);

/// The temporary name an output at `path` is first written to.
llvm::Expected<std::string> createTemporaryBeside(llvm::StringRef path);

/// Makes a write past the file size limit (RLIMIT_FSIZE) fail with EFBIG,
/// reported like a full disk, instead of killing the process with SIGXFSZ.
/// Called by every tool's main, after llvm::InitLLVM.
void reportWritesPastFileSizeLimit();

} // namespace mlir::tfuse

#endif // TFUSE_SUPPORT_OUTPUTFILE_H
