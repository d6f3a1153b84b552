//===- tfuse-run.cpp - Run, check and time a tfuse bundle -------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tfuse-run loads a bundle written by tfuse-compile (docs/bundle.md), runs
// it on the GPU, and optionally checks every step against the CPU reference
// (--check) and times it (--bench). Exit codes: 0 success, 1 a runtime
// failure or a failed check, 2 a usage error.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Bundle/Plan.h"
#include "tfuse/Runtime/Bench.h"
#include "tfuse/Runtime/Check.h"
#include "tfuse/Runtime/Device.h"
#include "tfuse/Runtime/Executor.h"
#include "tfuse/Runtime/Module.h"
#include "tfuse/Runtime/Npy.h"
#include "tfuse/Runtime/Results.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

const char kUsage[] =
    "usage: tfuse-run BUNDLE_DIR [options]\n"
    "\n"
    "Runs a tfuse bundle (plan.json + kernels) on the GPU.\n"
    "\n"
    "options:\n"
    "  --check              check every step against the CPU reference\n"
    "  --bench              time the plan (CUDA graph) and each step\n"
    "  --reps N             timed repetitions (default 20)\n"
    "  --warmup N           warm-up runs of the whole plan (default 3)\n"
    "  --json FILE          write the results as JSON\n"
    "  --seed N             seed of the random inputs (default 0)\n"
    "  --input NAME=FILE    read input NAME (a buffer name or the input's\n"
    "                       position) from a .npy file; repeatable\n"
    "  --inputs DIR         read every input NAME that --input does not give\n"
    "                       from DIR/NAME.npy where that file exists; every\n"
    "                       .npy file of DIR must name an input or output\n"
    "  --save-outputs DIR   write each function output to DIR/NAME.npy\n"
    "                       (DIR/output_I.npy for an output without a\n"
    "                       file-safe name)\n"
    "  --jit                ignore the cubin and JIT-compile the PTX\n"
    "  --validate           check the bundle (plan, kernel signatures,\n"
    "                       file hashes) and exit, without a GPU\n"
    "  --no-l2-flush        do not flush the L2 cache between timed reps\n"
    "  --gemm-heuristic     run cuBLASLt's first-ranked algorithm for each\n"
    "                       GEMM instead of timing its candidates on the\n"
    "                       first run and keeping the fastest\n"
    "  --help               show this message\n"
    "\n"
    "exit status: 0 success, 1 runtime failure or failed check, 2 usage "
    "error\n";

struct Options {
  std::string bundle;
  bool check = false;
  bool bench = false;
  bool jit = false;
  bool validate = false;
  bool flushL2 = true;
  bool gemmAutotune = true;
  int reps = 20;
  int warmup = 3;
  uint64_t seed = 0;
  std::string json;
  std::string saveOutputs;
  std::string inputsDir;
  /// NAME=FILE, as given.
  std::vector<std::pair<std::string, std::string>> inputs;
};

void error(const std::string &message) {
  std::fprintf(stderr, "tfuse-run: error: %s\n", message.c_str());
}

int usageError(const std::string &message) {
  error(message);
  std::fprintf(stderr, "run 'tfuse-run --help' for usage\n");
  return kExitUsage;
}

bool parseUnsigned(const std::string &text, uint64_t max, uint64_t &value) {
  if (text.empty() || text[0] < '0' || text[0] > '9')
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v > max)
    return false;
  value = v;
  return true;
}

