//===- Onnx.cpp - ONNX front end --------------------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements importOnnxModel(): one tfuse op (or a short sequence)
// per ONNX node, with the result types computed here from the static input
// shapes. Each supported operator is one entry of a table (operator type,
// input and output signature, converter); the driver checks a node against
// its signature and fetches its inputs before the converter runs. Built only
// when CMake finds libonnx-dev and libprotobuf-dev; OnnxUnavailable.cpp
// stands in otherwise.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/Onnx.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Support/CheckedInt.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

using namespace mlir;
using namespace mlir::tfuse;

bool mlir::tfuse::isOnnxImportAvailable() { return true; }

namespace {

/// "Conv", or "com.microsoft.Attention" outside the standard domain.
std::string qualifiedOpType(const onnx::NodeProto &node) {
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return node.op_type();
  return node.domain() + "." + node.op_type();
}

/// The node's name, or its position when it has none.
std::string nodeName(const onnx::NodeProto &node, size_t index) {
  if (!node.name().empty())
    return node.name();
  return "#" + std::to_string(index);
}

bool isFloatKind(int dataType) {
  return dataType == onnx::TensorProto::FLOAT ||
         dataType == onnx::TensorProto::FLOAT16 ||
         dataType == onnx::TensorProto::BFLOAT16 ||
         dataType == onnx::TensorProto::DOUBLE;
}

const char *describeDataType(int dataType) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return "float32";
  case onnx::TensorProto::FLOAT16:
    return "float16";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  case onnx::TensorProto::DOUBLE:
    return "float64";
  case onnx::TensorProto::INT32:
    return "int32";
  case onnx::TensorProto::INT64:
    return "int64";
  default:
    return "an unsupported element type";
  }
}

/// A tensor whose contents the importer knows: a Constant node's value or an
/// initializer that is read rather than passed in.
struct KnownTensor {
  SmallVector<int64_t> shape;
  bool isFloat = false;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  size_t size() const { return isFloat ? floats.size() : ints.size(); }
};

/// Elements of a shape checked by checkShape (-1 for any other).
int64_t numElements(ArrayRef<int64_t> shape) {
  return checkedTensorElements(shape).value_or(-1);
}

std::string formatShape(ArrayRef<int64_t> shape);

/// "" when `shape` can be a tfuse tensor's (no negative dimension, at most
/// kMaxTensorElements elements), else why not.
std::string checkShape(ArrayRef<int64_t> shape) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return "shape " + formatShape(shape) + " has a negative dimension";
  if (checkedTensorElements(shape))
    return "";
  std::optional<int64_t> count = checkedProduct(shape).get();
  return "shape " + formatShape(shape) + " has " +
         (count ? std::to_string(*count) : std::string("more than 2^63")) +
         " elements; a tensor may have at most 2^40 = " +
         std::to_string(kMaxTensorElements);
}

/// Reads a TensorProto's elements (from its typed fields or raw_data).
FailureOr<KnownTensor> readTensor(const onnx::TensorProto &tensor,
                                  std::string &error) {
  KnownTensor known;
  known.shape.assign(tensor.dims().begin(), tensor.dims().end());
  error = checkShape(known.shape);
  if (!error.empty())
    return failure();
  int64_t count = numElements(known.shape);
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "its data is stored outside the model file (external data)";
    return failure();
  }
  auto checkCount = [&](int64_t have) {
    if (have == count)
      return true;
    error = "it holds " + std::to_string(have) + " elements for a shape of " +
            std::to_string(count);
    return false;
  };
  // The elements as raw bytes of `zero`'s type, or else in the typed field.
  auto read = [&](auto zero, const auto &field, auto &out) {
    const std::string &raw = tensor.raw_data();
    if (!tensor.has_raw_data()) {
      if (!checkCount(field.size()))
        return false;
      out.assign(field.begin(), field.end());
      return true;
    }
    if (!checkCount(raw.size() / sizeof(zero)))
      return false;
    for (int64_t i = 0; i < count; ++i) {
      decltype(zero) value;
      std::memcpy(&value, raw.data() + i * sizeof(value), sizeof(value));
      out.push_back(value);
    }
    return true;
  };
  bool ok;
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    known.isFloat = true;
    ok = read(float(), tensor.float_data(), known.floats);
    break;
  case onnx::TensorProto::DOUBLE:
    known.isFloat = true;
    ok = read(double(), tensor.double_data(), known.floats);
    break;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    known.isFloat = true;
    const llvm::fltSemantics &semantics =
        tensor.data_type() == onnx::TensorProto::FLOAT16 ? APFloat::IEEEhalf()
                                                         : APFloat::BFloat();
    // int32_data holds the 16-bit patterns.
    std::vector<uint16_t> bits;
    ok = read(uint16_t(), tensor.int32_data(), bits);
    for (uint16_t b : bits)
      known.floats.push_back(
          APFloat(semantics, APInt(16, b)).convertToDouble());
    break;
  }
  case onnx::TensorProto::INT64:
    ok = read(int64_t(), tensor.int64_data(), known.ints);
    break;
  case onnx::TensorProto::INT32:
    ok = read(int32_t(), tensor.int32_data(), known.ints);
    break;
  default:
    error = std::string("its element type is ") +
            describeDataType(tensor.data_type());
    return failure();
  }
  if (!ok)
    return failure();
  return known;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node,
                                          StringRef name) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t intAttr(const onnx::NodeProto &node, StringRef name, int64_t fallback) {
  const onnx::AttributeProto *attr = findAttribute(node, name);
  return attr ? attr->i() : fallback;
}

double floatAttr(const onnx::NodeProto &node, StringRef name, double fallback) {
  const onnx::AttributeProto *attr = findAttribute(node, name);
  return attr ? attr->f() : fallback;
}

std::string stringAttr(const onnx::NodeProto &node, StringRef name,
                       StringRef fallback) {
  const onnx::AttributeProto *attr = findAttribute(node, name);
  return attr ? attr->s() : fallback.str();
}

