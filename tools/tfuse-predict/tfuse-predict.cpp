//===- tfuse-predict.cpp - training steps/s per GPU from the cost model ---===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tfuse-predict [--model bert-large,gpt3-1.3b,...] [--hf-config FILE]
//               [--batch 8,16] [--seq 128,512] [--dtype bf16,f32]
//               [--target a40,l40s,h200] [--recompute POLICY]
//               [--format text|json|csv] [-o FILE]
//
// How many training steps per second each GPU gives, fused and unfused, and
// whether the step fits in its memory: every number comes from the
// compiler's own graphs and cost model (docs/training.md).
//
// The step is the whole model's training step (--graph=whole: embeddings,
// every layer, the head and a mean-squared loss over the logits as one graph
// that tfuse-import builds and tfuse-autodiff differentiates) or composed
// from three steps (--graph=composed: the embeddings, one layer with its
// output gradient an argument, counted L times, and the head), then one
// AdamW update over every parameter. Each is decomposed, fused for each
// target (tfuse-fuse) and priced by the traffic analysis; unfused times are
// those of the same steps without fusion. tfuse-autodiff's full recompute
// of one function recomputes all of its forward at once, so activation
// checkpointing per layer is the composed step with recompute=full; the
// default, --graph=auto, takes the whole graph for the other policies.
// Memory is the step's peak in program order plus the AdamW state (whole),
// or the parameters, gradients and AdamW state, every layer's saved
// activations and input, and the largest transient of a part (composed).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Import/HfConfig.h"
#include "tfuse/Import/TransformerSpec.h"
#include "tfuse/Json/JsonReader.h"
#include "tfuse/Support/OutputFile.h"
#include "tfuse/Target/ParallelCost.h"
#include "tfuse/Transforms/Autodiff.h"
#include "tfuse/Transforms/FusionPlanner.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::tfuse;
namespace cl = llvm::cl;

static cl::OptionCategory category("tfuse-predict options");

static cl::opt<std::string>
    modelNames("model",
               cl::desc("Built-in models, comma-separated: bert-large, "
                        "gpt3-1.3b, gpt3-2.7b, gpt3-6.7b (default: all, "
                        "unless --hf-config is given)"),
               cl::value_desc("names"), cl::cat(category));
static cl::opt<std::string>
    hfConfig("hf-config",
             cl::desc("A Hugging Face config.json the importer reads"),
             cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    batchList("batch",
              cl::desc("Batch sizes, comma-separated (default: the model's)"),
              cl::value_desc("b,b,..."), cl::cat(category));
static cl::opt<std::string>
    seqList("seq",
            cl::desc("Sequence lengths, comma-separated (default: the "
                     "model's)"),
            cl::value_desc("s,s,..."), cl::cat(category));
static cl::opt<std::string>
    dtypeList("dtype", cl::init("bf16,f32"),
              cl::desc("Element types of the model: bf16, f16, f32, tf32 "
                       "(f32 tensors, every f32 GEMM on TF32 tensor cores, "
                       "as tfuse-compile --tf32)"),
              cl::value_desc("t,t,..."), cl::cat(category));
static cl::opt<std::string>
    targetList("target", cl::init("a40,l40s,h200"),
               cl::desc("GPU targets: names (a40, l40s, h200, ...) or JSON "
                        "target files, comma-separated"),
               cl::value_desc("t,t,..."), cl::cat(category));
static cl::opt<std::string> recompute(
    "recompute",
    cl::desc("none, norms-and-elementwise or full (default: the first of "
             "them, in that order, whose step fits in the target's memory)"),
    cl::cat(category));
static cl::opt<std::string> graph(
    "graph", cl::init("auto"),
    cl::desc("whole (the whole model's step as one graph), composed "
             "(embeddings + L x one layer + head: recompute per layer) or "
             "auto (whole, but composed for recompute=full, which is "
             "activation checkpointing per layer)"),
    cl::cat(category));
static cl::opt<std::string> attention(
    "attention", cl::init("decomposed"),
    cl::desc("decomposed (two GEMMs around a softmax, the scores "
             "materialised, forward and backward) or flash (tfuse's "
             "flash-attention kernels where they cover the attention: the "
             "forward and tfuse.attention_grad; not yet measured on a GPU)"),
    cl::cat(category));
static cl::opt<std::string>
    gpuList("gpus", cl::init("1"),
            cl::desc("GPU counts, comma-separated: the step of --batch (the "
                     "global batch) spread over each (docs/multi-gpu.md)"),
            cl::value_desc("n,n,..."), cl::cat(category));
static cl::opt<std::string> tensorList(
    "tensor-parallel", cl::init("1"),
    cl::desc("Tensor-parallel degrees, comma-separated: GPUs that split "
             "each layer (Megatron-LM); the rest of --gpus is data parallel"),
    cl::value_desc("t,t,..."), cl::cat(category));
static cl::opt<std::string> pipelineList(
    "pipeline-parallel", cl::init("1"),
    cl::desc("Pipeline stages, comma-separated: GPUs that each run a slice "
             "of the layers (1F1B schedule)"),
    cl::value_desc("p,p,..."), cl::cat(category));
static cl::opt<int64_t> microBatchSize(
    "micro-batch-size", cl::init(1),
    cl::desc("Sequences of one pipeline micro-batch (default 1)"),
    cl::cat(category));
static cl::opt<std::string>
    zeroList("zero", cl::init("0"),
             cl::desc("ZeRO stages of the data parallelism, comma-separated: "
                      "0 (DDP), 1 (optimizer state sharded), 2 (and "
                      "gradients), 3 (and weights)"),
             cl::value_desc("z,z,..."), cl::cat(category));
static cl::opt<std::string> bridgeList(
    "nvlink-bridge", cl::init("yes"),
    cl::desc("yes, no or yes,no: whether the GPUs of targets whose NVLink "
             "bridge is optional (a40) have it fitted"),
    cl::cat(category));
static cl::opt<std::string> format("format", cl::init("text"),
                                   cl::desc("text, json or csv"),
                                   cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::init("-"),
                                       cl::desc("Output file (default stdout)"),
                                       cl::value_desc("file"),
                                       cl::cat(category));

namespace {

/// The largest batch or sequence the tool accepts (2^20); larger graphs
/// than any GPU holds are refused here rather than priced.
constexpr int64_t kMaxSize = int64_t(1) << 20;

struct Preset {
  const char *name;
  const char *config; ///< config.json text the importer reads
  const char *batches, *seqs;
};

// BERT-Large as bert-large-uncased's config; the GPT-3 paper's 1.3B, 2.7B
// and 6.7B (table 2.1: layers, d_model, heads; context 2048) as GPT-2
// configs with GPT-2's vocabulary and dropout.
#define kGpt3Common                                                            \
  "\"n_positions\": 2048, \"vocab_size\": 50257, "                             \
  "\"activation_function\": \"gelu_new\", \"layer_norm_epsilon\": 1e-05, "     \
  "\"attn_pdrop\": 0.1, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0.1}"

constexpr Preset kPresets[] = {
    {"bert-large",
     R"({"model_type": "bert", "hidden_size": 1024, "num_hidden_layers": 24,
 "num_attention_heads": 16, "intermediate_size": 4096, "hidden_act": "gelu",
 "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
 "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
 "type_vocab_size": 2, "vocab_size": 30522})",
     "8,32,64,128", "128,512"},
    {"gpt3-1.3b",
     "{\"model_type\": \"gpt2\", \"n_layer\": 24, \"n_embd\": 2048, "
     "\"n_head\": 16, " kGpt3Common,
     "1,2,4,8", "2048"},
    {"gpt3-2.7b",
     "{\"model_type\": \"gpt2\", \"n_layer\": 32, \"n_embd\": 2560, "
     "\"n_head\": 32, " kGpt3Common,
     "1,2,4,8", "2048"},
    {"gpt3-6.7b",
     "{\"model_type\": \"gpt2\", \"n_layer\": 32, \"n_embd\": 4096, "
     "\"n_head\": 32, " kGpt3Common,
     "1,2,4,8", "2048"},
};
#undef kGpt3Common

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfuse-predict") << message << "\n";
  return 1;
}

