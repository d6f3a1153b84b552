//===- TransformerBuilder.cpp - TransformerSpec to tfuse IR -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements buildTransformerModule(): it emits @forward with
// OpBuilder, in the structure of examples/generate.py (linear = matmul then
// add of the bias; heads split by reshape + transpose [0, 2, 1, 3] and merged
// back by the inverse), so that an imported layer computes exactly what the
// hand-written example of the same model computes. T5's encoder-decoder
// (TransformerSpec::encoderDecoder) is built by its own members, from the
// same pieces.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/TransformerSpec.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;

const char *mlir::tfuse::describeActivation(Activation activation) {
  switch (activation) {
  case Activation::GeluErf:
    return "gelu (erf)";
  case Activation::GeluTanh:
    return "gelu (tanh)";
  case Activation::Relu:
    return "relu";
  case Activation::Silu:
    return "silu";
  }
  return "?";
}

int64_t ImportedArgument::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t ImportedModel::numParameters() const {
  int64_t n = 0;
  for (const ImportedArgument &arg : arguments)
    if (arg.isWeight)
      n += arg.numElements();
  return n;
}

namespace {

/// The numpy broadcast of two shapes (the operands are known to broadcast).
SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> lhs,
                                    ArrayRef<int64_t> rhs) {
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs);
  assert(shape && "shapes do not broadcast");
  return *shape;
}

/// `pattern` with "{0}" replaced by the layer index.
std::string layerName(StringRef pattern, int64_t layer) {
  std::string name = pattern.str();
  size_t at = name.find("{0}");
  if (at != std::string::npos)
    name.replace(at, 3, std::to_string(layer));
  return name;
}

class ModelBuilder {
public:
  ModelBuilder(MLIRContext *context, const TransformerSpec &spec,
               const ImportOptions &options)
      : context(context), spec(spec), options(options), builder(context) {
    // ViT: the sequence is the patches and [CLS].
    if (spec.impliedSeq > 0)
      this->options.seq = spec.impliedSeq;
    if (spec.encoderDecoder && this->options.decoderSeq == 0)
      this->options.decoderSeq = this->options.seq;
    if (options.dtype == "f32")
      elementType = builder.getF32Type();
    else if (options.dtype == "f16")
      elementType = builder.getF16Type();
    else
      elementType = builder.getBF16Type();
  }

  ImportedModel build();

private:
  //===--------------------------------------------------------------------===//
  // Arguments
  //===--------------------------------------------------------------------===//

  Value addArgument(StringRef name, RankedTensorType type, bool isWeight,
                    bool checkpointTransposed = false) {
    model.arguments.push_back({name.str(),
                               std::vector<int64_t>(type.getShape()), isWeight,
                               checkpointTransposed});
    return body->addArgument(type, loc(name));
  }
  Value input(StringRef name, ArrayRef<int64_t> shape) {
    return addArgument(name, tensor(shape), /*isWeight=*/false);
  }
  Value indices(StringRef name) {
    return addArgument(name,
                       RankedTensorType::get({options.batch, options.seq},
                                             builder.getI32Type()),
                       /*isWeight=*/false);
  }
  Value weight(StringRef name, ArrayRef<int64_t> shape,
               bool checkpointTransposed = false) {
    return addArgument(name, tensor(shape), /*isWeight=*/true,
                       checkpointTransposed);
  }

