//===- TransformerSpec.h - Transformer stacks for front ends ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares TransformerSpec, the description of a stack of
// Transformer layers that the front ends fill in (HfConfig.cpp from a
// Hugging Face config.json), and buildTransformerModule(), which turns one
// into a tfuse-dialect module with OpBuilder.
//
// The emitted module holds one func.func @forward: optional embeddings, the
// layers chained one after the other, and an optional language-model head.
// An encoder-decoder (T5, TransformerSpec::encoderDecoder) chains the
// encoder's layers, then the decoder's, which attend to the encoder's output.
// Every argument carries a `tfuse.name` attribute: the activations are named
// after what they hold (`hidden_states`, `input_ids`, ...), the weights after
// the model's state-dict entry (`layers.0.self_attn.q_proj.weight`). Linear
// weights are stored [in, out] (nn.Linear's weight transposed), so a linear
// layer is `tfuse.matmul %x, %w` followed by `tfuse.add` of the bias.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_IMPORT_TRANSFORMERSPEC_H
#define TFUSE_IMPORT_TRANSFORMERSPEC_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfuse {

/// The element-wise nonlinearity of a feed-forward block.
enum class Activation { GeluErf, GeluTanh, Relu, Silu };

/// "gelu (erf)", "gelu (tanh)", "relu", "silu".
const char *describeActivation(Activation activation);

/// Where a layer normalises its input.
enum class NormPlacement {
  /// x1 = norm(x + attn(x)); out = norm(x1 + mlp(x1)) (BERT).
  Post,
  /// x1 = x + attn(norm(x)); out = x1 + mlp(norm(x1)) (GPT-2, LLaMA, ViT).
  Pre,
  /// h = norm(x); out = x + attn(h) + mlp(h): attention and MLP side by side
  /// on one norm (Phi's PhiDecoderLayer).
  Parallel,
};

enum class NormKind {
  /// LayerNorm with gamma (".weight") and beta (".bias").
  LayerNorm,
  /// RMSNorm with gamma (".weight").
  RmsNorm,
};

/// State-dict names of the weights. Per-layer names contain "{0}", replaced
/// by the layer index; ".weight" / ".bias" are appended by the builder. An
/// empty name means the model has no such weight.
struct TransformerNames {
  // Per layer.
  std::string norm1; ///< pre-attention (Pre) or post-attention (Post) norm
  std::string norm2; ///< pre-MLP (Pre) or post-MLP (Post) norm
  std::string query, key, value;
  std::string fusedQkv; ///< one projection split into q, k, v (GPT-2)
  std::string attnOut;
  std::string mlpGate; ///< gated MLPs only
  /// One projection split into gate and up (Phi-3's gate_up_proj).
  std::string mlpGateUp;
  std::string mlpUp;
  std::string mlpDown;
  // Embeddings.
  std::string wordEmbeddings;
  std::string positionEmbeddings;
  std::string tokenTypeEmbeddings;
  std::string embeddingNorm;
  // Language-model head.
  std::string finalNorm;
  std::string headDense; ///< BERT's transform: dense, activation, norm
  std::string headNorm;
  std::string lmHead;     ///< the vocabulary projection when not tied
  std::string lmHeadBias; ///< a bias of [vocab] on its own (BERT, Phi)
  // Vision (ViT).
  std::string patchProjection; ///< Conv2d weight as [C x P x P, hidden]
  std::string clsToken;        ///< [1, 1, hidden]
  std::string pooler;          ///< dense + tanh on the [CLS] row
};

/// A vision Transformer's patch embedding (ViTEmbeddings).
struct VisionSpec {
  int64_t imageSize = 0;
  int64_t patchSize = 0;
  int64_t numChannels = 0;
  /// The width of the pooler's output (pooler_output_size).
  int64_t poolerSize = 0;
  /// (imageSize / patchSize)^2.
  int64_t numPatches() const {
    return (imageSize / patchSize) * (imageSize / patchSize);
  }
  /// The values of one unfolded patch: C x P x P.
  int64_t patchValues() const { return numChannels * patchSize * patchSize; }
};

/// The rope_scaling types (transformers' ROPE_INIT_FUNCTIONS) tfuse models.
enum class RopeType { Default, Linear, Dynamic, Llama3, Yarn };