/// Parses "8,16,32" into positive sizes of at most kMaxSize.
std::optional<std::vector<int64_t>> parseSizes(StringRef option,
                                               StringRef text) {
  SmallVector<StringRef> items;
  text.split(items, ',');
  std::vector<int64_t> sizes;
  for (StringRef item : items) {
    item = item.trim();
    long long value = 0;
    bool digits =
        !item.empty() &&
        llvm::all_of(item.drop_front(item.front() == '-'), llvm::isDigit);
    if (digits && item.getAsInteger(10, value)) {
      fail("--" + option + " value " + item + " is too large (at most " +
           llvm::Twine(kMaxSize) + ")");
      return std::nullopt;
    }
    if (!digits) {
      fail("--" + option +
           " expects a comma-separated list of positive integers, got '" +
           text + "'");
      return std::nullopt;
    }
    if (value < 1) {
      fail("--" + option + " values must be at least 1, got " +
           llvm::Twine(value));
      return std::nullopt;
    }
    if (value > kMaxSize) {
      fail("--" + option + " value " + llvm::Twine(value) +
           " is too large (at most " + llvm::Twine(kMaxSize) + ")");
      return std::nullopt;
    }
    sizes.push_back(value);
  }
  return sizes;
}

std::vector<std::string> splitList(StringRef text) {
  SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> out;
  for (StringRef item : items)
    out.push_back(item.trim().str());
  return out;
}

int64_t dtypeBytes(StringRef dtype) { return dtype == "f32" ? 4 : 2; }

/// Prints `message` as a warning the first time it is given.
void warnOnce(const llvm::Twine &message) {
  static std::set<std::string> given;
  if (given.insert(message.str()).second)
    llvm::WithColor::warning(llvm::errs(), "tfuse-predict") << message << "\n";
}

/// One GPU's share of `spec` under `degree`-way tensor parallelism
/// (Megatron-LM): the query heads, the MLP's intermediate width and the
/// vocabulary (padded up, as Megatron pads it) split; key/value heads split
/// too, or replicated when there are fewer than `degree` of them; the hidden
/// size, norms and the biases added after the all-reduces kept whole.
std::optional<TransformerSpec>
shardForTensorParallel(TransformerSpec spec, int64_t degree, std::string &why) {
  if (degree == 1)
    return spec;
  auto splits = [&](int64_t size, const char *what) {
    if (size % degree == 0)
      return true;
    why = llvm::formatv("--tensor-parallel {0} does not divide the {1} ({2})",
                        degree, what, size)
              .str();
    return false;
  };
  if (!splits(spec.numHeads, "attention heads") ||
      !splits(spec.intermediateSize, "MLP's intermediate size"))
    return std::nullopt;
  if (spec.numKvHeads % degree == 0)
    spec.numKvHeads /= degree;
  else if (degree % spec.numKvHeads == 0)
    spec.numKvHeads = 1;
  else if (!splits(spec.numKvHeads, "key/value heads"))
    return std::nullopt;
  spec.numHeads /= degree;
  spec.intermediateSize /= degree;
  spec.vocabSize = (spec.vocabSize + degree - 1) / degree;
  return spec;
}

/// A model to predict: its spec (read by the importer) and its points.
struct Model {
  std::string name;
  std::string configText, configName; ///< for the importer's diagnostics
  std::vector<int64_t> batches, seqs;
};

/// The three parts of a composed step, and the whole model's step.
enum class Part { Embeddings, Layer, Head, Whole };
constexpr Part kParts[] = {Part::Embeddings, Part::Layer, Part::Head};

/// One part's training step priced on every target.
struct PartCost {
  /// Per target: predicted time, its memory-bound part (us), and the peak
  /// in program order (bytes), unfused and fused for that target.
  std::vector<double> unfusedUs, unfusedMemoryUs, fusedUs, fusedMemoryUs;
  /// Per target: the backward's part of the time (recompute included), the
  /// window data parallelism overlaps gradient collectives with.
  std::vector<double> unfusedBackwardUs, fusedBackwardUs;
  std::vector<int64_t> unfusedPeak, fusedPeak;
  /// Saved activations (tfuse.training_step's saved_bytes).
  int64_t savedBytes = 0;
  /// What the step's peak holds that the model counts elsewhere or not at
  /// all: a part's weights and their gradients (the persistent state) and,
  /// in the whole graph, the untied copy of a tied table.
  int64_t heldBytes = 0;
};

/// Prices a step's function `step` (the only function of `module`):
/// unfused on every target, fused for each target on a copy.
LogicalResult priceModule(ModuleOp module, ArrayRef<GpuTarget> targets,
                          bool fuse, bool tf32, PartCost &cost) {
  PassManager pm(module.getContext());
  TFuseDecomposeAttentionOptions decompose;
  decompose.keepFused = attention == "flash";
  pm.addPass(createTFuseDecomposeAttention(decompose));
  // After the decomposition, as tfuse-compile --tf32: its GEMMs too.
  if (tf32)
    pm.addPass(createTFuseAllowTf32());
  if (failed(pm.run(module)))
    return failure();
  FailureOr<TrafficReport> unfused = analyzeTraffic(module, targets, {});
  if (failed(unfused))
    return failure();
  const FunctionSummary &summary = unfused->functions.front();
  // The backward phases' time on report target `t` (0 outside a step).
  auto backwardUs = [](const FunctionSummary &f, size_t t) {
    if (!f.training)
      return 0.0;
    const auto &phases = f.training->phases;
    return phases[static_cast<size_t>(StepPhase::Backward)].targets[t].timeUs +
           phases[static_cast<size_t>(StepPhase::Recompute)].targets[t].timeUs;
  };
  for (size_t t = 0; t < targets.size(); ++t) {
    cost.unfusedUs.push_back(summary.totals.targets[t].timeUs);
    cost.unfusedMemoryUs.push_back(summary.totals.targets[t].memoryBoundUs);
    cost.unfusedBackwardUs.push_back(backwardUs(summary, t));
    cost.unfusedPeak.push_back(summary.peakBytes);
    if (!fuse) {
      cost.fusedUs.push_back(cost.unfusedUs.back());
      cost.fusedMemoryUs.push_back(cost.unfusedMemoryUs.back());
      cost.fusedBackwardUs.push_back(cost.unfusedBackwardUs.back());
      cost.fusedPeak.push_back(summary.peakBytes);
      continue;
    }
    OwningOpRef<ModuleOp> copy = module.clone();
    if (failed(fuseModule(*copy, targets[t])))
      return failure();
    FailureOr<TrafficReport> fused = analyzeTraffic(*copy, {targets[t]}, {});
    if (failed(fused))
      return failure();
    const FunctionSummary &f = fused->functions.front();
    cost.fusedUs.push_back(f.totals.targets[0].timeUs);
    cost.fusedMemoryUs.push_back(f.totals.targets[0].memoryBoundUs);
    cost.fusedBackwardUs.push_back(backwardUs(f, 0));
    cost.fusedPeak.push_back(f.peakBytes);
  }
  if (summary.training)
    cost.savedBytes = summary.training->savedBytes;
  return success();
}

