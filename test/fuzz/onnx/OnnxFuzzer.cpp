//===- OnnxFuzzer.cpp - fuzz the ONNX importer ------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for `tfuse-import --onnx`: importOnnxModelFromBytes (the
// bytes of a model file), then the verifier on what it built, as the tool
// does. The element type option comes from a hash of the input; the
// symbolic dimensions of the seeds are bound.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/Onnx.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <functional>
#include <string_view>

using namespace mlir;
using namespace mlir::tfuse;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  static const char *const dtypes[] = {"", "f32", "bf16", "f16"};
  OnnxImportOptions options;
  options.dtype = dtypes[std::hash<std::string_view>()(bytes) % 4];
  // The symbolic dimensions of the seed models (--dim NAME=VALUE).
  options.dims = {{"batch", 2}, {"sequence", 8}};

  MLIRContext context(MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  llvm::Expected<ImportedModel> model = importOnnxModelFromBytes(
      &context, llvm::StringRef(bytes.data(), bytes.size()), options);
  if (!model) {
    llvm::consumeError(model.takeError());
    return 0;
  }
  // A graph that does not verify is the user's problem (tfuse-import says
  // so), not a crash.
  if (succeeded(verify(*model->module)))
    (void)model->numParameters();
  return 0;
}
