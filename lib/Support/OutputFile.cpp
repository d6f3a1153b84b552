//===- OutputFile.cpp - safe output files for tfuse tools -------*- C++ -*-===//
//
// Output-equals-input refusal and atomic (temporary + rename) writes.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace mlir::tfuse;

Error mlir::tfuse::checkOutputIsNotAnInput(StringRef output,
                                           ArrayRef<std::string> inputs) {
  if (output == "-")
    return Error::success();
  // equivalent() compares device and inode, so links and other spellings of
  // the same path are caught; an output that does not exist yet is no input.
  for (const std::string &input : inputs) {
    bool same = false;
    if (input != "-" && !sys::fs::equivalent(input, output, same) && same)
      return createStringError(inconvertibleErrorCode(),
                               "output '" + output + "' is the input '" +
                                   input + "': refusing to overwrite it");
  }
  return Error::success();
}

Expected<std::string> mlir::tfuse::createTemporaryBeside(StringRef path) {
  SmallString<256> model(path);
  model += ".tmp-%%%%%%";
  int fd = -1;
  SmallString<256> temp;
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, temp))
    return createStringError(ec, "cannot create a temporary file beside '" +
                                     path + "': " + ec.message());
  sys::fs::closeFile(fd);
  return std::string(temp);
}

/// Devices, pipes and the like (/dev/null) cannot be replaced by a rename:
/// they are written in place.
static bool isSpecialFile(StringRef path) {
  sys::fs::file_status status;
  return !sys::fs::status(path, status) && sys::fs::exists(status) &&
         !sys::fs::is_regular_file(status) && !sys::fs::is_directory(status);
}

bool mlir::tfuse::writesInPlace(StringRef path) {
  return path == "-" || isSpecialFile(path);
}

Expected<std::unique_ptr<AtomicOutputFile>>
AtomicOutputFile::create(StringRef path) {
  if (isSpecialFile(path)) {
    std::error_code ec;
    auto stream = std::make_unique<raw_fd_ostream>(path, ec);
    if (ec)
      return createStringError(ec,
                               "cannot open '" + path + "': " + ec.message());
    return std::unique_ptr<AtomicOutputFile>(
        new AtomicOutputFile(path.str(), path.str(), std::move(stream)));
  }
  if (path == "-")
    return std::unique_ptr<AtomicOutputFile>(new AtomicOutputFile(
        "-", "-", std::make_unique<raw_fd_ostream>(1, /*shouldClose=*/false)));
  Expected<std::string> temp = createTemporaryBeside(path);
  if (!temp)
    return temp.takeError();
  std::error_code ec;
  auto stream = std::make_unique<raw_fd_ostream>(*temp, ec);
  if (ec) {
    sys::fs::remove(*temp);
    return createStringError(ec,
                             "cannot open '" + *temp + "': " + ec.message());
  }
  return std::unique_ptr<AtomicOutputFile>(
      new AtomicOutputFile(path.str(), *temp, std::move(stream)));
}

Error AtomicOutputFile::commit() {
  stream->flush();
  if (path == "-" || temp == path) {
    committed = true;
    return Error::success();
  }
  auto *fdStream = static_cast<raw_fd_ostream *>(stream.get());
  fdStream->close();
  if (fdStream->has_error()) {
    std::error_code ec = fdStream->error();
    fdStream->clear_error();
    return createStringError(ec,
                             "cannot write '" + temp + "': " + ec.message());
  }
  if (std::error_code ec = sys::fs::rename(temp, path))
    return createStringError(ec, "cannot rename '" + temp + "' to '" + path +
                                     "': " + ec.message());
  committed = true;
  return Error::success();
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed || path == "-" || temp == path)
    return;
  auto *fdStream = static_cast<raw_fd_ostream *>(stream.get());
  fdStream->close();
  fdStream->clear_error();
  sys::fs::remove(temp);
}