/// Parses the command line; returns kExitOk to go on, or the exit code.
int parseOptions(int argc, char **argv, Options &o, bool &help) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg.compare(0, 2, "--") != 0 || arg == "--") {
      if (arg.size() > 1 && arg[0] == '-' && arg != "--")
        return usageError("unknown option '" + arg + "'");
      positional.push_back(arg);
      continue;
    }
    std::string name = arg, value;
    bool hasValue = false;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    auto flag = [&]() {
      if (hasValue) {
        usageError("option '" + name + "' takes no value");
        return false;
      }
      return true;
    };
    auto takeValue = [&]() {
      if (hasValue)
        return true;
      if (i + 1 >= argc) {
        usageError("option '" + name + "' needs a value");
        return false;
      }
      value = argv[++i];
      return true;
    };
    auto number = [&](uint64_t min, uint64_t max, uint64_t &out) {
      if (!takeValue())
        return false;
      if (!parseUnsigned(value, max, out) || out < min) {
        usageError("option '" + name + "' expects an integer in [" +
                   std::to_string(min) + ", " + std::to_string(max) +
                   "], got '" + value + "'");
        return false;
      }
      return true;
    };
    uint64_t n = 0;
    if (name == "--help") {
      help = true;
    } else if (name == "--check") {
      if (!flag())
        return kExitUsage;
      o.check = true;
    } else if (name == "--bench") {
      if (!flag())
        return kExitUsage;
      o.bench = true;
    } else if (name == "--jit") {
      if (!flag())
        return kExitUsage;
      o.jit = true;
    } else if (name == "--validate") {
      if (!flag())
        return kExitUsage;
      o.validate = true;
    } else if (name == "--no-l2-flush") {
      if (!flag())
        return kExitUsage;
      o.flushL2 = false;
    } else if (name == "--gemm-heuristic") {
      if (!flag())
        return kExitUsage;
      o.gemmAutotune = false;
    } else if (name == "--reps") {
      if (!number(1, 1000000, n))
        return kExitUsage;
      o.reps = static_cast<int>(n);
    } else if (name == "--warmup") {
      if (!number(0, 1000000, n))
        return kExitUsage;
      o.warmup = static_cast<int>(n);
    } else if (name == "--seed") {
      if (!number(0, UINT64_MAX, n))
        return kExitUsage;
      o.seed = n;
    } else if (name == "--json") {
      if (!takeValue())
        return kExitUsage;
      if (value.empty())
        return usageError("option '--json' needs a file name");
      o.json = value;
    } else if (name == "--save-outputs") {
      if (!takeValue())
        return kExitUsage;
      if (value.empty())
        return usageError("option '--save-outputs' needs a directory");
      o.saveOutputs = value;
    } else if (name == "--inputs") {
      if (!takeValue())
        return kExitUsage;
      if (value.empty())
        return usageError("option '--inputs' needs a directory");
      o.inputsDir = value;
    } else if (name == "--input") {
      if (!takeValue())
        return kExitUsage;
      size_t sep = value.find('=');
      if (sep == std::string::npos || sep == 0 || sep + 1 == value.size())
        return usageError("option '--input' expects NAME=FILE, got '" + value +
                          "'");
      o.inputs.emplace_back(value.substr(0, sep), value.substr(sep + 1));
    } else {
      return usageError("unknown option '" + name + "'");
    }
  }
  if (help)
    return kExitOk;
  if (positional.empty())
    return usageError("missing the bundle directory");
  if (positional.size() > 1)
    return usageError("unexpected argument '" + positional[1] +
                      "' (one bundle directory is expected)");
  o.bundle = positional[0];
  return kExitOk;
}

bool isDirectory(const std::string &path) {
  struct stat s;
  return ::stat(path.c_str(), &s) == 0 && S_ISDIR(s.st_mode);
}

/// Whether `name` can be a file name of its own: letters, digits, '_', '-',
/// '.', not starting with '.' (state-dict keys are).
bool isFileSafe(const std::string &name) {
  return !name.empty() && name[0] != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                  c == '-' || c == '.';
         });
}

/// The file --save-outputs writes output `index` to, inside its directory.
std::string outputFileName(const Plan &plan, size_t index) {
  const std::string &name = plan.buffers[plan.outputs[index]].name;
  return isFileSafe(name) ? name + ".npy"
                          : "output_" + std::to_string(index) + ".npy";
}

std::string describeInputs(const Plan &plan) {
  std::string names;
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    names += (i ? ", " : "") + std::string("'") +
             plan.buffers[plan.inputs[i]].name + "' (" + std::to_string(i) +
             ")";
  return names.empty() ? "none" : names;
}

/// Adds DIR/NAME.npy for every input that --input left out; every other
/// .npy file of DIR must be one --save-outputs writes for this plan (a
/// training step's gradients and loss beside its updated weights), so a
/// misspelt or stale file is an error, not an input silently left random.
bool resolveInputsDir(const Plan &plan, const std::string &dir,
                      std::vector<InputFile> &files, std::string &message) {
  DIR *handle = ::opendir(dir.c_str());
  if (!handle) {
    message = "--inputs " + dir + ": " + std::strerror(errno);
    return false;
  }
  std::set<std::string> npyFiles;
  while (const dirent *entry = ::readdir(handle)) {
    std::string file = entry->d_name;
    if (file.size() > 4 && file.compare(file.size() - 4, 4, ".npy") == 0)
      npyFiles.insert(file);
  }
  ::closedir(handle);
  std::set<std::string> used;
  for (size_t i = 0; i < plan.outputs.size(); ++i)
    used.insert(outputFileName(plan, i));
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const std::string &name = plan.buffers[plan.inputs[i]].name;
    if (!isFileSafe(name) || !npyFiles.count(name + ".npy"))
      continue;
    used.insert(name + ".npy");
    if (std::none_of(files.begin(), files.end(),
                     [&](const InputFile &f) { return f.input == i; }))
      files.push_back({i, dir + "/" + name + ".npy"});
  }
  for (const std::string &file : npyFiles)
    if (!used.count(file)) {
      message = "--inputs " + dir + ": '" + file +
                "' names no input or output of the plan (inputs: " +
                describeInputs(plan) + ")";
      return false;
    }
  return true;
}

