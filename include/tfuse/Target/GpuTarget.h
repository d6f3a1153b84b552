//===- GpuTarget.h - GPU target descriptions --------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares GpuTarget, the figures of one GPU that the traffic and
// roofline analyses need, and its loader from a JSON target file
// (targets/<name>.json, schema version 1; docs/targets.md describes the
// schema). Every bad field is reported with its file position and JSON path;
// unknown keys and figures without a source are warnings.
//
// The library uses no LLVM/MLIR and no exceptions, so that the GPU runtime can
// read the same files.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TARGET_GPUTARGET_H
#define TFUSE_TARGET_GPUTARGET_H

#include "tfuse/Json/JsonReader.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::tfuse {

/// The target tfuse-compile and tfuse-fuse use when none is named: the GPU
/// the project measures on.
inline constexpr const char *kDefaultTargetName = "h200";

/// The datasheet bandwidths a target (or a bandwidth sweep) may give, in
/// GB/s: any plausible GPU, and never so small that a time is infinite.
inline constexpr double kMinBandwidthGBps = 1, kMaxBandwidthGBps = 100000;

/// The target file schema version this library reads.
inline constexpr int kGpuTargetSchemaVersion = 1;

/// The PCIe link between a GPU and its host (and, through the host's
/// switches, the other GPUs). Rates are per direction.
struct PcieLink {
  int generation = 0; ///< 3, 4, 5, 6
  int lanes = 0;      ///< 1, 2, 4, 8 or 16
  /// Fraction (0, 1] of the link rate that collectives reach (NCCL's bus
  /// bandwidth over the link rate).
  double achievableFraction = 0;
  /// Fixed cost of one step of a ring collective over this link, in µs.
  double latencyUs = 0;

  /// The link rate of `lanes` lanes of `generation`, per direction, in GB/s
  /// (after line coding: 128b/130b from generation 3 on).
  double bandwidthGBps() const;
};

/// NVLink between GPUs of one NVLink domain: a bridge pairing two cards, or
/// an NVSwitch board. Rates are per GPU and direction, over all its links.
struct NvlinkLink {
  int version = 0;
  double bandwidthGBps = 0;
  /// The most GPUs one domain connects: 2 for a bridge, 8 for an HGX board.
  int gpusPerDomain = 0;
  /// True when the link is an optional bridge a system may not have fitted,
  /// so both configurations are worth pricing.
  bool bridge = false;
  double achievableFraction = 0;
  double latencyUs = 0;
};

/// How GPUs of this kind talk to each other.
struct Interconnect {
  PcieLink pcie;
  std::optional<NvlinkLink> nvlink; ///< empty where the GPU has none
};

/// What a bf16 GEMM with rows off 16-byte alignment kept of the aligned
/// GEMMs' efficiency on an H100 (bench/NOTES.md, 2026-12-07: BERT-Large's
/// vocabulary GEMMs, N = 30522, at 234-278 TFLOP/s against 732 priced);
/// assumed for every target that gives no figure of its own.
constexpr double kDefaultGemmUnalignedFactor = 0.35;

/// One GPU, as described by a target file. Units are in the names; rates are
/// dense (no structured sparsity) and tensor rates accumulate in FP32.
struct GpuTarget {
  /// Short name used on command lines and in reports ("a40"). When loaded
  /// from a file, the file stem.
  std::string name;
  std::string displayName;  ///< "NVIDIA A40"
  std::string architecture; ///< "Ampere (GA102)"; may be empty
  std::string smArch;       ///< "sm_86"; matches sm_[0-9]+
  int smCount = 0;
  double boostClockMhz = 0;
  std::string memoryType; ///< "GDDR6", "HBM3e"; may be empty
  double memoryCapacityGB = 0;
  /// Datasheet memory bandwidth, in 10^9 bytes per second.
  double memoryBandwidthGBps = 0;
  /// Measured fraction (0, 1] of the datasheet bandwidth that a well-written
  /// streaming kernel (mixed reads and writes) reaches.
  double achievableBandwidthFraction = 0;
  double l2CacheMB = 0;           ///< MiB, as NVIDIA quotes cache sizes
  double sharedMemoryPerSmKB = 0; ///< KiB, the per-SM maximum
  int maxThreadsPerSm = 0;
  double fp32Tflops = 0;       ///< SIMT (non-tensor) FP32
  double tf32TensorTflops = 0; ///< tensor cores, TF32 inputs
  double fp16TensorTflops = 0; ///< tensor cores, FP16 inputs, FP32 accumulate
  double bf16TensorTflops = 0; ///< tensor cores, BF16 inputs, FP32 accumulate
  /// Tensor cores, FP8 inputs, FP32 accumulate; empty where the GPU has none.
  std::optional<double> fp8TensorTflops;
  /// Fixed cost per kernel, in microseconds.
  double kernelLaunchOverheadUs = 0;
  /// Fraction (0, 1] of the dense tensor-core peak that library GEMMs
  /// (cuBLASLt) reach; optional in the file, 1 when absent.
  double gemmEfficiency = 1.0;
  /// What a tensor-core GEMM whose rows are not 16-byte aligned keeps of
  /// gemmEfficiency (cuBLASLt leaves its fast kernels); optional in the
  /// file, kDefaultGemmUnalignedFactor when absent.
  double gemmUnalignedFactor = kDefaultGemmUnalignedFactor;
  /// Fraction (0, 1] of the dense tensor-core peak that tfuse's
  /// flash-attention kernels (mma.sync m16n8k16, forward and backward)
  /// reach; optional in the file: without it they are priced at
  /// gemmEfficiency.
  std::optional<double> attentionEfficiency;
  /// The links between GPUs; optional in the file (multi-GPU pricing
  /// refuses a target without it).
  std::optional<Interconnect> interconnect;
  /// Source of each figure, by dotted key path ("memory.bandwidth_gbps").
  std::map<std::string, std::string> sources;

