//===- HfConfig.cpp - Hugging Face config.json front end --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements parseHfConfig(): config.json -> TransformerSpec, one
// reader per family (BERT/RoBERTa, GPT-2, LLaMA/Mistral/Qwen2/Gemma/Phi-3,
// with their rotary embeddings and sliding windows, Phi, ViT, T5). The field
// names, defaults and weight names follow the transformers library's
// configuration and modeling classes (BertConfig/BertModel, GPT2Config/
// GPT2Model, LlamaConfig/LlamaModel, MistralConfig, Qwen2Config,
// GemmaConfig/GemmaModel, Phi3Config/Phi3Model, PhiConfig/PhiForCausalLM,
// ViTConfig/ViTModel, T5Config/T5ForConditionalGeneration).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/HfConfig.h"
#include "tfuse/Support/CheckedInt.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>
#include <utility>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// The largest width, head count or vocabulary a config may give: 2^20,
/// above every released model (vocabularies reach 262144, widths 25600), so
/// that products of a few such sizes stay far inside int64.
constexpr int64_t kMaxDimension = int64_t(1) << 20;
/// The most layers a config may give (released models have at most 126).
constexpr int64_t kMaxLayers = 1024;
/// The longest context (positions, sliding windows): 2^31 - 1.
constexpr int64_t kMaxPositions = (int64_t(1) << 31) - 1;

/// A name and what it maps to, for string-valued fields.
template <typename T> using Choices = std::vector<std::pair<std::string, T>>;

/// The fields of the config's top-level object, read with checks. Each failed
/// check appends one error with the field's position and JSON path.
class ConfigFields {
public:
  ConfigFields(const JsonValue &root, std::string modelType,
               std::vector<JsonDiagnostic> &diags)
      : root(root), modelType(std::move(modelType)), diags(diags) {
    for (const JsonMember &member : root.getObject())
      presentKeys.push_back(member.key);
  }

  /// Whether `key` is present and not null.
  bool has(const std::string &key) const {
    const JsonValue *value = root.find(key);
    return value && !value->isNull();
  }

  /// The reader of `key`, which must be present.
  JsonValueReader at(const std::string &key) const {
    return JsonValueReader(*root.find(key),
                           jsonPathAppendKey(kJsonRootPath, key), diags);
  }

  void report(JsonSeverity severity, const std::string &key,
              const std::string &message) const {
    if (root.find(key)) {
      JsonValueReader reader = at(key);
      severity == JsonSeverity::Error ? reader.error(message)
                                      : reader.warning(message);
      return;
    }
    diags.push_back({severity, root.line(), root.column(),
                     jsonPathAppendKey(kJsonRootPath, key), message});
  }

  /// Reports that `key`, which the family needs (`why`), is absent.
  void missing(const std::string &key, const std::string &why = "") {
    std::string message = "required for model_type " +
                          quoteJsonString(modelType) + why + " but missing";
    if (std::optional<std::string> hint = findClosestSpelling(key, presentKeys))
      message += "; did you mean " + quoteJsonString(*hint) + "?";
    diags.push_back({JsonSeverity::Error, root.line(), root.column(),
                     jsonPathAppendKey(kJsonRootPath, key), message});
  }

  /// An integer in [min, max]: sizes are bounded so that no count of
  /// parameters or elements computed from them can overflow.
  std::optional<int64_t> requireInt(const std::string &key, int64_t min = 1,
                                    const std::string &why = "",
                                    int64_t max = kMaxDimension) {
    if (!root.find(key)) {
      missing(key, why);
      return std::nullopt;
    }
    return at(key).getInt(min, max);
  }

  /// An integer in [min, max]; `fallback` when absent or null.
  std::optional<int64_t> optionalInt(const std::string &key, int64_t fallback,
                                     int64_t min = 1,
                                     int64_t max = kMaxDimension) {
    if (!has(key))
      return fallback;
    return at(key).getInt(min, max);
  }

  std::optional<double> requireNumber(const std::string &key,
                                      const JsonNumberRange &range) {
    if (!root.find(key)) {
      missing(key);
      return std::nullopt;
    }
    return at(key).getNumber(range);
  }

  /// A dropout probability in [0, 1).
  std::optional<double> requireProbability(const std::string &key,
                                           const std::string &why = "") {
    if (!root.find(key)) {
      missing(key, why);
      return std::nullopt;
    }
    return at(key).getNumber({0.0, 1.0, false, true});
  }

  std::optional<double> optionalProbability(const std::string &key,
                                            double fallback) {
    if (!has(key))
      return fallback;
    return at(key).getNumber({0.0, 1.0, false, true});
  }

  std::optional<bool> optionalBool(const std::string &key, bool fallback) {
    if (!has(key))
      return fallback;
    return at(key).getBool();
  }

  /// A string that must be one of `choices`.
  template <typename T>
  std::optional<T> requireChoice(const std::string &key,
                                 const Choices<T> &choices,
                                 const std::string &what) {
    if (!root.find(key)) {
      missing(key);
      return std::nullopt;
    }
    return choice(key, choices, what);
  }

  template <typename T>
  std::optional<T> optionalChoice(const std::string &key,
                                  const Choices<T> &choices, T fallback,
                                  const std::string &what) {
    if (!has(key))
      return fallback;
    return choice(key, choices, what);
  }

  /// Reports a problem with the value of `key`; at the config object when
  /// the key is absent (a size derived from other fields can be wrong too).
  void error(const std::string &key, const std::string &message) const {
    report(JsonSeverity::Error, key, message);
  }
  void warning(const std::string &key, const std::string &message) const {
    report(JsonSeverity::Warning, key, message);
  }

  /// Reports that a true flag asks for something the graph cannot express.
  void rejectIfTrue(const std::string &key, const std::string &what) {
    std::optional<bool> value = optionalBool(key, false);
    if (value && *value)
      error(key, what + " is not supported (model_type " +
                     quoteJsonString(modelType) + ")");
  }

  const std::string &getModelType() const { return modelType; }

private:
  template <typename T>
  std::optional<T> choice(const std::string &key, const Choices<T> &choices,
                          const std::string &what) {
    std::optional<std::string> text = at(key).getString();
    if (!text)
      return std::nullopt;
    std::vector<std::string> names;
    for (const auto &[name, value] : choices) {
      if (name == *text)
        return value;
      names.push_back(name);
    }
    std::string message = "unsupported " + what + " " + quoteJsonString(*text) +
                          " for model_type " + quoteJsonString(modelType) +
                          "; supported: ";
    for (size_t i = 0; i < names.size(); ++i)
      message += (i ? ", " : "") + quoteJsonString(names[i]);
    error(key, message);
    return std::nullopt;
  }

  const JsonValue &root;
  std::string modelType;
  std::vector<JsonDiagnostic> &diags;
  std::vector<std::string> presentKeys;
};

/// transformers' ACT2FN names that tfuse has an op for.
const Choices<Activation> &encoderActivations() {
  static const Choices<Activation> choices = {
      {"gelu", Activation::GeluErf},
      {"gelu_new", Activation::GeluTanh},
      {"gelu_pytorch_tanh", Activation::GeluTanh},
      {"relu", Activation::Relu},
      {"silu", Activation::Silu},
      {"swish", Activation::Silu}};
  return choices;
}