  /// The word-embedding table [vocab, hidden], created on first use so that
  /// the embeddings and a tied head share one argument.
  Value wordEmbeddings() {
    if (!wordTable)
      wordTable = weight(spec.names.wordEmbeddings + ".weight",
                         {spec.vocabSize, spec.hiddenSize});
    return wordTable;
  }

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  RankedTensorType tensor(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, elementType);
  }
  Location loc(const Twine &name) {
    return NameLoc::get(StringAttr::get(context, name));
  }
  static ArrayRef<int64_t> shapeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  }

  Value add(Value lhs, Value rhs, Location at) {
    return AddOp::create(builder, at,
                         tensor(broadcastShape(shapeOf(lhs), shapeOf(rhs))),
                         lhs, rhs);
  }
  Value mul(Value lhs, Value rhs, Location at) {
    return MulOp::create(builder, at,
                         tensor(broadcastShape(shapeOf(lhs), shapeOf(rhs))),
                         lhs, rhs);
  }

  /// A rank-0 constant of the element type (rounded to it).
  Value scalar(double value, Location at) {
    auto type = RankedTensorType::get({}, elementType);
    return ConstantOp::create(
        builder, at, type,
        DenseElementsAttr::get(type, builder.getFloatAttr(elementType, value)));
  }

  /// x [..., K] times w [K, N], or times w [N, K] read transposed.
  Value matmul(Value x, Value w, bool transposeRhs, Location at) {
    SmallVector<int64_t> shape(shapeOf(x));
    shape.back() = shapeOf(w)[transposeRhs ? 0 : 1];
    return MatmulOp::create(builder, at, tensor(shape), x, w,
                            /*transpose_lhs=*/false, transposeRhs);
  }

  /// x @ W (+ b), W stored [in, out], named `name`.weight / `name`.bias.
  Value linear(Value x, StringRef name, int64_t in, int64_t out, bool bias) {
    Value w = weight((name + ".weight").str(), {in, out},
                     /*checkpointTransposed=*/!spec.linearWeightsInOut);
    Value b = bias ? weight((name + ".bias").str(), {out}) : Value();
    Value y = matmul(x, w, /*transposeRhs=*/false, loc(name));
    return bias ? add(y, b, loc(name)) : y;
  }

  Value norm(Value x, StringRef name) {
    int64_t width = shapeOf(x).back();
    Value gamma = weight((name + ".weight").str(), {width});
    APFloat eps(spec.normEps);
    if (spec.norm == NormKind::RmsNorm && spec.normPlusOne) {
      // GemmaRMSNorm: the normalised x times (1 + gamma).
      Value normed =
          RmsNormOp::create(builder, loc(name), x.getType(), x, Value(), eps);
      return mul(normed, add(gamma, scalar(1.0, loc(name)), loc(name)),
                 loc(name));
    }
    if (spec.norm == NormKind::RmsNorm)
      return RmsNormOp::create(builder, loc(name), x.getType(), x, gamma, eps);
    Value beta = weight((name + ".bias").str(), {width});
    return LayerNormOp::create(builder, loc(name), x.getType(), x, gamma, beta,
                               eps);
  }

  Value activation(Value x, Activation kind, Location at) {
    switch (kind) {
    case Activation::GeluErf:
      return GeluOp::create(builder, at, x, GeluApproximation::none);
    case Activation::GeluTanh:
      return GeluOp::create(builder, at, x, GeluApproximation::tanh);
    case Activation::Relu:
      return ReluOp::create(builder, at, x);
    case Activation::Silu:
      return SiluOp::create(builder, at, x);
    }
    llvm_unreachable("unknown activation");
  }

  /// The dropout probability of a site, 0 when dropout is off.
  double dropoutP(double p) const { return options.noDropout ? 0.0 : p; }

  /// Records a dropout site and returns its seed.
  int64_t claimSeed(double p, const std::string &where) {
    int64_t seed = nextSeed++;
    model.dropoutSites.push_back({seed, p, where});
    return seed;
  }

  Value dropout(Value x, double p, const std::string &where) {
    p = dropoutP(p);
    if (p == 0.0)
      return x;
    int64_t seed = claimSeed(p, where);
    return DropoutOp::create(builder, loc(where), x, APFloat(p),
                             static_cast<uint64_t>(seed));
  }

  /// [B, S, heads * D] -> [B, heads, S, D].
  Value splitHeads(Value x, int64_t heads, Location at) {
    ArrayRef<int64_t> s = shapeOf(x);
    int64_t headDim = s[2] / heads;
    Value split =
        ReshapeOp::create(builder, at, tensor({s[0], s[1], heads, headDim}), x);
    return TransposeOp::create(builder, at,
                               tensor({s[0], heads, s[1], headDim}), split,
                               ArrayRef<int64_t>{0, 2, 1, 3});
  }

  /// [B, heads, S, D] -> [B, S, heads * D].
  Value mergeHeads(Value x, Location at) {
    ArrayRef<int64_t> s = shapeOf(x);
    Value tokens =
        TransposeOp::create(builder, at, tensor({s[0], s[2], s[1], s[3]}), x,
                            ArrayRef<int64_t>{0, 2, 1, 3});
    return ReshapeOp::create(builder, at, tensor({s[0], s[2], s[1] * s[3]}),
                             tokens);
  }

  /// tfuse.rope of q or k [B, heads, S, D] with the model's frequencies, one
  /// constant shared by every layer.
  Value rotate(Value x, Location at) {
    if (!invFreq) {
      RopeFrequencies rope = computeRopeFrequencies(*spec.rope, options.seq);
      auto type = RankedTensorType::get(
          {static_cast<int64_t>(rope.invFreq.size())}, builder.getF32Type());
      invFreq = ConstantOp::create(
          builder, loc("rope inv_freq"), type,
          DenseElementsAttr::get(type, ArrayRef<float>(rope.invFreq)));
      attentionScaling = rope.attentionScaling;
    }
    return RopeOp::create(builder, at, x.getType(), x, invFreq,
                          builder.getF64FloatAttr(attentionScaling));
  }

  /// The additive sliding-window mask [S, S] of `layer`, when the layer is
  /// windowed and the sequence longer than the window (shorter, it is the
  /// causal mask). One per layer, as tfuse-decompose-attention builds one
  /// causal mask per attention: each fuses into its own softmax kernel.
  Value windowMask(int64_t layer) {
    if (!spec.slidingWindow || options.seq <= *spec.slidingWindow ||
        layer < spec.windowFromLayer)
      return Value();
    return WindowMaskOp::create(
        builder, loc("layer " + std::to_string(layer) + " sliding_window"),
        tensor({options.seq, options.seq}),
        builder.getI64IntegerAttr(*spec.slidingWindow));
  }

  //===--------------------------------------------------------------------===//
  // Model pieces
  //===--------------------------------------------------------------------===//

  Value buildStack();
  Value embeddings();
  Value visionEmbeddings();
  // T5 (T5ForConditionalGeneration).
  Value buildEncoderDecoder();
  Value t5Stack(Value x, bool decoder, Value encoderOutput);
  Value t5PositionBias(StringRef name, bool bidirectional, int64_t seq);
  Value t5Attention(Value h, Value memory, const std::string &name, Value mask,
                    bool causal, const std::string &where);
  Value t5FeedForward(Value h, const std::string &name,
                      const std::string &where);
  Value t5LmHead(Value x);
  Value pooler(Value x);
  Value attention(Value h, int64_t layer);
  Value attend(Value q, Value k, Value v, Value mask, double scale, bool causal,
               const std::string &where);
  Value mlp(Value h, int64_t layer);
  Value transformerLayer(Value x, int64_t layer);
  Value lmHead(Value x);
  /// The returned value's `tfuse.name`, after the Hugging Face output field
  /// it equals (`hidden_states` for a stack without the final norm).
  StringRef outputName() const;

  MLIRContext *context;
  const TransformerSpec &spec;
  ImportOptions options;
  OpBuilder builder;
  Type elementType;
  Block *body = nullptr;
  Value attentionMask;
  Value invFreq;
  double attentionScaling = 1.0;
  Value wordTable;
  int64_t nextSeed = 1;
  ImportedModel model;
};

} // namespace

