//===- ReferenceEvaluator.cpp - run tfuse IR on the CPU reference -*- C++ -*-=//
//
// Maps every tfuse op onto its lib/Reference function. The reference does the
// arithmetic; this file only translates operands and attributes.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/ReferenceEvaluator.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfuse;

FailureOr<ref::DType> mlir::tfuse::toReferenceDType(Location loc,
                                                    Type elementType) {
  if (elementType.isF32())
    return ref::DType::F32;
  if (elementType.isF16())
    return ref::DType::F16;
  if (elementType.isBF16())
    return ref::DType::BF16;
  if (elementType.isInteger(32))
    return ref::DType::I32;
  if (elementType.isInteger(64))
    return ref::DType::I64;
  return emitError(loc) << "the reference evaluator does not support element "
                           "type "
                        << elementType;
}

namespace {

using Tensors = std::vector<ref::Tensor>;

/// Evaluates the ops of one block, keeping every SSA value's tensor.
class BlockEvaluator {
public:
  FailureOr<Tensors> run(Block &block, ArrayRef<ref::Tensor> arguments) {
    for (auto [arg, tensor] : llvm::zip(block.getArguments(), arguments))
      values[arg] = tensor;
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        return operandTensors(op);
      FailureOr<Tensors> results = evaluate(op);
      if (failed(results))
        return failure();
      for (auto [result, tensor] : llvm::zip(op.getResults(), *results))
        values[result] = std::move(tensor);
    }
    return emitError(block.getParent()->getLoc())
           << "block has no terminator to take results from";
  }

private:
  const ref::Tensor &get(Value value) { return values.find(value)->second; }
  const ref::Tensor *getOrNull(Value value) {
    return value ? &get(value) : nullptr;
  }

  Tensors operandTensors(Operation &op) {
    Tensors tensors;
    for (Value operand : op.getOperands())
      tensors.push_back(get(operand));
    return tensors;
  }

  static std::vector<int64_t> shapeOf(Value value) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(value.getType()).getShape();
    return std::vector<int64_t>(shape.begin(), shape.end());
  }

  FailureOr<Tensors> evaluate(Operation &op);
  FailureOr<Tensors> evaluateConstant(ConstantOp op);

  template <typename OpTy>
  Tensors binary(OpTy op, ref::BinaryKind kind) {
    return {ref::binary(kind, get(op.getLhs()), get(op.getRhs()))};
  }
  template <typename OpTy>
  Tensors unary(OpTy op, ref::UnaryKind kind) {
    return {ref::unary(kind, get(op.getInput()))};
  }

  llvm::DenseMap<Value, ref::Tensor> values;
};

} // namespace

FailureOr<Tensors> BlockEvaluator::evaluateConstant(ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return op.emitOpError() << "the reference evaluator needs a dense constant";
  FailureOr<ref::DType> dtype =
      toReferenceDType(op.getLoc(), dense.getElementType());
  if (failed(dtype))
    return failure();
  ref::Tensor tensor;
  tensor.dtype = *dtype;
  tensor.shape = shapeOf(op.getResult());
  if (isa<FloatType>(dense.getElementType())) {
    for (const APFloat &value : dense.getValues<APFloat>())
      tensor.data.push_back(value.convertToDouble());
  } else {
    for (const APInt &value : dense.getValues<APInt>())
      tensor.data.push_back(static_cast<double>(value.getSExtValue()));
  }
  return Tensors{std::move(tensor)};
}