/// Builds and prices the training step of one part.
FailureOr<PartCost> pricePart(MLIRContext *context, const TransformerSpec &spec,
                              ImportOptions options, Part part,
                              RecomputePolicy policy,
                              ArrayRef<GpuTarget> targets, bool tf32) {
  bool whole = part == Part::Whole;
  int64_t elementBytes = dtypeBytes(options.dtype);
  PartCost cost;
  if (whole) {
    // Every layer, from token ids to the logits. A tied head reads the word
    // table the embeddings gather: its gradient sums the head's and the
    // lookup's (tfuse.gather_grad).
    options.layers.reset();
    options.embeddings = options.lmHead = options.headLogits = true;
  } else {
    options.layers = part == Part::Layer ? 1 : 0;
    options.embeddings = part == Part::Embeddings;
    options.lmHead = options.headLogits = part == Part::Head;
  }
  ImportedModel model = buildTransformerModule(context, spec, options);
  if (failed(verify(*model.module)))
    return failure();
  auto forward = *model.module->getOps<func::FuncOp>().begin();
  AutodiffOptions autodiff;
  autodiff.loss =
      part == Part::Head || whole ? LossKind::CrossEntropy : LossKind::Seed;
  autodiff.recompute = policy;
  autodiff.fusedAttention = attention == "flash";
  for (auto [index, arg] : llvm::enumerate(model.arguments)) {
    BlockArgument value = forward.getArgument(index);
    bool isFloat = isa<FloatType>(
        cast<RankedTensorType>(value.getType()).getElementType());
    if (arg.isWeight && !whole)
      cost.heldBytes += arg.numElements() * elementBytes;
    // Masks get no gradient; the activations entering the part and every
    // weight do, gathered tables included (tfuse.gather_grad).
    bool noGrad = isFloat && !arg.isWeight && index != 0;
    if (noGrad)
      autodiff.noGrad.push_back(index);
    else if (isFloat && arg.isWeight && !whole)
      cost.heldBytes += arg.numElements() * elementBytes; // its gradient
  }
  FailureOr<func::FuncOp> step = buildTrainingStep(forward, autodiff);
  if (failed(step))
    return failure();
  forward.erase();
  if (failed(priceModule(*model.module, targets, /*fuse=*/true, tf32, cost)))
    return failure();
  return cost;
}

/// Prices one AdamW update over `params` f32 master weights with gradients
/// of `dtype` (and, below f32, the new model weight in it): the traffic of
/// the one multi_tensor kernel tfuse-compile runs over every parameter.
FailureOr<PartCost> priceOptimizer(MLIRContext *context, int64_t params,
                                   StringRef dtype,
                                   ArrayRef<GpuTarget> targets) {
  std::string n = std::to_string(params);
  std::string f32 = "tensor<" + n + "xf32>";
  std::string grad = "tensor<" + n + "x" + dtype.str() + ">";
  bool lowPrecision = dtype != "f32";
  std::string results = f32 + ", " + f32 + ", " + f32 +
                        (lowPrecision ? ", " + grad : std::string());
  std::string text =
      "func.func @adamw(%p: " + f32 + ", %g: " + grad + ", %m: " + f32 +
      ", %v: " + f32 + ", %lr: tensor<f32>, %t: tensor<f32>) -> (" + results +
      ") {\n  %r:" + (lowPrecision ? "4" : "3") +
      " = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = "
      "0.999 eps = 1.0e-08 weight_decay = 0.01 : (" +
      f32 + ", " + grad + ", " + f32 + ", " + f32 +
      ", tensor<f32>, tensor<f32>) -> (" + results +
      ")\n  return %r#0, %r#1, " + "%r#2" + (lowPrecision ? ", %r#3" : "") +
      " : " + results + "\n}\n";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, context);
  if (!module)
    return failure();
  PartCost cost;
  if (failed(
          priceModule(*module, targets, /*fuse=*/false, /*tf32=*/false, cost)))
    return failure();
  return cost;
}

/// How a row's step is spread over GPUs: `tensor`-way tensor parallelism
/// inside groups, data parallelism (with a ZeRO stage) across them.
struct Parallelism {
  int64_t gpus = 1, tensor = 1, pipeline = 1;
  /// With pipeline stages: the sequences of one micro-batch.
  int64_t microBatchSize = 1;
  ZeroStage zero = ZeroStage::None;
  /// "yes" or "no" on targets whose NVLink bridge is optional, else "".
  std::string bridge;
  std::optional<CommLink> dataLink, tensorLink, pipelineLink;
  int64_t data() const { return gpus / (tensor * pipeline); }
  /// The batch one GPU's step graph is priced at: a micro-batch when the
  /// layers are pipelined, else the data-parallel share of `batch`.
  int64_t gpuBatch(int64_t batch) const {
    return pipeline > 1 ? microBatchSize : batch / data();
  }
};

/// One row of the table.
struct Row {
  std::string model, dtype, target, variant, recompute;
  int64_t batch = 0, seq = 0, params = 0, layers = 0;
  /// The GPUs (per-GPU numbers: memory, params held, model TFLOP/s).
  Parallelism parallel;
  /// Per step: every collective's link time, the part the step waits for,
  /// and the bytes each GPU sends.
  double communicationMs = 0, exposedMs = 0, busGB = 0;
  /// With pipeline stages: micro-batches a step, and the pipeline's parts.
  int64_t microBatches = 1;
  PipelineTime pipeline;
  /// Parameters, gradients and AdamW state; everything the step needs.
  int64_t stateBytes = 0, memoryBytes = 0;
  /// The parts' times (us): the step is embeddings + layers x layer + head
  /// + optimizer.
  double embeddingsUs = 0, layerUs = 0, headUs = 0, optimizerUs = 0;
  /// With --graph=whole: the whole model's step (the parts above are 0).
  double wholeUs = 0;
  std::string graph;
  double stepMs = 0, stepsPerSecond = 0, tokensPerSecond = 0;
  double modelFlops = 0, tflopsPerSecond = 0, bandwidthShare = 0;
  double memoryGB = 0, capacityGB = 0;
  bool fits = false;
};

/// A model's step at one (batch, seq, dtype), priced per policy on demand.
class Point {
public:
  /// One GPU's share of a model of `modelParams` parameters: `spec` and
  /// `options` (batch) as that GPU runs them, holding `params`.
  /// `tf32`: f32 `options.dtype` with every f32 GEMM on TF32 tensor cores.
  Point(MLIRContext *context, TransformerSpec spec, ImportOptions options,
        ArrayRef<GpuTarget> targets, int64_t params, int64_t modelParams,
        StringRef graph, bool tf32)
      : context(context), spec(std::move(spec)), options(std::move(options)),
        targets(targets), params(params), modelParams(modelParams),
        graph(graph), tf32(tf32) {}