Value ModelBuilder::embeddings() {
  const TransformerNames &n = spec.names;
  Value ids = indices("input_ids");
  Value tokenTypes =
      n.tokenTypeEmbeddings.empty() ? Value() : indices("token_type_ids");
  if (spec.attentionMask && !options.noAttentionMask)
    attentionMask = input("attention_mask", {options.batch, 1, 1, options.seq});

  SmallVector<int64_t> rows{options.batch, options.seq, spec.hiddenSize};
  Location at = loc("embeddings");
  Value x = GatherOp::create(builder, at, tensor(rows), wordEmbeddings(), ids);
  if (spec.embeddingMultiplier != 0.0)
    x = mul(x, scalar(spec.embeddingMultiplier, at), at);
  if (tokenTypes) {
    Value table = weight(n.tokenTypeEmbeddings + ".weight",
                         {spec.typeVocabSize, spec.hiddenSize});
    x = add(x, GatherOp::create(builder, at, tensor(rows), table, tokenTypes),
            at);
  }
  if (!n.positionEmbeddings.empty() && spec.maxPositions > 0) {
    // Positions 0..S-1 read rows offset..offset+S-1 of the table: a slice.
    Value table = weight(n.positionEmbeddings + ".weight",
                         {spec.maxPositions, spec.hiddenSize});
    Value positions =
        SliceOp::create(builder, at, tensor({options.seq, spec.hiddenSize}),
                        table, ArrayRef<int64_t>{spec.positionOffset, 0});
    x = add(x, positions, at);
  }
  if (!n.embeddingNorm.empty())
    x = norm(x, n.embeddingNorm);
  return dropout(x, spec.embdDropout, "embeddings");
}