/// Maps --input NAME=FILE, then --inputs DIR, to function input positions.
bool resolveInputs(const Plan &plan, const Options &o,
                   std::vector<InputFile> &files, std::string &message) {
  for (const auto &[name, path] : o.inputs) {
    std::optional<size_t> position;
    for (size_t i = 0; i < plan.inputs.size() && !position; ++i)
      if (plan.buffers[plan.inputs[i]].name == name)
        position = i;
    uint64_t n = 0;
    if (!position && parseUnsigned(name, UINT64_MAX, n) &&
        n < plan.inputs.size())
      position = static_cast<size_t>(n);
    if (!position) {
      message = "--input " + name + "=" + path +
                ": the plan has no input of that name or position (inputs: " +
                describeInputs(plan) + ")";
      return false;
    }
    for (const InputFile &f : files)
      if (f.input == *position) {
        message = "--input " + name + ": input " + std::to_string(*position) +
                  " is given twice";
        return false;
      }
    files.push_back({*position, path});
  }
  return o.inputsDir.empty() ||
         resolveInputsDir(plan, o.inputsDir, files, message);
}

/// Runs the plan step by step, checking each step; fills `checks`.
bool runChecked(Executor &executor, std::vector<StepCheck> &checks,
                std::string &message) {
  const Plan &plan = executor.plan();
  if (!executor.poisonResults(message))
    return false;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep &step = plan.steps[i];
    // Inputs are read before the step runs: a step may reuse its inputs'
    // arena bytes for its outputs.
    std::vector<ref::Tensor> inputs, outputs;
    for (size_t b : step.inputs) {
      std::optional<ref::Tensor> t = executor.download(b, message);
      if (!t)
        return false;
      inputs.push_back(std::move(*t));
    }
    if (!executor.enqueueStep(i, message) ||
        !executor.device().synchronize(plan.describeStep(i), message))
      return false;
    for (size_t b : step.outputs) {
      std::optional<ref::Tensor> t = executor.download(b, message);
      if (!t)
        return false;
      outputs.push_back(std::move(*t));
    }
    StepCheck c = checkStep(plan, i, inputs, outputs);
    if (!c.passed && std::none_of(checks.begin(), checks.end(),
                                  [](const StepCheck &s) { return !s.passed; }))
      error(describeCheckFailure(plan, c));
    checks.push_back(std::move(c));
  }
  return true;
}