/// Checks the sizes shared by all families: the heads divide the width and
/// the emitted layers exist.
void checkLayersAndHeads(ConfigFields &fields, TransformerSpec &spec,
                         const ImportOptions &options,
                         const std::string &layersKey,
                         const std::string &headsKey,
                         const std::string &hiddenKey) {
  if (spec.numHeads > 0 && spec.hiddenSize > 0 && spec.headDim == 0) {
    if (spec.hiddenSize % spec.numHeads != 0)
      fields.error(headsKey, hiddenKey + " (" +
                                 std::to_string(spec.hiddenSize) +
                                 ") is not a multiple of " + headsKey + " (" +
                                 std::to_string(spec.numHeads) + ")");
    else
      spec.headDim = spec.hiddenSize / spec.numHeads;
  }
  if (options.layers && spec.numLayers > 0 && *options.layers > spec.numLayers)
    fields.error(layersKey, "--layers " + std::to_string(*options.layers) +
                                " asks for more layers than the model has (" +
                                std::to_string(spec.numLayers) + ")");
}

/// Checks --seq against a table of learned positions.
void checkLearnedPositions(ConfigFields &fields, const TransformerSpec &spec,
                           const ImportOptions &options,
                           const std::string &key) {
  if (spec.maxPositions <= 0)
    return;
  int64_t needed = options.seq + spec.positionOffset;
  if (needed <= spec.maxPositions)
    return;
  std::string message = "--seq " + std::to_string(options.seq) + " needs " +
                        std::to_string(needed) + " learned positions";
  if (spec.positionOffset)
    message +=
        " (positions start at " + std::to_string(spec.positionOffset) + ")";
  fields.error(key, message + " but the model has " +
                        std::to_string(spec.maxPositions));
}

/// The sizes of the families that use Hugging Face's usual keys (GPT-2
/// names them n_embd, n_head, n_layer and n_inner).
struct CoreSizes {
  std::optional<int64_t> hidden, heads, layers, intermediate;
  bool ok() const { return hidden && heads && layers && intermediate; }
};

CoreSizes readCoreSizes(ConfigFields &fields) {
  CoreSizes sizes;
  sizes.hidden = fields.requireInt("hidden_size");
  sizes.heads = fields.requireInt("num_attention_heads");
  sizes.layers = fields.requireInt("num_hidden_layers", 1, "", kMaxLayers);
  sizes.intermediate = fields.requireInt("intermediate_size");
  return sizes;
}

/// Sets and checks the spec's sizes; `kvHeads` (grouped-query attention) must
/// divide the heads, and without it every head has its own key and value.
/// A head dim the family sets (spec.headDim) stays.
void setCoreSizes(ConfigFields &fields, const ImportOptions &options,
                  const CoreSizes &sizes, TransformerSpec &spec,
                  std::optional<int64_t> kvHeads = std::nullopt) {
  spec.hiddenSize = sizes.hidden.value_or(0);
  spec.numHeads = sizes.heads.value_or(0);
  spec.numKvHeads = kvHeads ? *kvHeads : spec.numHeads;
  spec.numLayers = sizes.layers.value_or(0);
  spec.intermediateSize = sizes.intermediate.value_or(0);
  checkLayersAndHeads(fields, spec, options, "num_hidden_layers",
                      "num_attention_heads", "hidden_size");
  if (sizes.heads && kvHeads && *sizes.heads % *kvHeads != 0)
    fields.error("num_key_value_heads",
                 "num_attention_heads (" + std::to_string(*sizes.heads) +
                     ") is not a multiple of num_key_value_heads (" +
                     std::to_string(*kvHeads) + ")");
}

//===----------------------------------------------------------------------===//
// BERT and RoBERTa
//===----------------------------------------------------------------------===//

bool readBert(ConfigFields &fields, const ImportOptions &options,
              TransformerSpec &spec) {
  bool roberta = fields.getModelType() == "roberta";
  CoreSizes sizes = readCoreSizes(fields);
  auto activation =
      fields.requireChoice("hidden_act", encoderActivations(), "hidden_act");
  auto eps =
      fields.requireNumber("layer_norm_eps", JsonNumberRange::positive());
  auto attnDropout = fields.requireProbability("attention_probs_dropout_prob");
  auto hiddenDropout = fields.requireProbability("hidden_dropout_prob");
  auto maxPositions =
      fields.requireInt("max_position_embeddings", 1, "", kMaxPositions);
  auto positionType =
      fields.optionalChoice<int>("position_embedding_type", {{"absolute", 0}},
                                 0, "position_embedding_type");
  fields.rejectIfTrue("is_decoder", "a BERT decoder (is_decoder)");
  fields.rejectIfTrue("add_cross_attention", "cross-attention");
  auto tie = fields.optionalBool("tie_word_embeddings", true);

  // RobertaConfig's pad_token_id defaults to 1.
  std::optional<int64_t> padToken =
      roberta ? fields.optionalInt("pad_token_id", 1, 0) : 0;
  std::optional<int64_t> vocab = 0, typeVocab = 0;
  if (options.embeddings || options.lmHead)
    vocab = fields.requireInt("vocab_size", 1, " by --embeddings/--lm-head");
  if (options.embeddings)
    typeVocab = fields.requireInt("type_vocab_size", 0, " by --embeddings");

  spec.maxPositions = maxPositions.value_or(0);
  // RoBERTa counts positions from padding_idx + 1.
  spec.positionOffset = roberta ? padToken.value_or(0) + 1 : 0;
  setCoreSizes(fields, options, sizes, spec);
  if (maxPositions)
    checkLearnedPositions(fields, spec, options, "max_position_embeddings");
  if (!sizes.ok() || !activation || !eps || !attnDropout || !hiddenDropout ||
      !maxPositions || !positionType || !tie || !vocab || !typeVocab ||
      !padToken)
    return false;

  spec.placement = NormPlacement::Post;
  spec.norm = NormKind::LayerNorm;
  spec.normEps = *eps;
  spec.activation = *activation;
  spec.qkvBias = spec.attnOutBias = spec.mlpBias = true;
  spec.attentionMask = true;
  spec.attnScale = std::pow(static_cast<double>(spec.headDim), -0.5);
  spec.attnDropout = *attnDropout;
  spec.residDropout = *hiddenDropout;
  spec.embdDropout = *hiddenDropout;
  spec.vocabSize = *vocab;
  spec.typeVocabSize = *typeVocab;
  spec.tieWordEmbeddings = *tie;
  // BertPredictionHeadTransform uses hidden_act; RobertaLMHead always gelu.
  spec.headActivation = roberta ? Activation::GeluErf : *activation;

  TransformerNames &n = spec.names;
  n.query = "encoder.layer.{0}.attention.self.query";
  n.key = "encoder.layer.{0}.attention.self.key";
  n.value = "encoder.layer.{0}.attention.self.value";
  n.attnOut = "encoder.layer.{0}.attention.output.dense";
  n.norm1 = "encoder.layer.{0}.attention.output.LayerNorm";
  n.mlpUp = "encoder.layer.{0}.intermediate.dense";
  n.mlpDown = "encoder.layer.{0}.output.dense";
  n.norm2 = "encoder.layer.{0}.output.LayerNorm";
  n.wordEmbeddings = "embeddings.word_embeddings";
  n.positionEmbeddings = "embeddings.position_embeddings";
  if (spec.typeVocabSize > 0)
    n.tokenTypeEmbeddings = "embeddings.token_type_embeddings";
  n.embeddingNorm = "embeddings.LayerNorm";
  if (roberta) {
    n.headDense = "lm_head.dense";
    n.headNorm = "lm_head.layer_norm";
    n.lmHead = "lm_head.decoder";
    n.lmHeadBias = "lm_head.bias";
  } else {
    n.headDense = "cls.predictions.transform.dense";
    n.headNorm = "cls.predictions.transform.LayerNorm";
    n.lmHead = "cls.predictions.decoder";
    n.lmHeadBias = "cls.predictions.bias";
  }
  return true;
}

