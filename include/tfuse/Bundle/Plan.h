//===- Plan.h - plan.json types, reader and writer --------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares Plan, the in-memory form of a bundle's plan.json
// (docs/bundle.md), its writer (used by tfuse-compile) and its loader (used
// by tfuse-run): the one definition of the schema both sides share. The
// loader checks every field and every cross-reference (buffer ids, arena
// bounds and alignment, aliases, step inputs and outputs, GEMM extents, the
// `ops` graph of each step against the step's buffers, each kernel's
// arguments against its parameters and the PTX's entries, the content hash
// of every module file) and reports each problem as
//
//   bundle/plan.json:12:7: error: $.steps[3].grid[0]: expected an integer
//   in [1, 2147483647], got 0
//
// It never crashes on bad input: truncated files, wrong types, dangling ids
// and absurd sizes are all diagnostics. Once loaded, a Plan refers to
// buffers by their index in `buffers`, never by id.
//
// No LLVM/MLIR, no CUDA, no exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_BUNDLE_PLAN_H
#define TFUSE_BUNDLE_PLAN_H

#include "tfuse/Json/JsonReader.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Reference/Reference.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::tfuse::bundle {

/// The plan.json schema version written and read.
inline constexpr int kPlanSchemaVersion = 2;
/// Arena offsets (and every allocation of the runtime) are aligned to this.
inline constexpr int64_t kBufferAlignment = 256;

enum class BufferKind { Input, Output, Temp, Alias, Constant };

/// "input", "output", "temp", "alias", "constant".
const char *bufferKindName(BufferKind kind);

struct PlanBuffer {
  /// The id used in plan.json.
  int64_t id = 0;
  /// Inputs and outputs: the function argument's or result's `tfuse.name`
  /// (a state-dict key, `input_ids`, `logits`), else `argN` / `%ID`.
  std::string name;
  /// Inputs: the checkpoint stores this [in, out] weight as [out, in]
  /// (`tfuse.checkpoint_transposed`; scripts/checkpoint-to-npy.py).
  bool checkpointTransposed = false;
  std::vector<int64_t> shape;
  ref::DType dtype = ref::DType::F32;
  int64_t bytes = 0;
  BufferKind kind = BufferKind::Temp;
  /// Temps: byte offset in the arena.
  int64_t offset = 0;
  /// Aliases: index (in Plan::buffers) of the buffer aliased.
  int64_t aliasOf = -1;
  /// Aliases: index of the non-alias buffer whose bytes this one shares,
  /// following chains of aliases. Other buffers: their own index.
  int64_t storage = -1;
  /// Constants: row-major values, each exactly representable in dtype.
  std::vector<double> values;

  int64_t numElements() const { return ref::numElements(shape); }
  ref::TensorType type() const { return {dtype, shape}; }
};

/// The target the plan was compiled for.
struct PlanTarget {
  std::string name;
  std::string smArch;
  double bandwidthGBps = 0;
  double achievableBandwidthGBps = 0;
};

enum class StepKind { Kernel, Gemm };
enum class Epilogue { None, Bias, Gelu, BiasGelu, Relu, BiasRelu };

/// "none", "bias", "gelu", "bias_gelu", "relu", "bias_relu".
const char *epilogueName(Epilogue epilogue);
bool epilogueHasBias(Epilogue epilogue);

/// How a kernel uses the buffer behind one of its pointer parameters.
enum class ParamAccess { Read, Write, ReadWrite };

/// "read", "write", "read_write".
const char *paramAccessName(ParamAccess access);
inline bool paramWrites(ParamAccess access) {
  return access != ParamAccess::Read;
}

/// One parameter of a compiled kernel, as the compiler saw its signature:
/// a pointer to `bytes` bytes that the kernel reads and/or writes.
struct KernelParam {
  ParamAccess access = ParamAccess::Read;
  int64_t bytes = 0;

  bool operator==(const KernelParam &other) const {
    return access == other.access && bytes == other.bytes;
  }
};

struct KernelLaunch {
  /// Entry point in the module.
  std::string kernel;
  /// "loop", "row_reduction", "layout", "generator" (informational).
  std::string templateName;
  std::array<unsigned, 3> grid = {1, 1, 1};
  std::array<unsigned, 3> block = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// Buffer indices passed as one device pointer each, in order.
  std::vector<size_t> args;
  /// The kernel's parameters, one per argument.
  std::vector<KernelParam> params;
};