/// ViTEmbeddings from unfolded patches: pixel_patches [B, N, C x P x P]
/// times the Conv2d weight read as [C x P x P, hidden] plus its bias, the
/// [CLS] token in front (sequence N + 1), the learned positions added.
Value ModelBuilder::visionEmbeddings() {
  const TransformerNames &n = spec.names;
  const VisionSpec &vision = *spec.vision;
  int64_t patches = vision.numPatches();
  Value pixels =
      input("pixel_patches", {options.batch, patches, vision.patchValues()});
  Value x = linear(pixels, n.patchProjection, vision.patchValues(),
                   spec.hiddenSize, /*bias=*/true);
  Location at = loc("embeddings");
  Value cls = weight(n.clsToken, {1, 1, spec.hiddenSize});
  // cls_token.expand(batch, -1, -1): a broadcast add of zeros (a splat
  // constant, which fuses into its consumer).
  if (options.batch > 1) {
    auto zerosType = tensor({options.batch, 1, spec.hiddenSize});
    Value zeros = ConstantOp::create(
        builder, at, zerosType,
        DenseElementsAttr::get(zerosType,
                               builder.getFloatAttr(elementType, 0.0)));
    cls = add(cls, zeros, at);
  }
  x = ConcatOp::create(builder, at,
                       tensor({options.batch, patches + 1, spec.hiddenSize}),
                       ValueRange{cls, x}, static_cast<uint64_t>(1));
  Value positions =
      weight(n.positionEmbeddings, {1, patches + 1, spec.hiddenSize});
  x = add(x, positions, at);
  return dropout(x, spec.embdDropout, "embeddings");
}

/// ViTPooler: dense + tanh of the [CLS] row, [B, pooler_output_size].
Value ModelBuilder::pooler(Value x) {
  const TransformerNames &n = spec.names;
  Location at = loc(n.pooler);
  Value first =
      SliceOp::create(builder, at, tensor({options.batch, 1, spec.hiddenSize}),
                      x, ArrayRef<int64_t>{0, 0, 0});
  first = ReshapeOp::create(builder, at,
                            tensor({options.batch, spec.hiddenSize}), first);
  Value dense = linear(first, n.pooler, spec.hiddenSize,
                       spec.vision->poolerSize, /*bias=*/true);
  return TanhOp::create(builder, at, dense);
}

Value ModelBuilder::attention(Value h, int64_t layer) {
  const TransformerNames &n = spec.names;
  int64_t qWidth = spec.numHeads * spec.headDim;
  int64_t kvWidth = spec.numKvHeads * spec.headDim;
  Value q, k, v;
  if (spec.fusedQkv) {
    std::string name = layerName(n.fusedQkv, layer);
    Value qkv =
        linear(h, name, spec.hiddenSize, qWidth + 2 * kvWidth, spec.qkvBias);
    SmallVector<int64_t> s(shapeOf(qkv));
    SmallVector<Type> pieces;
    for (int64_t width : {qWidth, kvWidth, kvWidth}) {
      s.back() = width;
      pieces.push_back(tensor(s));
    }
    auto split = SplitOp::create(builder, loc(name), pieces, qkv,
                                 static_cast<uint64_t>(s.size() - 1));
    q = splitHeads(split.getResult(0), spec.numHeads, loc(name));
    k = splitHeads(split.getResult(1), spec.numKvHeads, loc(name));
    v = splitHeads(split.getResult(2), spec.numKvHeads, loc(name));
  } else {
    auto project = [&](const std::string &pattern, int64_t width,
                       int64_t heads) {
      std::string name = layerName(pattern, layer);
      return splitHeads(linear(h, name, spec.hiddenSize, width, spec.qkvBias),
                        heads, loc(name));
    };
    q = project(n.query, qWidth, spec.numHeads);
    k = project(n.key, kvWidth, spec.numKvHeads);
    v = project(n.value, kvWidth, spec.numKvHeads);
  }

  std::string where = "layer " + std::to_string(layer) + " attention";
  if (spec.rope) {
    q = rotate(q, loc(where + " rope"));
    k = rotate(k, loc(where + " rope"));
  }
  double scale = spec.attnScale;
  if (spec.scaleByInverseLayerIdx)
    scale /= static_cast<double>(layer + 1);
  Value mask = windowMask(layer);
  if (!mask)
    mask = attentionMask;
  Value ctx =
      mergeHeads(attend(q, k, v, mask, scale, spec.causal, where), loc(where));
  std::string out = layerName(n.attnOut, layer);
  Value y = linear(ctx, out, qWidth, spec.hiddenSize, spec.attnOutBias);
  return dropout(y, spec.residDropout,
                 "layer " + std::to_string(layer) + " attention output");
}

