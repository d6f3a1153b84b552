//===- ReferenceGraph.cpp - tfuse ops as a reference graph ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the translation of tfuse ops into RefGraphs: value
// numbering, fusion inlining and one attribute list per op. The interpreter
// does the evaluation; this file only names operands and attributes.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/ReferenceGraph.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

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

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

namespace {

using Attributes = std::map<std::string, ref::RefAttribute>;

std::vector<int64_t> toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

double toDouble(const APFloat &value) { return value.convertToDouble(); }
double toDouble(const APInt &value) {
  return static_cast<double>(value.getSExtValue());
}

/// The `splat` or `values` attribute of a constant of elements `T`.
template <typename T>
void addConstantValues(DenseElementsAttr dense, Attributes &attrs) {
  if (dense.isSplat()) {
    attrs["splat"] = toDouble(dense.getSplatValue<T>());
    return;
  }
  std::vector<double> values;
  values.reserve(dense.getNumElements());
  for (const T &value : dense.getValues<T>())
    values.push_back(toDouble(value));
  attrs["values"] = std::move(values);
}

LogicalResult addConstantAttributes(ConstantOp op, Attributes &attrs) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return op.emitOpError() << "needs a dense value to be evaluated by the "
                               "reference";
  if (isa<FloatType>(dense.getElementType()))
    addConstantValues<APFloat>(dense, attrs);
  else
    addConstantValues<APInt>(dense, attrs);
  return success();
}

/// The attributes the interpreter reads for `op` (docs/bundle.md lists them).
LogicalResult addAttributes(Operation *op, Attributes &attrs) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](MatmulOp m) {
        attrs["transpose_lhs"] = m.getTransposeLhs();
        attrs["transpose_rhs"] = m.getTransposeRhs();
        return success();
      })
      .Case([&](GeluOp g) {
        attrs["approximate"] =
            stringifyGeluApproximation(g.getApproximate()).str();
        return success();
      })
      .Case([&](ConstantOp c) { return addConstantAttributes(c, attrs); })
      .Case([&](ReduceOp r) {
        attrs["kind"] = stringifyReduceKind(r.getKind()).str();
        attrs["axis"] = static_cast<int64_t>(r.getAxis());
        attrs["keep_dims"] = r.getKeepDims();
        return success();
      })
      .Case<SoftmaxOp, SplitOp, ConcatOp>([&](auto axisOp) {
        attrs["axis"] = static_cast<int64_t>(axisOp.getAxis());
        return success();
      })
      .Case([&](LayerNormOp n) {
        attrs["epsilon"] = n.getEpsilon().convertToDouble();
        attrs["has_gamma"] = static_cast<bool>(n.getGamma());
        attrs["has_beta"] = static_cast<bool>(n.getBeta());
        return success();
      })
      .Case([&](RmsNormOp n) {
        attrs["epsilon"] = n.getEpsilon().convertToDouble();
        attrs["has_gamma"] = static_cast<bool>(n.getGamma());
        return success();
      })
      .Case([&](NormGradOp n) {
        attrs["epsilon"] = n.getEpsilon().convertToDouble();
        attrs["has_gamma"] = static_cast<bool>(n.getGamma());
        attrs["rms"] = n.getRms();
        return success();
      })
      .Case([&](DropoutOp d) {
        attrs["p"] = d.getP().convertToDouble();
        attrs["seed"] = static_cast<int64_t>(d.getSeed());
        return success();
      })
      .Case([&](TransposeOp t) {
        attrs["perm"] = toVector(t.getPerm());
        return success();
      })
      .Case([&](SliceOp s) {
        attrs["offsets"] = toVector(s.getOffsets());
        return success();
      })
      .Case<AttentionOp, AttentionGradOp>([&](auto a) {
        attrs["scale"] = a.getScale().convertToDouble();
        attrs["causal"] = a.getCausal();
        if (std::optional<APFloat> p = a.getDropoutP())
          attrs["dropout_p"] = p->convertToDouble();
        if (std::optional<uint64_t> seed = a.getSeed())
          attrs["seed"] = static_cast<int64_t>(*seed);
        return success();
      })
      .Case<CrossEntropyOp, CrossEntropyGradOp>([&](auto loss) {
        attrs["ignore_index"] = static_cast<int64_t>(loss.getIgnoreIndex());
        return success();
      })
      .Case([&](RopeOp r) {
        attrs["attention_scaling"] = r.getAttentionScaling().convertToDouble();
        return success();
      })
      .Case([&](WindowMaskOp m) {
        attrs["window"] = static_cast<int64_t>(m.getWindow());
        return success();
      })
      .Case([&](AdamWOp a) {
        attrs["beta1"] = a.getBeta1().convertToDouble();
        attrs["beta2"] = a.getBeta2().convertToDouble();
        attrs["epsilon"] = a.getEpsilon().convertToDouble();
        attrs["weight_decay"] = a.getWeightDecay().convertToDouble();
        return success();
      })
      .Case([&](SgdOp s) {
        attrs["momentum"] = s.getMomentum().convertToDouble();
        attrs["dampening"] = s.getDampening().convertToDouble();
        attrs["weight_decay"] = s.getWeightDecay().convertToDouble();
        attrs["nesterov"] = s.getNesterov();
        return success();
      })
      .Case([&](AllReduceOp c) {
        attrs["group_size"] = static_cast<int64_t>(c.getGroupSize());
        return success();
      })
      .Case<ReduceScatterOp, AllGatherOp>([&](auto c) {
        attrs["axis"] = static_cast<int64_t>(c.getAxis());
        attrs["group_size"] = static_cast<int64_t>(c.getGroupSize());
        return success();
      })
      // Ops whose semantics the name and the result types carry.
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, NegOp, ExpOp, LogOp,
            TanhOp, ErfOp, SqrtOp, RsqrtOp, SigmoidOp, ReluOp, SiluOp, StepOp,
            CastOp, ReshapeOp, GatherOp, GatherGradOp, CausalMaskOp>(
          [](Operation *) { return success(); })
      .Default([](Operation *other) {
        return other->emitOpError() << "has no reference semantics";
      });
}