//===----------------------------------------------------------------------===//
// GPT-2
//===----------------------------------------------------------------------===//

bool readGpt2(ConfigFields &fields, const ImportOptions &options,
              TransformerSpec &spec) {
  auto hidden = fields.requireInt("n_embd");
  auto heads = fields.requireInt("n_head");
  auto layers = fields.requireInt("n_layer", 1, "", kMaxLayers);
  // n_inner: null (or absent) means 4 * n_embd.
  std::optional<int64_t> inner =
      hidden ? fields.optionalInt("n_inner", 4 * *hidden) : std::nullopt;
  auto activation = fields.requireChoice(
      "activation_function", encoderActivations(), "activation_function");
  auto eps =
      fields.requireNumber("layer_norm_epsilon", JsonNumberRange::positive());
  auto attnDropout = fields.requireProbability("attn_pdrop");
  auto residDropout = fields.requireProbability("resid_pdrop");
  auto positions = fields.requireInt("n_positions", 1, "", kMaxPositions);
  auto scaleWeights = fields.optionalBool("scale_attn_weights", true);
  auto scaleByLayer =
      fields.optionalBool("scale_attn_by_inverse_layer_idx", false);
  fields.rejectIfTrue("add_cross_attention", "cross-attention");
  auto tie = fields.optionalBool("tie_word_embeddings", true);

  std::optional<int64_t> vocab = 0;
  std::optional<double> embdDropout = 0.0;
  if (options.embeddings || options.lmHead)
    vocab = fields.requireInt("vocab_size", 1, " by --embeddings/--lm-head");
  if (options.embeddings)
    embdDropout = fields.requireProbability("embd_pdrop", " by --embeddings");

  spec.hiddenSize = hidden.value_or(0);
  spec.numHeads = heads.value_or(0);
  spec.numKvHeads = spec.numHeads;
  spec.numLayers = layers.value_or(0);
  spec.intermediateSize = inner.value_or(0);
  spec.maxPositions = positions.value_or(0);
  checkLayersAndHeads(fields, spec, options, "n_layer", "n_head", "n_embd");
  if (positions)
    checkLearnedPositions(fields, spec, options, "n_positions");
  if (!hidden || !heads || !layers || !inner || !activation || !eps ||
      !attnDropout || !residDropout || !positions || !scaleWeights ||
      !scaleByLayer || !tie || !vocab || !embdDropout)
    return false;

  spec.placement = NormPlacement::Pre;
  spec.norm = NormKind::LayerNorm;
  spec.normEps = *eps;
  spec.activation = *activation;
  spec.fusedQkv = true;
  spec.qkvBias = spec.attnOutBias = spec.mlpBias = true;
  spec.linearWeightsInOut = true;
  spec.causal = true;
  spec.attnScale =
      *scaleWeights ? std::pow(static_cast<double>(spec.headDim), -0.5) : 1.0;
  spec.scaleByInverseLayerIdx = *scaleByLayer;
  spec.attnDropout = *attnDropout;
  spec.residDropout = *residDropout;
  spec.embdDropout = *embdDropout;
  spec.vocabSize = *vocab;
  spec.tieWordEmbeddings = *tie;

  TransformerNames &n = spec.names;
  n.norm1 = "h.{0}.ln_1";
  n.fusedQkv = "h.{0}.attn.c_attn";
  n.attnOut = "h.{0}.attn.c_proj";
  n.norm2 = "h.{0}.ln_2";
  n.mlpUp = "h.{0}.mlp.c_fc";
  n.mlpDown = "h.{0}.mlp.c_proj";
  n.wordEmbeddings = "wte";
  n.positionEmbeddings = "wpe";
  n.finalNorm = "ln_f";
  n.lmHead = "lm_head";
  return true;
}

//===----------------------------------------------------------------------===//
// Rotary position embeddings and sliding windows
//===----------------------------------------------------------------------===//