  /// The whole model's step under `policy`.
  FailureOr<const PartCost *> whole(RecomputePolicy policy) {
    auto it = wholeCache.find(policy);
    if (it != wholeCache.end())
      return &it->second;
    FailureOr<PartCost> cost =
        pricePart(context, spec, options, Part::Whole, policy, targets, tf32);
    if (failed(cost))
      return failure();
    return &wholeCache.emplace(policy, std::move(*cost)).first->second;
  }

  /// The parts' costs under `policy`.
  FailureOr<const std::array<PartCost, 3> *> parts(RecomputePolicy policy) {
    auto it = cache.find(policy);
    if (it != cache.end())
      return &it->second;
    std::array<PartCost, 3> costs;
    for (Part part : kParts) {
      FailureOr<PartCost> cost =
          pricePart(context, spec, options, part, policy, targets, tf32);
      if (failed(cost))
        return failure();
      costs[static_cast<int>(part)] = std::move(*cost);
    }
    return &cache.emplace(policy, std::move(costs)).first->second;
  }

  FailureOr<const PartCost *> optimizer() {
    if (!adamw) {
      FailureOr<PartCost> cost =
          priceOptimizer(context, params, options.dtype, targets);
      if (failed(cost))
        return failure();
      adamw = std::move(*cost);
    }
    return &*adamw;
  }

  /// The step of `policy` on target `t`, fused or not, over the GPUs of
  /// `row.parallel`.
  LogicalResult compose(RecomputePolicy policy, size_t t, bool fused,
                        Row &row) {
    FailureOr<const PartCost *> opt = optimizer();
    if (failed(opt))
      return failure();
    // A row may have been composed under another policy before.
    row.embeddingsUs = row.layerUs = row.headUs = row.wholeUs = 0;
    int64_t layers = spec.numLayers;
    auto time = [&](const PartCost &c) {
      return fused ? c.fusedUs[t] : c.unfusedUs[t];
    };
    auto memoryTime = [&](const PartCost &c) {
      return fused ? c.fusedMemoryUs[t] : c.unfusedMemoryUs[t];
    };
    auto backwardTime = [&](const PartCost &c) {
      return fused ? c.fusedBackwardUs[t] : c.unfusedBackwardUs[t];
    };
    auto transient = [&](const PartCost &c) {
      return (fused ? c.fusedPeak[t] : c.unfusedPeak[t]) - c.heldBytes;
    };
    int64_t elementBytes = dtypeBytes(options.dtype);
    // Weights and gradients in the model's type, f32 moments, and f32
    // master weights below f32.
    int64_t optimizerBytesPerParam = 8 + (options.dtype == "f32" ? 0 : 4);
    double us = 0, memoryUs = memoryTime(**opt), backwardUs = 0;
    int64_t held = 0;
    // tfuse-autodiff's full recompute of one function recomputes its whole
    // forward from the arguments: per-layer checkpointing is one layer's
    // step with recompute=full, composed.
    bool wholeGraph = graph == "whole" ||
                      (graph == "auto" && policy != RecomputePolicy::Full);
    if (wholeGraph) {
      FailureOr<const PartCost *> step = whole(policy);
      if (failed(step))
        return failure();
      us += time(**step);
      memoryUs += memoryTime(**step);
      backwardUs = backwardTime(**step);
      row.wholeUs = time(**step);
      // The step's own peak holds the weights and gradients, which `state`
      // counts.
      held = transient(**step) - params * 2 * elementBytes;
    } else {
      FailureOr<const std::array<PartCost, 3> *> costs = parts(policy);
      if (failed(costs))
        return failure();
      const PartCost &emb = (**costs)[0], &layer = (**costs)[1],
                     &head = (**costs)[2];
      us += time(emb) + layers * time(layer) + time(head);
      memoryUs +=
          memoryTime(emb) + layers * memoryTime(layer) + memoryTime(head);
      backwardUs =
          backwardTime(emb) + layers * backwardTime(layer) + backwardTime(head);
      int64_t input =
          options.batch * options.seq * spec.hiddenSize * elementBytes;
      int64_t perLayer = layer.savedBytes + input;
      // The head's backward runs with every layer's activations held; the
      // last layer's with the others' (its own are in its peak).
      held =
          std::max(layers * perLayer + emb.savedBytes + transient(head),
                   (layers - 1) * perLayer + emb.savedBytes + transient(layer));
      held = std::max(held, transient(emb));
      row.embeddingsUs = time(emb);
      row.layerUs = time(layer);
      row.headUs = time(head);
    }
    row.graph = wholeGraph ? "whole" : "composed";
    // Spread over the GPUs: the step above is one GPU's (its batch or
    // micro-batch, its tensor-parallel share of the model).
    const Parallelism &parallel = row.parallel;
    const int64_t stages = parallel.pipeline;
    const int64_t microBatches =
        stages > 1 ? row.batch / parallel.data() / parallel.microBatchSize : 1;
    const int64_t boundaryBytes =
        options.batch * options.seq * spec.hiddenSize * elementBytes;
    ReplicaStep replica;
    replica.forwardUs = us - backwardUs;
    replica.backwardUs = backwardUs;
    replica.optimizerUs = time(**opt);
    replica.params = params;
    replica.elementBytes = elementBytes;
    replica.layers = layers;
    PipelineTime pipe;
    if (stages > 1) {
      // Each GPU runs one stage: its share of the parameters and layers;
      // gradients can leave only during the last micro-batch's backward.
      pipe = predictPipelineStep(us, microBatches, stages, boundaryBytes,
                                 *parallel.pipelineLink);
      replica.backwardUs = backwardUs / stages;
      replica.forwardUs = pipe.stepUs() - replica.backwardUs;
      replica.optimizerUs /= stages;
      replica.params = (params + stages - 1) / stages;
      replica.layers = (layers + stages - 1) / stages;
      memoryUs = memoryUs * microBatches / stages +
                 memoryTime(**opt) * (1.0 / stages - 1.0);
    }
    row.microBatches = microBatches;
    row.pipeline = pipe;
    DataParallelPlan dataPlan;
    dataPlan.gpus = parallel.data();
    dataPlan.stage = parallel.zero;
    DataParallelTime data = predictDataParallelStep(
        replica, dataPlan,
        parallel.dataLink ? *parallel.dataLink : CommLink{"none", 1, 0});
    TensorParallelTime tensor;
    if (parallel.tensorLink) {
      tensor = predictTensorParallelCommunication(
          replica.layers, boundaryBytes, policy == RecomputePolicy::Full,
          parallel.tensor, *parallel.tensorLink);
      // A stage runs its layers' all-reduces for every micro-batch, and
      // waits through the fill and drain for the others'.
      double passes = stages > 1 ? microBatches + stages - 1 : 1;
      tensor.allReduces = static_cast<int64_t>(tensor.allReduces * passes);
      tensor.busBytes *= passes;
      tensor.communicationUs *= passes;
    }
    us = data.stepUs() + tensor.communicationUs;
    row.communicationMs = (data.communicationUs + tensor.communicationUs) / 1e3;
    row.exposedMs = (data.exposedUs + tensor.communicationUs) / 1e3;
    row.busGB = (data.busBytes + tensor.busBytes) / 1e9;
    // 1F1B keeps up to `stages` micro-batches in flight on the first stage,
    // each with its layers' activations: about the activations of all the
    // layers for one micro-batch, which `held` is.
    ShardedState state =
        shardState(replica.params, elementBytes, optimizerBytesPerParam,
                   parallel.data(), parallel.zero);
    // ZeRO-3 holds a layer's gathered weights and the next one's prefetch.
    if (parallel.zero == ZeroStage::Weights && parallel.data() > 1)
      held += 2 * ((replica.params * elementBytes + replica.layers - 1) /
                   replica.layers);
    int64_t tokens = row.batch * options.seq;
    row.layers = layers;
    row.params = replica.params;
    row.stepMs = us / 1e3;
    row.stepsPerSecond = 1e6 / us;
    row.tokensPerSecond = tokens * row.stepsPerSecond;
    row.modelFlops = 6.0 * modelParams * tokens +
                     12.0 * layers * spec.hiddenSize * options.seq * tokens;
    row.tflopsPerSecond =
        row.modelFlops * row.stepsPerSecond / 1e12 / parallel.gpus;
    if (parallel.zero != ZeroStage::None && parallel.data() > 1)
      memoryUs -= memoryTime(**opt) * (1.0 - 1.0 / parallel.data());
    row.bandwidthShare = us > 0 ? memoryUs / us : 0;
    row.optimizerUs = time(**opt);
    row.stateBytes = state.total();
    row.memoryBytes = state.total() + held;
    row.memoryGB = row.memoryBytes / 1e9;
    row.capacityGB = targets[t].memoryCapacityGB;
    row.fits = row.memoryGB <= row.capacityGB;
    row.recompute = stringifyRecomputePolicy(policy).str();
    return success();
  }

private:
  MLIRContext *context;
  TransformerSpec spec;
  ImportOptions options;
  ArrayRef<GpuTarget> targets;
  int64_t params, modelParams;
  std::string graph;
  bool tf32;
  std::map<RecomputePolicy, std::array<PartCost, 3>> cache;
  std::map<RecomputePolicy, PartCost> wholeCache;
  std::optional<PartCost> adamw;
};