//===----------------------------------------------------------------------===//
// Operator signatures
//===----------------------------------------------------------------------===//

/// How the driver fetches one input before the converter runs.
enum class InputKind {
  Float,   ///< a float tensor value
  Integer, ///< an integer tensor value (indices)
  Any,     ///< a tensor value of either kind, passed through
  Known,   ///< not fetched: the converter reads its contents (shapes, axes)
};

/// One input or output of an operator.
struct Slot {
  StringRef name;
  InputKind kind = InputKind::Float;
  bool optional = false;
  bool variadic = false;
};

/// The inputs or the outputs of an operator, written as in the ONNX operator
/// spec: "A, B, [C]". `[...]` marks an optional slot, a trailing `...` a
/// variadic one (one or more), and `:int`, `:any` or `:known` an input kind
/// other than float.
class Signature {
public:
  explicit Signature(StringRef text) {
    SmallVector<StringRef> parts;
    text.split(parts, ", ", /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (StringRef part : parts) {
      Slot slot;
      slot.optional = part.consume_front("[") && part.consume_back("]");
      auto [name, kind] = part.split(':');
      slot.variadic = name.consume_back("...");
      slot.name = name;
      slot.kind = kind == "int"     ? InputKind::Integer
                  : kind == "any"   ? InputKind::Any
                  : kind == "known" ? InputKind::Known
                                    : InputKind::Float;
      slots.push_back(slot);
    }
  }

  /// Whether a node may have `count` of these.
  bool admits(int count) const {
    return count >= required() && (variadic() || count <= int(slots.size()));
  }

  /// The slot of the `index`th input or output; a variadic last slot
  /// repeats. Only for an index that admits() allows.
  const Slot &slot(size_t index) const {
    return slots[std::min(index, slots.size() - 1)];
  }

  /// "2 to 3 inputs (A, B, [C])".
  std::string describe(StringRef noun) const {
    int least = required(), most = slots.size();
    std::string count = std::to_string(least);
    if (variadic())
      count = "at least " + count;
    else if (most != least)
      count += " to " + std::to_string(most);
    bool plural = variadic() ? least != 1 : most != 1;
    std::string names;
    for (const Slot &s : slots) {
      std::string name = s.name.str() + (s.variadic ? "..." : "");
      names +=
          (names.empty() ? "" : ", ") + (s.optional ? "[" + name + "]" : name);
    }
    return count + " " + noun.str() + (plural ? "s" : "") +
           (names.empty() ? "" : " (" + names + ")");
  }

private:
  int required() const {
    return llvm::count_if(slots, [](const Slot &s) { return !s.optional; });
  }
  bool variadic() const { return !slots.empty() && slots.back().variadic; }

  SmallVector<Slot, 4> slots;
};

class OnnxImporter;

/// Builds the tfuse ops of one node. `inputs[i]` is the value of input i as
/// the driver fetched it, null where the input is absent or Known.
using Converter = LogicalResult (OnnxImporter::*)(const onnx::NodeProto &node,
                                                  ArrayRef<Value> inputs);

/// One supported ONNX operator.
struct OnnxOperator {
  /// As qualifiedOpType() spells it: "Add", "com.microsoft.Gelu".
  const char *type;
  /// The input and output signatures (see Signature).
  const char *inputs, *outputs;
  Converter convert;
};

class OnnxImporter {
  using Node = onnx::NodeProto;
  /// A node's inputs as convertNode fetched them (see Converter).
  using Inputs = ArrayRef<Value>;

public:
  OnnxImporter(MLIRContext *context, const onnx::ModelProto &proto,
               const OnnxImportOptions &options)
      : context(context), proto(proto), graph(proto.graph()), options(options),
        builder(context) {}

  llvm::Expected<ImportedModel> run();

private:
  //===--------------------------------------------------------------------===//
  // Errors
  //===--------------------------------------------------------------------===//

  /// Records the first conversion error (later ones would only repeat it).
  LogicalResult fail(const Twine &message) {
    if (error.empty())
      error = message.str();
    return failure();
  }
  LogicalResult failNode(const Twine &message) {
    return fail("node '" + currentName + "' (" + currentType + "): " + message);
  }

  //===--------------------------------------------------------------------===//
  // Types and values
  //===--------------------------------------------------------------------===//

  LogicalResult chooseFloatType();
  RankedTensorType floatTensor(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, floatType);
  }
  static RankedTensorType typeOf(Value value) {
    return cast<RankedTensorType>(value.getType());
  }
  static ArrayRef<int64_t> shapeOf(Value value) {
    return typeOf(value).getShape();
  }
  bool isFloatValue(Value value) const {
    return typeOf(value).getElementType() == floatType;
  }
  Location loc() { return NameLoc::get(StringAttr::get(context, currentName)); }

  Value addArgument(StringRef name, RankedTensorType type, bool isWeight) {
    model.arguments.push_back(
        {name.str(), std::vector<int64_t>(type.getShape()), isWeight});
    return body->addArgument(type,
                             NameLoc::get(StringAttr::get(context, name)));
  }

  /// The value `name` as a tensor: computed, an argument, or a constant
  /// materialised on first use.
  FailureOr<Value> get(const std::string &name);
  FailureOr<Value> getFloat(const std::string &name);
  /// The known integer contents of `name` (shapes, sizes, axes).
  FailureOr<std::vector<int64_t>> getInts(const std::string &name);
  /// The known value of a one-element float or integer tensor.
  FailureOr<double> getScalar(const std::string &name);
  FailureOr<KnownTensor> getKnown(const std::string &name);
  Value materialize(const KnownTensor &known);
  Value scalarConstant(double value);

  //===--------------------------------------------------------------------===//
  // Nodes
  //===--------------------------------------------------------------------===//