/// rope_theta, partial_rotary_factor and rope_scaling, as transformers' rope
/// initialisers read them (modeling_rope_utils). Types tfuse does not model
/// are refused with the field's name.
std::optional<RopeSpec> readRope(ConfigFields &fields, int64_t headDim,
                                 std::optional<int64_t> maxPositions,
                                 double defaultPartialRotaryFactor = 1.0) {
  RopeSpec rope;
  std::optional<double> theta =
      fields.has("rope_theta")
          ? fields.at("rope_theta").getNumber(JsonNumberRange::positive())
          : 10000.0;
  std::optional<double> partial =
      fields.has("partial_rotary_factor")
          ? fields.at("partial_rotary_factor")
                .getNumber(JsonNumberRange::openClosed(0.0, 1.0))
          : defaultPartialRotaryFactor;
  if (!theta || !partial)
    return std::nullopt;
  rope.theta = *theta;
  rope.rotaryDim = static_cast<int64_t>(headDim * *partial);
  if (rope.rotaryDim < 2 || rope.rotaryDim % 2) {
    // The factor when the config or the family's default gives one.
    bool partialKey = fields.has("partial_rotary_factor") ||
                      defaultPartialRotaryFactor != 1.0;
    fields.error(partialKey ? "partial_rotary_factor" : "head_dim",
                 "rotates " + std::to_string(rope.rotaryDim) +
                     " dims of each head; rotary embeddings need an even "
                     "number, at least 2");
    return std::nullopt;
  }
  rope.maxPositions = maxPositions.value_or(0);
  rope.originalMaxPositions = rope.maxPositions;
  if (!fields.has("rope_scaling"))
    return rope;
  std::optional<JsonObjectReader> scaling =
      fields.at("rope_scaling").getObject();
  if (!scaling)
    return std::nullopt;
  // rope_type, or the older spelling type.
  std::optional<JsonValueReader> typeField = scaling->get("rope_type");
  if (!typeField)
    typeField = scaling->get("type");
  else
    scaling->has("type");
  if (!typeField) {
    scaling->require("rope_type");
    return std::nullopt;
  }
  std::optional<std::string> type = typeField->getString();
  if (!type)
    return std::nullopt;
  const Choices<RopeType> types = {{"default", RopeType::Default},
                                   {"linear", RopeType::Linear},
                                   {"dynamic", RopeType::Dynamic},
                                   {"llama3", RopeType::Llama3},
                                   {"yarn", RopeType::Yarn}};
  auto it = std::find_if(types.begin(), types.end(),
                         [&](const auto &c) { return c.first == *type; });
  if (it == types.end()) {
    typeField->error("rope_scaling type " + quoteJsonString(*type) +
                     " is not modelled; supported: \"default\", \"linear\", "
                     "\"dynamic\", \"llama3\", \"yarn\"");
    return std::nullopt;
  }
  rope.type = it->second;
  if (rope.type == RopeType::Default)
    return rope;
  std::optional<double> factor =
      scaling->requireNumber("factor", JsonNumberRange::positive());
  if (!factor)
    return std::nullopt;
  rope.factor = *factor;
  auto requireContext = [&](const char *why) -> bool {
    if (rope.maxPositions > 0)
      return true;
    fields.missing("max_position_embeddings", why);
    return false;
  };
  switch (rope.type) {
  case RopeType::Default:
  case RopeType::Linear:
    return rope;
  case RopeType::Dynamic:
    if (!requireContext(" by rope_scaling type \"dynamic\""))
      return std::nullopt;
    return rope;
  case RopeType::Llama3: {
    std::optional<double> low =
        scaling->requireNumber("low_freq_factor", JsonNumberRange::positive());
    std::optional<double> high =
        scaling->requireNumber("high_freq_factor", JsonNumberRange::positive());
    std::optional<int64_t> context =
        scaling->requireInt("original_max_position_embeddings", 1);
    if (!low || !high || !context)
      return std::nullopt;
    if (*high <= *low) {
      scaling->get("high_freq_factor")
          ->error("must be larger than low_freq_factor");
      return std::nullopt;
    }
    rope.lowFreqFactor = *low;
    rope.highFreqFactor = *high;
    rope.originalMaxPositions = *context;
    return rope;
  }
  case RopeType::Yarn: {
    if (!requireContext(" by rope_scaling type \"yarn\""))
      return std::nullopt;
    // With original_max_position_embeddings, transformers derives the
    // factor from the two contexts.
    if (scaling->has("original_max_position_embeddings")) {
      std::optional<int64_t> context =
          scaling->requireInt("original_max_position_embeddings", 1);
      if (!context)
        return std::nullopt;
      rope.originalMaxPositions = *context;
      rope.factor = static_cast<double>(rope.maxPositions) / *context;
    }
    auto optional = [&](const char *key, const JsonNumberRange &range,
                        std::optional<double> &into) {
      if (std::optional<JsonValueReader> value = scaling->get(key);
          value && !value->value().isNull())
        into = value->getNumber(range);
    };
    optional("attention_factor", JsonNumberRange::positive(),
             rope.attentionFactor);
    optional("mscale", JsonNumberRange::nonNegative(), rope.mscale);
    optional("mscale_all_dim", JsonNumberRange::nonNegative(),
             rope.mscaleAllDim);
    std::optional<double> fast, slow;
    optional("beta_fast", JsonNumberRange::positive(), fast);
    optional("beta_slow", JsonNumberRange::positive(), slow);
    rope.betaFast = fast.value_or(32.0);
    rope.betaSlow = slow.value_or(1.0);
    if (scaling->has("truncate"))
      rope.truncate = scaling->optionalBool("truncate").value_or(true);
    return rope;
  }
  }
  return rope;
}

//===----------------------------------------------------------------------===//
// LLaMA, Mistral, Qwen2, Gemma and Phi-3
//===----------------------------------------------------------------------===//

bool readLlama(ConfigFields &fields, const ImportOptions &options,
               TransformerSpec &spec) {
  const std::string &type = fields.getModelType();
  CoreSizes sizes = readCoreSizes(fields);
  // GemmaMLP uses hidden_activation, gelu_pytorch_tanh when null (what
  // transformers does, ignoring hidden_act).
  bool gemma = type == "gemma";
  std::optional<Activation> activation =
      gemma ? fields.optionalChoice("hidden_activation", encoderActivations(),
                                    Activation::GeluTanh, "hidden_activation")
            : fields.requireChoice<Activation>(
                  "hidden_act", {{"silu", Activation::Silu}}, "hidden_act");
  auto eps = fields.requireNumber("rms_norm_eps", JsonNumberRange::positive());
  // num_key_value_heads: null (or absent) means multi-head attention.
  std::optional<int64_t> kvHeads =
      sizes.heads ? fields.optionalInt("num_key_value_heads", *sizes.heads)
                  : std::nullopt;
  auto headDim = fields.optionalInt("head_dim", 0);
  auto attnDropout = fields.optionalProbability("attention_dropout", 0.0);
  // GemmaConfig ties the head to the embeddings by default.
  auto tie = fields.optionalBool("tie_word_embeddings", gemma);
  std::optional<bool> attentionBias = false, mlpBias = false;
  if (gemma)
    attentionBias = fields.optionalBool("attention_bias", false);
  bool phi3 = type == "phi3";
  // Phi3DecoderLayer drops the attention and MLP outputs with resid_pdrop,
  // Phi3Model the embeddings with embd_pdrop.
  std::optional<double> residDropout = 0.0, embdDropout = 0.0;
  if (phi3) {
    residDropout = fields.optionalProbability("resid_pdrop", 0.0);
    embdDropout = fields.optionalProbability("embd_pdrop", 0.0);
  }
  if (type == "llama") {
    attentionBias = fields.optionalBool("attention_bias", false);
    mlpBias = fields.optionalBool("mlp_bias", false);
  }
  std::optional<int64_t> vocab = 0;
  if (options.embeddings || options.lmHead)
    vocab = fields.requireInt("vocab_size", 1, " by --embeddings/--lm-head");

  // Sliding-window attention (Mistral; Qwen2 with use_sliding_window, from
  // layer max_window_layers on): an additive window mask once the sequence
  // is longer than the window (shorter, it is the causal mask).
  std::optional<bool> windowed = type == "mistral" || type == "phi3";
  std::optional<int64_t> window, windowFrom = 0;
  if (type == "qwen2") {
    windowed = fields.optionalBool("use_sliding_window", false);
    windowFrom = fields.optionalInt("max_window_layers", 28, 0, kMaxLayers);
  }
  if (windowed && *windowed && fields.has("sliding_window"))
    window = fields.at("sliding_window").getInt(1, kMaxPositions);
  if (fields.has("layer_types"))
    fields.error("layer_types",
                 "per-layer attention types are not modelled; tfuse "
                 "derives them from sliding_window and max_window_layers");

  spec.headDim = headDim.value_or(0);
  setCoreSizes(fields, options, sizes, spec, kvHeads);
  std::optional<int64_t> maxPositions;
  if (fields.has("max_position_embeddings")) {
    maxPositions =
        fields.at("max_position_embeddings").getInt(1, kMaxPositions);
    if (maxPositions && options.seq > *maxPositions)
      fields.warning("max_position_embeddings",
                     "--seq " + std::to_string(options.seq) +
                         " is longer than the context the model was trained "
                         "for (" +
                         std::to_string(*maxPositions) + ")");
  }
  std::optional<RopeSpec> rope;
  if (spec.headDim > 0)
    rope = readRope(fields, spec.headDim, maxPositions);
  if (!sizes.ok() || !activation || !eps || !kvHeads || !headDim ||
      !attnDropout || !tie || !attentionBias || !mlpBias || !vocab ||
      !windowed || !windowFrom || !rope || !residDropout || !embdDropout)
    return false;
  spec.residDropout = *residDropout;
  spec.embdDropout = *embdDropout;
  spec.rope = rope;
  if (gemma) {
    spec.normPlusOne = true;
    spec.embeddingMultiplier = std::sqrt(static_cast<double>(spec.hiddenSize));
  }
  if (window) {
    spec.slidingWindow = *window;
    spec.windowFromLayer = *windowFrom;
  }

  spec.placement = NormPlacement::Pre;
  spec.norm = NormKind::RmsNorm;
  spec.normEps = *eps;
  spec.activation = *activation;
  spec.gatedMlp = true;
  // LlamaAttention: q/k/v/o biases follow attention_bias; Qwen2Attention:
  // q/k/v with bias, o without; MistralAttention: none.
  spec.qkvBias = *attentionBias || type == "qwen2";
  spec.attnOutBias = *attentionBias;
  spec.mlpBias = *mlpBias;
  spec.causal = true;
  spec.attnScale = std::pow(static_cast<double>(spec.headDim), -0.5);
  spec.attnDropout = *attnDropout;
  spec.vocabSize = *vocab;
  spec.tieWordEmbeddings = *tie;

  TransformerNames &n = spec.names;
  n.norm1 = "layers.{0}.input_layernorm";
  if (phi3) {
    // Phi3Attention: one qkv_proj; Phi3MLP: one gate_up_proj.
    spec.fusedQkv = true;
    n.fusedQkv = "layers.{0}.self_attn.qkv_proj";
    n.mlpGateUp = "layers.{0}.mlp.gate_up_proj";
  }
  n.query = "layers.{0}.self_attn.q_proj";
  n.key = "layers.{0}.self_attn.k_proj";
  n.value = "layers.{0}.self_attn.v_proj";
  n.attnOut = "layers.{0}.self_attn.o_proj";
  n.norm2 = "layers.{0}.post_attention_layernorm";
  n.mlpGate = "layers.{0}.mlp.gate_proj";
  n.mlpUp = "layers.{0}.mlp.up_proj";
  n.mlpDown = "layers.{0}.mlp.down_proj";
  n.wordEmbeddings = "embed_tokens";
  n.finalNorm = "norm";
  n.lmHead = "lm_head";
  return true;
}