struct GemmCall {
  size_t lhs = 0, rhs = 0, out = 0;
  std::optional<size_t> bias;
  Epilogue epilogue = Epilogue::None;
  bool transposeLhs = false, transposeRhs = false;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  /// In elements; 0 broadcasts one matrix over the batch.
  int64_t lhsBatchStride = 0, rhsBatchStride = 0, outBatchStride = 0;
  ref::DType dtype = ref::DType::F32;
  /// f32 operands multiplied on tensor cores in TF32 (tfuse.matmul tf32).
  bool tf32 = false;
};

struct PlanStep {
  StepKind kind = StepKind::Kernel;
  std::string name;
  /// Buffer indices.
  std::vector<size_t> inputs, outputs;
  double predictedUs = 0;
  int64_t bytes = 0;
  int64_t flops = 0;
  /// The reference graph: arguments are `inputs`, yields are `outputs`.
  ref::RefGraph ops;
  /// Valid when kind == Kernel.
  KernelLaunch launch;
  /// Valid when kind == Gemm.
  GemmCall gemm;
};

struct Plan {
  int schemaVersion = kPlanSchemaVersion;
  std::string function;
  PlanTarget target;
  /// File names inside the bundle directory, each with the contentHash of
  /// its bytes (the cubin's is empty when there is no cubin).
  std::string ptxFile, ptxHash;
  std::optional<std::string> cubinFile;
  std::string cubinHash;
  int64_t arenaBytes = 0;
  std::vector<PlanBuffer> buffers;
  /// Buffer indices of the function's arguments and results, in order.
  std::vector<size_t> inputs, outputs;
  std::vector<PlanStep> steps;
  /// The bundle directory the plan was loaded from ("" when parsed from
  /// text).
  std::string bundleDir;
  /// The module files' bytes as loadPlan read them and checked their hashes
  /// (empty when parsed from text): the runtime loads these, never the
  /// files again, so what runs is what was checked.
  std::string ptxText, cubinImage;

  /// Sum of the steps' predicted times.
  double predictedTotalUs() const;
  /// "step 3 ('fusion_3')".
  std::string describeStep(size_t index) const;
  /// "buffer 7 ('%12')".
  std::string describeBuffer(size_t index) const;
};

/// The outcome of loading a plan: the plan (absent when there was any error)
/// and every error and warning, in file order.
struct PlanLoadResult {
  std::optional<Plan> plan;
  std::vector<JsonDiagnostic> diagnostics;
  /// The file diagnostics refer to.
  std::string path;

  bool hasErrors() const { return mlir::tfuse::hasErrors(diagnostics); }
  std::string formatDiagnostics() const {
    return mlir::tfuse::formatDiagnostics(diagnostics, path);
  }
};

struct PlanParseOptions {
  /// When set, the module files must exist in this directory and every
  /// kernel step's `kernel` must be an `.entry` of the PTX.
  std::optional<std::string> bundleDir;
};

/// Parses and validates plan.json text. `fileName` is what diagnostics
/// name.
PlanLoadResult parsePlan(std::string_view text, std::string_view fileName,
                         const PlanParseOptions &options = {});

/// Reads BUNDLE_DIR/plan.json and validates it against the bundle's files.
PlanLoadResult loadPlan(const std::string &bundleDir);

/// An `.entry` of PTX text: its name and the type of each parameter
/// (".u64" for a pointer under the bare-pointer convention).
struct PtxEntry {
  std::string name;
  std::vector<std::string> paramTypes;
  /// Per parameter: whether the body stores (st, atom, red; not to shared
  /// or local memory) through an address computed from it. Registers are
  /// followed through arithmetic and moves, not through loads, so a store
  /// through an address read from memory marks no parameter.
  std::vector<bool> paramStored;

  bool operator==(const PtxEntry &other) const {
    return name == other.name && paramTypes == other.paramTypes;
  }
};

/// The `.entry` functions of PTX text, in order.
std::vector<PtxEntry> listPtxEntries(std::string_view ptx);

/// The content hash plan.json records for a bundle file: "fnv1a64:" and 16
/// hex digits of the 64-bit FNV-1a hash of `bytes`. It detects accidents (a
/// torn write, files of two compiles mixed), not tampering.
std::string contentHash(std::string_view bytes);

/// plan.json text for `plan` (docs/bundle.md): ids are the buffers' `id`s,
/// numbers JSON cannot spell (inf, nan) are written as strings, as the
/// loader reads them. parsePlan(formatPlan(p)) gives p back.
std::string formatPlan(const Plan &plan);

/// The JSON of a step's `ops` graph, as formatPlan writes it (compact).
std::string formatGraph(const ref::RefGraph &graph);

} // namespace mlir::tfuse::bundle

namespace mlir::tfuse::rt {
/// The runtime executes the bundle's types as they are.
using namespace mlir::tfuse::bundle;
} // namespace mlir::tfuse::rt

#endif // TFUSE_BUNDLE_PLAN_H
