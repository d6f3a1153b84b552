//===- HfConfigFuzzer.cpp - fuzz the Hugging Face importer ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for `tfuse-import --hf-config`: parseHfConfig, then
// buildTransformerModule on every accepted config. The command-line options
// (embeddings, head, dropout, mask, one or two layers) come from a hash of
// the input, so that a crash reproduces from its file alone (--seq, which
// ViT refuses, from whether the config names "vit"). A config the
// reader accepts must build a module that verifies (tfuse-import calls a
// failure there an importer bug).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/HfConfig.h"
#include "tfuse/Import/TransformerSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string_view>

using namespace mlir;
using namespace mlir::tfuse;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  size_t bits = std::hash<std::string_view>()(text);
  ImportOptions options;
  options.batch = 1 + (bits & 1);
  // ViT implies its sequence (--seq is refused): left out for a config that
  // names it, and given to the others; bit 7 swaps that, for the refusals.
  bool vit = text.find("\"vit\"") != std::string_view::npos;
  options.seq = (vit != bool(bits & 128)) ? 0 : 8;
  options.dtype = (bits & 2) ? "bf16" : "f32";
  options.layers = 1 + ((bits >> 2) & 1);
  options.embeddings = bits & 8;
  options.lmHead = bits & 16;
  options.noDropout = bits & 32;
  options.noAttentionMask = bits & 64;
  options.pooler = bits & 256;
  // T5's decoder sequence, shorter than the encoder's; 0 (the default,
  // --seq) for the others.
  options.decoderSeq = (bits & 512) ? 5 : 0;

  std::vector<JsonDiagnostic> diags;
  std::optional<TransformerSpec> spec = parseHfConfig(text, options, diags);
  (void)formatDiagnostics(diags, "config.json");
  if (!spec)
    return 0;

  MLIRContext context(MLIRContext::Threading::DISABLED);
  std::string errors;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  ImportedModel model = buildTransformerModule(&context, *spec, options);
  if (failed(verify(*model.module))) {
    std::fprintf(stderr,
                 "an accepted config builds a module that does not "
                 "verify:\n%s",
                 errors.c_str());
    model.module->print(llvm::errs());
    std::abort();
  }
  (void)model.numParameters();
  return 0;
}