/// tfuse.attention of split heads, the config's dropout on the probabilities
/// (its seed claimed for `where`).
Value ModelBuilder::attend(Value q, Value k, Value v, Value mask, double scale,
                           bool causal, const std::string &where) {
  double p = dropoutP(spec.attnDropout);
  FloatAttr dropoutAttr;
  IntegerAttr seedAttr;
  if (p > 0.0) {
    dropoutAttr = builder.getF64FloatAttr(p);
    seedAttr =
        builder.getI64IntegerAttr(claimSeed(p, where + " probabilities"));
  }
  ArrayRef<int64_t> qs = shapeOf(q);
  return AttentionOp::create(
             builder, loc(where), tensor({qs[0], qs[1], qs[2], shapeOf(v)[3]}),
             q, k, v, mask, builder.getF64FloatAttr(scale),
             causal ? builder.getUnitAttr() : UnitAttr(), dropoutAttr, seedAttr)
      .getResult();
}

Value ModelBuilder::mlp(Value h, int64_t layer) {
  const TransformerNames &n = spec.names;
  int64_t width = spec.intermediateSize;
  Value hidden;
  if (spec.gatedMlp && !n.mlpGateUp.empty()) {
    // gate_up_proj, chunked in two along the last axis: gate first.
    std::string name = layerName(n.mlpGateUp, layer);
    Value both = linear(h, name, spec.hiddenSize, 2 * width, spec.mlpBias);
    SmallVector<int64_t> s(shapeOf(both));
    s.back() = width;
    auto split =
        SplitOp::create(builder, loc(name), SmallVector<Type>(2, tensor(s)),
                        both, static_cast<uint64_t>(s.size() - 1));
    hidden = mul(activation(split.getResult(0), spec.activation, loc(name)),
                 split.getResult(1), loc(name));
  } else if (spec.gatedMlp) {
    std::string gateName = layerName(n.mlpGate, layer);
    Value gate =
        activation(linear(h, gateName, spec.hiddenSize, width, spec.mlpBias),
                   spec.activation, loc(gateName));
    std::string upName = layerName(n.mlpUp, layer);
    Value up = linear(h, upName, spec.hiddenSize, width, spec.mlpBias);
    hidden = mul(gate, up, loc(upName));
  } else {
    std::string upName = layerName(n.mlpUp, layer);
    hidden = activation(linear(h, upName, spec.hiddenSize, width, spec.mlpBias),
                        spec.activation, loc(upName));
  }
  Value y = linear(hidden, layerName(n.mlpDown, layer), width, spec.hiddenSize,
                   spec.mlpBias);
  return dropout(y, spec.residDropout,
                 "layer " + std::to_string(layer) + " MLP output");
}

Value ModelBuilder::transformerLayer(Value x, int64_t layer) {
  Location residual = loc("layer " + std::to_string(layer) + " residual");
  if (spec.placement == NormPlacement::Parallel) {
    // h = norm1(x); out = (attn(h) + mlp(h)) + x, PhiDecoderLayer's order.
    Value h = norm(x, layerName(spec.names.norm1, layer));
    Value attn = attention(h, layer);
    return add(add(attn, mlp(h, layer), residual), x, residual);
  }
  if (spec.placement == NormPlacement::Post) {
    // x1 = norm1(attn(x) + x); out = norm2(mlp(x1) + x1).
    Value x1 = norm(add(attention(x, layer), x, residual),
                    layerName(spec.names.norm1, layer));
    return norm(add(mlp(x1, layer), x1, residual),
                layerName(spec.names.norm2, layer));
  }
  // x1 = x + attn(norm1(x)); out = x1 + mlp(norm2(x1)).
  Value x1 =
      add(x, attention(norm(x, layerName(spec.names.norm1, layer)), layer),
          residual);
  return add(x1, mlp(norm(x1, layerName(spec.names.norm2, layer)), layer),
             residual);
}