//===----------------------------------------------------------------------===//
// Phi (phi-1, phi-1.5, phi-2)
//===----------------------------------------------------------------------===//

/// PhiConfig / PhiForCausalLM: one input LayerNorm feeding attention and the
/// MLP side by side, q/k/v/dense and fc1/fc2 with biases, partial rotary
/// embeddings (partial_rotary_factor, default 0.5), a final LayerNorm and an
/// lm_head with a bias.
bool readPhi(ConfigFields &fields, const ImportOptions &options,
             TransformerSpec &spec) {
  CoreSizes sizes = readCoreSizes(fields);
  auto activation =
      fields.requireChoice("hidden_act", encoderActivations(), "hidden_act");
  auto eps =
      fields.requireNumber("layer_norm_eps", JsonNumberRange::positive());
  std::optional<int64_t> kvHeads =
      sizes.heads ? fields.optionalInt("num_key_value_heads", *sizes.heads)
                  : std::nullopt;
  auto attnDropout = fields.optionalProbability("attention_dropout", 0.0);
  auto residDropout = fields.optionalProbability("resid_pdrop", 0.0);
  auto embdDropout = fields.optionalProbability("embd_pdrop", 0.0);
  auto tie = fields.optionalBool("tie_word_embeddings", false);
  fields.rejectIfTrue("qk_layernorm",
                      "a LayerNorm of q and k per head (qk_layernorm)");
  std::optional<int64_t> vocab = 0;
  if (options.embeddings || options.lmHead)
    vocab = fields.requireInt("vocab_size", 1, " by --embeddings/--lm-head");

  setCoreSizes(fields, options, sizes, spec, kvHeads);
  // PhiAttention's heads are hidden_size / num_attention_heads wide; a
  // head_dim that says otherwise would be ignored by one side or the other.
  if (fields.has("head_dim") && spec.headDim > 0) {
    std::optional<int64_t> headDim = fields.at("head_dim").getInt();
    if (headDim && *headDim != spec.headDim)
      fields.error("head_dim", "head_dim " + std::to_string(*headDim) +
                                   " differs from hidden_size / "
                                   "num_attention_heads (" +
                                   std::to_string(spec.headDim) +
                                   "), which PhiAttention uses");
  }
  std::optional<int64_t> maxPositions;
  if (fields.has("max_position_embeddings")) {
    maxPositions =
        fields.at("max_position_embeddings").getInt(1, kMaxPositions);
    if (maxPositions && options.seq > *maxPositions)
      fields.warning("max_position_embeddings",
                     "--seq " + std::to_string(options.seq) +
                         " is longer than the context the model was trained "
                         "for (" +
                         std::to_string(*maxPositions) + ")");
  }
  // PhiConfig's partial_rotary_factor defaults to 0.5: q and k rotate the
  // first half of each head (rotate-half within it), the rest passes.
  std::optional<RopeSpec> rope;
  if (spec.headDim > 0)
    rope = readRope(fields, spec.headDim, maxPositions, 0.5);
  if (!sizes.ok() || !activation || !eps || !kvHeads || !attnDropout ||
      !residDropout || !embdDropout || !tie || !vocab || !rope)
    return false;

  spec.placement = NormPlacement::Parallel;
  spec.norm = NormKind::LayerNorm;
  spec.normEps = *eps;
  spec.activation = *activation;
  spec.qkvBias = spec.attnOutBias = spec.mlpBias = true;
  spec.causal = true;
  spec.attnScale = std::pow(static_cast<double>(spec.headDim), -0.5);
  spec.attnDropout = *attnDropout;
  spec.residDropout = *residDropout;
  spec.embdDropout = *embdDropout;
  spec.vocabSize = *vocab;
  spec.tieWordEmbeddings = *tie;
  spec.rope = rope;

  TransformerNames &n = spec.names;
  n.norm1 = "layers.{0}.input_layernorm";
  n.query = "layers.{0}.self_attn.q_proj";
  n.key = "layers.{0}.self_attn.k_proj";
  n.value = "layers.{0}.self_attn.v_proj";
  n.attnOut = "layers.{0}.self_attn.dense";
  n.mlpUp = "layers.{0}.mlp.fc1";
  n.mlpDown = "layers.{0}.mlp.fc2";
  n.wordEmbeddings = "embed_tokens";
  n.finalNorm = "final_layernorm";
  n.lmHead = "lm_head";
  n.lmHeadBias = "lm_head.bias";
  return true;
}

//===----------------------------------------------------------------------===//
// ViT
//===----------------------------------------------------------------------===//

