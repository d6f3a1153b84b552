//===- Onnx.cpp - ONNX front end --------------------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements importOnnxModel(): one tfuse op (or a short sequence)
// per ONNX node, with the result types computed here from the static input
// shapes. Built only when CMake finds libonnx-dev and libprotobuf-dev;
// OnnxUnavailable.cpp stands in otherwise.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/Onnx.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

using namespace mlir;
using namespace mlir::tfuse;

bool mlir::tfuse::isOnnxImportAvailable() { return true; }

namespace {

/// The operators the importer maps, by domain ("" is ai.onnx).
bool isSupported(const std::string &domain, const std::string &opType) {
  static const llvm::StringSet<> standard = {"Add",
                                             "Cast",
                                             "Concat",
                                             "Constant",
                                             "Div",
                                             "Dropout",
                                             "Erf",
                                             "Exp",
                                             "Gather",
                                             "Gelu",
                                             "Gemm",
                                             "Identity",
                                             "LayerNormalization",
                                             "Log",
                                             "MatMul",
                                             "Mul",
                                             "Neg",
                                             "Pow",
                                             "ReduceMax",
                                             "ReduceMean",
                                             "ReduceSum",
                                             "Relu",
                                             "Reshape",
                                             "Sigmoid",
                                             "Softmax",
                                             "Split",
                                             "Sqrt",
                                             "Sub",
                                             "Tanh",
                                             "Transpose"};
  if (domain.empty() || domain == "ai.onnx")
    return standard.contains(opType);
  if (domain == "com.microsoft")
    return opType == "Gelu" || opType == "FastGelu";
  return false;
}

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

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Reads a TensorProto's elements (from its typed fields or raw_data).
FailureOr<KnownTensor> readTensor(const onnx::TensorProto &tensor,
                                  std::string &error) {
  KnownTensor known;
  known.shape.assign(tensor.dims().begin(), tensor.dims().end());
  int64_t count = numElements(known.shape);
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "its data is stored outside the model file (external data)";
    return failure();
  }
  const std::string &raw = tensor.raw_data();
  bool hasRaw = tensor.has_raw_data();
  auto rawElement = [&](auto zero, int64_t i) {
    decltype(zero) value;
    std::memcpy(&value, raw.data() + i * sizeof(value), sizeof(value));
    return value;
  };
  auto checkCount = [&](int64_t have) {
    if (have == count)
      return true;
    error = "it holds " + std::to_string(have) + " elements for a shape of " +
            std::to_string(count);
    return false;
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE: {
    known.isFloat = true;
    bool isDouble = tensor.data_type() == onnx::TensorProto::DOUBLE;
    size_t width = isDouble ? 8 : 4;
    if (hasRaw) {
      if (!checkCount(raw.size() / width))
        return failure();
      for (int64_t i = 0; i < count; ++i)
        known.floats.push_back(isDouble ? rawElement(double(), i)
                                        : rawElement(float(), i));
    } else if (isDouble) {
      if (!checkCount(tensor.double_data_size()))
        return failure();
      known.floats.assign(tensor.double_data().begin(),
                          tensor.double_data().end());
    } else {
      if (!checkCount(tensor.float_data_size()))
        return failure();
      known.floats.assign(tensor.float_data().begin(),
                          tensor.float_data().end());
    }
    return known;
  }
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    known.isFloat = true;
    const llvm::fltSemantics &semantics =
        tensor.data_type() == onnx::TensorProto::FLOAT16 ? APFloat::IEEEhalf()
                                                         : APFloat::BFloat();
    std::vector<uint16_t> bits;
    if (hasRaw) {
      if (!checkCount(raw.size() / 2))
        return failure();
      for (int64_t i = 0; i < count; ++i)
        bits.push_back(rawElement(uint16_t(), i));
    } else {
      if (!checkCount(tensor.int32_data_size()))
        return failure();
      for (int32_t v : tensor.int32_data())
        bits.push_back(static_cast<uint16_t>(v));
    }
    for (uint16_t b : bits)
      known.floats.push_back(
          APFloat(semantics, APInt(16, b)).convertToDouble());
    return known;
  }
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32: {
    bool is64 = tensor.data_type() == onnx::TensorProto::INT64;
    if (hasRaw) {
      if (!checkCount(raw.size() / (is64 ? 8 : 4)))
        return failure();
      for (int64_t i = 0; i < count; ++i)
        known.ints.push_back(is64 ? rawElement(int64_t(), i)
                                  : rawElement(int32_t(), i));
    } else if (is64) {
      if (!checkCount(tensor.int64_data_size()))
        return failure();
      known.ints.assign(tensor.int64_data().begin(), tensor.int64_data().end());
    } else {
      if (!checkCount(tensor.int32_data_size()))
        return failure();
      known.ints.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    }
    return known;
  }
  default:
    error = std::string("its element type is ") +
            describeDataType(tensor.data_type());
    return failure();
  }
}