  /// The table entry of `node`'s operator, or null when it is unsupported.
  static const OnnxOperator *findOperator(const Node &node);
  /// Checks `node` against the signatures of `op`, fetches its inputs and
  /// runs the converter.
  LogicalResult convertNode(const Node &node, const OnnxOperator &op);
  /// Refuses an output that names a tensor which already exists.
  LogicalResult claimOutputs(const Node &node);
  FailureOr<Value> getInput(const std::string &name, InputKind kind);
  LogicalResult bind(const Node &node, Value value, int index = 0);

  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);
  /// The node's `axis` attribute (or `fallback`) as a dimension of `rank`.
  FailureOr<int64_t> axisAttr(const Node &node, int64_t fallback, int64_t rank);
  /// The integer list given as input `index` (newer opsets) or as the
  /// attribute `name` (older ones); empty when neither is given.
  FailureOr<std::vector<int64_t>> knownInts(const Node &node, int index,
                                            StringRef name);
  /// The float tensor type of the numpy broadcast of two values.
  FailureOr<RankedTensorType> broadcastType(Value lhs, Value rhs);

  //===--------------------------------------------------------------------===//
  // Converters (see findOperator for the table)
  //===--------------------------------------------------------------------===//

  template <typename OpTy>
  LogicalResult convertUnary(const Node &node, Inputs inputs);
  template <typename OpTy>
  LogicalResult convertBinary(const Node &node, Inputs inputs);
  template <ReduceKind kind>
  LogicalResult convertReduce(const Node &node, Inputs inputs);
  LogicalResult convertGelu(const Node &node, Inputs inputs);
  LogicalResult convertFastGelu(const Node &node, Inputs inputs);
  LogicalResult convertPow(const Node &node, Inputs inputs);
  LogicalResult convertMatMul(const Node &node, Inputs inputs);
  LogicalResult convertGemm(const Node &node, Inputs inputs);
  LogicalResult convertSoftmax(const Node &node, Inputs inputs);
  LogicalResult convertLayerNorm(const Node &node, Inputs inputs);
  LogicalResult convertReshape(const Node &node, Inputs inputs);
  LogicalResult convertTranspose(const Node &node, Inputs inputs);
  LogicalResult convertSplit(const Node &node, Inputs inputs);
  LogicalResult convertConcat(const Node &node, Inputs inputs);
  LogicalResult convertGather(const Node &node, Inputs inputs);
  LogicalResult convertConstant(const Node &node, Inputs inputs);
  LogicalResult convertIdentity(const Node &node, Inputs inputs);
  LogicalResult convertDropout(const Node &node, Inputs inputs);
  LogicalResult convertCast(const Node &node, Inputs inputs);

  MLIRContext *context;
  const onnx::ModelProto &proto;
  const onnx::GraphProto &graph;
  const OnnxImportOptions &options;
  OpBuilder builder;
  Type floatType;
  int64_t opset = 1;
  Block *body = nullptr;
  ImportedModel model;
  std::string error;
  std::string currentName, currentType;

  llvm::StringMap<Value> values;
  llvm::StringMap<const onnx::TensorProto *> initializers;
  llvm::StringMap<KnownTensor> constants;
  /// What defines each tensor name: "a graph input", "an initializer" or
  /// "the output of node 'x'".
  llvm::StringMap<std::string> producers;
};

} // namespace

//===----------------------------------------------------------------------===//
// Types and values
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::chooseFloatType() {
  if (!options.dtype.empty()) {
    floatType = options.dtype == "f32"   ? builder.getF32Type()
                : options.dtype == "f16" ? builder.getF16Type()
                                         : builder.getBF16Type();
    return success();
  }
  std::set<int> kinds;
  for (const onnx::ValueInfoProto &input : graph.input())
    if (isFloatKind(input.type().tensor_type().elem_type()))
      kinds.insert(input.type().tensor_type().elem_type());
  for (const onnx::TensorProto &init : graph.initializer())
    if (isFloatKind(init.data_type()))
      kinds.insert(init.data_type());
  if (kinds.size() > 1) {
    std::string names;
    for (int kind : kinds)
      names += std::string(names.empty() ? "" : ", ") + describeDataType(kind);
    return fail("the model mixes float types (" + names +
                "); pass --dtype to import every float tensor as one type");
  }
  int kind = kinds.empty() ? int(onnx::TensorProto::FLOAT) : *kinds.begin();
  if (kind == onnx::TensorProto::FLOAT16)
    floatType = builder.getF16Type();
  else if (kind == onnx::TensorProto::BFLOAT16)
    floatType = builder.getBF16Type();
  else if (kind == onnx::TensorProto::FLOAT)
    floatType = builder.getF32Type();
  else
    return fail("the model's tensors are float64; pass --dtype bf16, f16 or "
                "f32");
  return success();
}

FailureOr<KnownTensor> OnnxImporter::getKnown(const std::string &name) {
  auto constant = constants.find(name);
  if (constant != constants.end())
    return constant->second;
  auto init = initializers.find(name);
  if (init == initializers.end())
    return failNode("'" + name +
                    "' must be a constant (an initializer or a Constant "
                    "node): the importer reads it");
  std::string why;
  FailureOr<KnownTensor> known = readTensor(*init->second, why);
  if (failed(known))
    return failNode("cannot read initializer '" + name + "': " + why);
  constants[name] = *known;
  return known;
}

FailureOr<std::vector<int64_t>> OnnxImporter::getInts(const std::string &name) {
  FailureOr<KnownTensor> known = getKnown(name);
  if (failed(known))
    return failure();
  if (known->isFloat)
    return failNode("'" + name + "' must hold integers");
  return known->ints;
}

FailureOr<double> OnnxImporter::getScalar(const std::string &name) {
  FailureOr<KnownTensor> known = getKnown(name);
  if (failed(known))
    return failure();
  if (known->size() != 1)
    return failNode("'" + name + "' must be a single number, it has " +
                    std::to_string(known->size()) + " elements");
  return known->isFloat ? known->floats[0] : double(known->ints[0]);
}