//===----------------------------------------------------------------------===//
// Graph building
//===----------------------------------------------------------------------===//

/// Numbers values and appends ops to one graph.
class GraphBuilder {
public:
  GraphBuilder(SmallVectorImpl<Operation *> *sources) : sources(sources) {}

  LogicalResult addArgument(Value value) {
    FailureOr<ref::TensorType> type = tensorTypeOf(value, locationOf(value));
    if (failed(type))
      return failure();
    numbers.try_emplace(value, next++);
    graph.arguments.push_back(*type);
    return success();
  }

  LogicalResult addOp(Operation *op) {
    if (auto fusion = dyn_cast<FusionOp>(op))
      return inlineFusion(fusion);
    ref::RefOp refOp;
    refOp.name = op->getName().getStringRef().str();
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      std::optional<int> number = lookup(operand);
      if (!number)
        return op->emitOpError()
               << "operand " << index
               << " is neither an argument of the reference graph nor a "
                  "result of an earlier op";
      refOp.operands.push_back(*number);
    }
    if (failed(addAttributes(op, refOp.attributes)))
      return failure();
    for (Value result : op->getResults()) {
      FailureOr<ref::TensorType> type = tensorTypeOf(result, op->getLoc());
      if (failed(type))
        return failure();
      refOp.results.push_back(*type);
    }
    // The interpreter's own checks of the op; the tfuse verifiers refuse
    // everything they would, so a failure here is a missed verifier rule.
    std::string error;
    if (!ref::verifyRefOp(refOp, error))
      return op->emitOpError()
             << "cannot be evaluated by the reference: " << error;
    for (Value result : op->getResults())
      numbers[result] = next++;
    graph.ops.push_back(std::move(refOp));
    if (sources)
      sources->push_back(op);
    return success();
  }

  LogicalResult addYield(Value value) {
    std::optional<int> number = lookup(value);
    if (!number)
      return emitError(locationOf(value))
             << "a yielded value is neither an argument of the reference "
                "graph nor a result of one of its ops";
    graph.yields.push_back(*number);
    return success();
  }

  ref::RefGraph take() { return std::move(graph); }

