//===- OutputFile.cpp - safe output files for tfuse tools -------*- C++ -*-===//
//
// The files a process read, output-equals-input refusal, and atomic
// (temporary + rename) writes of one file or of a set of files.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Support/OutputFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"

#include <csignal>
#include <mutex>
#include <vector>

using namespace llvm;
using namespace mlir::tfuse;

namespace {
/// The files this process read, as given.
struct RecordedInputs {
  std::mutex mutex;
  std::vector<std::string> paths;
};
RecordedInputs &recordedInputs() {
  static RecordedInputs inputs;
  return inputs;
}
} // namespace

void mlir::tfuse::recordInputFile(StringRef path) {
  if (path.empty() || path == "-")
    return;
  RecordedInputs &inputs = recordedInputs();
  std::lock_guard<std::mutex> lock(inputs.mutex);
  if (llvm::find(inputs.paths, path) == inputs.paths.end())
    inputs.paths.push_back(path.str());
}

Error mlir::tfuse::checkOutputIsNotAnInput(StringRef output,
                                           ArrayRef<std::string> inputs) {
  if (output == "-")
    return Error::success();
  std::vector<std::string> all(inputs.begin(), inputs.end());
  {
    RecordedInputs &recorded = recordedInputs();
    std::lock_guard<std::mutex> lock(recorded.mutex);
    all.insert(all.end(), recorded.paths.begin(), recorded.paths.end());
  }
  // equivalent() compares device and inode, so links and other spellings of
  // the same path are caught; an output that does not exist yet is no input.
  for (const std::string &input : all) {
    bool same = false;
    if (input != "-" && !sys::fs::equivalent(input, output, same) && same)
      return createStringError(inconvertibleErrorCode(),
                               "output '" + output + "' is the input '" +
                                   input + "': refusing to overwrite it");
  }
  return Error::success();
}

/// The recorded inputs.
static std::vector<std::string> recordedInputPaths() {
  RecordedInputs &recorded = recordedInputs();
  std::lock_guard<std::mutex> lock(recorded.mutex);
  return recorded.paths;
}

/// Fails when a file under the directory `dir` is a recorded input: a tool
/// writing files under it could replace one. Symbolic links are not
/// followed (a link's target is not under `dir`, but a hard link is).
static Error checkDirectoryHoldsNoInput(StringRef dir) {
  std::vector<std::string> inputs = recordedInputPaths();
  std::error_code ec;
  for (sys::fs::recursive_directory_iterator it(dir, ec, false), end;
       it != end && !ec; it.increment(ec)) {
    if (it->type() != sys::fs::file_type::regular_file)
      continue;
    for (const std::string &input : inputs) {
      bool same = false;
      if (!sys::fs::equivalent(input, it->path(), same) && same)
        return createStringError(inconvertibleErrorCode(),
                                 "directory '" + dir + "' holds the input '" +
                                     input + "' (as '" + it->path() +
                                     "'): refusing to write files under it");
    }
  }
  return Error::success();
}

Error mlir::tfuse::checkOptionsNameNoInput(
    ArrayRef<const char *> args, ArrayRef<StringRef> readers,
    ArrayRef<StringRef> ownChecks, ArrayRef<StringRef> readerPassOptions) {
  auto &options = cl::getRegisteredOptions();
  // (option name, value) for every option given a value: --name=value, or
  // --name value where the option requires one. Bare words are positional.
  std::vector<std::pair<std::string, std::string>> values;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef arg = args[i];
    if (arg == "--")
      break;
    if (!arg.starts_with("-") || arg == "-")
      continue;
    StringRef name = arg.ltrim('-');
    StringRef value;
    bool hasValue = false;
    if (size_t eq = name.find('='); eq != StringRef::npos) {
      value = name.substr(eq + 1);
      name = name.take_front(eq);
      hasValue = true;
    }
    auto it = options.find(name);
    if (it == options.end())
      continue;
    if (!hasValue) {
      if (it->second->getValueExpectedFlag() != cl::ValueRequired ||
          i + 1 == args.size())
        continue;
      value = args[++i];
    }
    values.emplace_back(name.str(), value.str());
  }
  for (const auto &[name, value] : values) {
    if (llvm::is_contained(readers, name))
      recordInputFile(value);
    // Pass options inside a pipeline ("--tfuse-fuse=target=a40.json",
    // "--pass-pipeline=...(tfuse-traffic-report{targets=a.json,b.json})").
    StringRef rest = value;
    while (!rest.empty()) {
      size_t eq = rest.find('=');
      if (eq == StringRef::npos)
        break;
      size_t keyStart = rest.find_last_of(" {,'\"", eq);
      StringRef key =
          rest.slice(keyStart == StringRef::npos ? 0 : keyStart + 1, eq);
      rest = rest.drop_front(eq + 1);
      StringRef list = rest.take_until(
          [](char c) { return c == ' ' || c == '}' || c == '\'' || c == '"'; });
      if (!llvm::is_contained(readerPassOptions, key))
        continue;
      SmallVector<StringRef> files;
      list.split(files, ',', -1, /*KeepEmpty=*/false);
      for (StringRef file : files)
        recordInputFile(file);
    }
  }
  for (const auto &[name, value] : values) {
    if (value.empty() || value == "-" || llvm::is_contained(readers, name) ||
        llvm::is_contained(ownChecks, name))
      continue;
    auto fail = [&, &name = name](Error error) {
      return createStringError(inconvertibleErrorCode(),
                               "-" + Twine(name.size() > 1 ? "-" : "") + name +
                                   ": " + toString(std::move(error)));
    };
    if (Error error = checkOutputIsNotAnInput(value))
      return fail(std::move(error));
    // A file under a regular file can never be created; some writers
    // (MLIR's remarks) would fail without saying why.
    StringRef parent = sys::path::parent_path(value);
    if (!parent.empty() && sys::fs::exists(parent) &&
        !sys::fs::is_directory(parent))
      return fail(createStringError(inconvertibleErrorCode(),
                                    "cannot write '" + value + "': '" + parent +
                                        "' is not a directory"));
    // The same for a file-valued option naming a directory.
    static constexpr StringRef fileWriters[] = {
        "remarks-output-file",      "log-actions-to",
        "profile-actions-to",       "mlir-pass-pipeline-crash-reproducer",
        "mlir-generate-reproducer", "info-output-file"};
    if (llvm::is_contained(fileWriters, name) && sys::fs::is_directory(value))
      return fail(
          createStringError(inconvertibleErrorCode(),
                            "cannot write '" + value + "': it is a directory"));
    if (sys::fs::is_directory(value))
      if (Error error = checkDirectoryHoldsNoInput(value))
        return fail(std::move(error));
  }
  return Error::success();
}