/// "default", "linear", "dynamic", "llama3", "yarn".
const char *describeRopeType(RopeType type);

/// Rotary position embeddings as a config gives them (rope_theta,
/// partial_rotary_factor, rope_scaling).
struct RopeSpec {
  RopeType type = RopeType::Default;
  double theta = 10000.0;
  /// The rotated dims: head_dim x partial_rotary_factor, even.
  int64_t rotaryDim = 0;
  /// rope_scaling.factor (linear, dynamic, llama3, yarn).
  double factor = 1.0;
  /// max_position_embeddings (dynamic), and the trained context
  /// original_max_position_embeddings (llama3, yarn).
  int64_t maxPositions = 0;
  int64_t originalMaxPositions = 0;
  /// llama3.
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;
  /// yarn.
  std::optional<double> attentionFactor, mscale, mscaleAllDim;
  double betaFast = 32.0, betaSlow = 1.0;
  bool truncate = true;
};

/// What tfuse.rope takes: the frequencies (f32, as transformers computes
/// them) and the factor cos and sin are scaled by.
struct RopeFrequencies {
  std::vector<float> invFreq;
  double attentionScaling = 1.0;
};

/// The frequencies of `rope` for positions 0..seq-1.
RopeFrequencies computeRopeFrequencies(const RopeSpec &rope, int64_t seq);

/// An encoder-decoder as T5ForConditionalGeneration builds one: the encoder
/// and the decoder share the layer sizes of TransformerSpec; the decoder's
/// layers add cross-attention over the encoder's output. Attention is
/// unscaled, and a learned relative position bias (the first layer's
/// `relative_attention_bias` table [buckets, heads], gathered at the bucket
/// of each query/key pair) is added to the scores of every self-attention
/// of the stack.
struct EncoderDecoderSpec {
  /// num_decoder_layers (TransformerSpec::numLayers counts the encoder's).
  int64_t numDecoderLayers = 0;
  /// relative_attention_num_buckets and relative_attention_max_distance.
  int64_t numBuckets = 0;
  int64_t maxDistance = 0;
};

/// The bucket of each (query i, key j) pair, row-major [querySeq, keySeq],
/// as transformers' T5Attention._relative_position_bucket computes it from
/// j - i (its logarithms in f32): bidirectional (the encoder) gives half
/// the buckets to keys after the query, unidirectional (the decoder) maps
/// every later key to bucket 0. Needs numBuckets >= 4 and maxDistance >
/// numBuckets / 2, which the front end checks.
std::vector<int32_t> computeRelativePositionBuckets(bool bidirectional,
                                                    int64_t numBuckets,
                                                    int64_t maxDistance,
                                                    int64_t querySeq,
                                                    int64_t keySeq);

/// One stack of Transformer layers and, optionally, its embeddings and head.
struct TransformerSpec {
  /// The config's model_type ("bert", "llama", ...), for messages.
  std::string modelType;

  // Shapes.
  int64_t hiddenSize = 0;
  int64_t numHeads = 0;
  /// Key/value heads; fewer than numHeads is grouped-query attention.
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  int64_t intermediateSize = 0;
  int64_t numLayers = 0;

  // Structure.
  NormPlacement placement = NormPlacement::Pre;
  NormKind norm = NormKind::LayerNorm;
  double normEps = 1e-5;
  Activation activation = Activation::GeluErf;
  /// SwiGLU-style MLP: down(act(gate(x)) * up(x)).
  bool gatedMlp = false;
  bool fusedQkv = false;
  bool qkvBias = false;
  bool attnOutBias = false;
  bool mlpBias = false;
  /// The checkpoint stores linear weights [in, out] as the graph does
  /// (GPT-2's Conv1D) rather than nn.Linear's [out, in].
  bool linearWeightsInOut = false;
  bool causal = false;
  /// An additive attention mask argument [B, 1, 1, S] (encoders).
  bool attentionMask = false;
  /// The softmax scale of layer i is attnScale / (i + 1) when set (GPT-2's
  /// scale_attn_by_inverse_layer_idx).
  double attnScale = 1.0;
  bool scaleByInverseLayerIdx = false;

  // Dropout probabilities; 0 leaves the site out.
  double attnDropout = 0.0;
  double residDropout = 0.0;
  double embdDropout = 0.0;

