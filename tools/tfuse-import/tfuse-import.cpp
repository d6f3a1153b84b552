//===- tfuse-import.cpp - Hugging Face and ONNX importer --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// tfuse-import --hf-config config.json --batch B --seq S --dtype bf16
//              [--layers N] [--embeddings] [--lm-head] [--no-dropout]
//              [--no-attention-mask] [--print-params] -o model.mlir
// tfuse-import --hf-config vit-config.json --batch B --dtype bf16
//              [--layers N] [--embeddings] [--pooler] ... -o model.mlir
// tfuse-import --hf-config t5-config.json --batch B --seq S
//              [--decoder-seq T] --dtype bf16 [--layers N] ... -o model.mlir
// tfuse-import --onnx model.onnx [--dim NAME=VALUE ...] [--dtype bf16]
//              [--print-params] -o model.mlir
//
// Reads the model, builds @forward with OpBuilder, verifies it and writes it
// atomically; an output that names the input is refused before anything
// runs. Config problems are reported as config.json:LINE:COL with the JSON
// path of the field, ONNX problems with the node's name, and the exit status
// is 1.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/HfConfig.h"
#include "tfuse/Import/Onnx.h"
#include "tfuse/Import/TransformerSpec.h"
#include "tfuse/Json/JsonReader.h"
#include "tfuse/Support/OutputFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("tfuse-import options");