/// ViTConfig / ViTModel: a pre-LN encoder (layernorm_before,
/// layernorm_after) over the patches of one image and a learned [CLS]
/// token, learned positions, a final LayerNorm and, with --pooler, ViTPooler.
/// The sequence is (image_size / patch_size)^2 + 1, so --seq is refused.
bool readVit(ConfigFields &fields, const ImportOptions &options,
             TransformerSpec &spec) {
  CoreSizes sizes = readCoreSizes(fields);
  auto activation =
      fields.requireChoice("hidden_act", encoderActivations(), "hidden_act");
  auto eps =
      fields.requireNumber("layer_norm_eps", JsonNumberRange::positive());
  // ViTConfig also takes [height, width] pairs; tfuse reads square images
  // and patches.
  auto side = [&](const std::string &key) -> std::optional<int64_t> {
    if (fields.has(key) && fields.at(key).value().isArray()) {
      fields.error(key, "a [height, width] pair is not supported; tfuse "
                        "imports square images and patches (an integer)");
      return std::nullopt;
    }
    return fields.requireInt(key);
  };
  auto image = side("image_size");
  auto patch = side("patch_size");
  auto channels = fields.optionalInt("num_channels", 3);
  auto qkvBias = fields.optionalBool("qkv_bias", true);
  auto attnDropout =
      fields.optionalProbability("attention_probs_dropout_prob", 0.0);
  auto hiddenDropout = fields.optionalProbability("hidden_dropout_prob", 0.0);
  std::optional<int64_t> poolerSize = 0;
  std::optional<int> poolerAct = 0;
  if (options.pooler) {
    poolerSize = sizes.hidden
                     ? fields.optionalInt("pooler_output_size", *sizes.hidden)
                     : std::nullopt;
    poolerAct = fields.optionalChoice<int>("pooler_act", {{"tanh", 0}}, 0,
                                           "pooler_act");
  }
  if (options.lmHead)
    fields.error("model_type",
                 "--lm-head does not apply to model_type \"vit\" (ViTModel "
                 "has no language-model head; --pooler ends with ViTPooler)");

  setCoreSizes(fields, options, sizes, spec);
  if (image && patch && *image % *patch != 0) {
    fields.error("patch_size", "image_size (" + std::to_string(*image) +
                                   ") is not a multiple of patch_size (" +
                                   std::to_string(*patch) + ")");
    return false;
  }
  if (!sizes.ok() || !activation || !eps || !image || !patch || !channels ||
      !qkvBias || !attnDropout || !hiddenDropout || !poolerSize || !poolerAct)
    return false;

  VisionSpec vision;
  vision.imageSize = *image;
  vision.patchSize = *patch;
  vision.numChannels = *channels;
  vision.poolerSize = *poolerSize;
  // The patches plus [CLS], bounded like every sequence; the values of one
  // patch like a dimension.
  CheckedInt perSide = *image / *patch;
  std::optional<int64_t> tokens = (perSide * perSide + 1).get();
  if (!tokens || *tokens > kMaxPositions) {
    fields.error("patch_size", "(image_size / patch_size)^2 + 1 = " +
                                   (tokens ? std::to_string(*tokens)
                                           : std::string("more than 2^63")) +
                                   " tokens; a sequence may have at most " +
                                   std::to_string(kMaxPositions));
    return false;
  }
  std::optional<int64_t> values =
      (CheckedInt(*channels) * *patch * *patch).get();
  if (!values || *values > kMaxDimension) {
    fields.error(
        "patch_size",
        "num_channels x patch_size^2 = " +
            (values ? std::to_string(*values) : std::string("more than 2^63")) +
            " values per patch; at most " + std::to_string(kMaxDimension));
    return false;
  }
  if (options.seq != 0) {
    fields.error("image_size",
                 "--seq does not apply to model_type \"vit\": the sequence "
                 "is its " +
                     std::to_string(vision.numPatches()) +
                     " patches ((image_size / patch_size)^2) and the [CLS] "
                     "token, " +
                     std::to_string(*tokens));
    return false;
  }
  spec.vision = vision;
  spec.impliedSeq = *tokens;
  spec.maxPositions = *tokens;

  spec.placement = NormPlacement::Pre;
  spec.norm = NormKind::LayerNorm;
  spec.normEps = *eps;
  spec.activation = *activation;
  spec.qkvBias = *qkvBias;
  spec.attnOutBias = spec.mlpBias = true;
  spec.attnScale = std::pow(static_cast<double>(spec.headDim), -0.5);
  spec.attnDropout = *attnDropout;
  spec.residDropout = *hiddenDropout;
  spec.embdDropout = *hiddenDropout;

  TransformerNames &n = spec.names;
  n.norm1 = "encoder.layer.{0}.layernorm_before";
  n.query = "encoder.layer.{0}.attention.attention.query";
  n.key = "encoder.layer.{0}.attention.attention.key";
  n.value = "encoder.layer.{0}.attention.attention.value";
  n.attnOut = "encoder.layer.{0}.attention.output.dense";
  n.norm2 = "encoder.layer.{0}.layernorm_after";
  n.mlpUp = "encoder.layer.{0}.intermediate.dense";
  n.mlpDown = "encoder.layer.{0}.output.dense";
  n.patchProjection = "embeddings.patch_embeddings.projection";
  n.clsToken = "embeddings.cls_token";
  n.positionEmbeddings = "embeddings.position_embeddings";
  n.finalNorm = "layernorm";
  n.pooler = "pooler.dense";
  return true;
}

//===----------------------------------------------------------------------===//
// T5
//===----------------------------------------------------------------------===//

/// The longest sequence of an encoder-decoder: the position bias of each
/// stack comes from an [S, S] constant of bucket indices in the graph.
constexpr int64_t kMaxRelativeSeq = 8192;

