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
#include "tfuse/Import/AttentionMatch.h"
#include "tfuse/Support/CheckedInt.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
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
  case onnx::TensorProto::BOOL:
    return "bool";
  case onnx::TensorProto::INT8:
    return "int8";
  case onnx::TensorProto::UINT8:
    return "uint8";
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
  /// Element `i` as a double.
  double number(size_t i) const {
    return isFloat ? floats[i] : double(ints[i]);
  }
  /// Appends element `i` of `from` (of the same kind).
  void append(const KnownTensor &from, size_t i) {
    if (isFloat)
      floats.push_back(from.floats[i]);
    else
      ints.push_back(from.ints[i]);
  }
  /// An empty tensor of `like`'s kind with `shape`.
  static KnownTensor like(const KnownTensor &like, ArrayRef<int64_t> shape) {
    KnownTensor t;
    t.shape.assign(shape.begin(), shape.end());
    t.isFloat = like.isFloat;
    return t;
  }
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
  // int32_data holds the values of the narrower integer types.
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::UINT8:
    ok = read(uint8_t(), tensor.int32_data(), known.ints);
    break;
  case onnx::TensorProto::INT8:
    ok = read(int8_t(), tensor.int32_data(), known.ints);
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

/// Evaluates one node whose inputs are all known at import (`inputs[i]` is
/// input i, empty where the input is absent) and records its outputs as
/// known tensors.
using Folder = LogicalResult (OnnxImporter::*)(const onnx::NodeProto &node,
                                               ArrayRef<KnownTensor> inputs);

/// One supported ONNX operator.
struct OnnxOperator {
  /// As qualifiedOpType() spells it: "Add", "com.microsoft.Gelu".
  const char *type;
  /// The input and output signatures (see Signature).
  const char *inputs, *outputs;
  /// Builds tfuse ops; null for an operator that is only evaluated at
  /// import (shape arithmetic).
  Converter convert;
  /// Evaluates the node at import when all its inputs are known; null for
  /// an operator that is always converted.
  Folder fold = nullptr;
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
  LogicalResult convertAdd(const Node &node, Inputs inputs);
  /// tfuse.rope for x * cos + rotate_half(x) * sin (either order), or null.
  Value matchRotary(Value lhs, Value rhs);
  Value matchRotary(Value x, Value cos, Value half, Value sin);
  const onnx::TensorProto *initializerOf(Value value);
  /// The elements of a weight argument's initializer or of a float
  /// constant, for matchAttention.
  std::optional<std::vector<double>> knownFloats(Value value);
  LogicalResult convertReciprocal(const Node &node, Inputs inputs);
  LogicalResult convertUnsqueeze(const Node &node, Inputs inputs);
  LogicalResult convertSqueeze(const Node &node, Inputs inputs);
  LogicalResult convertSlice(const Node &node, Inputs inputs);
  LogicalResult convertExpand(const Node &node, Inputs inputs);
  LogicalResult convertWhere(const Node &node, Inputs inputs);
  LogicalResult convertShape(const Node &node, Inputs inputs);

  //===--------------------------------------------------------------------===//
  // Import-time evaluation (see findOperator for the table)
  //===--------------------------------------------------------------------===//

