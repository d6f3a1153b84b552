//===- Interpreter.cpp - Evaluate op graphs with the reference --*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the interpreter of RefGraphs: a table of the ops with
// their arity and attributes, an attribute reader with clear messages, and a
// dispatch from op names to the functions of the CPU reference. It only
// translates operands and attributes; the reference does the arithmetic.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Support/CheckedInt.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir::tfuse::ref;

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

std::string mlir::tfuse::ref::formatShape(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::string mlir::tfuse::ref::formatTensorType(const TensorType &type) {
  return formatShape(type.shape) + " " + dtypeName(type.dtype);
}

namespace {

//===----------------------------------------------------------------------===//
// The op table
//===----------------------------------------------------------------------===//

enum class OpCode {
  Matmul,
  Binary,
  Unary,
  Gelu,
  Cast,
  Constant,
  Reduce,
  Softmax,
  CrossEntropy,
  CrossEntropyGrad,
  LayerNorm,
  RmsNorm,
  NormGrad,
  Dropout,
  Reshape,
  Transpose,
  Slice,
  Split,
  Concat,
  Gather,
  GatherGrad,
  CausalMask,
  Attention,
  AttentionGrad,
  Rope,
  WindowMask,
  AdamW,
  Sgd,
  AllReduce,
  ReduceScatter,
  AllGather
};

/// What the interpreter knows about one op name.
struct OpInfo {
  const char *name;
  OpCode code;
  /// Operand count range; maxOperands < 0 means unbounded.
  int minOperands;
  int maxOperands;
  /// Result count; < 0 means "one or more".
  int numResults;
  BinaryKind binaryKind = BinaryKind::Add;
  UnaryKind unaryKind = UnaryKind::Neg;
};

const std::vector<OpInfo> &opTable() {
  static const std::vector<OpInfo> table = {
      {"tfuse.matmul", OpCode::Matmul, 2, 2, 1},
      {"tfuse.add", OpCode::Binary, 2, 2, 1, BinaryKind::Add},
      {"tfuse.sub", OpCode::Binary, 2, 2, 1, BinaryKind::Sub},
      {"tfuse.mul", OpCode::Binary, 2, 2, 1, BinaryKind::Mul},
      {"tfuse.div", OpCode::Binary, 2, 2, 1, BinaryKind::Div},
      {"tfuse.max", OpCode::Binary, 2, 2, 1, BinaryKind::Max},
      {"tfuse.min", OpCode::Binary, 2, 2, 1, BinaryKind::Min},
      {"tfuse.neg", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Neg},
      {"tfuse.exp", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Exp},
      {"tfuse.log", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Log},
      {"tfuse.tanh", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Tanh},
      {"tfuse.erf", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Erf},
      {"tfuse.sqrt", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Sqrt},
      {"tfuse.rsqrt", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Rsqrt},
      {"tfuse.sigmoid", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Sigmoid},
      {"tfuse.relu", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Relu},
      {"tfuse.silu", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Silu},
      {"tfuse.step", OpCode::Unary, 1, 1, 1, {}, UnaryKind::Step},
      {"tfuse.gelu", OpCode::Gelu, 1, 1, 1},
      {"tfuse.cast", OpCode::Cast, 1, 1, 1},
      {"tfuse.constant", OpCode::Constant, 0, 0, 1},
      {"tfuse.reduce", OpCode::Reduce, 1, 1, 1},
      {"tfuse.softmax", OpCode::Softmax, 1, 1, 1},
      // Results: the per-row loss and counted.
      {"tfuse.cross_entropy", OpCode::CrossEntropy, 2, 2, 2},
      {"tfuse.cross_entropy_grad", OpCode::CrossEntropyGrad, 3, 3, 1},
      {"tfuse.layer_norm", OpCode::LayerNorm, 1, 3, 1},
      {"tfuse.rms_norm", OpCode::RmsNorm, 1, 2, 1},
      // Results: the input gradient, the per-row mean and rstd.
      {"tfuse.norm_grad", OpCode::NormGrad, 2, 3, 3},
      {"tfuse.dropout", OpCode::Dropout, 1, 1, 1},
      {"tfuse.reshape", OpCode::Reshape, 1, 1, 1},
      {"tfuse.transpose", OpCode::Transpose, 1, 1, 1},
      {"tfuse.slice", OpCode::Slice, 1, 1, 1},
      {"tfuse.split", OpCode::Split, 1, 1, -1},
      {"tfuse.concat", OpCode::Concat, 1, -1, 1},
      {"tfuse.gather", OpCode::Gather, 2, 2, 1},
      {"tfuse.gather_grad", OpCode::GatherGrad, 2, 2, 1},
      {"tfuse.causal_mask", OpCode::CausalMask, 0, 0, 1},
      // One or two results (the log-sum-exp): verifyAttributes checks.
      {"tfuse.attention", OpCode::Attention, 3, 4, -1},
      {"tfuse.attention_grad", OpCode::AttentionGrad, 6, 7, 3},
      {"tfuse.rope", OpCode::Rope, 2, 2, 1},
      {"tfuse.window_mask", OpCode::WindowMask, 0, 0, 1},
      // The optional model weight: verifyAttributes checks the count.
      {"tfuse.adamw", OpCode::AdamW, 6, 6, -1},
      {"tfuse.sgd", OpCode::Sgd, 5, 5, -1},
      // One rank's program: every rank is taken to hold the same data.
      {"tfuse.all_reduce", OpCode::AllReduce, 1, 1, 1},
      {"tfuse.reduce_scatter", OpCode::ReduceScatter, 1, 1, 1},
      {"tfuse.all_gather", OpCode::AllGather, 1, 1, 1},
  };
  return table;
}

const OpInfo *lookupOp(std::string_view name) {
  for (const OpInfo &info : opTable())
    if (name == info.name)
      return &info;
  return nullptr;
}

std::string plural(int64_t n, const char *what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const char *attributeKindName(const RefAttribute &attr) {
  switch (attr.index()) {
  case 0:
    return "a boolean";
  case 1:
  case 2:
    return "a number";
  case 3:
    return "a string";
  default:
    return "an array";
  }
}

/// Parses "inf", "-inf", "+inf" and "nan" (numbers JSON cannot spell).
std::optional<double> parseSpecialNumber(const std::string &s) {
  const double inf = std::numeric_limits<double>::infinity();
  if (s == "inf" || s == "+inf")
    return inf;
  if (s == "-inf")
    return -inf;
  if (s == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

/// Reads the attributes of one op; every failed read sets `error` once.
class AttributeReader {
public:
  AttributeReader(const RefOp &op, std::string &error) : op(op), error(error) {}

  bool failed() const { return !error.empty(); }
  bool has(const std::string &name) const {
    return op.attributes.count(name) != 0;
  }

  std::optional<bool> getBool(const std::string &name) {
    const RefAttribute *attr = find(name);
    if (!attr)
      return std::nullopt;
    if (const bool *b = std::get_if<bool>(attr))
      return *b;
    return mismatch(name, *attr, "true or false"), std::nullopt;
  }

  std::optional<int64_t> getInt(const std::string &name) {
    const RefAttribute *attr = find(name);
    if (!attr)
      return std::nullopt;
    if (const int64_t *i = std::get_if<int64_t>(attr))
      return *i;
    if (const double *d = std::get_if<double>(attr))
      if (std::trunc(*d) == *d && std::fabs(*d) < 9.0e18)
        return static_cast<int64_t>(*d);
    return mismatch(name, *attr, "an integer"), std::nullopt;
  }

  std::optional<double> getNumber(const std::string &name) {
    const RefAttribute *attr = find(name);
    if (!attr)
      return std::nullopt;
    if (std::optional<double> d = toNumber(*attr))
      return d;
    return mismatch(name, *attr, "a number"), std::nullopt;
  }

  std::optional<std::string> getString(const std::string &name) {
    const RefAttribute *attr = find(name);
    if (!attr)
      return std::nullopt;
    if (const std::string *s = std::get_if<std::string>(attr))
      return *s;
    return mismatch(name, *attr, "a string"), std::nullopt;
  }

  /// A string that must be one of `choices`.
  std::optional<std::string> getEnum(const std::string &name,
                                     const std::vector<std::string> &choices) {
    std::optional<std::string> s = getString(name);
    if (!s)
      return std::nullopt;
    if (std::find(choices.begin(), choices.end(), *s) != choices.end())
      return s;
    std::string list;
    for (size_t i = 0; i < choices.size(); ++i)
      list += (i ? (i + 1 == choices.size() ? " or \"" : ", \"") : "\"") +
              choices[i] + "\"";
    fail("attribute '" + name + "' must be " + list + ", got \"" + *s + "\"");
    return std::nullopt;
  }

  std::optional<std::vector<int64_t>> getInts(const std::string &name) {
    const RefAttribute *attr = find(name);
    if (!attr)
      return std::nullopt;
    if (const auto *v = std::get_if<std::vector<int64_t>>(attr))
      return *v;
    return mismatch(name, *attr, "an array of integers"), std::nullopt;
  }

  std::optional<std::vector<double>> getNumbers(const std::string &name) {
    const RefAttribute *attr = find(name);
    if (!attr)
      return std::nullopt;
    if (const auto *v = std::get_if<std::vector<double>>(attr))
      return *v;
    if (const auto *v = std::get_if<std::vector<int64_t>>(attr))
      return std::vector<double>(v->begin(), v->end());
    return mismatch(name, *attr, "an array of numbers"), std::nullopt;
  }

  /// A scalar number: a number or one of the special strings.
  static std::optional<double> toNumber(const RefAttribute &attr) {
    if (const int64_t *i = std::get_if<int64_t>(&attr))
      return static_cast<double>(*i);
    if (const double *d = std::get_if<double>(&attr))
      return *d;
    if (const std::string *s = std::get_if<std::string>(&attr))
      return parseSpecialNumber(*s);
    return std::nullopt;
  }

  void fail(std::string message) {
    if (error.empty())
      error = std::move(message);
  }

private:
  const RefAttribute *find(const std::string &name) {
    auto it = op.attributes.find(name);
    if (it == op.attributes.end()) {
      fail("missing attribute '" + name + "'");
      return nullptr;
    }
    return &it->second;
  }

  void mismatch(const std::string &name, const RefAttribute &attr,
                const char *expected) {
    fail("attribute '" + name + "' must be " + expected + ", got " +
         attributeKindName(attr));
  }

  const RefOp &op;
  std::string &error;
};

/// An optimizer update has `updated` f32 results and an optional model
/// weight (f16 or bf16).
void checkOptimizerResults(const RefOp &op, size_t updated,
                           AttributeReader &attrs) {
  size_t count = op.results.size();
  if (count != updated && count != updated + 1) {
    attrs.fail("expected " + std::to_string(updated) + " or " +
               std::to_string(updated + 1) + " results, got " +
               std::to_string(count));
    return;
  }
  if (count == updated + 1 && op.results.back().dtype != DType::F16 &&
      op.results.back().dtype != DType::BF16)
    attrs.fail("the model weight (result " + std::to_string(updated) +
               ") must be f16 or bf16, got " +
               formatTensorType(op.results.back()));
}

void checkWeightDecay(AttributeReader &attrs) {
  std::optional<double> decay = attrs.getNumber("weight_decay");
  if (decay && !(std::isfinite(*decay) && *decay >= 0.0))
    attrs.fail("attribute 'weight_decay' must be non-negative and finite");
}

/// Checks the attributes of `op` (described by `info`) without evaluating.
void verifyAttributes(const OpInfo &info, const RefOp &op,
                      AttributeReader &attrs) {
  int numOperands = static_cast<int>(op.operands.size());
  switch (info.code) {
  case OpCode::Matmul:
    attrs.getBool("transpose_lhs");
    attrs.getBool("transpose_rhs");
    return;
  case OpCode::Gelu:
    attrs.getEnum("approximate", {"none", "tanh"});
    return;
  case OpCode::Constant: {
    bool splat = attrs.has("splat"), values = attrs.has("values");
    if (splat == values) {
      attrs.fail(splat ? "has both 'splat' and 'values'; give one"
                       : "missing attribute 'splat' or 'values'");
      return;
    }
    if (splat) {
      attrs.getNumber("splat");
      return;
    }
    std::optional<std::vector<double>> v = attrs.getNumbers("values");
    if (v && !op.results.empty() &&
        static_cast<int64_t>(v->size()) != numElements(op.results[0].shape))
      attrs.fail("attribute 'values' has " + plural(v->size(), "element") +
                 ", the result " + formatTensorType(op.results[0]) + " needs " +
                 std::to_string(numElements(op.results[0].shape)));
    return;
  }
  case OpCode::Reduce:
    attrs.getEnum("kind", {"sum", "max", "mean"});
    attrs.getInt("axis");
    attrs.getBool("keep_dims");
    return;
  case OpCode::Softmax:
  case OpCode::Split:
  case OpCode::Concat:
    attrs.getInt("axis");
    return;
  case OpCode::CrossEntropy:
  case OpCode::CrossEntropyGrad:
    attrs.getInt("ignore_index");
    return;
  case OpCode::LayerNorm: {
    attrs.getNumber("epsilon");
    std::optional<bool> gamma = attrs.getBool("has_gamma");
    std::optional<bool> beta = attrs.getBool("has_beta");
    if (gamma && beta && numOperands != 1 + *gamma + *beta)
      attrs.fail("has " + plural(numOperands, "operand") +
                 " but has_gamma = " + (*gamma ? "true" : "false") +
                 " and has_beta = " + (*beta ? "true" : "false") + " need " +
                 std::to_string(1 + *gamma + *beta));
    return;
  }
  case OpCode::RmsNorm: {
    attrs.getNumber("epsilon");
    std::optional<bool> gamma = attrs.getBool("has_gamma");
    if (gamma && numOperands != 1 + *gamma)
      attrs.fail("has " + plural(numOperands, "operand") +
                 " but has_gamma = " + (*gamma ? "true" : "false") + " needs " +
                 std::to_string(1 + *gamma));
    return;
  }
  case OpCode::NormGrad: {
    attrs.getNumber("epsilon");
    attrs.getBool("rms");
    std::optional<bool> gamma = attrs.getBool("has_gamma");
    if (gamma && numOperands != 2 + *gamma)
      attrs.fail("has " + plural(numOperands, "operand") +
                 " but has_gamma = " + (*gamma ? "true" : "false") + " needs " +
                 std::to_string(2 + *gamma));
    return;
  }
  case OpCode::Dropout: {
    std::optional<double> p = attrs.getNumber("p");
    if (p && !(*p >= 0.0 && *p < 1.0))
      attrs.fail("attribute 'p' must be in [0, 1)");
    std::optional<int64_t> seed = attrs.getInt("seed");
    if (seed && *seed < 0)
      attrs.fail("attribute 'seed' must be non-negative");
    return;
  }
  case OpCode::Transpose:
    attrs.getInts("perm");
    return;
  case OpCode::Slice:
    attrs.getInts("offsets");
    return;
  case OpCode::CausalMask:
    if (!op.results.empty() && op.results[0].shape.size() != 2)
      attrs.fail("the result must have rank 2, got " +
                 formatTensorType(op.results[0]));
    return;
  case OpCode::Attention:
  case OpCode::AttentionGrad: {
    if (info.code == OpCode::Attention && op.results.size() > 2)
      attrs.fail("expected 1 or 2 results (the output, the log-sum-exp), "
                 "got " +
                 std::to_string(op.results.size()));
    attrs.getNumber("scale");
    attrs.getBool("causal");
    if (attrs.has("dropout_p") || attrs.has("seed")) {
      std::optional<double> p = attrs.getNumber("dropout_p");
      if (p && !(*p >= 0.0 && *p < 1.0))
        attrs.fail("attribute 'dropout_p' must be in [0, 1)");
      std::optional<int64_t> seed = attrs.getInt("seed");
      if (seed && *seed < 0)
        attrs.fail("attribute 'seed' must be non-negative");
    }
    return;
  }
  case OpCode::Rope: {
    std::optional<double> scaling = attrs.getNumber("attention_scaling");
    if (scaling && !(std::isfinite(*scaling) && *scaling > 0.0))
      attrs.fail("attribute 'attention_scaling' must be positive and finite");
    return;
  }
  case OpCode::WindowMask: {
    std::optional<int64_t> window = attrs.getInt("window");
    if (window && *window < 1)
      attrs.fail("attribute 'window' must be at least 1");
    if (!op.results.empty() && op.results[0].shape.size() != 2)
      attrs.fail("the result must have rank 2, got " +
                 formatTensorType(op.results[0]));
    return;
  }
  case OpCode::AdamW: {
    checkOptimizerResults(op, 3, attrs);
    for (const char *beta : {"beta1", "beta2"}) {
      std::optional<double> value = attrs.getNumber(beta);
      if (value && !(*value >= 0.0 && *value < 1.0))
        attrs.fail(std::string("attribute '") + beta + "' must be in [0, 1)");
    }
    std::optional<double> eps = attrs.getNumber("epsilon");
    if (eps && !(std::isfinite(*eps) && *eps > 0.0))
      attrs.fail("attribute 'epsilon' must be positive and finite");
    checkWeightDecay(attrs);
    return;
  }
  case OpCode::Sgd: {
    checkOptimizerResults(op, 2, attrs);
    std::optional<double> momentum = attrs.getNumber("momentum");
    if (momentum && !(std::isfinite(*momentum) && *momentum > 0.0))
      attrs.fail("attribute 'momentum' must be positive and finite");
    std::optional<double> dampening = attrs.getNumber("dampening");
    if (dampening && !(*dampening >= 0.0 && *dampening <= 1.0))
      attrs.fail("attribute 'dampening' must be in [0, 1]");
    checkWeightDecay(attrs);
    std::optional<bool> nesterov = attrs.getBool("nesterov");
    if (nesterov && *nesterov && dampening && *dampening != 0.0)
      attrs.fail("attribute 'nesterov' needs 'dampening' 0");
    return;
  }
  case OpCode::AllReduce:
  case OpCode::ReduceScatter:
  case OpCode::AllGather: {
    std::optional<int64_t> groupSize = attrs.getInt("group_size");
    if (groupSize && *groupSize < 1)
      attrs.fail("attribute 'group_size' must be at least 1");
    if (info.code != OpCode::AllReduce)
      attrs.getInt("axis");
    return;
  }
  case OpCode::Binary:
  case OpCode::Unary:
  case OpCode::Cast:
  case OpCode::Reshape:
  case OpCode::Gather:
  case OpCode::GatherGrad:
    return;
  }
}

std::string opPrefix(size_t index, const RefOp &op) {
  return "op " + std::to_string(index) + " (" + op.name + "): ";
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

using Tensors = std::vector<Tensor>;

/// Evaluates `op` on `operands`. The op has verified.
Tensors evaluateOp(const OpInfo &info, const RefOp &op,
                   const std::vector<const Tensor *> &operands,
                   std::string &error) {
  AttributeReader attrs(op, error);
  auto operand = [&](size_t i) -> const Tensor & { return *operands[i]; };
  const TensorType &result = op.results[0];
  switch (info.code) {
  case OpCode::Matmul:
    return {matmul(operand(0), operand(1), *attrs.getBool("transpose_lhs"),
                   *attrs.getBool("transpose_rhs"))};
  case OpCode::Binary:
    return {binary(info.binaryKind, operand(0), operand(1))};
  case OpCode::Unary:
    return {unary(info.unaryKind, operand(0))};
  case OpCode::Gelu:
    return {unary(*attrs.getString("approximate") == "tanh"
                      ? UnaryKind::GeluTanh
                      : UnaryKind::GeluErf,
                  operand(0))};
  case OpCode::Cast:
    return {cast(operand(0), result.dtype)};
  case OpCode::Constant: {
    if (attrs.has("splat")) {
      double value = *attrs.getNumber("splat");
      return {makeTensor(
          result.dtype, result.shape,
          std::vector<double>(static_cast<size_t>(numElements(result.shape)),
                              value))};
    }
    return {
        makeTensor(result.dtype, result.shape, *attrs.getNumbers("values"))};
  }
  case OpCode::Reduce: {
    std::string kind = *attrs.getString("kind");
    ReduceKind k = kind == "sum"   ? ReduceKind::Sum
                   : kind == "max" ? ReduceKind::Max
                                   : ReduceKind::Mean;
    return {reduce(k, operand(0), *attrs.getInt("axis"),
                   *attrs.getBool("keep_dims"))};
  }
  case OpCode::Softmax:
    return {softmax(operand(0), *attrs.getInt("axis"))};
  case OpCode::CrossEntropy: {
    Tensor counted;
    Tensor loss = crossEntropy(operand(0), operand(1),
                               *attrs.getInt("ignore_index"), counted);
    return {std::move(loss), std::move(counted)};
  }
  case OpCode::CrossEntropyGrad:
    return {crossEntropyGrad(operand(0), operand(1), operand(2),
                             *attrs.getInt("ignore_index"))};
  case OpCode::LayerNorm: {
    bool hasGamma = *attrs.getBool("has_gamma");
    bool hasBeta = *attrs.getBool("has_beta");
    const Tensor *gamma = hasGamma ? &operand(1) : nullptr;
    const Tensor *beta = hasBeta ? &operand(hasGamma ? 2 : 1) : nullptr;
    return {layerNorm(operand(0), gamma, beta, *attrs.getNumber("epsilon"))};
  }
  case OpCode::RmsNorm:
    return {rmsNorm(operand(0),
                    *attrs.getBool("has_gamma") ? &operand(1) : nullptr,
                    *attrs.getNumber("epsilon"))};
  case OpCode::NormGrad:
    return normGrad(operand(0), operand(1),
                    *attrs.getBool("has_gamma") ? &operand(2) : nullptr,
                    *attrs.getNumber("epsilon"), *attrs.getBool("rms"));
  case OpCode::Dropout:
    return {dropout(operand(0), *attrs.getNumber("p"),
                    static_cast<uint64_t>(*attrs.getInt("seed")))};
  case OpCode::Reshape:
    return {reshape(operand(0), result.shape)};
  case OpCode::Transpose:
    return {transpose(operand(0), *attrs.getInts("perm"))};
  case OpCode::Slice:
    return {slice(operand(0), *attrs.getInts("offsets"), result.shape)};
  case OpCode::Split: {
    int64_t axis = *attrs.getInt("axis");
    int64_t rank = operand(0).rank();
    int64_t a = axis < 0 ? axis + rank : axis;
    std::vector<int64_t> sizes;
    for (const TensorType &r : op.results) {
      if (a < 0 || a >= static_cast<int64_t>(r.shape.size())) {
        error = "attribute 'axis' (" + std::to_string(axis) +
                ") is out of range for the results";
        return {};
      }
      sizes.push_back(r.shape[a]);
    }
    return split(operand(0), axis, sizes);
  }
  case OpCode::Concat: {
    Tensors xs;
    for (const Tensor *t : operands)
      xs.push_back(*t);
    return {concat(xs, *attrs.getInt("axis"))};
  }
  case OpCode::Gather:
    return {gather(operand(0), operand(1))};
  case OpCode::GatherGrad:
    return {gatherGrad(operand(0), operand(1), result.shape, result.dtype)};
  case OpCode::CausalMask:
    return {causalMask(result.shape[0], result.shape[1], result.dtype)};
  case OpCode::Rope:
    return {
        rope(operand(0), operand(1), *attrs.getNumber("attention_scaling"))};
  case OpCode::WindowMask:
    return {windowMask(result.shape[0], result.shape[1],
                       *attrs.getInt("window"), result.dtype)};
  case OpCode::AdamW: {
    AdamWOptions options;
    options.beta1 = *attrs.getNumber("beta1");
    options.beta2 = *attrs.getNumber("beta2");
    options.eps = *attrs.getNumber("epsilon");
    options.weightDecay = *attrs.getNumber("weight_decay");
    const DType *weight =
        op.results.size() == 4 ? &op.results[3].dtype : nullptr;
    return adamw(operand(0), operand(1), operand(2), operand(3), operand(4),
                 operand(5), options, weight);
  }
  case OpCode::Sgd: {
    SgdOptions options;
    options.momentum = *attrs.getNumber("momentum");
    options.dampening = *attrs.getNumber("dampening");
    options.weightDecay = *attrs.getNumber("weight_decay");
    options.nesterov = *attrs.getBool("nesterov");
    const DType *weight =
        op.results.size() == 3 ? &op.results[2].dtype : nullptr;
    return sgd(operand(0), operand(1), operand(2), operand(3), operand(4),
               options, weight);
  }
  case OpCode::AllReduce:
    return {collectiveOfIdenticalRanks(CollectiveKind::AllReduce, operand(0),
                                       *attrs.getInt("group_size"), 0)};
  case OpCode::ReduceScatter:
  case OpCode::AllGather:
    return {collectiveOfIdenticalRanks(
        info.code == OpCode::AllGather ? CollectiveKind::AllGather
                                       : CollectiveKind::ReduceScatter,
        operand(0), *attrs.getInt("group_size"), *attrs.getInt("axis"))};
  case OpCode::Attention: {
    double p = attrs.has("dropout_p") ? *attrs.getNumber("dropout_p") : 0.0;
    uint64_t seed =
        attrs.has("seed") ? static_cast<uint64_t>(*attrs.getInt("seed")) : 0;
    if (op.results.size() == 2) {
      Tensor lse;
      Tensor y = attention(operand(0), operand(1), operand(2),
                           operands.size() == 4 ? &operand(3) : nullptr,
                           *attrs.getNumber("scale"), *attrs.getBool("causal"),
                           p, seed, &lse);
      return {std::move(y), std::move(lse)};
    }
    return {attention(operand(0), operand(1), operand(2),
                      operands.size() == 4 ? &operand(3) : nullptr,
                      *attrs.getNumber("scale"), *attrs.getBool("causal"), p,
                      seed)};
  }
  case OpCode::AttentionGrad: {
    double p = attrs.has("dropout_p") ? *attrs.getNumber("dropout_p") : 0.0;
    uint64_t seed =
        attrs.has("seed") ? static_cast<uint64_t>(*attrs.getInt("seed")) : 0;
    AttentionGrads grads = attentionGrad(
        operand(0), operand(1), operand(2), operand(3), operand(4), operand(5),
        operands.size() == 7 ? &operand(6) : nullptr, *attrs.getNumber("scale"),
        *attrs.getBool("causal"), p, seed);
    return {std::move(grads.query), std::move(grads.key),
            std::move(grads.value)};
  }
  }
  error = "has no reference semantics";
  return {};
}

std::string describeOperands(const std::vector<const Tensor *> &operands) {
  std::string out;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i)
      out += ", ";
    out += formatTensorType({operands[i]->dtype, operands[i]->shape});
  }
  return out.empty() ? "none" : out;
}

/// The type of value `v` of a verified graph.
const TensorType *valueType(const RefGraph &graph, int v) {
  if (v < static_cast<int>(graph.arguments.size()))
    return &graph.arguments[v];
  int next = static_cast<int>(graph.arguments.size());
  for (const RefOp &op : graph.ops) {
    if (v < next + static_cast<int>(op.results.size()))
      return &op.results[v - next];
    next += static_cast<int>(op.results.size());
  }
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

const std::vector<std::string> &mlir::tfuse::ref::getRefOpNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const OpInfo &info : opTable())
      n.emplace_back(info.name);
    std::sort(n.begin(), n.end());
    return n;
  }();
  return names;
}

bool mlir::tfuse::ref::verifyRefOp(const RefOp &op, std::string &error) {
  error.clear();
  const OpInfo *info = lookupOp(op.name);
  if (!info) {
    error = "unknown op '" + op.name + "'";
    return false;
  }
  int n = static_cast<int>(op.operands.size());
  if (n < info->minOperands ||
      (info->maxOperands >= 0 && n > info->maxOperands)) {
    std::string expected =
        info->maxOperands < 0
            ? "at least " + plural(info->minOperands, "operand")
        : info->minOperands == info->maxOperands
            ? plural(info->minOperands, "operand")
            : std::to_string(info->minOperands) + " to " +
                  plural(info->maxOperands, "operand");
    error = "expected " + expected + ", got " + std::to_string(n);
    return false;
  }
  int r = static_cast<int>(op.results.size());
  if (info->numResults < 0 ? r < 1 : r != info->numResults) {
    error = "expected " +
            (info->numResults < 0 ? std::string("at least 1 result")
                                  : plural(info->numResults, "result")) +
            ", got " + std::to_string(r);
    return false;
  }
  AttributeReader attrs(op, error);
  verifyAttributes(*info, op, attrs);
  return !attrs.failed();
}

/// "" when a tensor of `type` can be allocated: no negative dimension and
/// at most kMaxTensorElements elements (the dialect's bound); else why not.
static std::string checkTensorSize(const TensorType &type) {
  if (mlir::tfuse::checkedTensorElements(type.shape))
    return "";
  return formatTensorType(type) +
         " has a negative dimension or more than 2^40 elements";
}

bool mlir::tfuse::ref::verifyGraph(const RefGraph &graph, std::string &error) {
  error.clear();
  for (size_t i = 0; i < graph.arguments.size(); ++i) {
    std::string problem = checkTensorSize(graph.arguments[i]);
    if (!problem.empty()) {
      error = "argument " + std::to_string(i) + ": " + problem;
      return false;
    }
  }
  int defined = static_cast<int>(graph.arguments.size());
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const RefOp &op = graph.ops[i];
    std::string message;
    if (!verifyRefOp(op, message)) {
      error = opPrefix(i, op) + message;
      return false;
    }
    for (size_t r = 0; r < op.results.size(); ++r) {
      std::string problem = checkTensorSize(op.results[r]);
      if (!problem.empty()) {
        error =
            opPrefix(i, op) + "result " + std::to_string(r) + ": " + problem;
        return false;
      }
    }
    for (size_t j = 0; j < op.operands.size(); ++j) {
      int v = op.operands[j];
      if (v < 0 || v >= defined) {
        error = opPrefix(i, op) + "operand " + std::to_string(j) +
                " refers to value " + std::to_string(v) +
                ", which is not defined before the op (values 0.." +
                std::to_string(defined - 1) + " are)";
        return false;
      }
    }
    defined += static_cast<int>(op.results.size());
  }
  for (size_t j = 0; j < graph.yields.size(); ++j) {
    int v = graph.yields[j];
    if (v < 0 || v >= defined) {
      error = "yield " + std::to_string(j) + " refers to value " +
              std::to_string(v) + ", but the graph defines values 0.." +
              std::to_string(defined - 1);
      return false;
    }
  }
  return true;
}

std::optional<std::vector<Tensor>>
mlir::tfuse::ref::evaluateGraph(const RefGraph &graph,
                                const std::vector<Tensor> &inputs,
                                std::string &error) {
  if (!verifyGraph(graph, error))
    return std::nullopt;
  if (inputs.size() != graph.arguments.size()) {
    error = "the graph has " + plural(graph.arguments.size(), "argument") +
            " but " + plural(inputs.size(), "input") + " were given";
    return std::nullopt;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorType type{inputs[i].dtype, inputs[i].shape};
    if (type != graph.arguments[i] ||
        static_cast<int64_t>(inputs[i].data.size()) !=
            numElements(inputs[i].shape)) {
      error = "input " + std::to_string(i) + " is " + formatTensorType(type) +
              " but argument " + std::to_string(i) + " is " +
              formatTensorType(graph.arguments[i]);
      return std::nullopt;
    }
  }

  // Values are kept by pointer: arguments point into `inputs`, op results
  // into `computed`, which never reallocates (reserved up front).
  size_t numResults = 0;
  for (const RefOp &op : graph.ops)
    numResults += op.results.size();
  std::vector<Tensor> computed;
  computed.reserve(numResults);
  std::vector<const Tensor *> values;
  for (const Tensor &t : inputs)
    values.push_back(&t);

  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const RefOp &op = graph.ops[i];
    const OpInfo &info = *lookupOp(op.name);
    std::vector<const Tensor *> operands;
    for (int v : op.operands)
      operands.push_back(values[v]);
    std::string message;
    Tensors results = evaluateOp(info, op, operands, message);
    if (!message.empty()) {
      error = opPrefix(i, op) + message;
      return std::nullopt;
    }
    if (results.size() != op.results.size()) {
      error = opPrefix(i, op) + "the reference produced " +
              plural(results.size(), "result") + ", the graph declares " +
              std::to_string(op.results.size());
      return std::nullopt;
    }
    for (size_t r = 0; r < results.size(); ++r) {
      TensorType got{results[r].dtype, results[r].shape};
      const TensorType &declared = op.results[r];
      if (got == declared)
        continue;
      bool rejected = results[r].shape == std::vector<int64_t>{0} &&
                      numElements(declared.shape) != 0;
      if (rejected)
        error = opPrefix(i, op) + "the reference rejected the operands (" +
                describeOperands(operands) + ") for result " +
                formatTensorType(declared);
      else
        error = opPrefix(i, op) + "result " + std::to_string(r) + " is " +
                formatTensorType(got) + " but the graph declares " +
                formatTensorType(declared);
      return std::nullopt;
    }
    for (Tensor &t : results) {
      computed.push_back(std::move(t));
      values.push_back(&computed.back());
    }
  }

  std::vector<Tensor> yielded;
  for (int v : graph.yields)
    yielded.push_back(*values[v]);
  return yielded;
}

