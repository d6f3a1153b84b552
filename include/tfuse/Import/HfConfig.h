//===- HfConfig.h - Hugging Face config.json front end ----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads a Hugging Face `config.json` into a TransformerSpec. The model type
// picks the family:
//
//   bert, roberta          post-LN encoder, separate Q/K/V with biases, GELU,
//                          additive attention mask [B, 1, 1, S]
//   gpt2                   pre-LN decoder, fused c_attn split into q, k, v,
//                          causal, GELU (tanh for gelu_new)
//   llama, mistral, qwen2  pre-RMSNorm decoder, grouped-query attention,
//                          SwiGLU, causal, no dropout, rotary embeddings
//   gemma                  LLaMA's layer, GELU (tanh), (1 + gamma) RMSNorm
//   phi                    parallel attention and MLP on one LayerNorm,
//                          partial rotary embeddings, biases, GELU (tanh)
//   phi3                   LLaMA's layer with fused qkv_proj, gate_up_proj
//   vit                    pre-LN encoder over image patches and [CLS]; the
//                          sequence is implied, so --seq is refused
//   t5                     encoder-decoder of pre-RMSNorm blocks, unscaled
//                          attention with a relative position bias, decoder
//                          cross-attention, ReLU or gated-GELU FFN; --seq is
//                          the encoder's length, --decoder-seq the decoder's
//
// Every problem is reported with the config's line:col and the JSON path of
// the field (`config.json:5:18: error: $.hidden_act: ...`); a field the
// family needs and the config lacks is reported at the object's opening
// brace with the missing field's path. Fields that do not change the graph
// (architectures, token ids, rope_theta, ...) are accepted silently.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_IMPORT_HFCONFIG_H
#define TFUSE_IMPORT_HFCONFIG_H

#include "tfuse/Import/TransformerSpec.h"
#include "tfuse/Json/JsonReader.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::tfuse {

/// The `model_type` values the front end reads, in the order of the
/// families above.
const std::vector<std::string> &getSupportedHfModelTypes();

/// Parses `text` (the contents of a config.json) and checks `options`
/// against it: the layer count, the sequence length against learned
/// positions and sliding windows, and the fields that --embeddings and
/// --lm-head need. `options.seq` is 0 when --seq was not given, which only
/// ViT accepts (its sequence, TransformerSpec::impliedSeq, comes from
/// image_size and patch_size). `options.decoderSeq` is 0 unless
/// --decoder-seq was given, which only T5 accepts (its decoder's length;
/// --seq is then the encoder's). Appends every problem to `diags` (errors and
/// warnings) and returns the spec only when there was no error.
std::optional<TransformerSpec>
parseHfConfig(std::string_view text, const ImportOptions &options,
              std::vector<JsonDiagnostic> &diags);

} // namespace mlir::tfuse

#endif // TFUSE_IMPORT_HFCONFIG_H
