//===- CompileBundle.h - tfuse-compile's pipeline ---------------*- C++ -*-===//
//
// From a tfuse module to a bundle (docs/bundle.md): decompose attention,
// fuse for the target, build the plan and its kernels, lower the kernels
// through NVVM to PTX, and assemble a cubin with ptxas when it is installed.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_PIPELINES_COMPILEBUNDLE_H
#define TFUSE_PIPELINES_COMPILEBUNDLE_H

#include "tfuse/Target/GpuTarget.h"
#include "tfuse/Transforms/Autodiff.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::tfuse {

struct CompileOptions {
  std::string target = kDefaultTargetName; ///< name or JSON path
  bool fuse = true;
  /// Emit tfuse.attention as one flash-attention kernel where the template
  /// covers it (checkAttentionKernel); elsewhere it is decomposed.
  bool fusedAttention = false;
  /// Run every f32 matmul in TF32 (tfuse-allow-tf32, after autodiff and the
  /// attention decomposition).
  bool tf32 = false;
  std::string function; ///< empty: the first function with a body
  /// Compile the training step of `function` (tfuse-autodiff with these
  /// options) instead of the function itself.
  std::optional<AutodiffOptions> train;
  /// Where every intermediate IR is written ("" for nowhere).
  std::string dumpDir;
};

/// The files of a bundle, by name (plan.json, kernels.ptx, ...).
using BundleFiles = std::map<std::string, std::string>;

/// Compiles `module` (modified in place) into the files of a bundle. With
/// `options.train`, the module gains the training step, which is compiled;
/// returns the compiled function's name in `compiled` when given.
FailureOr<BundleFiles> compileBundle(ModuleOp module,
                                     const CompileOptions &options,
                                     std::string *compiled = nullptr);

/// Writes `files` into the bundle directory `dir` (created if needed) with
/// writeFilesAtomically, plan.json last; no file may be one the process
/// read (recordInputFile). A failure leaves the old bundle or one whose
/// hashes tfuse-run refuses, never a mixed bundle that runs.
llvm::Error writeBundle(StringRef dir, const BundleFiles &files);

/// Dialects, extensions and translations the pipeline needs.
void registerCompileBundleDependencies(DialectRegistry &registry);

} // namespace mlir::tfuse

#endif // TFUSE_PIPELINES_COMPILEBUNDLE_H