/// T5Config / T5ForConditionalGeneration: an encoder and a decoder of
/// pre-RMSNorm blocks (T5LayerNorm: no mean, no bias), attention without
/// biases or 1/sqrt(d) scaling, heads of d_kv, a relative position bias
/// from the first block of each stack, cross-attention in the decoder, a
/// final RMSNorm per stack and the head (tied to `shared` by default, the
/// decoder output then scaled by d_model^-0.5). The defaults are
/// T5Config's; the sizes are required.
bool readT5(ConfigFields &fields, const ImportOptions &options,
            TransformerSpec &spec) {
  auto hidden = fields.requireInt("d_model");
  auto headDim = fields.requireInt("d_kv");
  auto heads = fields.requireInt("num_heads");
  auto inner = fields.requireInt("d_ff");
  auto layers = fields.requireInt("num_layers", 1, "", kMaxLayers);
  // num_decoder_layers defaults to num_layers (without it, an error above).
  auto decoderLayers = fields.optionalInt("num_decoder_layers",
                                          layers.value_or(1), 1, kMaxLayers);
  auto buckets = fields.optionalInt("relative_attention_num_buckets", 32, 4);
  auto maxDistance = fields.optionalInt("relative_attention_max_distance", 128,
                                        1, kMaxPositions);
  std::optional<double> eps = fields.has("layer_norm_epsilon")
                                  ? fields.at("layer_norm_epsilon")
                                        .getNumber(JsonNumberRange::positive())
                                  : 1e-6;
  auto dropout = fields.optionalProbability("dropout_rate", 0.1);
  auto tie = fields.optionalBool("tie_word_embeddings", true);
  // PreTrainedModel.tie_weights ties the encoder's weights to the decoder's.
  fields.rejectIfTrue("tie_encoder_decoder",
                      "sharing the encoder's weights with the decoder "
                      "(tie_encoder_decoder)");

  // feed_forward_proj is "ACT" or "gated-ACT" (T5Config splits it at "-");
  // "gated-gelu" means gelu_new.
  std::optional<Activation> activation;
  std::optional<bool> gated;
  std::string act = "relu";
  bool isGated = false;
  bool projOk = true;
  if (fields.has("feed_forward_proj")) {
    std::optional<std::string> text =
        fields.at("feed_forward_proj").getString();
    projOk = text.has_value();
    if (text) {
      llvm::SmallVector<llvm::StringRef> parts;
      llvm::StringRef(*text).split(parts, '-');
      isGated = parts.size() == 2 && parts[0] == "gated";
      if (parts.size() > 2 || (parts.size() == 2 && !isGated)) {
        fields.error("feed_forward_proj",
                     quoteJsonString(*text) +
                         " is not a valid feed_forward_proj: expected "
                         "\"ACT\" or \"gated-ACT\" (\"relu\", \"gated-gelu\", "
                         "...)");
        projOk = false;
      } else {
        act = *text == "gated-gelu" ? "gelu_new" : parts.back().str();
      }
    }
  }
  if (projOk) {
    const Choices<Activation> &choices = encoderActivations();
    auto it = std::find_if(choices.begin(), choices.end(),
                           [&](const auto &c) { return c.first == act; });
    if (it == choices.end()) {
      std::string message = "the activation " + quoteJsonString(act) +
                            " of feed_forward_proj is not modelled; supported:";
      for (size_t i = 0; i < choices.size(); ++i)
        message += (i ? ", " : " ") + quoteJsonString(choices[i].first);
      fields.error("feed_forward_proj", message);
    } else {
      activation = it->second;
      gated = isGated;
    }
  }
  // T5Config derives dense_act_fn and is_gated_act from feed_forward_proj,
  // but a config that stores them sets them after it: they must agree.
  if (activation && fields.has("dense_act_fn")) {
    std::optional<std::string> stored = fields.at("dense_act_fn").getString();
    if (stored && *stored != act)
      fields.error("dense_act_fn", quoteJsonString(*stored) + " differs from " +
                                       quoteJsonString(act) +
                                       ", the activation of feed_forward_proj; "
                                       "transformers would use dense_act_fn");
  }
  if (gated && fields.has("is_gated_act")) {
    std::optional<bool> stored = fields.at("is_gated_act").getBool();
    if (stored && *stored != *gated)
      fields.error("is_gated_act",
                   std::string(*stored ? "true" : "false") +
                       " differs from feed_forward_proj, which is " +
                       (*gated ? "" : "not ") +
                       "gated; transformers would use is_gated_act");
  }

  std::optional<int64_t> vocab = 0;
  if (options.embeddings || options.lmHead)
    vocab = fields.requireInt("vocab_size", 1, " by --embeddings/--lm-head");

  if (buckets && maxDistance && *maxDistance <= *buckets / 2) {
    fields.error(
        "relative_attention_max_distance",
        "relative_attention_max_distance (" + std::to_string(*maxDistance) +
            ") must be larger than relative_attention_num_buckets / "
            "2 (" +
            std::to_string(*buckets / 2) + "), the decoder's exact buckets");
    return false;
  }
  int64_t decoderSeq = options.decoderSeq ? options.decoderSeq : options.seq;
  for (auto [flag, value] :
       {std::pair<const char *, int64_t>{"--seq", options.seq},
        {"--decoder-seq", decoderSeq}})
    if (value > kMaxRelativeSeq)
      fields.error("relative_attention_num_buckets",
                   std::string(flag) + " " + std::to_string(value) +
                       " is longer than " + std::to_string(kMaxRelativeSeq) +
                       ": the position bias takes an [S, S] constant of "
                       "bucket indices in the graph");
  if (options.layers && *options.layers == 0)
    fields.error("num_layers",
                 "--layers 0 does not apply to model_type \"t5\": the "
                 "decoder attends to the encoder's output, so each stack "
                 "needs a layer");

  spec.hiddenSize = hidden.value_or(0);
  spec.numHeads = heads.value_or(0);
  spec.numKvHeads = spec.numHeads;
  spec.headDim = headDim.value_or(0);
  spec.intermediateSize = inner.value_or(0);
  spec.numLayers = layers.value_or(0);
  checkLayersAndHeads(fields, spec, options, "num_layers", "num_heads",
                      "d_model");
  if (options.layers && decoderLayers && *options.layers <= spec.numLayers &&
      *options.layers > *decoderLayers)
    fields.error("num_decoder_layers",
                 "--layers " + std::to_string(*options.layers) +
                     " asks for more decoder layers than the model has (" +
                     std::to_string(*decoderLayers) + ")");
  if (!hidden || !headDim || !heads || !inner || !layers || !decoderLayers ||
      !buckets || !maxDistance || !eps || !dropout || !tie || !activation ||
      !gated || !vocab)
    return false;

  EncoderDecoderSpec t5;
  t5.numDecoderLayers = *decoderLayers;
  t5.numBuckets = *buckets;
  t5.maxDistance = *maxDistance;
  spec.encoderDecoder = t5;
  spec.placement = NormPlacement::Pre;
  spec.norm = NormKind::RmsNorm;
  spec.normEps = *eps;
  spec.activation = *activation;
  spec.gatedMlp = *gated;
  spec.attentionMask = true;
  spec.attnScale = 1.0;
  spec.attnDropout = spec.residDropout = spec.embdDropout = *dropout;
  spec.vocabSize = *vocab;
  spec.tieWordEmbeddings = *tie;
  if (options.dtype == "f16")
    spec.notModelled.push_back(
        "T5's f16 clamp of the hidden states to the finite range (it only "
        "changes values that overflow)");
  spec.names.wordEmbeddings = "shared";
  spec.names.lmHead = "lm_head";
  return true;
}