Error mlir::tfuse::commitTemporary(StringRef temp, StringRef path) {
  if (Error err = checkOutputIsNotAnInput(path)) {
    sys::fs::remove(temp);
    return err;
  }
  if (std::error_code ec = sys::fs::rename(temp, path)) {
    sys::fs::remove(temp);
    return createStringError(ec, "cannot rename '" + temp + "' to '" + path +
                                     "': " + ec.message());
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

/// A write error that a stream reports only when it is destroyed (mlir-opt's
/// own output file) is a fatal error in LLVM: printed as the error it is,
/// the process then exits with 1 and removes its temporaries. Other fatal
/// errors are printed as LLVM prints them.
static void reportFatalError(void *, const char *reason, bool) {
  StringRef text(reason);
  if (text.consume_front("IO failure on output stream: "))
    WithColor::error() << "cannot write an output file: " << text << "\n";
  else
    errs() << "LLVM ERROR: " << reason << "\n";
  errs().flush();
}

void mlir::tfuse::reportWritesPastFileSizeLimit() {
  // llvm::InitLLVM installs a handler for SIGXFSZ that prints a stack trace
  // and kills the process; ignored, the write fails with EFBIG instead.
  std::signal(SIGXFSZ, SIG_IGN);
  llvm::install_fatal_error_handler(reportFatalError);
}

Expected<std::unique_ptr<AtomicOutputFile>>
AtomicOutputFile::create(StringRef path) {
  if (Error err = checkOutputIsNotAnInput(path))
    return std::move(err);
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

Error AtomicOutputFile::close() {
  if (closed)
    return Error::success();
  closed = true;
  auto *fdStream = static_cast<raw_fd_ostream *>(stream.get());
  if (path == "-")
    fdStream->flush();
  else
    fdStream->close();
  if (fdStream->has_error()) {
    std::error_code ec = fdStream->error();
    fdStream->clear_error();
    return createStringError(ec,
                             "cannot write '" + path + "': " + ec.message());
  }
  return Error::success();
}

Error AtomicOutputFile::commit() {
  if (Error err = close())
    return err;
  if (path == "-" || temp == path) {
    committed = true;
    return Error::success();
  }
  if (Error err = commitTemporary(temp, path))
    return err;
  committed = true;
  return Error::success();
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!closed) {
    auto *fdStream = static_cast<raw_fd_ostream *>(stream.get());
    if (path != "-")
      fdStream->close();
    fdStream->clear_error();
  }
  if (!committed && path != "-" && temp != path)
    sys::fs::remove(temp);
}

Error mlir::tfuse::writeFilesAtomically(
    StringRef dir, ArrayRef<std::pair<std::string, std::string>> files) {
  std::vector<std::unique_ptr<AtomicOutputFile>> written;
  for (const auto &[name, contents] : files) {
    SmallString<256> path(dir);
    sys::path::append(path, name);
    Expected<std::unique_ptr<AtomicOutputFile>> file =
        AtomicOutputFile::create(path);
    if (!file)
      return file.takeError();
    (*file)->os() << contents;
    if (Error err = (*file)->close())
      return err;
    written.push_back(std::move(*file));
  }
  // Everything is on disk: put it into place, the commit record last.
  for (std::unique_ptr<AtomicOutputFile> &file : written)
    if (Error err = file->commit())
      return err;
  return Error::success();
}