static cl::opt<std::string>
    hfConfig("hf-config", cl::desc("A Hugging Face config.json to import"),
             cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    onnxModel("onnx",
              cl::desc(tfuse::isOnnxImportAvailable()
                           ? "An ONNX model to import"
                           : "An ONNX model to import (unavailable: built "
                             "without libonnx-dev)"),
              cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output .mlir file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<int64_t> batch("batch",
                              cl::desc("Batch size of the activations"),
                              cl::cat(category));
static cl::opt<int64_t>
    seq("seq",
        cl::desc("Sequence length of the activations (t5: the encoder's; "
                 "not for vit: its sequence is (image_size / patch_size)^2 + "
                 "1)"),
        cl::cat(category));
static cl::opt<int64_t>
    decoderSeq("decoder-seq",
               cl::desc("t5: sequence length of the decoder (default: --seq)"),
               cl::cat(category));
static cl::opt<std::string>
    dtype("dtype",
          cl::desc("Element type: bf16, f16 or f32 (ONNX: default the "
                   "model's)"),
          cl::cat(category));
static cl::list<std::string>
    dims("dim", cl::desc("ONNX: the value of a symbolic input dimension"),
         cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<bool> decomposedAttention(
    "decomposed-attention",
    cl::desc("ONNX: keep attention as the exported ops (MatMul, scale, "
             "mask, Softmax, MatMul) instead of matching tfuse.attention"),
    cl::cat(category));
static cl::opt<int64_t>
    layers("layers",
           cl::desc("Emit the first N layers (default: all of the model's; t5: "
                    "of the encoder and of the decoder)"),
           cl::value_desc("N"), cl::init(-1), cl::cat(category));
static cl::opt<bool> embeddings(
    "embeddings",
    cl::desc("Start from token ids: the embedding lookups (and learned "
             "positions) before the first layer (vit: from pixel_patches "
             "[B, N, C*P*P], the patch projection, [CLS] and positions, and "
             "end with the final LayerNorm)"),
    cl::cat(category));
static cl::opt<bool>
    lmHead("lm-head",
           cl::desc("End with the final norm, the projection to the "
                    "vocabulary and a softmax over it (not for vit)"),
           cl::cat(category));
static cl::opt<bool>
    pooler("pooler",
           cl::desc("vit: end with the final LayerNorm and ViTPooler (dense "
                    "+ tanh of the [CLS] row)"),
           cl::cat(category));
static cl::opt<bool>
    logits("logits",
           cl::desc("With --lm-head: end at the logits (what the model "
                    "class returns), without the softmax"),
           cl::cat(category));
static cl::opt<bool> noDropout("no-dropout",
                               cl::desc("Leave out every dropout (inference)"),
                               cl::cat(category));
static cl::opt<bool> noAttentionMask(
    "no-attention-mask",
    cl::desc("Encoders: leave out the additive attention-mask argument"),
    cl::cat(category));
static cl::opt<bool> printParams(
    "print-params",
    cl::desc("Print the parameter count of the emitted graph (the elements "
             "of its weight arguments) to stdout"),
    cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfuse-import") << message << "\n";
  return 1;
}

/// The arguments, one per line, for the output's header.
static void writeArgumentTable(llvm::raw_ostream &os,
                               const tfuse::ImportedModel &model) {
  os << "//\n// Arguments, in order:\n";
  for (auto [index, arg] : llvm::enumerate(model.arguments)) {
    std::string shape;
    for (int64_t dim : arg.shape)
      shape += (shape.empty() ? "" : ", ") + std::to_string(dim);
    os << llvm::format("//   %%arg%-4zu %-16s ", index,
                       ("[" + shape + "]").c_str())
       << arg.name << "\n";
  }
  os << "\n";
}

/// The comment block at the top of an imported Hugging Face model.
static void writeHfHeader(llvm::raw_ostream &os,
                          const tfuse::TransformerSpec &spec,
                          const tfuse::ImportOptions &options,
                          const tfuse::ImportedModel &model) {
  int64_t emitted = options.layers.value_or(spec.numLayers);
  os << "// Imported by tfuse-import from "
     << llvm::sys::path::filename(hfConfig) << ": model_type \""
     << spec.modelType << "\", ";
  if (spec.encoderDecoder) {
    int64_t decoderLayers = spec.encoderDecoder->numDecoderLayers;
    os << emitted << " of " << spec.numLayers << " encoder and "
       << options.layers.value_or(decoderLayers) << " of " << decoderLayers
       << " decoder layers, batch " << options.batch << ", sequence "
       << options.seq << " (encoder) and " << options.decoderSeq
       << " (decoder), " << options.dtype << ".\n";
  } else {
    os << emitted << " of " << spec.numLayers << " layers, batch "
       << options.batch << ", sequence " << options.seq << ", " << options.dtype
       << ".\n";
  }
  os << "// Hidden " << spec.hiddenSize << ", " << spec.numHeads << " heads of "
     << spec.headDim;
  if (spec.numKvHeads != spec.numHeads)
    os << " (" << spec.numKvHeads << " key/value heads)";
  os << ", " << (spec.gatedMlp ? "gated MLP " : "MLP ") << spec.intermediateSize
     << ", " << tfuse::describeActivation(spec.activation) << ", "
     << (spec.placement == tfuse::NormPlacement::Post ? "post-" : "pre-")
     << (spec.norm == tfuse::NormKind::RmsNorm ? "RMSNorm" : "LayerNorm")
     << (spec.normPlusOne ? " (1 + gamma)" : "")
     << (spec.placement == tfuse::NormPlacement::Parallel
             ? " (attention and MLP in parallel)"
             : "")
     << (spec.causal ? ", causal" : "") << ".\n";
  if (spec.encoderDecoder) {
    const tfuse::EncoderDecoderSpec &t5 = *spec.encoderDecoder;
    os << "// Encoder-decoder: unscaled attention; each stack's first "
          "layer holds the\n// relative position bias ("
       << t5.numBuckets << " buckets, max distance " << t5.maxDistance
       << "), added in every self-attention\n// (bidirectional in the "
          "encoder, causal in the decoder); decoder cross-attention\n// "
          "over the encoder's output; a final RMSNorm on each stack.\n";
    if (options.lmHead && spec.tieWordEmbeddings)
      os << "// LM head tied to shared: the decoder output times d_model^-0.5 "
            "(in f32).\n";
  }
  if (spec.vision) {
    const tfuse::VisionSpec &vision = *spec.vision;
    int64_t side = vision.imageSize / vision.patchSize;
    os << "// Image " << vision.imageSize << " x " << vision.imageSize
       << " in patches of " << vision.patchSize << ": " << side << " x " << side
       << " = " << vision.numPatches()
       << " patches and [CLS] (the sequence).\n";
    if (options.embeddings)
      os << "// pixel_patches[b, r * " << side << " + s, (c * "
         << vision.patchSize << " + i) * " << vision.patchSize
         << " + j] = pixel_values[b, c, r * " << vision.patchSize
         << " + i, s * " << vision.patchSize << " + j]\n"
         << "// (the Conv2d weight [hidden, C, P, P] reshaped to [hidden, "
         << vision.patchValues() << "], stored transposed).\n";
  }
  if (spec.embeddingMultiplier != 0.0)
    os << "// Embeddings multiplied by "
       << llvm::format("%g", spec.embeddingMultiplier) << " (in "
       << options.dtype << ").\n";
  os << "// Arguments carry their state-dict names (tfuse.name); linear "
        "weights are\n// stored [in, out].\n";
  if (!model.dropoutSites.empty())
    os << "// Dropout: " << model.dropoutSites.size() << " sites, seeds 1 to "
       << model.dropoutSites.size() << " in the order of the sites.\n";
  else if (options.noDropout)
    os << "// Dropout: left out (--no-dropout).\n";
  if (spec.rope) {
    tfuse::RopeFrequencies rope =
        tfuse::computeRopeFrequencies(*spec.rope, options.seq);
    os << "// Rotary embeddings (tfuse.rope) on q and k: "
       << tfuse::describeRopeType(spec.rope->type) << ", theta "
       << llvm::format("%g", spec.rope->theta) << ", " << spec.rope->rotaryDim
       << " of " << spec.headDim << " dims";
    if (spec.rope->type != tfuse::RopeType::Default)
      os << ", factor " << llvm::format("%g", spec.rope->factor);
    if (rope.attentionScaling != 1.0)
      os << ", attention scaling " << llvm::format("%g", rope.attentionScaling);
    os << ".\n";
  }
  if (spec.slidingWindow) {
    os << "// Sliding window " << *spec.slidingWindow;
    if (spec.windowFromLayer > 0)
      os << " from layer " << spec.windowFromLayer;
    os << (options.seq > *spec.slidingWindow
               ? ": an additive tfuse.window_mask.\n"
               : ": the sequence fits in it (the causal mask).\n");
  }
  for (const std::string &missing : spec.notModelled)
    os << "// Not modelled: " << missing << ".\n";
  writeArgumentTable(os, model);
}

/// Verifies and writes `model`, then prints its parameter count if asked.
static int writeModel(tfuse::ImportedModel &model,
                      llvm::function_ref<void(llvm::raw_ostream &)> header,
                      bool userModel) {
  if (failed(verify(*model.module)))
    return fail(userModel
                    ? "the imported graph does not verify (see above)"
                    : "the imported module does not verify (an importer bug)");
  auto write = [&](llvm::raw_ostream &os) {
    header(os);
    model.module->print(os);
    os << "\n";
  };
  // /dev/null, a pipe, ...: written in place (a temporary renamed over it
  // would replace the device itself when run as root).
  auto file = tfuse::AtomicOutputFile::create(outputFile);
  if (!file)
    return fail(llvm::toString(file.takeError()));
  write((*file)->os());
  if (llvm::Error err = (*file)->commit())
    return fail(llvm::toString(std::move(err)));
  if (printParams)
    llvm::outs() << "parameters: " << model.numParameters() << "\n";
  return 0;
}

/// tfuse-import --onnx model.onnx [--dtype T] [--dim NAME=VALUE ...]
static int importOnnx() {
  if (batch.getNumOccurrences() || seq.getNumOccurrences() ||
      decoderSeq.getNumOccurrences() || layers.getNumOccurrences())
    return fail("--batch, --seq, --decoder-seq and --layers apply to "
                "--hf-config; an ONNX "
                "model has its own shapes (bind symbolic dimensions with "
                "--dim NAME=VALUE)");
  if (embeddings || lmHead || logits || noDropout || noAttentionMask || pooler)
    return fail("--embeddings, --lm-head, --logits, --no-dropout, "
                "--no-attention-mask and --pooler apply to --hf-config only");
  tfuse::OnnxImportOptions options;
  options.dtype = dtype;
  options.matchAttention = !decomposedAttention;
  for (const std::string &binding : dims) {
    auto [name, value] = llvm::StringRef(binding).split('=');
    int64_t number;
    if (name.empty() || value.getAsInteger(10, number) || number < 1)
      return fail("--dim expects NAME=VALUE with a positive VALUE, got '" +
                  binding + "'");
    options.dims[name.str()] = number;
  }
  MLIRContext context;
  llvm::Expected<tfuse::ImportedModel> model =
      tfuse::importOnnxModel(&context, onnxModel, options);
  if (!model) {
    llvm::WithColor::error(llvm::errs(), onnxModel)
        << llvm::toString(model.takeError()) << "\n";
    return 1;
  }
  return writeModel(
      *model,
      [&](llvm::raw_ostream &os) {
        os << "// Imported by tfuse-import from "
           << llvm::sys::path::filename(onnxModel) << ": " << model->summary
           << ".\n// Arguments carry their ONNX value names (tfuse.name).\n";
        writeArgumentTable(os, *model);
      },
      /*userModel=*/true);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tfuse::reportWritesPastFileSizeLimit();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  std::string overview =
      "tfuse-import: Transformer graphs from Hugging Face configs and ONNX\n\n"
      "  Hugging Face model_type values read by --hf-config: " +
      llvm::join(tfuse::getSupportedHfModelTypes(), ", ") + "\n";
  cl::ParseCommandLineOptions(argc, argv, overview);

  if (hfConfig.empty() == onnxModel.empty())
    return fail(hfConfig.empty()
                    ? "no model given: pass --hf-config config.json or --onnx "
                      "model.onnx"
                    : "pass either --hf-config or --onnx, not both");
  if (dtype.getNumOccurrences() && dtype != "bf16" && dtype != "f16" &&
      dtype != "f32")
    return fail("--dtype must be bf16, f16 or f32, got '" + dtype + "'");
  const std::string &input = hfConfig.empty() ? onnxModel : hfConfig;
  tfuse::recordInputFile(input);
  if (llvm::Error error = tfuse::checkOutputIsNotAnInput(outputFile))
    return fail(llvm::toString(std::move(error)));
  if (llvm::Error error = tfuse::checkOptionsNameNoInput(
          llvm::ArrayRef<const char *>(argv + 1, argc - 1),
          {"hf-config", "onnx"}, {"o"}))
    return fail(llvm::toString(std::move(error)));
  if (!onnxModel.empty())
    return importOnnx();

  // --seq is checked against the model type once the config is read: vit
  // implies it, the others need it.
  if (!batch.getNumOccurrences())
    return fail("--hf-config needs --batch");
  if (!dtype.getNumOccurrences())
    return fail("--hf-config needs --dtype (bf16, f16 or f32)");
  if (batch < 1)
    return fail("--batch must be at least 1, got " + llvm::Twine(batch));
  if (seq.getNumOccurrences() && seq < 1)
    return fail("--seq must be at least 1, got " + llvm::Twine(seq));
  if (decoderSeq.getNumOccurrences() && decoderSeq < 1)
    return fail("--decoder-seq must be at least 1, got " +
                llvm::Twine(decoderSeq));
  if (layers.getNumOccurrences() && layers < 0)
    return fail("--layers must be at least 0, got " + llvm::Twine(layers));
  if (layers.getNumOccurrences() && layers == 0 && !embeddings && !lmHead &&
      !pooler)
    return fail("--layers 0 without --embeddings, --lm-head or --pooler "
                "emits nothing");
  if (!dims.empty())
    return fail("--dim applies to --onnx; use --batch and --seq");
  if (decomposedAttention)
    return fail("--decomposed-attention applies to --onnx");
  if (logits && !lmHead)
    return fail("--logits applies to --lm-head (the graph ends at the "
                "logits instead of the softmax)");

  tfuse::ImportOptions options;
  options.batch = batch;
  options.seq = seq.getNumOccurrences() ? seq.getValue() : 0;
  options.decoderSeq =
      decoderSeq.getNumOccurrences() ? decoderSeq.getValue() : 0;
  options.dtype = dtype;
  if (layers.getNumOccurrences())
    options.layers = layers;
  options.embeddings = embeddings;
  options.lmHead = lmHead;
  options.headLogits = logits;
  options.noDropout = noDropout;
  options.noAttentionMask = noAttentionMask;
  options.pooler = pooler;

  std::string error;
  std::optional<std::string> text = tfuse::readFile(hfConfig, error);
  if (!text)
    return fail(error);
  std::vector<tfuse::JsonDiagnostic> diags;
  std::optional<tfuse::TransformerSpec> spec =
      tfuse::parseHfConfig(*text, options, diags);
  llvm::errs() << tfuse::formatDiagnostics(diags, hfConfig.getValue());
  if (!spec)
    return 1;
  if (spec->impliedSeq > 0)
    options.seq = spec->impliedSeq;
  if (spec->encoderDecoder && options.decoderSeq == 0)
    options.decoderSeq = options.seq;

  MLIRContext context;
  tfuse::ImportedModel model =
      tfuse::buildTransformerModule(&context, *spec, options);
  return writeModel(
      model,
      [&](llvm::raw_ostream &os) { writeHfHeader(os, *spec, options, model); },
      /*userModel=*/false);
}