Value OnnxImporter::materialize(const KnownTensor &known) {
  if (known.isFloat) {
    auto type = floatTensor(known.shape);
    SmallVector<APFloat> elements;
    auto &semantics = cast<FloatType>(floatType).getFloatSemantics();
    for (double v : known.floats) {
      APFloat f(v);
      bool lost;
      f.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      elements.push_back(f);
    }
    return ConstantOp::create(builder, loc(),
                              DenseElementsAttr::get(type, elements));
  }
  auto type = RankedTensorType::get(known.shape, builder.getI64Type());
  return ConstantOp::create(
      builder, loc(),
      DenseElementsAttr::get(type, ArrayRef<int64_t>(known.ints)));
}

Value OnnxImporter::scalarConstant(double value) {
  KnownTensor known;
  known.isFloat = true;
  known.floats.push_back(value);
  return materialize(known);
}

FailureOr<Value> OnnxImporter::get(const std::string &name) {
  auto found = values.find(name);
  if (found != values.end())
    return found->second;
  auto init = initializers.find(name);
  if (init != initializers.end() && constants.find(name) == constants.end()) {
    const onnx::TensorProto &tensor = *init->second;
    SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
    if (std::string problem = checkShape(shape); !problem.empty())
      return failNode("initializer '" + name + "': " + problem);
    // Weights become arguments; scalars and integer tensors are constants.
    if (isFloatKind(tensor.data_type()) && numElements(shape) > 1) {
      Value arg = addArgument(name, floatTensor(shape), /*isWeight=*/true);
      values[name] = arg;
      return arg;
    }
  }
  if (constants.count(name) || initializers.count(name)) {
    FailureOr<KnownTensor> known = getKnown(name);
    if (failed(known))
      return failure();
    Value value = materialize(*known);
    values[name] = value;
    return value;
  }
  return failNode("input '" + name +
                  "' is not a graph input, an initializer or the output of an "
                  "earlier node");
}

FailureOr<Value> OnnxImporter::getFloat(const std::string &name) {
  FailureOr<Value> value = get(name);
  if (failed(value))
    return failure();
  if (!isFloatValue(*value))
    return failNode("input '" + name +
                    "' is an integer tensor; tfuse computes on floats only "
                    "(integer shape arithmetic is not supported)");
  return value;
}

//===----------------------------------------------------------------------===//
// Node helpers
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::claimOutputs(const Node &node) {
  for (const std::string &name : node.output()) {
    if (name.empty())
      continue;
    auto [it, inserted] =
        producers.try_emplace(name, "the output of node '" + currentName + "'");
    if (!inserted)
      return failNode("output '" + name + "' is already " + it->second);
  }
  return success();
}

FailureOr<Value> OnnxImporter::getInput(const std::string &name,
                                        InputKind kind) {
  if (kind == InputKind::Float)
    return getFloat(name);
  FailureOr<Value> value = get(name);
  if (succeeded(value) && kind == InputKind::Integer && isFloatValue(*value))
    return failNode("input '" + name + "' must be an integer tensor");
  return value;
}

LogicalResult OnnxImporter::bind(const Node &node, Value value, int index) {
  if (index < node.output_size() && !node.output(index).empty())
    values[node.output(index)] = value;
  return success();
}