Value ModelBuilder::lmHead(Value x) {
  const TransformerNames &n = spec.names;
  Value h = x;
  if (!n.finalNorm.empty())
    h = norm(h, n.finalNorm);
  if (!n.headDense.empty()) {
    h = linear(h, n.headDense, spec.hiddenSize, spec.hiddenSize, true);
    h = activation(h, spec.headActivation, loc(n.headDense));
    h = norm(h, n.headNorm);
  }
  Value logits;
  if (spec.tieWordEmbeddings) {
    // The table is [vocab, hidden]: read it transposed.
    logits = matmul(h, wordEmbeddings(), /*transposeRhs=*/true, loc("lm_head"));
  } else {
    // An nn.Linear in every family (GPT-2's too).
    Value w = weight(n.lmHead + ".weight", {spec.hiddenSize, spec.vocabSize},
                     /*checkpointTransposed=*/true);
    logits = matmul(h, w, /*transposeRhs=*/false, loc(n.lmHead));
  }
  if (!n.lmHeadBias.empty())
    logits =
        add(logits, weight(n.lmHeadBias, {spec.vocabSize}), loc(n.lmHeadBias));
  if (options.headLogits)
    return logits;
  return SoftmaxOp::create(builder, loc("lm_head"), logits,
                           static_cast<uint64_t>(2));
}

//===----------------------------------------------------------------------===//
// T5
//===----------------------------------------------------------------------===//

/// T5's position bias [1, H, S, S] of a self-attention over S tokens: the
/// learned table `name` [buckets, H] gathered at the constant bucket of each
/// (query, key) pair ([S, S, H]), heads first.
Value ModelBuilder::t5PositionBias(StringRef name, bool bidirectional,
                                   int64_t seq) {
  const EncoderDecoderSpec &t5 = *spec.encoderDecoder;
  Location at = loc(name);
  Value table = weight(name, {t5.numBuckets, spec.numHeads});
  std::vector<int32_t> buckets = computeRelativePositionBuckets(
      bidirectional, t5.numBuckets, t5.maxDistance, seq, seq);
  auto indexType = RankedTensorType::get({seq, seq}, builder.getI32Type());
  Value index = ConstantOp::create(
      builder, loc(name + " buckets"), indexType,
      DenseElementsAttr::get(indexType, ArrayRef<int32_t>(buckets)));
  Value values = GatherOp::create(
      builder, at, tensor({seq, seq, spec.numHeads}), table, index);
  Value heads =
      TransposeOp::create(builder, at, tensor({spec.numHeads, seq, seq}),
                          values, ArrayRef<int64_t>{2, 0, 1});
  return ReshapeOp::create(builder, at, tensor({1, spec.numHeads, seq, seq}),
                           heads);
}

/// T5Attention: q from `h`, k and v from `memory` (`h` itself in
/// self-attention), no biases, no 1/sqrt(d) scaling, the additive `mask`
/// (position bias and/or attention mask), dropout_rate on the
/// probabilities, then o.
Value ModelBuilder::t5Attention(Value h, Value memory, const std::string &name,
                                Value mask, bool causal,
                                const std::string &where) {
  int64_t inner = spec.numHeads * spec.headDim;
  auto project = [&](Value x, const char *which) {
    std::string projection = name + "." + which;
    return splitHeads(linear(x, projection, spec.hiddenSize, inner, false),
                      spec.numHeads, loc(projection));
  };
  Value q = project(h, "q");
  Value k = project(memory, "k");
  Value v = project(memory, "v");
  Value ctx = attend(q, k, v, mask, spec.attnScale, causal, where);
  return linear(mergeHeads(ctx, loc(where)), name + ".o", inner,
                spec.hiddenSize, false);
}

/// T5DenseActDense (wi, act, dropout, wo) or T5DenseGatedActDense
/// (act(wi_0) * wi_1, dropout, wo), without biases.
Value ModelBuilder::t5FeedForward(Value h, const std::string &name,
                                  const std::string &where) {
  int64_t width = spec.intermediateSize;
  Value hidden;
  if (spec.gatedMlp) {
    Value gate =
        activation(linear(h, name + ".wi_0", spec.hiddenSize, width, false),
                   spec.activation, loc(name + ".wi_0"));
    Value up = linear(h, name + ".wi_1", spec.hiddenSize, width, false);
    hidden = mul(gate, up, loc(name + ".wi_1"));
  } else {
    hidden = activation(linear(h, name + ".wi", spec.hiddenSize, width, false),
                        spec.activation, loc(name + ".wi"));
  }
  hidden = dropout(hidden, spec.residDropout, where + " hidden");
  return linear(hidden, name + ".wo", width, spec.hiddenSize, false);
}