  /// memoryBandwidthGBps * achievableBandwidthFraction.
  double achievableBandwidthGBps() const {
    return memoryBandwidthGBps * achievableBandwidthFraction;
  }
};

/// The outcome of loading a target: the target (absent when there was any
/// error) and every error and warning, in file order.
struct TargetLoadResult {
  std::optional<GpuTarget> target;
  std::vector<JsonDiagnostic> diagnostics;
  /// The file the target was read from (what diagnostics refer to); the
  /// `fileName` given to parseGpuTarget.
  std::string path;

  bool hasErrors() const { return mlir::tfuse::hasErrors(diagnostics); }
  /// All diagnostics, one per line, prefixed with `path`.
  std::string formatDiagnostics() const {
    return mlir::tfuse::formatDiagnostics(diagnostics, path);
  }
};

/// The dotted key paths of the figures that need a source: every numeric
/// field ("sm_count", "memory.bandwidth_gbps", "peak_tflops.fp8_tensor", ...),
/// in schema order.
const std::vector<std::string> &gpuTargetFigureKeys();

/// A check of a syntactically valid "sm_arch" beyond this library's (which
/// knows no compiler): "" when it is accepted, else why not. The compiler
/// asks its NVPTX backend (lib/Analysis/TargetLoading.cpp).
using SmArchCheck = std::function<std::string(const std::string &smArch)>;

/// Parses a target file's text. `fileName` is where the text came from (may
/// be empty); when it ends in ".json", the target is named after its stem,
/// and a different "name" in the file is a warning. A rejected "sm_arch" is
/// an error at its position.
TargetLoadResult parseGpuTarget(std::string_view text,
                                std::string_view fileName,
                                const SmArchCheck &checkSmArch = {});

/// Reads and parses the target file at `path`.
TargetLoadResult loadGpuTarget(const std::string &path,
                               const SmArchCheck &checkSmArch = {});

/// A name ("a40") is looked up as <dir>/<name>.json in searchDirs in order;
/// anything containing '/' or ending in ".json" is a path. An unknown name
/// is an error that lists the available names.
TargetLoadResult resolveGpuTarget(const std::string &nameOrPath,
                                  const std::vector<std::string> &searchDirs,
                                  const SmArchCheck &checkSmArch = {});

/// The names of the target files (stems of *.json) in searchDirs, sorted,
/// without duplicates. Directories that do not exist are skipped.
std::vector<std::string>
listTargetNames(const std::vector<std::string> &searchDirs);

/// The directories where target names are looked up, in order, keeping only
/// those that exist:
///   1. each entry of the TFUSE_TARGET_PATH environment variable
///      (':'-separated), so users can add their own GPUs by name;
///   2. ../share/tfuse/targets next to the running executable (an installed
///      tfuse, wherever it was moved);
///   3. the install directory configured at build time
///      (TFUSE_INSTALL_TARGETS_DIR);
///   4. the source tree's targets/ (TFUSE_SOURCE_TARGETS_DIR), for tools run
///      from the build directory.
std::vector<std::string> getDefaultTargetSearchDirs();

} // namespace mlir::tfuse

#endif // TFUSE_TARGET_GPUTARGET_H