/// Checks that every tensor the graph holds has at most kMaxTensorElements
/// elements, with the error at the config field that sizes it. The fields are
/// bounded, but --batch and --seq are not: the products are checked.
void checkTensorSizes(ConfigFields &fields, const TransformerSpec &spec,
                      const ImportOptions &options) {
  bool gpt2 = spec.modelType == "gpt2";
  auto present = [&](std::initializer_list<const char *> keys) {
    for (const char *key : keys)
      if (fields.has(key))
        return std::string(key);
    return std::string();
  };
  bool t5 = spec.encoderDecoder.has_value();
  std::string hiddenKey = gpt2 ? "n_embd" : t5 ? "d_model" : "hidden_size";
  std::string innerKey = gpt2 ? present({"n_inner", "n_embd"})
                         : t5 ? std::string("d_ff")
                              : std::string("intermediate_size");
  std::string headsKey =
      t5 ? std::string("d_kv")
         : present({"head_dim", gpt2 ? "n_head" : "num_attention_heads"});
  // An encoder-decoder's activations are as long as the longer stack.
  int64_t decoderSeq = options.decoderSeq ? options.decoderSeq : options.seq;
  bool decoderLonger = t5 && decoderSeq > options.seq;
  int64_t seq = decoderLonger ? decoderSeq : options.seq;
  std::string tokens = "--batch " + std::to_string(options.batch) +
                       (decoderLonger ? " x --decoder-seq " : " x --seq ") +
                       std::to_string(seq);
  CheckedInt tokenCount = CheckedInt(options.batch) * seq;
  auto check = [&](const std::string &key, const std::string &what,
                   CheckedInt elements) {
    std::optional<int64_t> count = elements.get();
    if (count && *count <= kMaxTensorElements)
      return;
    fields.error(key, what + " has " +
                          (count ? std::to_string(*count)
                                 : std::string("more than 2^63")) +
                          " elements; a tensor may have at most 2^40 = " +
                          std::to_string(kMaxTensorElements));
  };
  check(hiddenKey,
        "an activation (" + tokens + " x " + hiddenKey + " " +
            std::to_string(spec.hiddenSize) + ")",
        tokenCount * spec.hiddenSize);
  check(innerKey,
        "the MLP activation (" + tokens + " x " + innerKey + " " +
            std::to_string(spec.intermediateSize) + ")",
        tokenCount * spec.intermediateSize);
  // The queries are as wide as the hidden state unless head_dim says not.
  CheckedInt headsWidth = CheckedInt(spec.numHeads) * spec.headDim;
  if (headsWidth.get() != spec.hiddenSize)
    check(headsKey,
          "the queries (" + tokens + " x " + std::to_string(spec.numHeads) +
              " heads x " + std::to_string(spec.headDim) + ")",
          tokenCount * headsWidth);
  check(headsKey,
        "the query projection (" + std::to_string(spec.hiddenSize) + " x " +
            std::to_string(spec.numHeads) + " heads x " +
            std::to_string(spec.headDim) + ")",
        headsWidth * spec.hiddenSize);
  // T5: the encoder's position bias [1, H, S, S], plus its attention mask
  // [B, 1, 1, S] when it has one.
  if (t5) {
    int64_t biasBatch = options.noAttentionMask ? 1 : options.batch;
    check("num_heads",
          "the encoder's position bias (" +
              (options.noAttentionMask
                   ? std::string()
                   : "--batch " + std::to_string(options.batch) + " x ") +
              std::to_string(spec.numHeads) + " heads x --seq " +
              std::to_string(options.seq) + " x --seq " +
              std::to_string(options.seq) + ")",
          CheckedInt(biasBatch) * spec.numHeads * options.seq * options.seq);
  }
  if (decoderLonger)
    check("num_heads",
          "the decoder's position bias (" + std::to_string(spec.numHeads) +
              " heads x --decoder-seq " + std::to_string(decoderSeq) +
              " x --decoder-seq " + std::to_string(decoderSeq) + ")",
          CheckedInt(spec.numHeads) * decoderSeq * decoderSeq);
  if (options.lmHead)
    check("vocab_size",
          "the logits (" + tokens + " x vocab_size " +
              std::to_string(spec.vocabSize) + ")",
          tokenCount * spec.vocabSize);
  std::string positionsKey =
      present({"max_position_embeddings", "n_positions"});
  if (spec.vision && options.embeddings) {
    const VisionSpec &vision = *spec.vision;
    check("patch_size",
          "the pixel patches (--batch " + std::to_string(options.batch) +
              " x " + std::to_string(vision.numPatches()) + " patches x " +
              std::to_string(vision.patchValues()) + " values)",
          CheckedInt(options.batch) * vision.numPatches() *
              vision.patchValues());
    check("patch_size",
          "the position table (" + std::to_string(spec.maxPositions) +
              " tokens x hidden_size " + std::to_string(spec.hiddenSize) + ")",
          CheckedInt(spec.maxPositions) * spec.hiddenSize);
  }
  if (options.embeddings && spec.maxPositions > 0 && !positionsKey.empty())
    check(positionsKey,
          "the position table (" + positionsKey + " " +
              std::to_string(spec.maxPositions) + " x " + hiddenKey + " " +
              std::to_string(spec.hiddenSize) + ")",
          CheckedInt(spec.maxPositions) * spec.hiddenSize);
}

} // namespace

const std::vector<std::string> &mlir::tfuse::getSupportedHfModelTypes() {
  static const std::vector<std::string> types = {
      "bert",  "roberta", "gpt2", "llama", "mistral", "qwen2",
      "gemma", "phi",     "phi3", "vit",   "t5"};
  return types;
}

std::optional<TransformerSpec>
mlir::tfuse::parseHfConfig(std::string_view text, const ImportOptions &options,
                           std::vector<JsonDiagnostic> &diags) {
  JsonParseResult parsed = parseJson(text);
  if (!parsed) {
    diags.push_back(parsed.error);
    return std::nullopt;
  }
  const JsonValue &root = *parsed.value;
  if (!root.isObject()) {
    JsonValueReader(root, std::string(kJsonRootPath), diags)
        .error("expected an object (a Hugging Face config.json), got " +
               describeJsonValue(root));
    return std::nullopt;
  }

  const std::vector<std::string> &supported = getSupportedHfModelTypes();
  std::string supportedList;
  for (size_t i = 0; i < supported.size(); ++i)
    supportedList += (i ? ", " : "") + supported[i];
  const JsonValue *typeValue = root.find("model_type");
  if (!typeValue) {
    diags.push_back(
        {JsonSeverity::Error, root.line(), root.column(), "$.model_type",
         "missing; it picks the model family (supported: " + supportedList +
             ")"});
    return std::nullopt;
  }
  JsonValueReader typeReader(*typeValue, "$.model_type", diags);
  std::optional<std::string> modelType = typeReader.getString(true);
  if (!modelType)
    return std::nullopt;
  if (std::find(supported.begin(), supported.end(), *modelType) ==
      supported.end()) {
    std::string message = "unsupported model type " +
                          quoteJsonString(*modelType) +
                          "; supported: " + supportedList;
    if (std::optional<std::string> hint =
            findClosestSpelling(*modelType, supported))
      message += " (did you mean " + quoteJsonString(*hint) + "?)";
    typeReader.error(message);
    return std::nullopt;
  }

  TransformerSpec spec;
  spec.modelType = *modelType;
  ConfigFields fields(root, *modelType, diags);
  bool vit = *modelType == "vit";
  // Every family but ViT takes its sequence from --seq.
  if (!vit && options.seq == 0)
    typeReader.error("model_type " + quoteJsonString(*modelType) +
                     " needs --seq (the sequence length)");
  if (*modelType != "t5" && options.decoderSeq != 0)
    typeReader.error("--decoder-seq applies to model_type \"t5\" (the "
                     "decoder's sequence), not " +
                     quoteJsonString(*modelType));
  if (!vit && options.pooler)
    typeReader.error("--pooler applies to model_type \"vit\" (ViTPooler), "
                     "not " +
                     quoteJsonString(*modelType));
  bool ok;
  if (*modelType == "bert" || *modelType == "roberta")
    ok = readBert(fields, options, spec);
  else if (*modelType == "gpt2")
    ok = readGpt2(fields, options, spec);
  else if (*modelType == "phi")
    ok = readPhi(fields, options, spec);
  else if (vit)
    ok = readVit(fields, options, spec);
  else if (*modelType == "t5")
    ok = readT5(fields, options, spec);
  else
    ok = readLlama(fields, options, spec);
  // The sizes are checked at the sequence the graph will have.
  ImportOptions effective = options;
  if (spec.impliedSeq > 0)
    effective.seq = spec.impliedSeq;
  if (ok && !hasErrors(diags))
    checkTensorSizes(fields, spec, effective);
  sortDiagnostics(diags);
  if (!ok || hasErrors(diags))
    return std::nullopt;
  return spec;
}