/// T5Stack: dropout of the embeddings, the blocks (pre-RMSNorm, residuals
/// around dropout), the final RMSNorm and dropout. The first block's
/// position bias is shared by every block; the encoder adds the attention
/// mask to it once, the decoder is causal and attends to `encoderOutput`
/// (under the encoder's attention mask, without position bias).
Value ModelBuilder::t5Stack(Value x, bool decoder, Value encoderOutput) {
  std::string stack = decoder ? "decoder" : "encoder";
  int64_t seq = decoder ? options.decoderSeq : options.seq;
  x = dropout(x, spec.embdDropout, stack + " embeddings");
  int64_t layers = options.layers.value_or(
      decoder ? spec.encoderDecoder->numDecoderLayers : spec.numLayers);
  Value selfMask;
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::string block = stack + ".block." + std::to_string(layer) + ".layer.";
    std::string where = stack + " layer " + std::to_string(layer);
    Location residual = loc(where + " residual");
    if (layer == 0) {
      selfMask = t5PositionBias(
          block + "0.SelfAttention.relative_attention_bias.weight", !decoder,
          seq);
      if (!decoder && attentionMask)
        selfMask = add(selfMask, attentionMask, loc(where + " position bias"));
    }
    Value h = norm(x, block + "0.layer_norm");
    Value attn = t5Attention(h, h, block + "0.SelfAttention", selfMask, decoder,
                             where + " self-attention");
    x = add(x,
            dropout(attn, spec.residDropout, where + " self-attention output"),
            residual);
    if (decoder) {
      h = norm(x, block + "1.layer_norm");
      attn = t5Attention(h, encoderOutput, block + "1.EncDecAttention",
                         attentionMask, false, where + " cross-attention");
      x = add(
          x,
          dropout(attn, spec.residDropout, where + " cross-attention output"),
          residual);
    }
    std::string ff = block + (decoder ? "2" : "1");
    Value y = t5FeedForward(norm(x, ff + ".layer_norm"), ff + ".DenseReluDense",
                            where + " feed-forward");
    x = add(x, dropout(y, spec.residDropout, where + " feed-forward output"),
            residual);
  }
  x = norm(x, stack + ".final_layer_norm");
  return dropout(x, spec.embdDropout, stack + " output");
}

/// T5ForConditionalGeneration's head: tied to `shared`, the decoder output
/// is first multiplied by d_model^-0.5 (a Python float: in f32, rounded
/// once to the element type, as PyTorch does); untied, `lm_head`.
Value ModelBuilder::t5LmHead(Value x) {
  if (spec.tieWordEmbeddings) {
    Location at = loc("lm_head rescale");
    double factor = std::pow(static_cast<double>(spec.hiddenSize), -0.5);
    auto f32 = builder.getF32Type();
    auto scalarType = RankedTensorType::get({}, f32);
    Value scale = ConstantOp::create(
        builder, at, scalarType,
        DenseElementsAttr::get(scalarType, builder.getFloatAttr(f32, factor)));
    auto wide = RankedTensorType::get(shapeOf(x), f32);
    Value widened =
        elementType == f32 ? x : CastOp::create(builder, at, wide, x);
    Value scaled = MulOp::create(builder, at, wide, widened, scale);
    x = elementType == f32 ? scaled
                           : CastOp::create(builder, at, x.getType(), scaled);
  }
  Value logits;
  if (spec.tieWordEmbeddings) {
    logits = matmul(x, wordEmbeddings(), /*transposeRhs=*/true, loc("lm_head"));
  } else {
    // An nn.Linear in every family (GPT-2's too).
    Value w =
        weight(spec.names.lmHead + ".weight", {spec.hiddenSize, spec.vocabSize},
               /*checkpointTransposed=*/true);
    logits = matmul(x, w, /*transposeRhs=*/false, loc(spec.names.lmHead));
  }
  if (options.headLogits)
    return logits;
  return SoftmaxOp::create(builder, loc("lm_head"), logits,
                           static_cast<uint64_t>(2));
}