constexpr const char *kAssumptions[] = {
    "a step is forward + backward + one AdamW update of every parameter "
    "(f32 master weights and moments; below f32 the model weights and "
    "gradients are in the model's type), built by tfuse-import and "
    "tfuse-autodiff, fused per target (tfuse-fuse) and priced by the cost "
    "model; unfused = the same steps without fusion",
    "graph whole: the whole model's step as one graph (token ids to logits "
    "and the loss); graph composed: embeddings step + layers x one layer's "
    "step + head step (recompute full is activation checkpointing per layer, "
    "which only the composed step expresses)",
    "loss: the mean cross-entropy of the logits against i32 labels "
    "(tfuse.cross_entropy: logits read once for the loss, once more for "
    "their gradient, which is written once)",
    "a tied LM head reads the word table the embeddings gather; every "
    "table's gradient is priced (tfuse.gather_grad: zeroing an f32 "
    "accumulator, f32 atomic adds of B x S x hidden elements, and the "
    "rounding below f32)",
    "f32 GEMMs priced at the target's f32 SIMT peak (CUBLAS_COMPUTE_32F, "
    "PyTorch's default for matmuls); tf32 rows: f32 tensors with every GEMM "
    "at peak_tflops.tf32_tensor x gemm_efficiency "
    "(CUBLAS_COMPUTE_32F_FAST_TF32, tfuse-compile --tf32)",
    "model FLOPs = 6 x params x tokens + 12 x layers x hidden x seq x tokens "
    "(attention scores and values, forward and backward)",
    "memory (whole) = the step's peak in program order (weights, inputs, "
    "activations, gradients) + the AdamW state; (composed) = params x (2 x "
    "type bytes + 8, + 4 below f32) + layers x (saved activations + layer "
    "input) + the largest transient of a part's step",
};

constexpr const char *kParallelAssumptions[] = {
    "several GPUs: --batch is the global batch, each data-parallel GPU runs "
    "batch / (gpus / tp) of it; memory, params held and model TFLOP/s are "
    "per GPU",
    "data parallelism: gradients all-reduced (ZeRO 1-2: reduce-scattered) in "
    "25 MiB buckets as the backward produces them, uniformly over it, "
    "overlapped with it on one link; ZeRO 1-2 gather the updated weights "
    "before the next forward, ZeRO 3 gathers each layer's weights before its "
    "forward and backward (prefetched one layer ahead) and reduce-scatters "
    "its gradients; the update runs on each GPU's 1/n share",
    "tensor parallelism (Megatron-LM, no sequence parallelism): heads, MLP "
    "width and vocabulary split, norms replicated; 4 all-reduces of a "
    "layer's activations a layer (6 with recompute full) and 2 for the "
    "embeddings and head, none overlapped",
    "links: ring collectives (docs/cost-model.md section 4); the data "
    "ring spans all the GPUs, the tensor ring its group; NCCL's share of "
    "the SMs and of memory bandwidth while it overlaps compute is not "
    "modelled",
};

/// The assumptions, with how attention is priced (--attention).
std::vector<std::string> getAssumptions() {
  std::vector<std::string> lines(std::begin(kAssumptions),
                                 std::end(kAssumptions));
  lines.push_back(
      attention == "flash"
          ? "attention: tfuse's flash-attention kernels where they cover it "
            "(bf16/f16, no dropout), forward and backward "
            "(tfuse.attention_grad: not yet measured on a GPU), priced at "
            "the target's attention_efficiency; the others decomposed"
          : "attention: decomposed (scores materialised), forward and "
            "backward");
  return lines;
}

/// The target, and on targets whose NVLink bridge is optional whether the
/// row's GPUs have it.
std::string targetLabel(const Row &r) {
  if (r.parallel.bridge.empty())
    return r.target;
  return r.target + (r.parallel.bridge == "yes" ? "+bridge" : " no bridge");
}

/// "nvlink/pcie": the data-parallel link, then the tensor-parallel one.
std::string linkLabel(const Parallelism &p) {
  auto name = [](const std::optional<CommLink> &link) {
    return link ? link->name : std::string("-");
  };
  return name(p.dataLink) + "/" + name(p.tensorLink);
}