bool saveOutputs(Executor &executor, const std::string &dir,
                 std::vector<std::string> &saved, std::string &message) {
  const Plan &plan = executor.plan();
  if (!isDirectory(dir) && ::mkdir(dir.c_str(), 0777) != 0) {
    message = "cannot create directory '" + dir + "': " + std::strerror(errno);
    return false;
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    std::optional<ref::Tensor> t = executor.download(plan.outputs[i], message);
    if (!t)
      return false;
    std::vector<uint8_t> bytes = tensorToNpy(*t);
    std::string path = dir + "/" + outputFileName(plan, i);
    if (!writeFileAtomically(path, std::string(bytes.begin(), bytes.end()),
                             message))
      return false;
    saved.push_back(path);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  // A write past the file size limit fails with EFBIG, reported, rather
  // than killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  Options o;
  bool help = false;
  if (int code = parseOptions(argc, argv, o, help))
    return code;
  if (help) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (!isDirectory(o.bundle))
    return usageError("'" + o.bundle + "' is not a directory");
  std::string planPath = o.bundle + "/plan.json";
  struct stat planStat;
  if (::stat(planPath.c_str(), &planStat) != 0)
    return usageError("'" + o.bundle +
                      "' is not a bundle: it has no plan.json");

  // Everything that can be checked without a GPU is checked here, before a
  // device is opened: the schema, every cross-reference, each kernel's
  // arguments against its parameters and the PTX, the files' hashes.
  PlanLoadResult loaded = loadPlan(o.bundle);
  std::fputs(loaded.formatDiagnostics().c_str(), stderr);
  if (!loaded.plan)
    return kExitFailure;
  const Plan &plan = *loaded.plan;
  if (o.validate) {
    std::printf("%s: a valid bundle of '%s' for %s (%zu steps)\n",
                o.bundle.c_str(), plan.function.c_str(),
                plan.target.name.c_str(), plan.steps.size());
    return kExitOk;
  }

  std::vector<InputFile> inputFiles;
  std::string message;
  if (!resolveInputs(plan, o, inputFiles, message))
    return usageError(message);

  // Never write over a file this run reads.
  std::vector<std::string> readFiles = {planPath,
                                        o.bundle + "/" + plan.ptxFile};
  if (plan.cubinFile)
    readFiles.push_back(o.bundle + "/" + *plan.cubinFile);
  for (const InputFile &f : inputFiles)
    readFiles.push_back(f.path);
  if (!o.json.empty() && !checkOutputIsNotAnInput(o.json, readFiles, message))
    return usageError(message);
  if (!o.saveOutputs.empty())
    for (size_t i = 0; i < plan.outputs.size(); ++i)
      if (!checkOutputIsNotAnInput(o.saveOutputs + "/" +
                                       outputFileName(plan, i),
                                   readFiles, message))
        return usageError(message);

  std::unique_ptr<Device> device = Device::open(0, message);
  if (!device) {
    error(message);
    return kExitFailure;
  }
  std::string warning;
  if (!checkArchitecture(plan.target.smArch, device->info(), message,
                         warning)) {
    error(message);
    return kExitFailure;
  }
  if (!warning.empty())
    std::fprintf(stderr, "tfuse-run: warning: %s\n", warning.c_str());

  std::unique_ptr<KernelModule> module =
      KernelModule::load(plan, device->info(), o.jit, message);
  if (!module) {
    error(message);
    return kExitFailure;
  }
  if (!module->note().empty())
    std::fprintf(stderr, "tfuse-run: note: %s\n", module->note().c_str());

  std::unique_ptr<Executor> executor =
      Executor::create(plan, *device, *module, o.gemmAutotune, message);
  if (!executor) {
    error(message);
    return kExitFailure;
  }

  RunResults results;
  results.bundleDir = o.bundle;
  results.plan = &plan;
  results.seed = o.seed;
  const DeviceInfo &info = device->info();
  results.device = {info.name,        info.smArch(), info.driverVersion,
                    info.totalMemory, info.smCount,  module->source()};
  if (!executor->fillInputs(o.seed, inputFiles, results.inputSources,
                            message)) {
    error(message);
    return kExitFailure;
  }
  std::printf("%s: %s on %s (%s), %zu steps, kernels from %s\n",
              o.bundle.c_str(), plan.function.c_str(), info.name.c_str(),
              info.smArch().c_str(), plan.steps.size(),
              module->source().c_str());

  if (o.check) {
    results.checked = true;
    if (!runChecked(*executor, results.checks, message)) {
      error(message);
      return kExitFailure;
    }
  } else if (!executor->enqueuePlan(message) ||
             !device->synchronize("running the plan", message)) {
    error(message);
    return kExitFailure;
  }
  if (!o.saveOutputs.empty() &&
      !saveOutputs(*executor, o.saveOutputs, results.savedOutputs, message)) {
    error(message);
    return kExitFailure;
  }
  if (o.bench) {
    BenchOptions bo;
    bo.reps = o.reps;
    bo.warmup = o.warmup;
    bo.flushL2 = o.flushL2;
    results.bench = runBenchmark(*executor, bo, message);
    if (!results.bench) {
      error(message);
      return kExitFailure;
    }
  }

  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const GemmChoice *choice = executor->gemmChoice(i);
    results.gemmChoices.push_back(choice ? std::optional<GemmChoice>(*choice)
                                         : std::nullopt);
  }
  std::fputs(formatResultsTable(results).c_str(), stdout);
  std::fflush(stdout);
  if (!o.json.empty() &&
      !writeFileAtomically(o.json, formatResultsJson(results), message)) {
    error(message);
    return kExitFailure;
  }
  if (const StepCheck *failure = results.firstFailure()) {
    error("check failed: first failing step is " +
          plan.describeStep(failure->step));
    return kExitFailure;
  }
  return kExitOk;
}