/// The activations first (ids or embeddings of both stacks, the encoder's
/// attention mask), then the encoder, the decoder and the head.
Value ModelBuilder::buildEncoderDecoder() {
  int64_t encoderSeq = options.seq, decoderSeq = options.decoderSeq;
  Value encoderIn, decoderIn, encoderIds, decoderIds;
  if (options.embeddings) {
    encoderIds = indices("input_ids");
    decoderIds = addArgument("decoder_input_ids",
                             RankedTensorType::get({options.batch, decoderSeq},
                                                   builder.getI32Type()),
                             /*isWeight=*/false);
  } else {
    encoderIn =
        input("inputs_embeds", {options.batch, encoderSeq, spec.hiddenSize});
    decoderIn = input("decoder_inputs_embeds",
                      {options.batch, decoderSeq, spec.hiddenSize});
  }
  if (spec.attentionMask && !options.noAttentionMask)
    attentionMask = input("attention_mask", {options.batch, 1, 1, encoderSeq});
  auto lookup = [&](Value ids, int64_t seq) -> Value {
    return GatherOp::create(builder, loc(spec.names.wordEmbeddings),
                            tensor({options.batch, seq, spec.hiddenSize}),
                            wordEmbeddings(), ids);
  };
  if (encoderIds)
    encoderIn = lookup(encoderIds, encoderSeq);
  Value encoded = t5Stack(encoderIn, /*decoder=*/false, Value());
  if (decoderIds)
    decoderIn = lookup(decoderIds, decoderSeq);
  Value x = t5Stack(decoderIn, /*decoder=*/true, encoded);
  return options.lmHead ? t5LmHead(x) : x;
}

StringRef ModelBuilder::outputName() const {
  if (options.lmHead)
    return options.headLogits ? "logits" : "probabilities";
  if (spec.vision && options.pooler)
    return "pooler_output";
  // T5Stack ends with its final_layer_norm.
  if ((spec.vision && options.embeddings) || spec.encoderDecoder)
    return "last_hidden_state";
  return "hidden_states";
}

/// One stack: the embeddings or hidden_states, the layers, the head.
Value ModelBuilder::buildStack() {
  // Activations first, then the weights in the order the graph uses them.
  Value x;
  if (options.embeddings) {
    x = spec.vision ? visionEmbeddings() : embeddings();
  } else {
    x = input("hidden_states", {options.batch, options.seq, spec.hiddenSize});
    if (spec.attentionMask && !options.noAttentionMask)
      attentionMask =
          input("attention_mask", {options.batch, 1, 1, options.seq});
  }
  int64_t layers = options.layers.value_or(spec.numLayers);
  for (int64_t layer = 0; layer < layers; ++layer)
    x = transformerLayer(x, layer);
  if (options.lmHead)
    x = lmHead(x);
  // ViTModel ends with its LayerNorm (last_hidden_state) and, with the
  // pooler, ViTPooler (pooler_output); from the patches or with the pooler
  // the graph is the model's whole forward.
  if (spec.vision && (options.embeddings || options.pooler))
    x = norm(x, spec.names.finalNorm);
  if (spec.vision && options.pooler)
    x = pooler(x);
  return x;
}

ImportedModel ModelBuilder::build() {
  Location fileLoc = loc("tfuse-import");
  model.module = ModuleOp::create(fileLoc);
  body = new Block();
  builder.setInsertionPointToEnd(body);
  Value x = spec.encoderDecoder ? buildEncoderDecoder() : buildStack();
  func::ReturnOp::create(builder, loc("forward"), x);

  OpBuilder moduleBuilder(context);
  moduleBuilder.setInsertionPointToEnd(model.module->getBody());
  auto type =
      FunctionType::get(context, body->getArgumentTypes(), {x.getType()});
  auto func = func::FuncOp::create(moduleBuilder, fileLoc, "forward", type);
  func.getBody().push_back(body);
  for (auto [index, arg] : llvm::enumerate(model.arguments)) {
    func.setArgAttr(index, TFuseDialect::getNameAttrName(),
                    StringAttr::get(context, arg.name));
    if (arg.checkpointTransposed)
      func.setArgAttr(index, TFuseDialect::getCheckpointTransposedAttrName(),
                      UnitAttr::get(context));
  }
  func.setResultAttr(0, TFuseDialect::getNameAttrName(),
                     StringAttr::get(context, outputName()));
  return std::move(model);
}

ImportedModel
mlir::tfuse::buildTransformerModule(MLIRContext *context,
                                    const TransformerSpec &spec,
                                    const ImportOptions &options) {
  context->loadDialect<TFuseDialect, func::FuncDialect>();
  return ModelBuilder(context, spec, options).build();
}