  // Embeddings and head.
  int64_t vocabSize = 0;
  /// Learned absolute positions (0 for none, e.g. rotary models).
  int64_t maxPositions = 0;
  /// Row of the position table that position 0 reads (RoBERTa: pad + 1).
  int64_t positionOffset = 0;
  int64_t typeVocabSize = 0;
  /// The head's vocabulary projection is the word-embedding table.
  bool tieWordEmbeddings = false;
  /// The head's transform activation (BERT: hidden_act, RoBERTa: gelu).
  Activation headActivation = Activation::GeluErf;
  /// Gemma's RMSNorm: x / rms(x) x (1 + gamma).
  bool normPlusOne = false;
  /// The embeddings are multiplied by this (Gemma: sqrt(hidden_size), in the
  /// element type); 0 for none.
  double embeddingMultiplier = 0.0;
  /// Rotary position embeddings of q and k, when the model has them.
  std::optional<RopeSpec> rope;
  /// The sliding window of the attention (Mistral, Qwen2), when it has one,
  /// in the layers from windowFromLayer on (Qwen2's max_window_layers).
  std::optional<int64_t> slidingWindow;
  int64_t windowFromLayer = 0;
  /// The patch embedding of a vision model (ViT); its sequence is the
  /// patches and the [CLS] token, so --seq does not apply.
  std::optional<VisionSpec> vision;
  /// The sequence length the model implies (ViT: patches + 1), which the
  /// front end sets instead of --seq; 0 when --seq gives it.
  int64_t impliedSeq = 0;
  /// T5: an encoder and a decoder instead of one stack.
  std::optional<EncoderDecoderSpec> encoderDecoder;
  /// What the model leaves out that the graph does not model either, shown
  /// in the output's header ("rotary position embeddings").
  std::vector<std::string> notModelled;

  TransformerNames names;
};

/// What to emit.
struct ImportOptions {
  int64_t batch = 1;
  /// 0 when not given: the model must imply it (ViT, whose sequence is its
  /// patches and the [CLS] token); given, it must not (--seq).
  int64_t seq = 128;
  /// Encoder-decoders: the decoder's sequence length; 0 for `seq` (--seq is
  /// then the encoder's).
  int64_t decoderSeq = 0;
  /// "bf16", "f16" or "f32".
  std::string dtype = "bf16";
  /// Layers to emit; empty for all of them.
  std::optional<int64_t> layers;
  bool embeddings = false;
  bool lmHead = false;
  /// With lmHead: end at the logits (the model class's output), without the
  /// softmax over the vocabulary.
  bool headLogits = false;
  /// Leave out every dropout (inference).
  bool noDropout = false;
  /// Leave out the encoders' attention-mask argument.
  bool noAttentionMask = false;
  /// Vision models: end with the final norm and the pooler (dense + tanh on
  /// the [CLS] row), ViTModel's pooler_output.
  bool pooler = false;
};

/// One argument of the emitted function.
struct ImportedArgument {
  std::string name;
  std::vector<int64_t> shape;
  bool isWeight = false;
  /// The checkpoint holds this [in, out] weight as [out, in] (nn.Linear), or
  /// as [out, ...] with `in` unflattened (the patch embedding's Conv2d): the
  /// argument is its transpose (`tfuse.checkpoint_transposed`).
  bool checkpointTransposed = false;
  int64_t numElements() const;
};

/// One dropout site of the emitted function.
struct DropoutSite {
  int64_t seed = 0;
  double p = 0.0;
  std::string where;
};

struct ImportedModel {
  OwningOpRef<ModuleOp> module;
  /// One line about the source, for the output's header (ONNX: node count,
  /// opset, producer).
  std::string summary;
  std::vector<ImportedArgument> arguments;
  std::vector<DropoutSite> dropoutSites;
  /// The elements of every weight argument (a tied table counts once).
  int64_t numParameters() const;
};

/// Builds `@forward` for `spec`. The front end that filled in `spec` has
/// checked `options` against it (layers, sequence length, dtype). The module
/// is not verified; the caller runs mlir::verify().
ImportedModel buildTransformerModule(MLIRContext *context,
                                     const TransformerSpec &spec,
                                     const ImportOptions &options);

} // namespace mlir::tfuse

#endif // TFUSE_IMPORT_TRANSFORMERSPEC_H