FailureOr<Tensors> BlockEvaluator::evaluate(Operation &op) {
  using ref::BinaryKind;
  using ref::UnaryKind;
  return llvm::TypeSwitch<Operation *, FailureOr<Tensors>>(&op)
      .Case([&](MatmulOp op) -> Tensors {
        return {ref::matmul(get(op.getLhs()), get(op.getRhs()),
                            op.getTransposeLhs(), op.getTransposeRhs())};
      })
      .Case([&](AddOp op) { return binary(op, BinaryKind::Add); })
      .Case([&](SubOp op) { return binary(op, BinaryKind::Sub); })
      .Case([&](MulOp op) { return binary(op, BinaryKind::Mul); })
      .Case([&](DivOp op) { return binary(op, BinaryKind::Div); })
      .Case([&](MaxOp op) { return binary(op, BinaryKind::Max); })
      .Case([&](MinOp op) { return binary(op, BinaryKind::Min); })
      .Case([&](NegOp op) { return unary(op, UnaryKind::Neg); })
      .Case([&](ExpOp op) { return unary(op, UnaryKind::Exp); })
      .Case([&](LogOp op) { return unary(op, UnaryKind::Log); })
      .Case([&](TanhOp op) { return unary(op, UnaryKind::Tanh); })
      .Case([&](ErfOp op) { return unary(op, UnaryKind::Erf); })
      .Case([&](SqrtOp op) { return unary(op, UnaryKind::Sqrt); })
      .Case([&](RsqrtOp op) { return unary(op, UnaryKind::Rsqrt); })
      .Case([&](SigmoidOp op) { return unary(op, UnaryKind::Sigmoid); })
      .Case([&](ReluOp op) { return unary(op, UnaryKind::Relu); })
      .Case([&](SiluOp op) { return unary(op, UnaryKind::Silu); })
      .Case([&](GeluOp op) {
        return unary(op, op.getApproximate() == GeluApproximation::tanh
                             ? UnaryKind::GeluTanh
                             : UnaryKind::GeluErf);
      })
      .Case([&](CastOp op) -> FailureOr<Tensors> {
        FailureOr<ref::DType> to = toReferenceDType(
            op.getLoc(), op.getType().getElementType());
        if (failed(to))
          return failure();
        return Tensors{ref::cast(get(op.getInput()), *to)};
      })
      .Case([&](ConstantOp op) { return evaluateConstant(op); })
      .Case([&](ReduceOp op) -> Tensors {
        ref::ReduceKind kind = op.getKind() == ReduceKind::sum
                                   ? ref::ReduceKind::Sum
                               : op.getKind() == ReduceKind::max
                                   ? ref::ReduceKind::Max
                                   : ref::ReduceKind::Mean;
        return {ref::reduce(kind, get(op.getInput()), op.getAxis(),
                            op.getKeepDims())};
      })
      .Case([&](SoftmaxOp op) -> Tensors {
        return {ref::softmax(get(op.getInput()), op.getAxis())};
      })
      .Case([&](LayerNormOp op) -> Tensors {
        return {ref::layerNorm(get(op.getInput()), getOrNull(op.getGamma()),
                               getOrNull(op.getBeta()),
                               op.getEpsilon().convertToDouble())};
      })
      .Case([&](RmsNormOp op) -> Tensors {
        return {ref::rmsNorm(get(op.getInput()), getOrNull(op.getGamma()),
                             op.getEpsilon().convertToDouble())};
      })
      .Case([&](DropoutOp op) -> Tensors {
        return {ref::dropout(get(op.getInput()), op.getP().convertToDouble(),
                             op.getSeed())};
      })
      .Case([&](ReshapeOp op) -> Tensors {
        return {ref::reshape(get(op.getInput()), shapeOf(op.getResult()))};
      })
      .Case([&](TransposeOp op) -> Tensors {
        ArrayRef<int64_t> perm = op.getPerm();
        return {ref::transpose(get(op.getInput()),
                               std::vector<int64_t>(perm.begin(), perm.end()))};
      })
      .Case([&](SliceOp op) -> Tensors {
        ArrayRef<int64_t> offsets = op.getOffsets();
        return {ref::slice(get(op.getInput()),
                           std::vector<int64_t>(offsets.begin(), offsets.end()),
                           shapeOf(op.getResult()))};
      })
      .Case([&](SplitOp op) -> Tensors {
        std::vector<int64_t> sizes;
        for (Value result : op.getResults())
          sizes.push_back(shapeOf(result)[op.getAxis()]);
        return ref::split(get(op.getInput()), op.getAxis(), sizes);
      })
      .Case([&](ConcatOp op) -> Tensors {
        return {ref::concat(operandTensors(*op), op.getAxis())};
      })
      .Case([&](GatherOp op) -> Tensors {
        return {ref::gather(get(op.getTable()), get(op.getIndices()))};
      })
      .Case([&](CausalMaskOp op) -> FailureOr<Tensors> {
        RankedTensorType type = op.getType();
        FailureOr<ref::DType> dtype =
            toReferenceDType(op.getLoc(), type.getElementType());
        if (failed(dtype))
          return failure();
        return Tensors{ref::causalMask(type.getDimSize(0), type.getDimSize(1),
                                       *dtype)};
      })
      .Case([&](AttentionOp op) -> Tensors {
        std::optional<APFloat> p = op.getDropoutP();
        return {ref::attention(get(op.getQuery()), get(op.getKey()),
                               get(op.getValue()), getOrNull(op.getMask()),
                               op.getScale().convertToDouble(), op.getCausal(),
                               p ? p->convertToDouble() : 0.0,
                               op.getSeed().value_or(0))};
      })
      .Case([&](FusionOp op) {
        return BlockEvaluator().run(op.getBody().front(), operandTensors(*op));
      })
      .Default([&](Operation *op) -> FailureOr<Tensors> {
        return op->emitOpError() << "has no reference semantics";
      });
}

FailureOr<Tensors>
mlir::tfuse::evaluateFunction(func::FuncOp func,
                              ArrayRef<ref::Tensor> arguments) {
  if (func.isExternal())
    return func.emitOpError() << "has no body to evaluate";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError() << "must have a single block to be evaluated";
  return BlockEvaluator().run(func.getBody().front(), arguments);
}