/// Steps/s per GPU count: one line per (model, point, target, variant,
/// tensor-parallel degree, ZeRO stage); `*` marks a step that does not fit.
void printScaling(ArrayRef<Row> rows, llvm::raw_ostream &os) {
  std::vector<int64_t> counts;
  for (const Row &r : rows)
    if (!llvm::is_contained(counts, r.parallel.gpus))
      counts.push_back(r.parallel.gpus);
  llvm::sort(counts);
  using Key = std::tuple<std::string, int64_t, int64_t, std::string,
                         std::string, std::string, int64_t, int64_t, int>;
  std::vector<Key> order;
  std::map<Key, std::map<int64_t, const Row *>> lines;
  for (const Row &r : rows) {
    Key key{r.model,
            r.batch,
            r.seq,
            r.dtype,
            r.target + (r.parallel.bridge == "no" ? " no bridge" : ""),
            r.variant,
            r.parallel.tensor,
            r.parallel.pipeline,
            static_cast<int>(r.parallel.zero)};
    if (!lines.count(key))
      order.push_back(key);
    lines[key][r.parallel.gpus] = &r;
  }
  // One GPU needs no bridge: its step heads the lines without one too.
  for (auto &[key, line] : lines) {
    StringRef target = std::get<4>(key);
    if (!target.consume_back(" no bridge") || line.count(1))
      continue;
    Key bridged = key;
    std::get<4>(bridged) = target.str();
    auto it = lines.find(bridged);
    if (it != lines.end() && it->second.count(1))
      line[1] = it->second[1];
  }
  os << "\nsteps/s by GPU count (--batch is the global batch; * does not "
        "fit):\n";
  os << llvm::format("%-11s %5s %5s %-5s %-13s %-7s %2s %2s %4s", "model",
                     "batch", "seq", "dtype", "target", "variant", "tp", "pp",
                     "zero");
  for (int64_t n : counts)
    os << llvm::format(" %9s", (std::to_string(n) + " GPU").c_str());
  os << "\n";
  for (const Key &key : order) {
    os << llvm::format("%-11s %5lld %5lld %-5s %-13s %-7s %2lld %2lld %4d",
                       std::get<0>(key).c_str(), (long long)std::get<1>(key),
                       (long long)std::get<2>(key), std::get<3>(key).c_str(),
                       std::get<4>(key).c_str(), std::get<5>(key).c_str(),
                       (long long)std::get<6>(key), (long long)std::get<7>(key),
                       std::get<8>(key));
    for (int64_t n : counts) {
      auto it = lines[key].find(n);
      if (it == lines[key].end())
        os << llvm::format(" %9s", "-");
      else
        os << llvm::format(" %8.3f%s", it->second->stepsPerSecond,
                           it->second->fits ? " " : "*");
    }
    os << "\n";
  }
}

void printText(ArrayRef<Row> rows, ArrayRef<std::string> modelLines,
               llvm::raw_ostream &os) {
  os << "tfuse-predict: training steps from tfuse's cost model\n";
  for (const std::string &line : modelLines)
    os << line << "\n";
  os << "\n";
  // The GPUs' columns only where a row has several.
  bool several =
      llvm::any_of(rows, [](const Row &r) { return r.parallel.gpus > 1; });
  os << llvm::format("%-11s %5s %5s %-5s %-13s %-7s %-21s %-8s ", "model",
                     "batch", "seq", "dtype", "target", "variant", "recompute",
                     "graph");
  if (several)
    os << llvm::format("%4s %2s %2s %4s %-11s %8s %8s ", "gpus", "tp", "pp",
                       "zero", "link dp/tp", "comm ms", "exposed");
  os << llvm::format("%9s %8s %10s %8s %6s %16s %-4s\n", "step ms", "steps/s",
                     "tokens/s", "TFLOP/s", "bw %", "memory/GPU GB", "fits");
  for (const Row &r : rows) {
    os << llvm::format("%-11s %5lld %5lld %-5s %-13s %-7s %-21s %-8s ",
                       r.model.c_str(), (long long)r.batch, (long long)r.seq,
                       r.dtype.c_str(), targetLabel(r).c_str(),
                       r.variant.c_str(), r.recompute.c_str(), r.graph.c_str());
    if (several)
      os << llvm::format(
          "%4lld %2lld %2lld %4d %-11s %8.2f %8.2f ",
          (long long)r.parallel.gpus, (long long)r.parallel.tensor,
          (long long)r.parallel.pipeline, static_cast<int>(r.parallel.zero),
          linkLabel(r.parallel).c_str(), r.communicationMs, r.exposedMs);
    os << llvm::format("%9.2f %8.3f %10.0f %8.1f %5.1f%% %8.1f/%-7.0f %s\n",
                       r.stepMs, r.stepsPerSecond, r.tokensPerSecond,
                       r.tflopsPerSecond, 100 * r.bandwidthShare, r.memoryGB,
                       r.capacityGB, r.fits ? "yes" : "no");
  }
  if (several)
    printScaling(rows, os);
  os << "\nassumptions:\n";
  for (const std::string &line : getAssumptions())
    os << "  - " << line << "\n";
  if (several)
    for (const char *line : kParallelAssumptions)
      os << "  - " << line << "\n";
}

void printCsv(ArrayRef<Row> rows, llvm::raw_ostream &os) {
  os << "model,params,layers,batch,seq,dtype,target,variant,recompute,graph,"
        "step_ms,"
        "steps_per_s,tokens_per_s,model_flops,model_tflops_per_s,"
        "bandwidth_bound_share,state_bytes,memory_bytes,memory_gb,capacity_gb,"
        "fits,gpus,tensor_parallel,data_parallel,zero,nvlink_bridge,data_link,"
        "tensor_link,communication_ms,exposed_communication_ms,bus_gb,"
        "pipeline_parallel,micro_batches,bubble_ms\n";
  for (const Row &r : rows) {
    os << llvm::format(
        "%s,%lld,%lld,%lld,%lld,%s,%s,%s,%s,%s,%.6g,%.6g,%.6g,"
        "%.6g,%.6g,%.6g,%lld,%lld,%.6g,%.6g,%s,",
        r.model.c_str(), (long long)r.params, (long long)r.layers,
        (long long)r.batch, (long long)r.seq, r.dtype.c_str(), r.target.c_str(),
        r.variant.c_str(), r.recompute.c_str(), r.graph.c_str(), r.stepMs,
        r.stepsPerSecond, r.tokensPerSecond, r.modelFlops, r.tflopsPerSecond,
        r.bandwidthShare, (long long)r.stateBytes, (long long)r.memoryBytes,
        r.memoryGB, r.capacityGB, r.fits ? "yes" : "no");
    const Parallelism &p = r.parallel;
    os << llvm::format(
        "%lld,%lld,%lld,%d,%s,%s,%s,%.6g,%.6g,%.6g,", (long long)p.gpus,
        (long long)p.tensor, (long long)p.data(), static_cast<int>(p.zero),
        p.bridge.c_str(), p.dataLink ? p.dataLink->name.c_str() : "",
        p.tensorLink ? p.tensorLink->name.c_str() : "", r.communicationMs,
        r.exposedMs, r.busGB);
    os << llvm::format("%lld,%lld,%.6g\n", (long long)p.pipeline,
                       (long long)r.microBatches, r.pipeline.bubbleUs / 1e3);
  }
}