/// The numpy broadcast of two shapes, or failure.
FailureOr<SmallVector<int64_t>> broadcast(ArrayRef<int64_t> lhs,
                                          ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a != b && a != 1 && b != 1)
      return failure();
    shape[i] = a == 1 ? b : a;
  }
  return shape;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

class OnnxImporter {
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

  LogicalResult convertNode(const onnx::NodeProto &node);
  const onnx::AttributeProto *attribute(const onnx::NodeProto &node,
                                        StringRef name) const;
  int64_t intAttr(const onnx::NodeProto &node, StringRef name,
                  int64_t fallback) const;
  double floatAttr(const onnx::NodeProto &node, StringRef name,
                   double fallback) const;
  std::string stringAttr(const onnx::NodeProto &node, StringRef name,
                         StringRef fallback) const;
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);
  LogicalResult bind(const onnx::NodeProto &node, Value value, int index = 0);

  LogicalResult convertBinary(const onnx::NodeProto &node);
  LogicalResult convertUnary(const onnx::NodeProto &node);
  LogicalResult convertPow(const onnx::NodeProto &node);
  LogicalResult convertMatMul(const onnx::NodeProto &node);
  LogicalResult convertGemm(const onnx::NodeProto &node);
  LogicalResult convertSoftmax(const onnx::NodeProto &node);
  LogicalResult convertLayerNorm(const onnx::NodeProto &node);
  LogicalResult convertReduce(const onnx::NodeProto &node);
  LogicalResult convertReshape(const onnx::NodeProto &node);
  LogicalResult convertTranspose(const onnx::NodeProto &node);
  LogicalResult convertSplit(const onnx::NodeProto &node);
  LogicalResult convertConcat(const onnx::NodeProto &node);
  LogicalResult convertGather(const onnx::NodeProto &node);
  LogicalResult convertConstant(const onnx::NodeProto &node);

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
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *OnnxImporter::attribute(const onnx::NodeProto &node,
                                                    StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t OnnxImporter::intAttr(const onnx::NodeProto &node, StringRef name,
                              int64_t fallback) const {
  const onnx::AttributeProto *attr = attribute(node, name);
  return attr ? attr->i() : fallback;
}

double OnnxImporter::floatAttr(const onnx::NodeProto &node, StringRef name,
                               double fallback) const {
  const onnx::AttributeProto *attr = attribute(node, name);
  return attr ? attr->f() : fallback;
}

std::string OnnxImporter::stringAttr(const onnx::NodeProto &node,
                                     StringRef name, StringRef fallback) const {
  const onnx::AttributeProto *attr = attribute(node, name);
  return attr ? attr->s() : fallback.str();
}

FailureOr<int64_t> OnnxImporter::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failNode("axis " + std::to_string(axis) + " is out of range for " +
                    "rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

LogicalResult OnnxImporter::bind(const onnx::NodeProto &node, Value value,
                                 int index) {
  if (index < node.output_size() && !node.output(index).empty())
    values[node.output(index)] = value;
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertBinary(const onnx::NodeProto &node) {
  if (node.input_size() != 2)
    return failNode("expects 2 inputs");
  FailureOr<Value> lhs = getFloat(node.input(0));
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = getFloat(node.input(1));
  if (failed(rhs))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      broadcast(shapeOf(*lhs), shapeOf(*rhs));
  if (failed(shape))
    return failNode("shapes " + formatShape(shapeOf(*lhs)) + " and " +
                    formatShape(shapeOf(*rhs)) + " do not broadcast");
  RankedTensorType type = floatTensor(*shape);
  const std::string &op = node.op_type();
  Value result;
  if (op == "Add")
    result = AddOp::create(builder, loc(), type, *lhs, *rhs);
  else if (op == "Sub")
    result = SubOp::create(builder, loc(), type, *lhs, *rhs);
  else if (op == "Mul")
    result = MulOp::create(builder, loc(), type, *lhs, *rhs);
  else
    result = DivOp::create(builder, loc(), type, *lhs, *rhs);
  return bind(node, result);
}

LogicalResult OnnxImporter::convertUnary(const onnx::NodeProto &node) {
  if (node.input_size() < 1)
    return failNode("expects an input");
  FailureOr<Value> input = getFloat(node.input(0));
  if (failed(input))
    return failure();
  Value x = *input;
  const std::string &op = node.op_type();
  Location at = loc();
  Value result;
  if (op == "Sqrt")
    result = SqrtOp::create(builder, at, x);
  else if (op == "Erf")
    result = ErfOp::create(builder, at, x);
  else if (op == "Tanh")
    result = TanhOp::create(builder, at, x);
  else if (op == "Exp")
    result = ExpOp::create(builder, at, x);
  else if (op == "Log")
    result = LogOp::create(builder, at, x);
  else if (op == "Neg")
    result = NegOp::create(builder, at, x);
  else if (op == "Relu")
    result = ReluOp::create(builder, at, x);
  else if (op == "Sigmoid")
    result = SigmoidOp::create(builder, at, x);
  else {
    // Gelu (ai.onnx: attribute approximate; com.microsoft: erf) and
    // com.microsoft FastGelu (tanh, with an optional bias input).
    bool tanh =
        op == "FastGelu" || stringAttr(node, "approximate", "none") == "tanh";
    if (op == "FastGelu" && node.input_size() > 1 && !node.input(1).empty()) {
      FailureOr<Value> bias = getFloat(node.input(1));
      if (failed(bias))
        return failure();
      FailureOr<SmallVector<int64_t>> shape =
          broadcast(shapeOf(x), shapeOf(*bias));
      if (failed(shape))
        return failNode("the bias does not broadcast to the input");
      x = AddOp::create(builder, at, floatTensor(*shape), x, *bias);
    }
    result = GeluOp::create(builder, at, x,
                            tanh ? GeluApproximation::tanh
                                 : GeluApproximation::none);
  }
  return bind(node, result);
}

// pow(x, 2) => x * x; pow(x, 3) => x * x * x; pow(x, 0.5) => sqrt(x);
// pow(x, -0.5) => rsqrt(x); pow(x, 1) => x.
LogicalResult OnnxImporter::convertPow(const onnx::NodeProto &node) {
  if (node.input_size() != 2)
    return failNode("expects 2 inputs");
  FailureOr<Value> base = getFloat(node.input(0));
  if (failed(base))
    return failure();
  FailureOr<double> exponent = getScalar(node.input(1));
  if (failed(exponent))
    return failure();
  Value x = *base;
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

LogicalResult OnnxImporter::convertMatMul(const onnx::NodeProto &node) {
  if (node.input_size() != 2)
    return failNode("expects 2 inputs");
  FailureOr<Value> lhs = getFloat(node.input(0));
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = getFloat(node.input(1));
  if (failed(rhs))
    return failure();
  ArrayRef<int64_t> a = shapeOf(*lhs), b = shapeOf(*rhs);
  if (a.size() < 2 || b.size() < 2)
    return failNode("needs operands of rank >= 2, got " + formatShape(a) +
                    " and " + formatShape(b));
  if (a.back() != b[b.size() - 2])
    return failNode("cannot multiply " + formatShape(a) + " by " +
                    formatShape(b));
  FailureOr<SmallVector<int64_t>> batch =
      broadcast(a.drop_back(2), b.drop_back(2));
  if (failed(batch))
    return failNode("batch dimensions of " + formatShape(a) + " and " +
                    formatShape(b) + " do not broadcast");
  SmallVector<int64_t> shape = *batch;
  shape.push_back(a[a.size() - 2]);
  shape.push_back(b.back());
  return bind(node,
              MatmulOp::create(builder, loc(), floatTensor(shape), *lhs, *rhs));
}

// Gemm: alpha * op(A) op(B) + beta * C.
LogicalResult OnnxImporter::convertGemm(const onnx::NodeProto &node) {
  if (node.input_size() < 2)
    return failNode("expects at least 2 inputs");
  FailureOr<Value> lhs = getFloat(node.input(0));
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = getFloat(node.input(1));
  if (failed(rhs))
    return failure();
  bool transA = intAttr(node, "transA", 0), transB = intAttr(node, "transB", 0);
  double alpha = floatAttr(node, "alpha", 1.0),
         beta = floatAttr(node, "beta", 1.0);
  ArrayRef<int64_t> a = shapeOf(*lhs), b = shapeOf(*rhs);
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
  Value y = MatmulOp::create(builder, at, type, *lhs, *rhs, transA, transB);
  if (alpha != 1.0)
    y = MulOp::create(builder, at, type, y, scalarConstant(alpha));
  if (node.input_size() > 2 && !node.input(2).empty()) {
    FailureOr<Value> c = getFloat(node.input(2));
    if (failed(c))
      return failure();
    Value bias = *c;
    if (failed(broadcast(type.getShape(), shapeOf(bias))) ||
        *broadcast(type.getShape(), shapeOf(bias)) !=
            SmallVector<int64_t>(type.getShape()))
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

LogicalResult OnnxImporter::convertSoftmax(const onnx::NodeProto &node) {
  FailureOr<Value> input = getFloat(node.input(0));
  if (failed(input))
    return failure();
  int64_t rank = shapeOf(*input).size();
  // Before opset 13, Softmax flattened to 2-D at `axis` (default 1); that is
  // a softmax along one axis only when the axis is the last one.
  FailureOr<int64_t> axis =
      normalizeAxis(intAttr(node, "axis", opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  if (opset < 13 && *axis != rank - 1)
    return failNode("opset " + std::to_string(opset) +
                    " Softmax over the flattened axes " +
                    std::to_string(*axis) + ".." + std::to_string(rank - 1) +
                    " is not supported (only the last axis)");
  return bind(node, SoftmaxOp::create(builder, loc(), *input,
                                      static_cast<uint64_t>(*axis)));
}

LogicalResult OnnxImporter::convertLayerNorm(const onnx::NodeProto &node) {
  if (node.input_size() < 2)
    return failNode("expects X and Scale");
  FailureOr<Value> input = getFloat(node.input(0));
  if (failed(input))
    return failure();
  int64_t rank = shapeOf(*input).size();
  FailureOr<int64_t> axis = normalizeAxis(intAttr(node, "axis", -1), rank);
  if (failed(axis))
    return failure();
  if (*axis != rank - 1)
    return failNode("normalises from axis " + std::to_string(*axis) +
                    "; tfuse.layer_norm normalises the last axis only");
  for (int i = 1; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      return failNode("its Mean and InvStdDev outputs are not supported");
  FailureOr<Value> gamma = getFloat(node.input(1));
  if (failed(gamma))
    return failure();
  Value beta;
  if (node.input_size() > 2 && !node.input(2).empty()) {
    FailureOr<Value> b = getFloat(node.input(2));
    if (failed(b))
      return failure();
    beta = *b;
  }
  int64_t width = shapeOf(*input).back();
  for (Value param : {*gamma, beta})
    if (param && ArrayRef<int64_t>(shapeOf(param)) != ArrayRef<int64_t>{width})
      return failNode("Scale and B must have shape [" + std::to_string(width) +
                      "], got " + formatShape(shapeOf(param)));
  return bind(node, LayerNormOp::create(
                        builder, loc(), input->getType(), *input, *gamma, beta,
                        APFloat(floatAttr(node, "epsilon", 1e-5))));
}

LogicalResult OnnxImporter::convertReduce(const onnx::NodeProto &node) {
  FailureOr<Value> input = getFloat(node.input(0));
  if (failed(input))
    return failure();
  std::vector<int64_t> axes;
  if (const onnx::AttributeProto *attr = attribute(node, "axes"))
    axes.assign(attr->ints().begin(), attr->ints().end());
  else if (node.input_size() > 1 && !node.input(1).empty()) {
    FailureOr<std::vector<int64_t>> ints = getInts(node.input(1));
    if (failed(ints))
      return failure();
    axes = *ints;
  }
  ArrayRef<int64_t> shape = shapeOf(*input);
  if (axes.size() != 1)
    return failNode("reduces over " +
                    (axes.empty() ? std::string("all axes")
                                  : std::to_string(axes.size()) + " axes") +
                    "; tfuse.reduce takes exactly one axis");
  FailureOr<int64_t> axis = normalizeAxis(axes[0], shape.size());
  if (failed(axis))
    return failure();
  bool keepDims = intAttr(node, "keepdims", 1);
  SmallVector<int64_t> result(shape);
  if (keepDims)
    result[*axis] = 1;
  else
    result.erase(result.begin() + *axis);
  ReduceKind kind = node.op_type() == "ReduceMean"  ? ReduceKind::mean
                    : node.op_type() == "ReduceSum" ? ReduceKind::sum
                                                    : ReduceKind::max;
  return bind(node,
              ReduceOp::create(builder, loc(), floatTensor(result), kind,
                               *input, static_cast<uint64_t>(*axis), keepDims));
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertReshape(const onnx::NodeProto &node) {
  if (node.input_size() != 2)
    return failNode("expects data and shape");
  FailureOr<Value> input = getFloat(node.input(0));
  if (failed(input))
    return failure();
  FailureOr<std::vector<int64_t>> target = getInts(node.input(1));
  if (failed(target))
    return failure();
  ArrayRef<int64_t> from = shapeOf(*input);
  bool allowZero = intAttr(node, "allowzero", 0);
  SmallVector<int64_t> shape;
  int64_t known = 1;
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
    if (known == 0 || total % known != 0)
      return failNode("cannot infer the -1 of shape " + formatShape(*target) +
                      " for " + std::to_string(total) + " elements");
    shape[inferred] = total / known;
  }
  if (numElements(shape) != total)
    return failNode("cannot reshape " + formatShape(from) + " into " +
                    formatShape(shape));
  return bind(node,
              ReshapeOp::create(builder, loc(), floatTensor(shape), *input));
}

LogicalResult OnnxImporter::convertTranspose(const onnx::NodeProto &node) {
  FailureOr<Value> input = getFloat(node.input(0));
  if (failed(input))
    return failure();
  ArrayRef<int64_t> from = shapeOf(*input);
  SmallVector<int64_t> perm;
  if (const onnx::AttributeProto *attr = attribute(node, "perm"))
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
                                        *input, perm));
}

LogicalResult OnnxImporter::convertSplit(const onnx::NodeProto &node) {
  FailureOr<Value> input = getFloat(node.input(0));
  if (failed(input))
    return failure();
  ArrayRef<int64_t> from = shapeOf(*input);
  FailureOr<int64_t> axis =
      normalizeAxis(intAttr(node, "axis", 0), from.size());
  if (failed(axis))
    return failure();
  std::vector<int64_t> sizes;
  if (node.input_size() > 1 && !node.input(1).empty()) {
    FailureOr<std::vector<int64_t>> ints = getInts(node.input(1));
    if (failed(ints))
      return failure();
    sizes = *ints;
  } else if (const onnx::AttributeProto *attr = attribute(node, "split")) {
    sizes.assign(attr->ints().begin(), attr->ints().end());
  } else {
    int64_t pieces = node.output_size();
    if (pieces == 0 || from[*axis] % pieces != 0)
      return failNode("cannot split " + std::to_string(from[*axis]) + " into " +
                      std::to_string(pieces) + " equal pieces");
    sizes.assign(pieces, from[*axis] / pieces);
  }
  int64_t sum = 0;
  for (int64_t s : sizes)
    sum += s;
  if (int64_t(sizes.size()) != node.output_size() || sum != from[*axis])
    return failNode("split sizes " + formatShape(sizes) + " do not cover " +
                    std::to_string(from[*axis]) + " in " +
                    std::to_string(node.output_size()) + " outputs");
  SmallVector<Type> types;
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(from);
    shape[*axis] = s;
    types.push_back(floatTensor(shape));
  }
  auto split = SplitOp::create(builder, loc(), types, *input,
                               static_cast<uint64_t>(*axis));
  for (int i = 0; i < node.output_size(); ++i)
    (void)bind(node, split.getResult(i), i);
  return success();
}

LogicalResult OnnxImporter::convertConcat(const onnx::NodeProto &node) {
  SmallVector<Value> inputs;
  for (const std::string &name : node.input()) {
    FailureOr<Value> value = getFloat(name);
    if (failed(value))
      return failure();
    inputs.push_back(*value);
  }
  if (inputs.empty())
    return failNode("has no inputs");
  SmallVector<int64_t> shape(shapeOf(inputs[0]));
  FailureOr<int64_t> axis =
      normalizeAxis(intAttr(node, "axis", 0), shape.size());
  if (failed(axis))
    return failure();
  for (Value other : ArrayRef<Value>(inputs).drop_front()) {
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

LogicalResult OnnxImporter::convertGather(const onnx::NodeProto &node) {
  if (node.input_size() != 2)
    return failNode("expects data and indices");
  if (intAttr(node, "axis", 0) != 0)
    return failNode("gathers along axis " +
                    std::to_string(intAttr(node, "axis", 0)) +
                    "; only embedding lookups (axis 0) are supported");
  FailureOr<Value> table = getFloat(node.input(0));
  if (failed(table))
    return failure();
  FailureOr<Value> indices = get(node.input(1));
  if (failed(indices))
    return failure();
  if (isFloatValue(*indices))
    return failNode("indices must be integers");
  SmallVector<int64_t> shape(shapeOf(*indices));
  llvm::append_range(shape, shapeOf(*table).drop_front());
  return bind(node, GatherOp::create(builder, loc(), floatTensor(shape), *table,
                                     *indices));
}

LogicalResult OnnxImporter::convertConstant(const onnx::NodeProto &node) {
  KnownTensor known;
  if (const onnx::AttributeProto *attr = attribute(node, "value")) {
    std::string why;
    FailureOr<KnownTensor> read = readTensor(attr->t(), why);
    if (failed(read))
      return failNode("cannot read its value: " + why);
    known = *read;
  } else if (const onnx::AttributeProto *attr =
                 attribute(node, "value_float")) {
    known.isFloat = true;
    known.floats.push_back(attr->f());
  } else if (const onnx::AttributeProto *attr =
                 attribute(node, "value_floats")) {
    known.isFloat = true;
    known.floats.assign(attr->floats().begin(), attr->floats().end());
    known.shape.push_back(known.floats.size());
  } else if (const onnx::AttributeProto *attr = attribute(node, "value_int")) {
    known.ints.push_back(attr->i());
  } else if (const onnx::AttributeProto *attr = attribute(node, "value_ints")) {
    known.ints.assign(attr->ints().begin(), attr->ints().end());
    known.shape.push_back(known.ints.size());
  } else {
    return failNode("has no value, value_float(s) or value_int(s) attribute");
  }
  if (node.output_size() > 0)
    constants[node.output(0)] = known;
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult OnnxImporter::convertNode(const onnx::NodeProto &node) {
  const std::string &op = node.op_type();
  if (op == "Constant")
    return convertConstant(node);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div")
    return convertBinary(node);
  if (op == "Pow")
    return convertPow(node);
  if (op == "MatMul")
    return convertMatMul(node);
  if (op == "Gemm")
    return convertGemm(node);
  if (op == "Softmax")
    return convertSoftmax(node);
  if (op == "LayerNormalization")
    return convertLayerNorm(node);
  if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax")
    return convertReduce(node);
  if (op == "Reshape")
    return convertReshape(node);
  if (op == "Transpose")
    return convertTranspose(node);
  if (op == "Split")
    return convertSplit(node);
  if (op == "Concat")
    return convertConcat(node);
  if (op == "Gather")
    return convertGather(node);
  if (op == "Identity" || op == "Dropout" || op == "Cast") {
    if (op == "Cast" && !isFloatKind(intAttr(node, "to", 0)))
      return failNode(std::string("casts to ") +
                      describeDataType(intAttr(node, "to", 0)) +
                      "; only casts between float types are supported");
    if (op == "Dropout" && node.output_size() > 1 && !node.output(1).empty())
      return failNode("its mask output is not supported");
    // Every float tensor has the one float type, and inference Dropout is
    // the identity.
    FailureOr<Value> input = get(node.input(0));
    if (failed(input))
      return failure();
    return bind(node, *input);
  }
  return convertUnary(node);
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
    if (isSupported(node.domain(), node.op_type()))
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
  for (const onnx::TensorProto &init : graph.initializer())
    initializers[init.name()] = &init;

  model.module =
      ModuleOp::create(NameLoc::get(StringAttr::get(context, "onnx")));
  body = new Block();
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
    if (failed(convertNode(node)))
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
  func.getBody().push_back(body);
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
  onnx::ModelProto proto;
  if ((*buffer)->getBufferSize() == 0 ||
      !proto.ParseFromArray((*buffer)->getBufferStart(),
                            static_cast<int>((*buffer)->getBufferSize())))
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
