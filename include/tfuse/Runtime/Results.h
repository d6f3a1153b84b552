//===- Results.h - tfuse-run's results: table and JSON ----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares what one `tfuse-run` produced (RunResults), its two
// renderings (the human table and the `--json` document, schema described
// in docs/bundle.md, "Results"), and the safe file output every tool of
// tfuse uses: an output may not name an input, and files are written to a
// temporary beside the target and renamed into place.
//
// No LLVM/MLIR, no CUDA, no exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_RESULTS_H
#define TFUSE_RUNTIME_RESULTS_H

#include "tfuse/Bundle/Plan.h"
#include "tfuse/Runtime/Bench.h"
#include "tfuse/Runtime/Check.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::tfuse::rt {

/// The results JSON schema version.
inline constexpr int kResultsSchemaVersion = 1;

struct DeviceSummary {
  std::string name;
  /// "sm_90".
  std::string smArch;
  int driverVersion = 0;
  int64_t memoryBytes = 0;
  int smCount = 0;
  /// How the kernels were loaded: "cubin kernels.sm_90.cubin" or
  /// "PTX kernels.ptx (JIT)".
  std::string moduleSource;
};

struct RunResults {
  std::string bundleDir;
  const Plan *plan = nullptr;
  DeviceSummary device;
  uint64_t seed = 0;
  /// Per function input: "random(seed=S, stream=I)" or the .npy path.
  std::vector<std::string> inputSources;
  bool checked = false;
  std::vector<StepCheck> checks;
  std::optional<BenchResult> bench;
  /// Per step: how its GEMM algorithm was chosen (nullopt for kernels).
  std::vector<std::optional<GemmChoice>> gemmChoices;
  /// Files written by --save-outputs.
  std::vector<std::string> savedOutputs;

  /// The first failing step's check, or null.
  const StepCheck *firstFailure() const;
};

/// The human-readable table: one row per step (index, name, kind, predicted
/// us, measured us, GB/s, % of the target's bandwidth, check error), then
/// the totals.
std::string formatResultsTable(const RunResults &results);

/// A one-paragraph description of a failed check: the step, the output
/// buffer, the worst element with its index, GPU and reference values.
std::string describeCheckFailure(const Plan &plan, const StepCheck &check);

/// The --json document, keys in schema order. NaN and infinities (which
/// JSON lacks) are written as null; bytes that are not UTF-8 as U+FFFD.
std::string formatResultsJson(const RunResults &results);

/// Fails (with a message in `error`) when `output` names the same file as
/// one of `inputs`, by name or through links (both are compared by device
/// and inode when they exist).
bool checkOutputIsNotAnInput(const std::string &output,
                             const std::vector<std::string> &inputs,
                             std::string &error);

/// Writes `contents` to a temporary file in the directory of `path` and
/// renames it onto `path`; on failure nothing is left behind and `path` is
/// untouched.
bool writeFileAtomically(const std::string &path, const std::string &contents,
                         std::string &error);

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_RESULTS_H