void printJson(ArrayRef<Row> rows, llvm::raw_ostream &os) {
  llvm::json::OStream json(os, 2);
  json.object([&] {
    json.attributeArray("assumptions", [&] {
      for (const std::string &line : getAssumptions())
        json.value(line);
    });
    json.attributeArray("rows", [&] {
      for (const Row &r : rows)
        json.object([&] {
          json.attribute("model", r.model);
          json.attribute("params", r.params);
          json.attribute("layers", r.layers);
          json.attribute("batch", r.batch);
          json.attribute("seq", r.seq);
          json.attribute("dtype", r.dtype);
          json.attribute("target", r.target);
          json.attribute("variant", r.variant);
          json.attribute("recompute", r.recompute);
          json.attribute("graph", r.graph);
          json.attribute("step_ms", r.stepMs);
          json.attributeObject("parts_us", [&] {
            json.attribute("embeddings", r.embeddingsUs);
            json.attribute("layer", r.layerUs);
            json.attribute("head", r.headUs);
            json.attribute("whole", r.wholeUs);
            json.attribute("optimizer", r.optimizerUs);
          });
          json.attribute("steps_per_s", r.stepsPerSecond);
          json.attribute("tokens_per_s", r.tokensPerSecond);
          json.attribute("model_flops", r.modelFlops);
          json.attribute("model_tflops_per_s", r.tflopsPerSecond);
          json.attribute("bandwidth_bound_share", r.bandwidthShare);
          json.attribute("state_bytes", r.stateBytes);
          json.attribute("memory_bytes", r.memoryBytes);
          json.attribute("memory_gb", r.memoryGB);
          json.attribute("capacity_gb", r.capacityGB);
          json.attribute("fits", r.fits);
          const Parallelism &p = r.parallel;
          json.attributeObject("parallel", [&] {
            json.attribute("gpus", p.gpus);
            json.attribute("tensor", p.tensor);
            json.attribute("pipeline", p.pipeline);
            json.attribute("data", p.data());
            json.attribute("zero", static_cast<int64_t>(p.zero));
            if (!p.bridge.empty())
              json.attribute("nvlink_bridge", p.bridge == "yes");
            auto link = [&](const char *key, const std::optional<CommLink> &l) {
              if (!l)
                return;
              json.attributeObject(key, [&] {
                json.attribute("name", l->name);
                json.attribute("bandwidth_gbps", l->bandwidthGBps);
                json.attribute("latency_us", l->latencyUs);
              });
            };
            link("data_link", p.dataLink);
            link("tensor_link", p.tensorLink);
            json.attribute("communication_ms", r.communicationMs);
            json.attribute("exposed_communication_ms", r.exposedMs);
            json.attribute("bus_gb", r.busGB);
            if (p.pipeline > 1) {
              link("pipeline_link", p.pipelineLink);
              json.attribute("micro_batch_size", p.microBatchSize);
              json.attribute("micro_batches", r.microBatches);
              json.attribute("pipeline_compute_ms", r.pipeline.computeUs / 1e3);
              json.attribute("bubble_ms", r.pipeline.bubbleUs / 1e3);
              json.attribute("send_ms", r.pipeline.sendUs / 1e3);
            }
          });
        });
    });
  });
  os << "\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  reportWritesPastFileSizeLimit();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tfuse-predict: training steps/s per GPU, fused and unfused, from "
      "tfuse's cost model\n");

  if (format != "text" && format != "json" && format != "csv")
    return fail("--format must be text, json or csv, got '" + format + "'");
  if (attention != "decomposed" && attention != "flash")
    return fail("--attention must be decomposed or flash, got '" + attention +
                "'");
  if (graph != "auto" && graph != "composed" && graph != "whole")
    return fail("--graph must be auto, whole or composed, got '" + graph + "'");
  std::optional<RecomputePolicy> onlyPolicy;
  if (recompute.getNumOccurrences()) {
    onlyPolicy = parseRecomputePolicy(recompute);
    if (!onlyPolicy)
      return fail("unknown --recompute '" + recompute +
                  "' (expected none, norms-and-elementwise or full)");
  }
  std::vector<std::string> dtypes = splitList(dtypeList);
  if (dtypes.empty())
    return fail("--dtype names no element type");
  for (const std::string &dtype : dtypes)
    if (dtype != "bf16" && dtype != "f16" && dtype != "f32" && dtype != "tf32")
      return fail("--dtype must list bf16, f16, f32 or tf32, got '" + dtype +
                  "'");
  std::optional<std::vector<int64_t>> batches, seqs;
  if (batchList.getNumOccurrences() &&
      !(batches = parseSizes("batch", batchList)))
    return 1;
  if (seqList.getNumOccurrences() && !(seqs = parseSizes("seq", seqList)))
    return 1;
  std::optional<std::vector<int64_t>> gpuCounts = parseSizes("gpus", gpuList);
  std::optional<std::vector<int64_t>> tensorDegrees =
      parseSizes("tensor-parallel", tensorList);
  std::optional<std::vector<int64_t>> pipelineDegrees =
      parseSizes("pipeline-parallel", pipelineList);
  if (!gpuCounts || !tensorDegrees || !pipelineDegrees)
    return 1;
  if (microBatchSize < 1 || microBatchSize > kMaxSize)
    return fail("--micro-batch-size must be between 1 and " +
                llvm::Twine(kMaxSize) + ", got " + llvm::Twine(microBatchSize));
  std::vector<ZeroStage> zeroStages;
  for (const std::string &item : splitList(zeroList)) {
    std::optional<ZeroStage> stage = parseZeroStage(item);
    if (!stage)
      return fail("--zero must list stages 0, 1, 2 or 3, got '" + zeroList +
                  "'");
    zeroStages.push_back(*stage);
  }
  if (zeroStages.empty())
    return fail("--zero names no stage");
  std::vector<std::string> bridgeChoices = splitList(bridgeList);
  if (bridgeChoices.empty() ||
      llvm::any_of(bridgeChoices, [](const std::string &choice) {
        return choice != "yes" && choice != "no";
      }))
    return fail("--nvlink-bridge must be yes, no or yes,no, got '" +
                bridgeList + "'");
  // Every (GPUs, tensor-parallel degree, pipeline stages, ZeRO stage) that
  // is a plan: the degrees divide the GPUs, and one data-parallel GPU has no
  // ZeRO stage.
  std::vector<Parallelism> parallelPlans;
  for (int64_t gpus : *gpuCounts)
    for (int64_t tensor : *tensorDegrees)
      for (int64_t pipeline : *pipelineDegrees) {
        if (gpus % (tensor * pipeline))
          continue;
        for (ZeroStage stage : zeroStages) {
          if (gpus / (tensor * pipeline) == 1 && stage != ZeroStage::None) {
            if (llvm::is_contained(zeroStages, ZeroStage::None))
              continue;
            stage = ZeroStage::None;
          }
          Parallelism plan;
          plan.gpus = gpus;
          plan.tensor = tensor;
          plan.pipeline = pipeline;
          plan.microBatchSize = microBatchSize;
          plan.zero = stage;
          if (llvm::none_of(parallelPlans, [&](const Parallelism &p) {
                return p.gpus == gpus && p.tensor == tensor &&
                       p.pipeline == pipeline && p.zero == stage;
              }))
            parallelPlans.push_back(plan);
        }
      }
  if (parallelPlans.empty())
    return fail("no --tensor-parallel x --pipeline-parallel degree divides a "
                "--gpus count");

  std::vector<Model> models;
  if (!hfConfig.empty()) {
    if (modelNames.getNumOccurrences())
      return fail("pass either --model or --hf-config, not both");
    if (!batches || !seqs)
      return fail("--hf-config needs --batch and --seq");
    recordInputFile(hfConfig);
    std::string error;
    std::optional<std::string> text = readFile(hfConfig, error);
    if (!text)
      return fail(error);
    models.push_back({llvm::sys::path::stem(hfConfig).str(), *text,
                      hfConfig.getValue(), *batches, *seqs});
  } else {
    std::vector<std::string> names =
        modelNames.getNumOccurrences()
            ? splitList(modelNames)
            : std::vector<std::string>{"bert-large", "gpt3-1.3b", "gpt3-2.7b",
                                       "gpt3-6.7b"};
    if (names.empty())
      return fail("--model names no model");
    for (const std::string &name : names) {
      const Preset *preset = llvm::find_if(
          kPresets, [&](const Preset &p) { return name == p.name; });
      if (preset == std::end(kPresets)) {
        std::vector<std::string> known;
        for (const Preset &p : kPresets)
          known.push_back(p.name);
        return fail("unknown --model '" + name + "' (expected " +
                    llvm::join(known, ", ") + ", or --hf-config FILE)");
      }
      models.push_back(
          {preset->name, preset->config,
           std::string("<preset ") + preset->name + ">",
           batches ? *batches : *parseSizes("batch", preset->batches),
           seqs ? *seqs : *parseSizes("seq", preset->seqs)});
    }
  }

  DialectRegistry registry;
  registry.insert<TFuseDialect, func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors and warnings to stderr; the fusion planner's remarks are not
  // this tool's output.
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Remark)
      return success();
    llvm::WithColor::error(llvm::errs(), "tfuse-predict") << diag << "\n";
    return success();
  });

  std::vector<std::string> targetNames = splitList(targetList);
  if (targetNames.empty())
    return fail("--target names no target");
  FailureOr<std::vector<GpuTarget>> targets =
      resolveTargets(UnknownLoc::get(&context), targetNames);
  if (failed(targets))
    return 1;
  if (llvm::Error error = checkOutputIsNotAnInput(outputFile))
    return fail(llvm::toString(std::move(error)));

  std::vector<Row> rows;
  std::vector<std::string> modelLines;
  std::vector<RecomputePolicy> policies =
      onlyPolicy
          ? std::vector<RecomputePolicy>{*onlyPolicy}
          : std::vector<RecomputePolicy>{RecomputePolicy::None,
                                         RecomputePolicy::NormsAndElementwise,
                                         RecomputePolicy::Full};
  for (const Model &model : models) {
    bool described = false;
    for (int64_t seq : model.seqs) {
      for (int64_t batch : model.batches) {
        for (const std::string &dtype : dtypes) {
          ImportOptions options;
          options.batch = batch;
          options.seq = seq;
          // TF32 stores f32 tensors: the graph is f32.
          options.dtype = dtype == "tf32" ? "f32" : dtype;
          options.embeddings = options.lmHead = options.headLogits = true;
          std::vector<JsonDiagnostic> diags;
          std::optional<TransformerSpec> spec =
              parseHfConfig(model.configText, options, diags);
          llvm::errs() << formatDiagnostics(diags, model.configName);
          if (!spec)
            return 1;
          if (spec->vision)
            return fail(model.configName +
                        ": a vision model has no LM head to train here");
          // Its two stacks and tied-head rescale are not in the step this
          // tool composes, nor in its model-FLOPs formula.
          if (spec->encoderDecoder)
            return fail(model.configName +
                        ": an encoder-decoder (t5) is not priced yet: "
                        "tfuse-predict trains decoder-only and encoder-only "
                        "models");
          // The whole model's parameters (a tied table counts once).
          ImportedModel whole =
              buildTransformerModule(&context, *spec, options);
          int64_t params = whole.numParameters();
          if (!described) {
            modelLines.push_back(llvm::formatv(
                "model {0}: {1} layers, hidden {2}, {3} heads, MLP {4}, vocab "
                "{5}, {6} parameters",
                model.name, spec->numLayers, spec->hiddenSize, spec->numHeads,
                spec->intermediateSize, spec->vocabSize, params));
            described = true;
          }
          // One GPU's step per (its batch, tensor-parallel degree).
          std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Point>> points;
          auto pointFor = [&](int64_t tensor,
                              int64_t gpuBatch) -> FailureOr<Point *> {
            auto key = std::make_pair(gpuBatch, tensor);
            std::unique_ptr<Point> &point = points[key];
            if (!point) {
              std::string why;
              std::optional<TransformerSpec> share =
                  shardForTensorParallel(*spec, tensor, why);
              if (!share) {
                fail(model.configName + ": " + why);
                return failure();
              }
              ImportOptions local = options;
              local.batch = gpuBatch;
              int64_t held =
                  tensor == 1 ? params
                              : buildTransformerModule(&context, *share, local)
                                    .numParameters();
              point =
                  std::make_unique<Point>(&context, *share, local, *targets,
                                          held, params, graph, dtype == "tf32");
            }
            return point.get();
          };
          for (size_t t = 0; t < targets->size(); ++t) {
            const GpuTarget &target = (*targets)[t];
            for (const Parallelism &base : parallelPlans) {
              if (batch % base.data()) {
                warnOnce("--batch " + llvm::Twine(batch) +
                         " does not split over " + llvm::Twine(base.data()) +
                         " data-parallel GPUs: those rows are left out");
                continue;
              }
              if (base.pipeline > spec->numLayers) {
                warnOnce("--pipeline-parallel " + llvm::Twine(base.pipeline) +
                         " has more stages than the model's " +
                         llvm::Twine(spec->numLayers) +
                         " layers: those rows are left out");
                continue;
              }
              if (base.pipeline > 1 &&
                  (batch / base.data()) % base.microBatchSize) {
                warnOnce("--batch " + llvm::Twine(batch) + " over " +
                         llvm::Twine(base.data()) +
                         " data-parallel GPUs is no whole number of "
                         "--micro-batch-size " +
                         llvm::Twine(base.microBatchSize) +
                         " micro-batches: those rows are left out");
                continue;
              }
              bool optionalBridge = target.interconnect &&
                                    target.interconnect->nvlink &&
                                    target.interconnect->nvlink->bridge;
              std::vector<std::string> bridges{""};
              if (optionalBridge && base.gpus > 1)
                bridges = bridgeChoices;
              for (const std::string &bridge : bridges) {
                Parallelism parallel = base;
                parallel.bridge = bridge;
                BridgeFitted fitted =
                    bridge == "no" ? BridgeFitted::No : BridgeFitted::Yes;
                std::string why;
                if (parallel.tensor > 1 &&
                    !(parallel.tensorLink =
                          selectCommLink(target, parallel.tensor, fitted, why)))
                  return fail(why);
                if (parallel.data() > 1 &&
                    !(parallel.dataLink =
                          selectCommLink(target, parallel.gpus, fitted, why)))
                  return fail(why);
                if (parallel.pipeline > 1 &&
                    !(parallel.pipelineLink = selectCommLink(
                          target, parallel.tensor * parallel.pipeline, fitted,
                          why)))
                  return fail(why);
                FailureOr<Point *> point =
                    pointFor(parallel.tensor, parallel.gpuBatch(batch));
                if (failed(point))
                  return 1;
                for (bool fused : {true, false}) {
                  Row row;
                  row.model = model.name;
                  row.batch = batch;
                  row.seq = seq;
                  row.dtype = dtype;
                  row.target = target.name;
                  row.variant = fused ? "fused" : "unfused";
                  row.parallel = parallel;
                  for (RecomputePolicy policy : policies) {
                    if (failed((*point)->compose(policy, t, fused, row)))
                      return 1;
                    if (row.fits)
                      break;
                  }
                  rows.push_back(row);
                }
              }
            }
          }
        }
      }
    }
  }

  if (rows.empty())
    return fail("every row was left out (see the warnings): no --gpus plan "
                "splits the batch");
  auto file = AtomicOutputFile::create(outputFile);
  if (!file)
    return fail(llvm::toString(file.takeError()));
  if (format == "text")
    printText(rows, modelLines, (*file)->os());
  else if (format == "csv")
    printCsv(rows, (*file)->os());
  else
    printJson(rows, (*file)->os());
  if (llvm::Error error = (*file)->commit())
    return fail(llvm::toString(std::move(error)));
  return 0;
}