private:
  std::optional<int> lookup(Value value) const {
    auto it = numbers.find(value);
    if (it == numbers.end())
      return std::nullopt;
    return it->second;
  }

  static Location locationOf(Value value) {
    if (Operation *op = value.getDefiningOp())
      return op->getLoc();
    return cast<BlockArgument>(value).getOwner()->getParentOp()->getLoc();
  }

  static FailureOr<ref::TensorType> tensorTypeOf(Value value, Location loc) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return emitError(loc) << "the reference evaluates statically shaped "
                               "tensors, got "
                            << value.getType();
    FailureOr<ref::DType> dtype = toReferenceDType(loc, type.getElementType());
    if (failed(dtype))
      return failure();
    return ref::TensorType{*dtype, toVector(type.getShape())};
  }

  /// The body's ops join the graph; block arguments and results alias the
  /// values that flow in and out.
  LogicalResult inlineFusion(FusionOp fusion) {
    Block &body = fusion.getBody().front();
    for (auto [arg, input] :
         llvm::zip(body.getArguments(), fusion.getInputs())) {
      std::optional<int> number = lookup(input);
      if (!number)
        return fusion.emitOpError()
               << "input " << arg.getArgNumber()
               << " is neither an argument of the reference graph nor a "
                  "result of an earlier op";
      numbers[arg] = *number;
    }
    for (Operation &op : body.without_terminator())
      if (failed(addOp(&op)))
        return failure();
    for (auto [result, yielded] :
         llvm::zip(fusion.getResults(), fusion.getYield().getValues()))
      numbers[result] = *lookup(yielded);
    return success();
  }

  ref::RefGraph graph;
  llvm::DenseMap<Value, int> numbers;
  int next = 0;
  SmallVectorImpl<Operation *> *sources;
};

} // namespace

FailureOr<ref::RefGraph>
mlir::tfuse::buildReferenceGraph(ValueRange arguments,
                                 ArrayRef<Operation *> ops, ValueRange yields,
                                 SmallVectorImpl<Operation *> *sources) {
  GraphBuilder builder(sources);
  for (Value argument : arguments)
    if (failed(builder.addArgument(argument)))
      return failure();
  for (Operation *op : ops)
    if (failed(builder.addOp(op)))
      return failure();
  for (Value yield : yields)
    if (failed(builder.addYield(yield)))
      return failure();
  return builder.take();
}

FailureOr<ref::RefGraph>
mlir::tfuse::buildReferenceGraph(func::FuncOp func,
                                 SmallVectorImpl<Operation *> *sources) {
  if (func.isExternal())
    return func.emitOpError() << "has no body to evaluate";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError() << "must have a single block to be evaluated";
  Block &body = func.getBody().front();
  if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>())
    return func.emitOpError() << "has no terminator to take results from";
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  return buildReferenceGraph(body.getArguments(), ops,
                             body.getTerminator()->getOperands(), sources);
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

InFlightDiagnostic mlir::tfuse::locatedGraphError(StringRef error,
                                                  ArrayRef<Operation *> sources,
                                                  Location fallback) {
  // The interpreter's errors about one op read "op N (name): message".
  StringRef rest = error;
  unsigned index;
  if (rest.consume_front("op ") && !rest.consumeInteger(10, index) &&
      rest.consume_front(" (") && index < sources.size()) {
    size_t end = rest.find("): ");
    if (end != StringRef::npos)
      return sources[index]->emitOpError() << rest.drop_front(end + 3);
  }
  return emitError(fallback) << error;
}

FailureOr<std::vector<ref::Tensor>>
mlir::tfuse::evaluateFunction(func::FuncOp func,
                              ArrayRef<ref::Tensor> arguments) {
  SmallVector<Operation *> sources;
  FailureOr<ref::RefGraph> graph = buildReferenceGraph(func, &sources);
  if (failed(graph))
    return failure();
  std::string error;
  std::optional<std::vector<ref::Tensor>> results = ref::evaluateGraph(
      *graph, std::vector<ref::Tensor>(arguments.begin(), arguments.end()),
      error);
  if (!results) {
    locatedGraphError(error, sources, func.getLoc());
    return failure();
  }
  return std::move(*results);
}