FailureOr<int64_t> OnnxImporter::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failNode("axis " + std::to_string(axis) + " is out of range for " +
                    "rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

FailureOr<int64_t> OnnxImporter::axisAttr(const Node &node, int64_t fallback,
                                          int64_t rank) {
  return normalizeAxis(intAttr(node, "axis", fallback), rank);
}

FailureOr<std::vector<int64_t>>
OnnxImporter::knownInts(const Node &node, int index, StringRef name) {
  bool hasInput = index < node.input_size() && !node.input(index).empty();
  const onnx::AttributeProto *attr = findAttribute(node, name);
  if (hasInput && attr)
    return failNode("gives " + name + " both as an input and as an attribute");
  if (hasInput)
    return getInts(node.input(index));
  if (attr)
    return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
  return std::vector<int64_t>();
}

FailureOr<RankedTensorType> OnnxImporter::broadcastType(Value lhs, Value rhs) {
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(shapeOf(lhs), shapeOf(rhs));
  if (!shape)
    return failNode("shapes " + formatShape(shapeOf(lhs)) + " and " +
                    formatShape(shapeOf(rhs)) + " do not broadcast");
  return floatTensor(*shape);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult OnnxImporter::convertUnary(const Node &node, Inputs inputs) {
  return bind(node, OpTy::create(builder, loc(), inputs[0]));
}

template <typename OpTy>
LogicalResult OnnxImporter::convertBinary(const Node &node, Inputs inputs) {
  FailureOr<RankedTensorType> type = broadcastType(inputs[0], inputs[1]);
  if (failed(type))
    return failure();
  return bind(node, OpTy::create(builder, loc(), *type, inputs[0], inputs[1]));
}

// Gelu: ai.onnx (attribute approximate) and com.microsoft (erf).
LogicalResult OnnxImporter::convertGelu(const Node &node, Inputs inputs) {
  std::string approximate = stringAttr(node, "approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return failNode("approximate '" + approximate +
                    "' is neither 'none' nor 'tanh'");
  return bind(node,
              GeluOp::create(builder, loc(), inputs[0],
                             approximate == "tanh" ? GeluApproximation::tanh
                                                   : GeluApproximation::none));
}

// com.microsoft FastGelu: the tanh GELU of x + bias (the bias optional).
LogicalResult OnnxImporter::convertFastGelu(const Node &node, Inputs inputs) {
  Value x = inputs[0];
  if (inputs.size() > 1 && inputs[1]) {
    FailureOr<RankedTensorType> type = broadcastType(x, inputs[1]);
    if (failed(type))
      return failure();
    x = AddOp::create(builder, loc(), *type, x, inputs[1]);
  }
  return bind(node, GeluOp::create(builder, loc(), x, GeluApproximation::tanh));
}

// pow(x, 2) => x * x; pow(x, 3) => x * x * x; pow(x, 0.5) => sqrt(x);
// pow(x, -0.5) => rsqrt(x); pow(x, 1) => x.
LogicalResult OnnxImporter::convertPow(const Node &node, Inputs inputs) {
  FailureOr<double> exponent = getScalar(node.input(1));
  if (failed(exponent))
    return failure();
  Value x = inputs[0];
  Location at = loc();
  if (*exponent == 1.0)
    return bind(node, x);
  if (*exponent == 2.0 || *exponent == 3.0) {
    Value square = MulOp::create(builder, at, x.getType(), x, x);
    return bind(
        node, *exponent == 2.0
                  ? square
                  : Value(MulOp::create(builder, at, x.getType(), square, x)));
  }
  if (*exponent == 0.5)
    return bind(node, SqrtOp::create(builder, at, x));
  if (*exponent == -0.5)
    return bind(node, RsqrtOp::create(builder, at, x));
  char text[32];
  std::snprintf(text, sizeof(text), "%g", *exponent);
  return failNode("exponent " + Twine(text) +
                  " is not supported (0.5, 1, 2, 3 or -0.5)");
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertMatMul(const Node &node, Inputs inputs) {
  ArrayRef<int64_t> a = shapeOf(inputs[0]), b = shapeOf(inputs[1]);
  if (a.size() < 2 || b.size() < 2)
    return failNode("needs operands of rank >= 2, got " + formatShape(a) +
                    " and " + formatShape(b));
  if (a.back() != b[b.size() - 2])
    return failNode("cannot multiply " + formatShape(a) + " by " +
                    formatShape(b));
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(a.drop_back(2), b.drop_back(2));
  if (!batch)
    return failNode("batch dimensions of " + formatShape(a) + " and " +
                    formatShape(b) + " do not broadcast");
  SmallVector<int64_t> shape = *batch;
  shape.push_back(a[a.size() - 2]);
  shape.push_back(b.back());
  return bind(node, MatmulOp::create(builder, loc(), floatTensor(shape),
                                     inputs[0], inputs[1]));
}

// Gemm: alpha * op(A) op(B) + beta * C.
LogicalResult OnnxImporter::convertGemm(const Node &node, Inputs inputs) {
  bool transA = intAttr(node, "transA", 0), transB = intAttr(node, "transB", 0);
  double alpha = floatAttr(node, "alpha", 1.0),
         beta = floatAttr(node, "beta", 1.0);
  ArrayRef<int64_t> a = shapeOf(inputs[0]), b = shapeOf(inputs[1]);
  if (a.size() != 2 || b.size() != 2)
    return failNode("needs rank-2 operands, got " + formatShape(a) + " and " +
                    formatShape(b));
  int64_t m = transA ? a[1] : a[0], k = transA ? a[0] : a[1];
  int64_t kb = transB ? b[1] : b[0], n = transB ? b[0] : b[1];
  if (k != kb)
    return failNode("inner dimensions differ: " + formatShape(a) + " and " +
                    formatShape(b));
  Location at = loc();
  RankedTensorType type = floatTensor({m, n});
  Value y =
      MatmulOp::create(builder, at, type, inputs[0], inputs[1], transA, transB);
  if (alpha != 1.0)
    y = MulOp::create(builder, at, type, y, scalarConstant(alpha));
  if (inputs.size() > 2 && inputs[2]) {
    Value bias = inputs[2];
    std::optional<SmallVector<int64_t>> shape =
        broadcastShapes(type.getShape(), shapeOf(bias));
    if (!shape || ArrayRef<int64_t>(*shape) != type.getShape())
      return failNode("C of shape " + formatShape(shapeOf(bias)) +
                      " does not broadcast to " + formatShape(type.getShape()));
    if (beta != 1.0)
      bias = MulOp::create(builder, at, bias.getType(), bias,
                           scalarConstant(beta));
    y = AddOp::create(builder, at, type, y, bias);
  }
  return bind(node, y);
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertSoftmax(const Node &node, Inputs inputs) {
  int64_t rank = shapeOf(inputs[0]).size();
  // Before opset 13, Softmax flattened to 2-D at `axis` (default 1); that is
  // a softmax along one axis only when the axis is the last one.
  FailureOr<int64_t> axis = axisAttr(node, opset >= 13 ? -1 : 1, rank);
  if (failed(axis))
    return failure();
  if (opset < 13 && *axis != rank - 1)
    return failNode("opset " + std::to_string(opset) +
                    " Softmax over the flattened axes " +
                    std::to_string(*axis) + ".." + std::to_string(rank - 1) +
                    " is not supported (only the last axis)");
  return bind(node, SoftmaxOp::create(builder, loc(), inputs[0],
                                      static_cast<uint64_t>(*axis)));
}

LogicalResult OnnxImporter::convertLayerNorm(const Node &node, Inputs inputs) {
  Value input = inputs[0], gamma = inputs[1];
  Value beta = inputs.size() > 2 ? inputs[2] : Value();
  int64_t rank = shapeOf(input).size();
  FailureOr<int64_t> axis = axisAttr(node, -1, rank);
  if (failed(axis))
    return failure();
  if (*axis != rank - 1)
    return failNode("normalises from axis " + std::to_string(*axis) +
                    "; tfuse.layer_norm normalises the last axis only");
  for (int i = 1; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      return failNode("its Mean and InvStdDev outputs are not supported");
  int64_t width = shapeOf(input).back();
  for (Value param : {gamma, beta})
    if (param && ArrayRef<int64_t>(shapeOf(param)) != ArrayRef<int64_t>{width})
      return failNode("Scale and B must have shape [" + std::to_string(width) +
                      "], got " + formatShape(shapeOf(param)));
  return bind(node, LayerNormOp::create(
                        builder, loc(), input.getType(), input, gamma, beta,
                        APFloat(floatAttr(node, "epsilon", 1e-5))));
}

template <ReduceKind kind>
LogicalResult OnnxImporter::convertReduce(const Node &node, Inputs inputs) {
  FailureOr<std::vector<int64_t>> axes = knownInts(node, 1, "axes");
  if (failed(axes))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(inputs[0]);
  if (axes->size() != 1)
    return failNode("reduces over " +
                    (axes->empty() ? std::string("all axes")
                                   : std::to_string(axes->size()) + " axes") +
                    "; tfuse.reduce takes exactly one axis");
  FailureOr<int64_t> axis = normalizeAxis((*axes)[0], shape.size());
  if (failed(axis))
    return failure();
  bool keepDims = intAttr(node, "keepdims", 1);
  SmallVector<int64_t> result(shape);
  if (keepDims)
    result[*axis] = 1;
  else
    result.erase(result.begin() + *axis);
  return bind(node, ReduceOp::create(builder, loc(), floatTensor(result), kind,
                                     inputs[0], static_cast<uint64_t>(*axis),
                                     keepDims));
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertReshape(const Node &node, Inputs inputs) {
  FailureOr<std::vector<int64_t>> target = getInts(node.input(1));
  if (failed(target))
    return failure();
  ArrayRef<int64_t> from = shapeOf(inputs[0]);
  bool allowZero = intAttr(node, "allowzero", 0);
  SmallVector<int64_t> shape;
  CheckedInt known = 1;
  int inferred = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    int64_t d = (*target)[i];
    if (d == 0 && !allowZero) {
      if (i >= from.size())
        return failNode("shape entry 0 at position " + std::to_string(i) +
                        " has no input dimension to copy");
      d = from[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return failNode("the shape has more than one -1");
      inferred = shape.size();
    } else if (d < 0) {
      return failNode("invalid shape entry " + std::to_string(d));
    } else {
      known *= d;
    }
    shape.push_back(d);
  }
  int64_t total = numElements(from);
  if (inferred >= 0) {
    std::optional<int64_t> rest = known.get();
    if (!rest || *rest == 0 || total % *rest != 0)
      return failNode("cannot infer the -1 of shape " + formatShape(*target) +
                      " for " + std::to_string(total) + " elements");
    shape[inferred] = total / *rest;
  }
  if (checkedProduct(shape).get() != total)
    return failNode("cannot reshape " + formatShape(from) + " into " +
                    formatShape(shape));
  return bind(node,
              ReshapeOp::create(builder, loc(), floatTensor(shape), inputs[0]));
}

LogicalResult OnnxImporter::convertTranspose(const Node &node, Inputs inputs) {
  ArrayRef<int64_t> from = shapeOf(inputs[0]);
  SmallVector<int64_t> perm;
  if (const onnx::AttributeProto *attr = findAttribute(node, "perm"))
    perm.assign(attr->ints().begin(), attr->ints().end());
  else
    for (int64_t i = from.size() - 1; i >= 0; --i)
      perm.push_back(i);
  if (perm.size() != from.size())
    return failNode("perm has " + std::to_string(perm.size()) +
                    " entries for rank " + std::to_string(from.size()));
  SmallVector<int64_t> shape;
  SmallVector<bool> seen(from.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= int64_t(from.size()) || seen[p])
      return failNode("perm " + formatShape(perm) + " is not a permutation");
    seen[p] = true;
    shape.push_back(from[p]);
  }
  return bind(node, TransposeOp::create(builder, loc(), floatTensor(shape),
                                        inputs[0], perm));
}

LogicalResult OnnxImporter::convertSplit(const Node &node, Inputs inputs) {
  ArrayRef<int64_t> from = shapeOf(inputs[0]);
  FailureOr<int64_t> axis = axisAttr(node, 0, from.size());
  if (failed(axis))
    return failure();
  FailureOr<std::vector<int64_t>> sizes = knownInts(node, 1, "split");
  if (failed(sizes))
    return failure();
  int64_t pieces = node.output_size();
  if (sizes->empty()) {
    if (from[*axis] % pieces != 0)
      return failNode("cannot split " + std::to_string(from[*axis]) + " into " +
                      std::to_string(pieces) + " equal pieces");
    sizes->assign(pieces, from[*axis] / pieces);
  }
  if (llvm::any_of(*sizes, [](int64_t s) { return s < 0; }))
    return failNode("split sizes " + formatShape(*sizes) +
                    " must not be negative");
  // Summed without overflow: a size beyond what is left cannot cover.
  int64_t sum = 0;
  bool fits = true;
  for (int64_t s : *sizes) {
    fits = fits && s <= from[*axis] - sum;
    if (fits)
      sum += s;
  }
  if (int64_t(sizes->size()) != pieces || !fits || sum != from[*axis])
    return failNode("split sizes " + formatShape(*sizes) + " do not cover " +
                    std::to_string(from[*axis]) + " in " +
                    std::to_string(pieces) + " outputs");
  SmallVector<Type> types;
  for (int64_t s : *sizes) {
    SmallVector<int64_t> shape(from);
    shape[*axis] = s;
    types.push_back(floatTensor(shape));
  }
  auto split = SplitOp::create(builder, loc(), types, inputs[0],
                               static_cast<uint64_t>(*axis));
  for (int i = 0; i < pieces; ++i)
    (void)bind(node, split.getResult(i), i);
  return success();
}

LogicalResult OnnxImporter::convertConcat(const Node &node, Inputs inputs) {
  SmallVector<int64_t> shape(shapeOf(inputs[0]));
  FailureOr<int64_t> axis = axisAttr(node, 0, shape.size());
  if (failed(axis))
    return failure();
  for (Value other : inputs.drop_front()) {
    ArrayRef<int64_t> s = shapeOf(other);
    for (size_t d = 0; d < shape.size(); ++d)
      if (s.size() != shape.size() || (int64_t(d) != *axis && s[d] != shape[d]))
        return failNode("inputs " + formatShape(shapeOf(inputs[0])) + " and " +
                        formatShape(s) + " differ off the concat axis");
    shape[*axis] += s[*axis];
  }
  return bind(node, ConcatOp::create(builder, loc(), floatTensor(shape), inputs,
                                     static_cast<uint64_t>(*axis)));
}

LogicalResult OnnxImporter::convertGather(const Node &node, Inputs inputs) {
  if (intAttr(node, "axis", 0) != 0)
    return failNode("gathers along axis " +
                    std::to_string(intAttr(node, "axis", 0)) +
                    "; only embedding lookups (axis 0) are supported");
  Value table = inputs[0], indices = inputs[1];
  SmallVector<int64_t> shape(shapeOf(indices));
  llvm::append_range(shape, shapeOf(table).drop_front());
  return bind(node, GatherOp::create(builder, loc(), floatTensor(shape), table,
                                     indices));
}

//===----------------------------------------------------------------------===//
// Constants and pass-throughs
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertConstant(const Node &node, Inputs inputs) {
  KnownTensor known;
  if (const onnx::AttributeProto *attr = findAttribute(node, "value")) {
    std::string why;
    FailureOr<KnownTensor> read = readTensor(attr->t(), why);
    if (failed(read))
      return failNode("cannot read its value: " + why);
    known = *read;
  } else if ((attr = findAttribute(node, "value_float"))) {
    known.isFloat = true;
    known.floats.push_back(attr->f());
  } else if ((attr = findAttribute(node, "value_floats"))) {
    known.isFloat = true;
    known.floats.assign(attr->floats().begin(), attr->floats().end());
    known.shape.push_back(known.floats.size());
  } else if ((attr = findAttribute(node, "value_int"))) {
    known.ints.push_back(attr->i());
  } else if ((attr = findAttribute(node, "value_ints"))) {
    known.ints.assign(attr->ints().begin(), attr->ints().end());
    known.shape.push_back(known.ints.size());
  } else {
    return failNode("has no value, value_float(s) or value_int(s) attribute");
  }
  constants[node.output(0)] = known;
  return success();
}

// Every float tensor has the one float type, so Identity, a float Cast and
// inference Dropout are all the identity.
LogicalResult OnnxImporter::convertIdentity(const Node &node, Inputs inputs) {
  return bind(node, inputs[0]);
}

LogicalResult OnnxImporter::convertDropout(const Node &node, Inputs inputs) {
  if (node.output_size() > 1 && !node.output(1).empty())
    return failNode("its mask output is not supported");
  return convertIdentity(node, inputs);
}

LogicalResult OnnxImporter::convertCast(const Node &node, Inputs inputs) {
  if (!isFloatKind(intAttr(node, "to", 0)))
    return failNode(std::string("casts to ") +
                    describeDataType(intAttr(node, "to", 0)) +
                    "; only casts between float types are supported");
  return convertIdentity(node, inputs);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

const OnnxOperator *OnnxImporter::findOperator(const Node &node) {
  using I = OnnxImporter;
  static const OnnxOperator operators[] = {
      {"Add", "A, B", "C", &I::convertBinary<AddOp>},
      {"Sub", "A, B", "C", &I::convertBinary<SubOp>},
      {"Mul", "A, B", "C", &I::convertBinary<MulOp>},
      {"Div", "A, B", "C", &I::convertBinary<DivOp>},
      {"Pow", "X, Y:known", "Z", &I::convertPow},
      {"Sqrt", "X", "Y", &I::convertUnary<SqrtOp>},
      {"Erf", "input", "output", &I::convertUnary<ErfOp>},
      {"Tanh", "input", "output", &I::convertUnary<TanhOp>},
      {"Exp", "input", "output", &I::convertUnary<ExpOp>},
      {"Log", "input", "output", &I::convertUnary<LogOp>},
      {"Neg", "X", "Y", &I::convertUnary<NegOp>},
      {"Relu", "X", "Y", &I::convertUnary<ReluOp>},
      {"Sigmoid", "X", "Y", &I::convertUnary<SigmoidOp>},
      {"Gelu", "X", "Y", &I::convertGelu},
      {"com.microsoft.Gelu", "X", "Y", &I::convertGelu},
      {"com.microsoft.FastGelu", "X, [bias]", "Y", &I::convertFastGelu},
      {"MatMul", "A, B", "Y", &I::convertMatMul},
      {"Gemm", "A, B, [C]", "Y", &I::convertGemm},
      {"Softmax", "input", "output", &I::convertSoftmax},
      {"LayerNormalization", "X, Scale, [B]", "Y, [Mean], [InvStdDev]",
       &I::convertLayerNorm},
      {"ReduceMean", "data, [axes:known]", "reduced",
       &I::convertReduce<ReduceKind::mean>},
      {"ReduceSum", "data, [axes:known]", "reduced",
       &I::convertReduce<ReduceKind::sum>},
      {"ReduceMax", "data, [axes:known]", "reduced",
       &I::convertReduce<ReduceKind::max>},
      {"Reshape", "data, shape:known", "reshaped", &I::convertReshape},
      {"Transpose", "data", "transposed", &I::convertTranspose},
      {"Split", "input, [split:known]", "outputs...", &I::convertSplit},
      {"Concat", "inputs...", "concat_result", &I::convertConcat},
      {"Gather", "data, indices:int", "output", &I::convertGather},
      {"Constant", "", "output", &I::convertConstant},
      {"Identity", "input:any", "output", &I::convertIdentity},
      {"Dropout", "data:any, [ratio:known], [training_mode:known]",
       "output, [mask]", &I::convertDropout},
      {"Cast", "input:any", "output", &I::convertCast},
  };
  std::string type = qualifiedOpType(node);
  for (const OnnxOperator &op : operators)
    if (type == op.type)
      return &op;
  return nullptr;
}

LogicalResult OnnxImporter::convertNode(const Node &node,
                                        const OnnxOperator &op) {
  Signature inputs(op.inputs), outputs(op.outputs);
  if (!inputs.admits(node.input_size()))
    return failNode("expects " + inputs.describe("input") + ", got " +
                    Twine(node.input_size()));
  if (!outputs.admits(node.output_size()))
    return failNode("expects " + outputs.describe("output") + ", got " +
                    Twine(node.output_size()));
  if (failed(claimOutputs(node)))
    return failure();
  SmallVector<Value, 4> operands;
  for (auto [index, name] : llvm::enumerate(node.input())) {
    const Slot &slot = inputs.slot(index);
    if (slot.kind == InputKind::Known || (slot.optional && name.empty())) {
      operands.push_back(Value());
      continue;
    }
    FailureOr<Value> value = getInput(name, slot.kind);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  return (this->*op.convert)(node, operands);
}

llvm::Expected<ImportedModel> OnnxImporter::run() {
  auto makeError = [&](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  for (const onnx::OperatorSetIdProto &set : proto.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();

  // Every unsupported operator, with its nodes, in one error.
  std::vector<std::pair<std::string, std::vector<std::string>>> unsupported;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    if (findOperator(node))
      continue;
    std::string type = qualifiedOpType(node);
    auto it = llvm::find_if(
        unsupported, [&](const auto &entry) { return entry.first == type; });
    if (it == unsupported.end())
      it = unsupported.insert(unsupported.end(), {type, {}});
    it->second.push_back(nodeName(node, index));
  }
  if (!unsupported.empty()) {
    size_t count = 0;
    std::string list;
    for (auto &[type, names] : unsupported) {
      count += names.size();
      list += (list.empty() ? "" : ", ") + type + " (";
      for (size_t i = 0; i < names.size(); ++i)
        list += (i ? ", " : "") + names[i];
      list += ")";
    }
    return makeError("unsupported ONNX operators in " + Twine(count) +
                     (count == 1 ? " node: " : " nodes: ") + list);
  }

  if (failed(chooseFloatType()))
    return makeError(error);
  for (const onnx::TensorProto &init : graph.initializer()) {
    initializers[init.name()] = &init;
    producers[init.name()] = "an initializer";
  }

  model.module =
      ModuleOp::create(NameLoc::get(StringAttr::get(context, "onnx")));
  // Owned here until the function takes it: an error return frees it.
  auto ownedBody = std::make_unique<Block>();
  body = ownedBody.get();
  builder.setInsertionPointToEnd(body);

  // Graph inputs (older exporters also list the initializers there).
  std::vector<std::string> unbound;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    if (!input.type().has_tensor_type() || !tensor.has_shape())
      return makeError("graph input '" + input.name() +
                       "' has no tensor shape");
    SmallVector<int64_t> shape;
    for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
      if (dim.has_dim_value()) {
        shape.push_back(dim.dim_value());
        continue;
      }
      auto bound = options.dims.find(dim.dim_param());
      if (dim.has_dim_param() && bound != options.dims.end()) {
        shape.push_back(bound->second);
        continue;
      }
      std::string name = dim.has_dim_param() ? dim.dim_param() : "?";
      unbound.push_back("'" + input.name() + "' dimension " +
                        std::to_string(shape.size()) + " (" + name + ")");
      shape.push_back(1);
    }
    if (std::string problem = checkShape(shape); !problem.empty())
      return makeError("graph input '" + input.name() + "': " + problem);
    int kind = tensor.elem_type();
    Type element;
    if (isFloatKind(kind))
      element = floatType;
    else if (kind == onnx::TensorProto::INT64)
      element = builder.getI64Type();
    else if (kind == onnx::TensorProto::INT32)
      element = builder.getI32Type();
    else
      return makeError("graph input '" + input.name() + "' has element type " +
                       describeDataType(kind));
    values[input.name()] =
        addArgument(input.name(), RankedTensorType::get(shape, element),
                    /*isWeight=*/false);
    producers[input.name()] = "a graph input";
  }
  if (!unbound.empty()) {
    std::string list;
    for (const std::string &u : unbound)
      list += (list.empty() ? "" : ", ") + u;
    return makeError("symbolic dimensions need a value (--dim NAME=VALUE): " +
                     list);
  }

  for (auto [index, node] : llvm::enumerate(graph.node())) {
    currentName = nodeName(node, index);
    currentType = qualifiedOpType(node);
    if (failed(convertNode(node, *findOperator(node))))
      return makeError(error);
  }

  currentName = "outputs";
  currentType = "graph";
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    FailureOr<Value> value = get(output.name());
    if (failed(value))
      return makeError(error);
    results.push_back(*value);
  }
  if (results.empty())
    return makeError("the graph has no outputs");
  func::ReturnOp::create(builder, loc(), results);

  OpBuilder moduleBuilder(context);
  moduleBuilder.setInsertionPointToEnd(model.module->getBody());
  auto type = FunctionType::get(context, body->getArgumentTypes(),
                                ValueRange(results).getTypes());
  auto func = func::FuncOp::create(
      moduleBuilder, NameLoc::get(StringAttr::get(context, "forward")),
      "forward", type);
  func.getBody().push_back(ownedBody.release());
  for (auto [index, arg] : llvm::enumerate(model.arguments))
    func.setArgAttr(index, "tfuse.name", StringAttr::get(context, arg.name));

  model.summary = std::to_string(graph.node_size()) + " nodes, opset " +
                  std::to_string(opset);
  if (!proto.producer_name().empty())
    model.summary += ", produced by " + proto.producer_name();
  return std::move(model);
}

llvm::Expected<ImportedModel>
mlir::tfuse::importOnnxModel(MLIRContext *context, llvm::StringRef path,
                             const OnnxImportOptions &options) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot open '" + path +
                                       "': " + buffer.getError().message());
  return importOnnxModelFromBytes(context, (*buffer)->getBuffer(), options);
}

llvm::Expected<ImportedModel>
mlir::tfuse::importOnnxModelFromBytes(MLIRContext *context,
                                      llvm::StringRef bytes,
                                      const OnnxImportOptions &options) {
  onnx::ModelProto proto;
  if (bytes.empty() || bytes.size() > size_t(INT_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "not a valid ONNX model: the file does not parse as an ONNX "
        "ModelProto (protobuf)");
  if (!proto.has_graph() || proto.graph().node_size() == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "not a valid ONNX model: it has no graph "
                                   "nodes");
  context->loadDialect<TFuseDialect, func::FuncDialect>();
  return OnnxImporter(context, proto, options).run();
}