int64_t mlir::tfuse::ref::longestReduction(const RefGraph &graph) {
  int64_t longest = 0;
  auto operandShape = [&](const RefOp &op, size_t i) {
    const TensorType *t = valueType(graph, op.operands[i]);
    return t ? t->shape : std::vector<int64_t>{};
  };
  auto dimAt = [](const std::vector<int64_t> &shape, int64_t axis) -> int64_t {
    int64_t rank = static_cast<int64_t>(shape.size());
    if (axis < 0)
      axis += rank;
    return axis >= 0 && axis < rank ? shape[axis] : 0;
  };
  for (const RefOp &op : graph.ops) {
    const OpInfo *info = lookupOp(op.name);
    if (!info)
      continue;
    std::string ignored;
    AttributeReader attrs(op, ignored);
    int64_t length = 0;
    switch (info->code) {
    case OpCode::Reduce:
    case OpCode::Softmax:
      if (std::optional<int64_t> axis = attrs.getInt("axis"))
        length = dimAt(operandShape(op, 0), *axis);
      break;
    case OpCode::LayerNorm:
    case OpCode::RmsNorm:
    case OpCode::NormGrad:
    case OpCode::CrossEntropy:
    case OpCode::CrossEntropyGrad:
      length = dimAt(operandShape(op, 0), -1);
      break;
    case OpCode::Matmul: {
      std::vector<int64_t> lhs = operandShape(op, 0);
      bool transposed = attrs.getBool("transpose_lhs").value_or(false);
      length = dimAt(lhs, transposed ? -2 : -1);
      break;
    }
    case OpCode::Attention: {
      std::vector<int64_t> q = operandShape(op, 0), k = operandShape(op, 1);
      length = std::max(dimAt(q, -1), dimAt(k, -2));
      break;
    }
    case OpCode::AttentionGrad: {
      // dQ sums over the keys, dK and dV over the rows of every query head
      // of a group; dP over the value dim.
      std::vector<int64_t> q = operandShape(op, 0), k = operandShape(op, 1),
                           v = operandShape(op, 2);
      int64_t kvHeads = std::max<int64_t>(1, dimAt(k, 1));
      length = std::max({dimAt(q, -1), dimAt(v, -1), dimAt(k, -2),
                         dimAt(q, -2) * (dimAt(q, 1) / kvHeads)});
      break;
    }
    default:
      break;
    }
    longest = std::max(longest, length);
  }
  return longest;
}