  /// Whether `name` is known at import: a Constant node's or a folded
  /// node's output, an integer initializer or a float scalar one. Float
  /// initializers of more elements are weights (arguments), never folded.
  bool isKnown(const std::string &name) const;
  /// Records `known` as output `index` of `node`, refusing one too large to
  /// evaluate at import.
  LogicalResult bindKnown(const Node &node, KnownTensor known, int index = 0);
  /// Binds `known` with its elements in `shape` (a view), or fails.
  LogicalResult bindReshaped(const Node &node, KnownTensor known,
                             FailureOr<SmallVector<int64_t>> shape);
  template <typename FloatFn, typename IntFn>
  LogicalResult foldBinary(const Node &node, ArrayRef<KnownTensor> inputs,
                           bool compare, FloatFn onFloats, IntFn onInts);
  template <typename Fn>
  LogicalResult foldUnary(const Node &node, ArrayRef<KnownTensor> inputs,
                          Fn fn);
  LogicalResult foldAdd(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldSub(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldMul(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldDiv(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldEqual(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldLess(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldLessOrEqual(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldGreater(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldGreaterOrEqual(const Node &node,
                                   ArrayRef<KnownTensor> inputs);
  LogicalResult foldAnd(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldOr(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldNot(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldNeg(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldSqrt(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldReciprocal(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldPow(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldWhere(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldCast(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldIdentity(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldShape(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldConstantOfShape(const Node &node,
                                    ArrayRef<KnownTensor> inputs);
  LogicalResult foldRange(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldReshape(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldUnsqueeze(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldSqueeze(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldExpand(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldConcat(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldSlice(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldGather(const Node &node, ArrayRef<KnownTensor> inputs);
  LogicalResult foldGatherElements(const Node &node,
                                   ArrayRef<KnownTensor> inputs);
  LogicalResult foldTranspose(const Node &node, ArrayRef<KnownTensor> inputs);

  /// Shared by the converters and folders of the layout operators: the
  /// result shape of each, from the input shape and the node's known
  /// operands.
  FailureOr<SmallVector<int64_t>> reshapeTarget(const Node &node,
                                                ArrayRef<int64_t> from,
                                                ArrayRef<int64_t> target);
  FailureOr<SmallVector<int64_t>> unsqueezeShape(const Node &node,
                                                 ArrayRef<int64_t> from);
  FailureOr<SmallVector<int64_t>> squeezeShape(const Node &node,
                                               ArrayRef<int64_t> from);
  FailureOr<SmallVector<int64_t>> expandShape(ArrayRef<int64_t> from,
                                              ArrayRef<int64_t> target);
  /// Per axis of `from`: the start, step and count that Slice selects.
  struct SliceBox {
    SmallVector<int64_t> starts, steps, sizes;
  };
  FailureOr<SliceBox> sliceBox(const Node &node, ArrayRef<int64_t> from);
  /// Transpose's `perm` (reversed axes by default), checked for `rank`.
  FailureOr<SmallVector<int64_t>> permutation(const Node &node, int64_t rank);

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
    // One value throughout (a mask of zeros) is stored once.
    if (!elements.empty() && llvm::all_of(elements, [&](const APFloat &e) {
          return e.bitwiseIsEqual(elements[0]);
        }))
      return ConstantOp::create(builder, loc(),
                                DenseElementsAttr::get(type, elements[0]));
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

FailureOr<SmallVector<int64_t>>
OnnxImporter::reshapeTarget(const Node &node, ArrayRef<int64_t> from,
                            ArrayRef<int64_t> target) {
  bool allowZero = intAttr(node, "allowzero", 0);
  SmallVector<int64_t> shape;
  CheckedInt known = 1;
  int inferred = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
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
      return failNode("cannot infer the -1 of shape " + formatShape(target) +
                      " for " + std::to_string(total) + " elements");
    shape[inferred] = total / *rest;
  }
  if (checkedProduct(shape).get() != total)
    return failNode("cannot reshape " + formatShape(from) + " into " +
                    formatShape(shape));
  return shape;
}

/// A reshape keeps the element type: integer indices (token ids viewed as
/// [B * S]) are reshaped like float activations.
LogicalResult OnnxImporter::convertReshape(const Node &node, Inputs inputs) {
  FailureOr<std::vector<int64_t>> target = getInts(node.input(1));
  if (failed(target))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      reshapeTarget(node, shapeOf(inputs[0]), *target);
  if (failed(shape))
    return failure();
  auto type = RankedTensorType::get(*shape, typeOf(inputs[0]).getElementType());
  return bind(node, ReshapeOp::create(builder, loc(), type, inputs[0]));
}

FailureOr<SmallVector<int64_t>> OnnxImporter::permutation(const Node &node,
                                                          int64_t rank) {
  SmallVector<int64_t> perm;
  if (const onnx::AttributeProto *attr = findAttribute(node, "perm"))
    perm.assign(attr->ints().begin(), attr->ints().end());
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  if (int64_t(perm.size()) != rank)
    return failNode("perm has " + std::to_string(perm.size()) +
                    " entries for rank " + std::to_string(rank));
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return failNode("perm " + formatShape(perm) + " is not a permutation");
    seen[p] = true;
  }
  return perm;
}

LogicalResult OnnxImporter::convertTranspose(const Node &node, Inputs inputs) {
  ArrayRef<int64_t> from = shapeOf(inputs[0]);
  FailureOr<SmallVector<int64_t>> perm = permutation(node, from.size());
  if (failed(perm))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : *perm)
    shape.push_back(from[p]);
  return bind(node, TransposeOp::create(builder, loc(), floatTensor(shape),
                                        inputs[0], *perm));
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
  if (!isFloatValue(inputs[0]))
    return failNode("casts the integer tensor '" + node.input(0) +
                    "', which is only known when the graph runs, to a float "
                    "type; only casts between float types are supported");
  return convertIdentity(node, inputs);
}

//===----------------------------------------------------------------------===//
// Shapes, views and selections
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertReciprocal(const Node &node, Inputs inputs) {
  Value x = inputs[0];
  return bind(
      node, DivOp::create(builder, loc(), x.getType(), scalarConstant(1.0), x));
}

FailureOr<SmallVector<int64_t>>
OnnxImporter::unsqueezeShape(const Node &node, ArrayRef<int64_t> from) {
  FailureOr<std::vector<int64_t>> axes = knownInts(node, 1, "axes");
  if (failed(axes))
    return failure();
  if (axes->empty())
    return failNode("has no axes");
  int64_t rank = from.size() + axes->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    FailureOr<int64_t> axis = normalizeAxis(a, rank);
    if (failed(axis))
      return failure();
    if (inserted[*axis])
      return failNode("axes " + formatShape(*axes) + " repeat an axis");
    inserted[*axis] = true;
  }
  SmallVector<int64_t> shape;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : from[next++]);
  return shape;
}

FailureOr<SmallVector<int64_t>>
OnnxImporter::squeezeShape(const Node &node, ArrayRef<int64_t> from) {
  FailureOr<std::vector<int64_t>> axes = knownInts(node, 1, "axes");
  if (failed(axes))
    return failure();
  SmallVector<bool> removed(from.size(), axes->empty());
  for (int64_t a : *axes) {
    FailureOr<int64_t> axis = normalizeAxis(a, from.size());
    if (failed(axis))
      return failure();
    if (from[*axis] != 1)
      return failNode("cannot squeeze axis " + std::to_string(*axis) + " of " +
                      formatShape(from) + ": its size is not 1");
    removed[*axis] = true;
  }
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < from.size(); ++d)
    if (!removed[d] || from[d] != 1)
      shape.push_back(from[d]);
  return shape;
}

FailureOr<SmallVector<int64_t>>
OnnxImporter::expandShape(ArrayRef<int64_t> from, ArrayRef<int64_t> target) {
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(from, target);
  if (!shape)
    return failNode("cannot expand " + formatShape(from) + " to " +
                    formatShape(target));
  if (std::string problem = checkShape(*shape); !problem.empty())
    return failNode("the expanded " + problem);
  return *shape;
}

FailureOr<OnnxImporter::SliceBox>
OnnxImporter::sliceBox(const Node &node, ArrayRef<int64_t> from) {
  FailureOr<std::vector<int64_t>> starts = knownInts(node, 1, "starts");
  FailureOr<std::vector<int64_t>> ends = knownInts(node, 2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  FailureOr<std::vector<int64_t>> axes = knownInts(node, 3, "axes");
  FailureOr<std::vector<int64_t>> steps = knownInts(node, 4, "steps");
  if (failed(axes) || failed(steps))
    return failure();
  size_t count = starts->size();
  if (axes->empty())
    for (size_t i = 0; i < count; ++i)
      axes->push_back(i);
  if (steps->empty())
    steps->assign(count, 1);
  if (ends->size() != count || axes->size() != count || steps->size() != count)
    return failNode("starts, ends, axes and steps differ in length");
  SliceBox box;
  box.starts.assign(from.size(), 0);
  box.steps.assign(from.size(), 1);
  box.sizes.assign(from.begin(), from.end());
  SmallVector<bool> seen(from.size(), false);
  for (size_t i = 0; i < count; ++i) {
    FailureOr<int64_t> axis = normalizeAxis((*axes)[i], from.size());
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return failNode("slices axis " + std::to_string(*axis) + " twice");
    seen[*axis] = true;
    int64_t dim = from[*axis], step = (*steps)[i];
    int64_t start = (*starts)[i], end = (*ends)[i];
    if (step == 0)
      return failNode("a step of 0");
    // As the ONNX spec: negative positions count from the end, then both
    // are clamped to the axis (to [-1, dim - 1] going backwards).
    start = start < 0 ? std::max<int64_t>(start + dim, 0) : start;
    end = end < 0 ? std::max<int64_t>(end + dim, -1) : end;
    int64_t size;
    if (step > 0) {
      start = std::min(start, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      size = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::min(start, dim - 1);
      end = std::min(end, dim - 1);
      size = start > end ? (start - end - 1) / -step + 1 : 0;
    }
    if (size == 0)
      return failNode("selects no elements of axis " + std::to_string(*axis) +
                      " (size " + std::to_string(dim) + ")");
    box.starts[*axis] = start;
    box.steps[*axis] = step;
    box.sizes[*axis] = size;
  }
  return box;
}

// Unsqueeze and Squeeze only add or drop axes of size 1: a reshape, of
// float or integer tensors alike.
LogicalResult OnnxImporter::convertUnsqueeze(const Node &node, Inputs inputs) {
  FailureOr<SmallVector<int64_t>> shape =
      unsqueezeShape(node, shapeOf(inputs[0]));
  if (failed(shape))
    return failure();
  auto type = RankedTensorType::get(*shape, typeOf(inputs[0]).getElementType());
  return bind(node, ReshapeOp::create(builder, loc(), type, inputs[0]));
}

LogicalResult OnnxImporter::convertSqueeze(const Node &node, Inputs inputs) {
  FailureOr<SmallVector<int64_t>> shape =
      squeezeShape(node, shapeOf(inputs[0]));
  if (failed(shape))
    return failure();
  auto type = RankedTensorType::get(*shape, typeOf(inputs[0]).getElementType());
  return bind(node, ReshapeOp::create(builder, loc(), type, inputs[0]));
}

// A Slice with step 1 on every axis is one tfuse.slice.
LogicalResult OnnxImporter::convertSlice(const Node &node, Inputs inputs) {
  ArrayRef<int64_t> from = shapeOf(inputs[0]);
  FailureOr<SliceBox> box = sliceBox(node, from);
  if (failed(box))
    return failure();
  for (auto [axis, step] : llvm::enumerate(box->steps))
    if (step != 1)
      return failNode("steps by " + std::to_string(step) + " along axis " +
                      std::to_string(axis) +
                      "; tfuse.slice takes contiguous boxes (step 1) only");
  if (ArrayRef<int64_t>(box->sizes) == from)
    return bind(node, inputs[0]);
  return bind(node, SliceOp::create(builder, loc(), floatTensor(box->sizes),
                                    inputs[0], box->starts));
}

/// The most copies Expand makes along one axis (a tfuse.concat operand each).
constexpr int64_t kMaxExpandCopies = 4096;

// Expand of a float activation repeats it along each axis it stretches
// (one tfuse.concat of copies per axis): exact, whatever consumes it (the
// repeated keys and values of grouped-query attention, for one).
LogicalResult OnnxImporter::convertExpand(const Node &node, Inputs inputs) {
  Value x = inputs[0];
  if (!isFloatValue(x))
    return failNode("expands the integer tensor '" + node.input(0) +
                    "', which is only known when the graph runs; tfuse "
                    "repeats float tensors only");
  FailureOr<std::vector<int64_t>> target = getInts(node.input(1));
  if (failed(target))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = expandShape(shapeOf(x), *target);
  if (failed(shape))
    return failure();
  Location at = loc();
  SmallVector<int64_t> current(shape->size() - shapeOf(x).size(), 1);
  llvm::append_range(current, shapeOf(x));
  if (current.size() != shapeOf(x).size())
    x = ReshapeOp::create(builder, at, floatTensor(current), x);
  for (size_t d = 0; d < shape->size(); ++d) {
    if (current[d] == (*shape)[d])
      continue;
    // One concat operand per copy: a repeat far past any head group's is
    // refused before the operand list is built.
    if ((*shape)[d] > kMaxExpandCopies)
      return failNode("expands axis " + std::to_string(d) + " to " +
                      std::to_string((*shape)[d]) +
                      " copies; tfuse repeats a tensor at most " +
                      std::to_string(kMaxExpandCopies) + " times per axis");
    current[d] = (*shape)[d];
    SmallVector<Value> copies((*shape)[d], x);
    x = ConcatOp::create(builder, at, floatTensor(current), copies,
                         static_cast<uint64_t>(d));
  }
  return bind(node, x);
}

// Where on activations needs a condition known at import: one true or
// false throughout selects a branch; otherwise a branch that is -inf where
// the condition is false (a mask written as a select) is an additive mask
// of 0 and -inf. Anything else is refused.
LogicalResult OnnxImporter::convertWhere(const Node &node, Inputs inputs) {
  if (!isKnown(node.input(0)))
    return failNode("its condition '" + node.input(0) +
                    "' is not known at import; only a Where on a constant "
                    "condition (a mask) is supported");
  FailureOr<KnownTensor> condition = getKnown(node.input(0));
  if (failed(condition))
    return failure();
  // The branches' shapes, without materialising a known branch that is
  // not taken.
  SmallVector<int64_t> branchShapes[2];
  for (int i = 0; i < 2; ++i) {
    const std::string &name = node.input(1 + i);
    if (isKnown(name)) {
      FailureOr<KnownTensor> known = getKnown(name);
      if (failed(known))
        return failure();
      branchShapes[i] = known->shape;
      continue;
    }
    FailureOr<Value> value = getFloat(name);
    if (failed(value))
      return failure();
    branchShapes[i].assign(shapeOf(*value).begin(), shapeOf(*value).end());
  }
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(branchShapes[0], branchShapes[1]);
  if (shape)
    shape = broadcastShapes(*shape, condition->shape);
  if (!shape)
    return failNode("shapes " + formatShape(condition->shape) + ", " +
                    formatShape(branchShapes[0]) + " and " +
                    formatShape(branchShapes[1]) + " do not broadcast");
  bool anyTrue = false, anyFalse = false;
  for (size_t i = 0; i < condition->size(); ++i)
    (condition->number(i) != 0 ? anyTrue : anyFalse) = true;
  for (int i = 0; i < 2; ++i)
    if ((i == 0 ? !anyFalse : !anyTrue) &&
        ArrayRef<int64_t>(branchShapes[i]) == ArrayRef<int64_t>(*shape)) {
      FailureOr<Value> taken = getFloat(node.input(1 + i));
      if (failed(taken))
        return failure();
      return bind(node, *taken);
    }
  // Which branch is a known -inf fill; the other one is the data.
  auto isMinusInf = [&](const std::string &name) {
    if (!isKnown(name))
      return false;
    FailureOr<KnownTensor> fill = getKnown(name);
    return succeeded(fill) && fill->isFloat &&
           llvm::all_of(fill->floats,
                        [](double v) { return std::isinf(v) && v < 0; });
  };
  for (int data : {1, 2}) {
    if (!isMinusInf(node.input(3 - data)))
      continue;
    FailureOr<Value> kept = getFloat(node.input(data));
    if (failed(kept))
      return failure();
    KnownTensor mask;
    mask.isFloat = true;
    mask.shape = condition->shape;
    bool keepWhenTrue = data == 1;
    for (size_t i = 0; i < condition->size(); ++i)
      mask.floats.push_back(
          (condition->number(i) != 0) == keepWhenTrue ? 0.0 : -INFINITY);
    std::optional<SmallVector<int64_t>> maskedShape =
        broadcastShapes(shapeOf(*kept), mask.shape);
    if (!maskedShape || ArrayRef<int64_t>(*maskedShape) != ArrayRef(*shape))
      break;
    Value additive = materialize(mask);
    return bind(node, AddOp::create(builder, loc(), floatTensor(*shape), *kept,
                                    additive));
  }
  return failNode("selects between two tensors elementwise; only a constant "
                  "condition that is uniform, or that masks with -inf, is "
                  "supported");
}

/// Shape's `start` and `end` attributes applied to `shape`.
static KnownTensor shapeSlice(const onnx::NodeProto &node,
                              ArrayRef<int64_t> shape) {
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t start = clampIndex(intAttr(node, "start", 0));
  int64_t end = clampIndex(intAttr(node, "end", rank));
  KnownTensor known;
  for (int64_t i = start; i < end; ++i)
    known.ints.push_back(shape[i]);
  known.shape.push_back(known.ints.size());
  return known;
}

// The shapes are static, so Shape is known at import whatever its input.
LogicalResult OnnxImporter::convertShape(const Node &node, Inputs inputs) {
  return bindKnown(node, shapeSlice(node, shapeOf(inputs[0])));
}

//===----------------------------------------------------------------------===//
// Rotary embeddings
//===----------------------------------------------------------------------===//

/// The initializer behind `value` when it is a weight argument, else null.
const onnx::TensorProto *OnnxImporter::initializerOf(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != body ||
      arg.getArgNumber() >= model.arguments.size())
    return nullptr;
  auto init = initializers.find(model.arguments[arg.getArgNumber()].name);
  return init == initializers.end() ? nullptr : init->second;
}

std::optional<std::vector<double>> OnnxImporter::knownFloats(Value value) {
  if (const onnx::TensorProto *init = initializerOf(value)) {
    std::string why;
    FailureOr<KnownTensor> known = readTensor(*init, why);
    if (failed(known) || !known->isFloat)
      return std::nullopt;
    return known->floats;
  }
  if (auto constant = value.getDefiningOp<ConstantOp>())
    if (auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue())) {
      std::vector<double> values;
      values.reserve(dense.getNumElements());
      for (const APFloat &v : dense.getValues<APFloat>())
        values.push_back(v.convertToDouble());
      return values;
    }
  return std::nullopt;
}

Value OnnxImporter::matchRotary(Value lhs, Value rhs) {
  for (auto [direct, rotated] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
    auto directMul = direct.getDefiningOp<MulOp>();
    auto rotatedMul = rotated.getDefiningOp<MulOp>();
    if (!directMul || !rotatedMul)
      continue;
    for (auto [x, cos] : {std::pair(directMul.getLhs(), directMul.getRhs()),
                          std::pair(directMul.getRhs(), directMul.getLhs())})
      for (auto [half, sin] :
           {std::pair(rotatedMul.getLhs(), rotatedMul.getRhs()),
            std::pair(rotatedMul.getRhs(), rotatedMul.getLhs())})
        if (Value rope = matchRotary(x, cos, half, sin))
          return rope;
  }
  return Value();
}

// x * cos + rotate_half(x) * sin, with rotate_half(x) = concat(-x[..., h:],
// x[..., :h]) and cos, sin initializers [1, ..., S, D] that hold
// cos(p f) a and sin(p f) a for positions p = 0..S-1 and frequencies f
// repeated over both halves: Hugging Face's apply_rotary_pos_emb as the
// exporters write it. The frequencies are read back from position 1 and
// every entry of both tables is checked against them (to f32 rounding of
// the angle), so anything else stays elementwise.
Value OnnxImporter::matchRotary(Value x, Value cos, Value half, Value sin) {
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  if (rank < 2 || shape.back() % 2 != 0 || shape[rank - 2] < 2)
    return Value();
  int64_t seq = shape[rank - 2], dim = shape.back(), h = dim / 2;
  auto concat = half.getDefiningOp<ConcatOp>();
  if (!concat || concat.getInputs().size() != 2 ||
      int64_t(concat.getAxis()) != rank - 1)
    return Value();
  auto neg = concat.getInputs()[0].getDefiningOp<NegOp>();
  auto low = concat.getInputs()[1].getDefiningOp<SliceOp>();
  auto high = neg ? neg.getInput().getDefiningOp<SliceOp>() : SliceOp();
  if (!low || !high || low.getInput() != x || high.getInput() != x)
    return Value();
  SmallVector<int64_t> halfShape(shape);
  halfShape.back() = h;
  SmallVector<int64_t> lowOffsets(rank, 0), highOffsets(rank, 0);
  highOffsets.back() = h;
  if (shapeOf(low) != ArrayRef<int64_t>(halfShape) ||
      shapeOf(high) != ArrayRef<int64_t>(halfShape) ||
      low.getOffsets() != ArrayRef<int64_t>(lowOffsets) ||
      high.getOffsets() != ArrayRef<int64_t>(highOffsets))
    return Value();
  // The tables: [S, D] after leading ones.
  std::vector<double> tables[2];
  Value pair[2] = {cos, sin};
  for (auto [i, table] : llvm::enumerate(pair)) {
    ArrayRef<int64_t> t = shapeOf(table);
    if (t.size() < 2 || t.size() > shape.size() || t[t.size() - 2] != seq ||
        t.back() != dim ||
        llvm::any_of(t.drop_back(2), [](int64_t d) { return d != 1; }))
      return Value();
    // A weight argument (the dynamo exporter's initializers) or a constant.
    if (const onnx::TensorProto *init = initializerOf(table)) {
      std::string why;
      FailureOr<KnownTensor> known = readTensor(*init, why);
      if (failed(known) || !known->isFloat)
        return Value();
      tables[i] = known->floats;
    } else if (auto constant = table.getDefiningOp<ConstantOp>()) {
      auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
      if (!dense)
        return Value();
      for (const APFloat &v : dense.getValues<APFloat>())
        tables[i].push_back(v.convertToDouble());
    } else {
      return Value();
    }
  }
  const std::vector<double> &c = tables[0], &s = tables[1];
  double scaling = c[0];
  if (!(scaling > 0) || !std::isfinite(scaling))
    return Value();
  std::vector<float> invFreq;
  for (int64_t d = 0; d < h; ++d)
    invFreq.push_back(std::atan2(s[dim + d], c[dim + d]));
  for (int64_t p = 0; p < seq; ++p)
    for (int64_t d = 0; d < dim; ++d) {
      double angle = double(p) * invFreq[d % h];
      // The exporter rounds p f and its cosine to f32; f read back from
      // position 1 is off by about as much, which p multiplies.
      double tolerance =
          (1e-6 + 3e-7 * double(p) * (1 + std::fabs(invFreq[d % h]))) * scaling;
      if (std::fabs(c[p * dim + d] - scaling * std::cos(angle)) > tolerance ||
          std::fabs(s[p * dim + d] - scaling * std::sin(angle)) > tolerance)
        return Value();
    }
  Location at = loc();
  auto type = RankedTensorType::get({h}, builder.getF32Type());
  Value frequencies = ConstantOp::create(
      builder, at, type, DenseElementsAttr::get(type, ArrayRef(invFreq)));
  Value rope = RopeOp::create(builder, at, x.getType(), x, frequencies,
                              builder.getF64FloatAttr(scaling));
  return rope;
}

LogicalResult OnnxImporter::convertAdd(const Node &node, Inputs inputs) {
  if (Value rope = matchRotary(inputs[0], inputs[1]))
    return bind(node, rope);
  return convertBinary<AddOp>(node, inputs);
}

//===----------------------------------------------------------------------===//
// Import-time evaluation
//===----------------------------------------------------------------------===//

/// The most elements a tensor evaluated at import may have (2^24).
constexpr int64_t kMaxFoldedElements = int64_t(1) << 24;

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Calls `fn(index)` with each multi-index of `shape` in row-major order.
template <typename Fn>
static void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t count = numElements(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    fn(ArrayRef<int64_t>(index));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// For each element of a tensor of shape `out`, the flat index of the
/// element of `in` (numpy-broadcast to `out`) that it reads.
static std::vector<int64_t> broadcastIndices(ArrayRef<int64_t> out,
                                             ArrayRef<int64_t> in) {
  SmallVector<int64_t> strides = stridesOf(in);
  size_t offset = out.size() - in.size();
  std::vector<int64_t> map;
  map.reserve(numElements(out));
  forEachIndex(out, [&](ArrayRef<int64_t> index) {
    int64_t flat = 0;
    for (size_t d = 0; d < in.size(); ++d)
      if (in[d] != 1)
        flat += index[d + offset] * strides[d];
    map.push_back(flat);
  });
  return map;
}

/// The elements of `from` at `indices`, as a tensor of `shape`.
static KnownTensor select(const KnownTensor &from, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> indices) {
  KnownTensor result = KnownTensor::like(from, shape);
  for (int64_t i : indices)
    result.append(from, i);
  return result;
}

bool OnnxImporter::isKnown(const std::string &name) const {
  if (constants.count(name))
    return true;
  if (values.count(name))
    return false;
  auto init = initializers.find(name);
  if (init == initializers.end())
    return false;
  const onnx::TensorProto &tensor = *init->second;
  if (!isFloatKind(tensor.data_type()))
    return true;
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  return checkShape(shape).empty() && numElements(shape) <= 1;
}

LogicalResult OnnxImporter::bindKnown(const Node &node, KnownTensor known,
                                      int index) {
  if (index < node.output_size() && !node.output(index).empty())
    constants[node.output(index)] = std::move(known);
  return success();
}

/// Refuses, naming the node, a result too large to evaluate at import.
#define TFUSE_CHECK_FOLDED(shape)                                              \
  do {                                                                         \
    if (std::string problem = checkShape(shape); !problem.empty())             \
      return failNode("its result's " + problem);                              \
    if (numElements(shape) > kMaxFoldedElements)                               \
      return failNode("its result " + formatShape(shape) + " has " +           \
                      std::to_string(numElements(shape)) +                     \
                      " elements; the importer evaluates at most 2^24 at "     \
                      "import");                                               \
  } while (false)

template <typename FloatFn, typename IntFn>
LogicalResult
OnnxImporter::foldBinary(const Node &node, ArrayRef<KnownTensor> inputs,
                         bool compare, FloatFn onFloats, IntFn onInts) {
  const KnownTensor &a = inputs[0], &b = inputs[1];
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(a.shape, b.shape);
  if (!shape)
    return failNode("shapes " + formatShape(a.shape) + " and " +
                    formatShape(b.shape) + " do not broadcast");
  TFUSE_CHECK_FOLDED(*shape);
  std::vector<int64_t> ia = broadcastIndices(*shape, a.shape),
                       ib = broadcastIndices(*shape, b.shape);
  KnownTensor result;
  result.shape = *shape;
  bool floats = a.isFloat || b.isFloat;
  result.isFloat = floats && !compare;
  for (size_t i = 0; i < ia.size(); ++i) {
    if (!floats)
      result.ints.push_back(onInts(a.ints[ia[i]], b.ints[ib[i]]));
    else if (compare)
      result.ints.push_back(onFloats(a.number(ia[i]), b.number(ib[i])) != 0);
    else
      result.floats.push_back(onFloats(a.number(ia[i]), b.number(ib[i])));
  }
  return bindKnown(node, std::move(result));
}

/// Integer arithmetic wraps around (as the two's complement machines the
/// exported graphs run on do) rather than being undefined.
static int64_t wrap(uint64_t value) { return static_cast<int64_t>(value); }

LogicalResult OnnxImporter::foldAdd(const Node &node,
                                    ArrayRef<KnownTensor> inputs) {
  return foldBinary(
      node, inputs, false, [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b) { return wrap(uint64_t(a) + uint64_t(b)); });
}

LogicalResult OnnxImporter::foldSub(const Node &node,
                                    ArrayRef<KnownTensor> inputs) {
  return foldBinary(
      node, inputs, false, [](double a, double b) { return a - b; },
      [](int64_t a, int64_t b) { return wrap(uint64_t(a) - uint64_t(b)); });
}

LogicalResult OnnxImporter::foldMul(const Node &node,
                                    ArrayRef<KnownTensor> inputs) {
  return foldBinary(
      node, inputs, false, [](double a, double b) { return a * b; },
      [](int64_t a, int64_t b) { return wrap(uint64_t(a) * uint64_t(b)); });
}

// Integer division truncates toward zero (as onnxruntime does).
LogicalResult OnnxImporter::foldDiv(const Node &node,
                                    ArrayRef<KnownTensor> inputs) {
  if (!inputs[0].isFloat && !inputs[1].isFloat)
    for (int64_t d : inputs[1].ints)
      if (d == 0)
        return failNode("divides an integer by zero");
  return foldBinary(
      node, inputs, false, [](double a, double b) { return a / b; },
      [](int64_t a, int64_t b) {
        return b == -1 ? wrap(0 - uint64_t(a)) : a / b;
      });
}

#define TFUSE_FOLD_COMPARE(Name, op)                                           \
  LogicalResult OnnxImporter::fold##Name(const Node &node,                     \
                                         ArrayRef<KnownTensor> inputs) {       \
    return foldBinary(                                                         \
        node, inputs, true, [](double a, double b) { return double(a op b); }, \
        [](int64_t a, int64_t b) { return int64_t(a op b); });                 \
  }
TFUSE_FOLD_COMPARE(Equal, ==)
TFUSE_FOLD_COMPARE(Less, <)
TFUSE_FOLD_COMPARE(LessOrEqual, <=)
TFUSE_FOLD_COMPARE(Greater, >)
TFUSE_FOLD_COMPARE(GreaterOrEqual, >=)
TFUSE_FOLD_COMPARE(And, &&)
TFUSE_FOLD_COMPARE(Or, ||)
#undef TFUSE_FOLD_COMPARE

template <typename Fn>
LogicalResult OnnxImporter::foldUnary(const Node &node,
                                      ArrayRef<KnownTensor> inputs, Fn fn) {
  KnownTensor result = KnownTensor::like(inputs[0], inputs[0].shape);
  result.isFloat = true;
  for (size_t i = 0; i < inputs[0].size(); ++i)
    result.floats.push_back(fn(inputs[0].number(i)));
  return bindKnown(node, std::move(result));
}

LogicalResult OnnxImporter::foldNot(const Node &node,
                                    ArrayRef<KnownTensor> inputs) {
  KnownTensor result = KnownTensor::like(inputs[0], inputs[0].shape);
  result.isFloat = false;
  for (size_t i = 0; i < inputs[0].size(); ++i)
    result.ints.push_back(inputs[0].number(i) == 0);
  return bindKnown(node, std::move(result));
}

LogicalResult OnnxImporter::foldNeg(const Node &node,
                                    ArrayRef<KnownTensor> inputs) {
  if (inputs[0].isFloat)
    return foldUnary(node, inputs, [](double x) { return -x; });
  KnownTensor result = inputs[0];
  for (int64_t &v : result.ints)
    v = wrap(0 - uint64_t(v));
  return bindKnown(node, std::move(result));
}

LogicalResult OnnxImporter::foldSqrt(const Node &node,
                                     ArrayRef<KnownTensor> inputs) {
  return foldUnary(node, inputs, [](double x) { return std::sqrt(x); });
}

LogicalResult OnnxImporter::foldReciprocal(const Node &node,
                                           ArrayRef<KnownTensor> inputs) {
  return foldUnary(node, inputs, [](double x) { return 1.0 / x; });
}

LogicalResult OnnxImporter::foldPow(const Node &node,
                                    ArrayRef<KnownTensor> inputs) {
  return foldBinary(
      node, inputs, false, [](double a, double b) { return std::pow(a, b); },
      [](int64_t a, int64_t b) {
        // Repeated multiplication, wrapping; a negative power truncates.
        if (b < 0)
          return int64_t(
              a == 1 || (a == -1 && b % 2 == 0) ? 1 : (a == -1 ? -1 : 0));
        uint64_t r = 1;
        for (int64_t i = 0; i < b && i < 64; ++i)
          r *= uint64_t(a);
        return wrap(r);
      });
}

LogicalResult OnnxImporter::foldWhere(const Node &node,
                                      ArrayRef<KnownTensor> inputs) {
  const KnownTensor &c = inputs[0], &x = inputs[1], &y = inputs[2];
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(x.shape, y.shape);
  if (shape)
    shape = broadcastShapes(*shape, c.shape);
  if (!shape)
    return failNode("shapes " + formatShape(c.shape) + ", " +
                    formatShape(x.shape) + " and " + formatShape(y.shape) +
                    " do not broadcast");
  TFUSE_CHECK_FOLDED(*shape);
  std::vector<int64_t> ic = broadcastIndices(*shape, c.shape),
                       ix = broadcastIndices(*shape, x.shape),
                       iy = broadcastIndices(*shape, y.shape);
  KnownTensor result;
  result.shape = *shape;
  result.isFloat = x.isFloat || y.isFloat;
  for (size_t i = 0; i < ic.size(); ++i) {
    bool pick = c.number(ic[i]) != 0;
    const KnownTensor &from = pick ? x : y;
    size_t at = pick ? ix[i] : iy[i];
    if (result.isFloat)
      result.floats.push_back(from.number(at));
    else
      result.ints.push_back(from.ints[at]);
  }
  return bindKnown(node, std::move(result));
}

LogicalResult OnnxImporter::foldCast(const Node &node,
                                     ArrayRef<KnownTensor> inputs) {
  int to = intAttr(node, "to", 0);
  const KnownTensor &x = inputs[0];
  KnownTensor result = KnownTensor::like(x, x.shape);
  result.isFloat = isFloatKind(to);
  if (result.isFloat) {
    for (size_t i = 0; i < x.size(); ++i)
      result.floats.push_back(x.number(i));
    return bindKnown(node, std::move(result));
  }
  bool toBool = to == onnx::TensorProto::BOOL;
  if (!toBool && to != onnx::TensorProto::INT64 &&
      to != onnx::TensorProto::INT32 && to != onnx::TensorProto::INT8 &&
      to != onnx::TensorProto::UINT8)
    return failNode(std::string("casts to ") + describeDataType(to));
  for (size_t i = 0; i < x.size(); ++i) {
    if (!x.isFloat) {
      result.ints.push_back(toBool ? x.ints[i] != 0 : x.ints[i]);
      continue;
    }
    double v = x.floats[i];
    if (toBool) {
      result.ints.push_back(v != 0);
      continue;
    }
    if (!std::isfinite(v) || std::fabs(v) >= 9.2e18)
      return failNode("casts " + std::to_string(v) + " to an integer");
    result.ints.push_back(static_cast<int64_t>(std::trunc(v)));
  }
  return bindKnown(node, std::move(result));
}

LogicalResult OnnxImporter::foldIdentity(const Node &node,
                                         ArrayRef<KnownTensor> inputs) {
  return bindKnown(node, inputs[0]);
}

LogicalResult OnnxImporter::foldShape(const Node &node,
                                      ArrayRef<KnownTensor> inputs) {
  return bindKnown(node, shapeSlice(node, inputs[0].shape));
}

LogicalResult OnnxImporter::foldConstantOfShape(const Node &node,
                                                ArrayRef<KnownTensor> inputs) {
  if (inputs[0].isFloat)
    return failNode("its shape must hold integers");
  SmallVector<int64_t> shape(inputs[0].ints.begin(), inputs[0].ints.end());
  TFUSE_CHECK_FOLDED(shape);
  KnownTensor value;
  value.isFloat = true;
  value.floats.push_back(0.0);
  if (const onnx::AttributeProto *attr = findAttribute(node, "value")) {
    std::string why;
    FailureOr<KnownTensor> read = readTensor(attr->t(), why);
    if (failed(read))
      return failNode("cannot read its value: " + why);
    if (read->size() != 1)
      return failNode("its value must have one element, it has " +
                      std::to_string(read->size()));
    value = *read;
  }
  return bindKnown(
      node, select(value, shape, std::vector<int64_t>(numElements(shape), 0)));
}

LogicalResult OnnxImporter::foldRange(const Node &node,
                                      ArrayRef<KnownTensor> inputs) {
  for (const KnownTensor &in : inputs)
    if (in.size() != 1)
      return failNode("start, limit and delta must be single numbers");
  bool floats =
      llvm::any_of(inputs, [](const KnownTensor &k) { return k.isFloat; });
  double start = inputs[0].number(0), limit = inputs[1].number(0),
         delta = inputs[2].number(0);
  if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) ||
      !std::isfinite(delta))
    return failNode("a range needs finite bounds and a delta other than 0");
  // (limit - start) / delta may overflow to infinity: compared as a double
  // before any conversion.
  double steps = std::max(std::ceil((limit - start) / delta), 0.0);
  if (!(steps <= double(kMaxFoldedElements)))
    return failNode("its range has more than 2^24 elements; the importer "
                    "evaluates at most 2^24 at import");
  KnownTensor result;
  result.isFloat = floats;
  result.shape.push_back(int64_t(steps));
  for (int64_t i = 0; i < int64_t(steps); ++i) {
    if (floats)
      result.floats.push_back(start + double(i) * delta);
    else
      result.ints.push_back(inputs[0].ints[0] + i * inputs[2].ints[0]);
  }
  return bindKnown(node, std::move(result));
}

LogicalResult
OnnxImporter::bindReshaped(const Node &node, KnownTensor known,
                           FailureOr<SmallVector<int64_t>> shape) {
  if (failed(shape))
    return failure();
  known.shape = *shape;
  return bindKnown(node, std::move(known));
}

LogicalResult OnnxImporter::foldReshape(const Node &node,
                                        ArrayRef<KnownTensor> inputs) {
  if (inputs[1].isFloat)
    return failNode("its shape must hold integers");
  return bindReshaped(node, inputs[0],
                      reshapeTarget(node, inputs[0].shape, inputs[1].ints));
}

LogicalResult OnnxImporter::foldUnsqueeze(const Node &node,
                                          ArrayRef<KnownTensor> inputs) {
  return bindReshaped(node, inputs[0], unsqueezeShape(node, inputs[0].shape));
}

LogicalResult OnnxImporter::foldSqueeze(const Node &node,
                                        ArrayRef<KnownTensor> inputs) {
  return bindReshaped(node, inputs[0], squeezeShape(node, inputs[0].shape));
}

LogicalResult OnnxImporter::foldExpand(const Node &node,
                                       ArrayRef<KnownTensor> inputs) {
  if (inputs[1].isFloat)
    return failNode("its shape must hold integers");
  FailureOr<SmallVector<int64_t>> shape =
      expandShape(inputs[0].shape, inputs[1].ints);
  if (failed(shape))
    return failure();
  TFUSE_CHECK_FOLDED(*shape);
  return bindKnown(node, select(inputs[0], *shape,
                                broadcastIndices(*shape, inputs[0].shape)));
}

LogicalResult OnnxImporter::foldConcat(const Node &node,
                                       ArrayRef<KnownTensor> inputs) {
  SmallVector<int64_t> shape(inputs[0].shape);
  FailureOr<int64_t> axis = axisAttr(node, 0, shape.size());
  if (failed(axis))
    return failure();
  for (const KnownTensor &other : inputs.drop_front()) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (other.shape.size() != shape.size() ||
          (int64_t(d) != *axis && other.shape[d] != shape[d]))
        return failNode("inputs " + formatShape(inputs[0].shape) + " and " +
                        formatShape(other.shape) +
                        " differ off the concat axis");
    shape[*axis] += other.shape[*axis];
  }
  // Row-major: each input contributes a run of `inner * size` elements
  // per index of the axes before `axis`.
  int64_t outer = numElements(ArrayRef<int64_t>(shape).take_front(*axis));
  int64_t inner = numElements(ArrayRef<int64_t>(shape).drop_front(*axis + 1));
  KnownTensor result = KnownTensor::like(inputs[0], shape);
  result.isFloat =
      llvm::any_of(inputs, [](const KnownTensor &k) { return k.isFloat; });
  for (int64_t o = 0; o < outer; ++o)
    for (const KnownTensor &in : inputs) {
      int64_t run = inner * in.shape[*axis];
      for (int64_t i = 0; i < run; ++i) {
        if (result.isFloat)
          result.floats.push_back(in.number(o * run + i));
        else
          result.ints.push_back(in.ints[o * run + i]);
      }
    }
  return bindKnown(node, std::move(result));
}

LogicalResult OnnxImporter::foldSlice(const Node &node,
                                      ArrayRef<KnownTensor> inputs) {
  const KnownTensor &x = inputs[0];
  FailureOr<SliceBox> box = sliceBox(node, x.shape);
  if (failed(box))
    return failure();
  SmallVector<int64_t> strides = stridesOf(x.shape);
  std::vector<int64_t> indices;
  forEachIndex(box->sizes, [&](ArrayRef<int64_t> index) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d)
      flat += (box->starts[d] + index[d] * box->steps[d]) * strides[d];
    indices.push_back(flat);
  });
  return bindKnown(node, select(x, box->sizes, indices));
}

LogicalResult OnnxImporter::foldGather(const Node &node,
                                       ArrayRef<KnownTensor> inputs) {
  const KnownTensor &data = inputs[0], &idx = inputs[1];
  if (idx.isFloat)
    return failNode("its indices must be integers");
  if (data.shape.empty())
    return failNode("gathers from a scalar");
  FailureOr<int64_t> axis = axisAttr(node, 0, data.shape.size());
  if (failed(axis))
    return failure();
  int64_t dim = data.shape[*axis];
  SmallVector<int64_t> shape(ArrayRef(data.shape).take_front(*axis));
  llvm::append_range(shape, idx.shape);
  llvm::append_range(shape, ArrayRef(data.shape).drop_front(*axis + 1));
  TFUSE_CHECK_FOLDED(shape);
  int64_t inner = numElements(ArrayRef(data.shape).drop_front(*axis + 1));
  int64_t outer = numElements(ArrayRef(data.shape).take_front(*axis));
  std::vector<int64_t> indices;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : idx.ints) {
      if (i < -dim || i >= dim)
        return failNode("index " + std::to_string(i) +
                        " is out of range for size " + std::to_string(dim));
      int64_t row = i < 0 ? i + dim : i;
      for (int64_t k = 0; k < inner; ++k)
        indices.push_back((o * dim + row) * inner + k);
    }
  return bindKnown(node, select(data, shape, indices));
}

LogicalResult OnnxImporter::foldGatherElements(const Node &node,
                                               ArrayRef<KnownTensor> inputs) {
  const KnownTensor &data = inputs[0], &idx = inputs[1];
  if (idx.isFloat)
    return failNode("its indices must be integers");
  if (data.shape.size() != idx.shape.size() || data.shape.empty())
    return failNode("data " + formatShape(data.shape) + " and indices " +
                    formatShape(idx.shape) + " differ in rank");
  FailureOr<int64_t> axis = axisAttr(node, 0, data.shape.size());
  if (failed(axis))
    return failure();
  for (size_t d = 0; d < data.shape.size(); ++d)
    if (int64_t(d) != *axis && idx.shape[d] > data.shape[d])
      return failNode("indices " + formatShape(idx.shape) + " exceed data " +
                      formatShape(data.shape) + " off the gather axis");
  SmallVector<int64_t> strides = stridesOf(data.shape);
  int64_t dim = data.shape[*axis];
  std::vector<int64_t> indices;
  size_t next = 0;
  bool inRange = true;
  forEachIndex(idx.shape, [&](ArrayRef<int64_t> index) {
    int64_t i = idx.ints[next++];
    inRange = inRange && i >= -dim && i < dim;
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d)
      flat +=
          (int64_t(d) == *axis ? (i < 0 ? i + dim : i) : index[d]) * strides[d];
    indices.push_back(inRange ? flat : 0);
  });
  if (!inRange)
    return failNode("an index is out of range for size " + std::to_string(dim));
  return bindKnown(node, select(data, idx.shape, indices));
}

LogicalResult OnnxImporter::foldTranspose(const Node &node,
                                          ArrayRef<KnownTensor> inputs) {
  const KnownTensor &x = inputs[0];
  FailureOr<SmallVector<int64_t>> perm = permutation(node, x.shape.size());
  if (failed(perm))
    return failure();
  SmallVector<int64_t> shape, strides = stridesOf(x.shape);
  for (int64_t p : *perm)
    shape.push_back(x.shape[p]);
  std::vector<int64_t> indices;
  forEachIndex(shape, [&](ArrayRef<int64_t> index) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d)
      flat += index[d] * strides[(*perm)[d]];
    indices.push_back(flat);
  });
  return bindKnown(node, select(x, shape, indices));
}

#undef TFUSE_CHECK_FOLDED

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

const OnnxOperator *OnnxImporter::findOperator(const Node &node) {
  using I = OnnxImporter;
  static const OnnxOperator operators[] = {
      {"Add", "A, B", "C", &I::convertAdd, &I::foldAdd},
      {"Sub", "A, B", "C", &I::convertBinary<SubOp>, &I::foldSub},
      {"Mul", "A, B", "C", &I::convertBinary<MulOp>, &I::foldMul},
      {"Div", "A, B", "C", &I::convertBinary<DivOp>, &I::foldDiv},
      {"Pow", "X, Y:known", "Z", &I::convertPow, &I::foldPow},
      {"Sqrt", "X", "Y", &I::convertUnary<SqrtOp>, &I::foldSqrt},
      {"Reciprocal", "X", "Y", &I::convertReciprocal, &I::foldReciprocal},
      {"Erf", "input", "output", &I::convertUnary<ErfOp>},
      {"Tanh", "input", "output", &I::convertUnary<TanhOp>},
      {"Exp", "input", "output", &I::convertUnary<ExpOp>},
      {"Log", "input", "output", &I::convertUnary<LogOp>},
      {"Neg", "X", "Y", &I::convertUnary<NegOp>, &I::foldNeg},
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
      {"Reshape", "data:any, shape:known", "reshaped", &I::convertReshape,
       &I::foldReshape},
      {"Unsqueeze", "data:any, [axes:known]", "expanded", &I::convertUnsqueeze,
       &I::foldUnsqueeze},
      {"Squeeze", "data:any, [axes:known]", "squeezed", &I::convertSqueeze,
       &I::foldSqueeze},
      {"Transpose", "data", "transposed", &I::convertTranspose,
       &I::foldTranspose},
      {"Split", "input, [split:known]", "outputs...", &I::convertSplit},
      {"Concat", "inputs...", "concat_result", &I::convertConcat,
       &I::foldConcat},
      // Before opset 10, starts, ends and axes are attributes.
      {"Slice",
       "data, [starts:known], [ends:known], [axes:known], [steps:known]",
       "output", &I::convertSlice, &I::foldSlice},
      {"Expand", "input:any, shape:known", "output", &I::convertExpand,
       &I::foldExpand},
      {"Where", "condition:known, X:known, Y:known", "output", &I::convertWhere,
       &I::foldWhere},
      {"Gather", "data, indices:int", "output", &I::convertGather,
       &I::foldGather},
      {"Constant", "", "output", &I::convertConstant},
      {"Identity", "input:any", "output", &I::convertIdentity,
       &I::foldIdentity},
      {"Dropout", "data:any, [ratio:known], [training_mode:known]",
       "output, [mask]", &I::convertDropout},
      {"Cast", "input:any", "output", &I::convertCast, &I::foldCast},
      {"Shape", "data:any", "shape", &I::convertShape, &I::foldShape},
      // Evaluated at import only: shape and mask arithmetic on known
      // tensors.
      {"ConstantOfShape", "input", "output", nullptr, &I::foldConstantOfShape},
      {"Range", "start, limit, delta", "output", nullptr, &I::foldRange},
      {"GatherElements", "data, indices", "output", nullptr,
       &I::foldGatherElements},
      {"Equal", "A, B", "C", nullptr, &I::foldEqual},
      {"Less", "A, B", "C", nullptr, &I::foldLess},
      {"LessOrEqual", "A, B", "C", nullptr, &I::foldLessOrEqual},
      {"Greater", "A, B", "C", nullptr, &I::foldGreater},
      {"GreaterOrEqual", "A, B", "C", nullptr, &I::foldGreaterOrEqual},
      {"And", "A, B", "C", nullptr, &I::foldAnd},
      {"Or", "A, B", "C", nullptr, &I::foldOr},
      {"Not", "X", "Y", nullptr, &I::foldNot},
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
  if (op.fold && llvm::all_of(node.input(), [&](const std::string &name) {
        return name.empty() || isKnown(name);
      })) {
    SmallVector<KnownTensor, 4> known;
    for (const std::string &name : node.input()) {
      known.emplace_back();
      if (name.empty())
        continue;
      FailureOr<KnownTensor> value = getKnown(name);
      if (failed(value))
        return failure();
      known.back() = std::move(*value);
    }
    return (this->*op.fold)(node, known);
  }
  if (!op.convert) {
    for (const std::string &name : node.input())
      if (!name.empty() && !isKnown(name)) {
        auto producer = producers.find(name);
        return failNode("is evaluated at import only, but its input '" + name +
                        "' is not known at import (" +
                        (producer == producers.end()
                             ? std::string("it is not defined")
                             : "it is " + producer->second) +
                        ")");
      }
    return failNode("cannot be evaluated at import");
  }
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
  llvm::SmallPtrSet<Value, 4> droppedMasks;
  if (options.matchAttention) {
    AttentionMatchResult matched =
        matchAttention(*body, [&](Value value) { return knownFloats(value); });
    droppedMasks.insert(matched.droppedMasks.begin(),
                        matched.droppedMasks.end());
  }
  // What nothing reads: the elementwise spelling of a rotary embedding that
  // became tfuse.rope, outputs no node reads. Later nodes may read any
  // node's output, so this waits until every node is converted.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (op.use_empty() && !op.hasTrait<OpTrait::IsTerminator>() &&
        isMemoryEffectFree(&op))
      op.erase();
  // A mask initializer that became `causal` is no weight of the model.
  for (unsigned i = body->getNumArguments(); i-- > 0;) {
    BlockArgument arg = body->getArgument(i);
    if (arg.use_empty() && droppedMasks.contains(arg) &&
        model.arguments[i].isWeight) {
      body->eraseArgument(i);
      model.arguments.erase(model.arguments.begin() + i);
    }
  }

  OpBuilder moduleBuilder(context);
  moduleBuilder.setInsertionPointToEnd(model.module->getBody());
  // The return's operands, not `results`: matchAttention may have replaced
  // (and the sweep erased) a returned product.
  auto type = FunctionType::get(context, body->getArgumentTypes(),
                                body->getTerminator()->getOperandTypes());
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
