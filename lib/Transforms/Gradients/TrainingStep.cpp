//===- TrainingStep.cpp - forward + loss + backward -------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Builds a training step from a forward function: clone the forward, seed
// the loss, sweep the forward ops in reverse and ask each op family's rules
// for the operand gradients (summed where a value has several uses), then
// apply the recompute policy to the forward values the backward reads.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"
#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Transforms/Autodiff.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::autodiff;

std::optional<LossKind> mlir::tfuse::parseLossKind(StringRef name) {
  return llvm::StringSwitch<std::optional<LossKind>>(name)
      .Case("seed", LossKind::Seed)
      .Case("mse", LossKind::MeanSquared)
      .Case("cross-entropy", LossKind::CrossEntropy)
      .Default(std::nullopt);
}

std::optional<RecomputePolicy>
mlir::tfuse::parseRecomputePolicy(StringRef name) {
  return llvm::StringSwitch<std::optional<RecomputePolicy>>(name)
      .Case("none", RecomputePolicy::None)
      .Case("norms-and-elementwise", RecomputePolicy::NormsAndElementwise)
      .Case("full", RecomputePolicy::Full)
      .Default(std::nullopt);
}

StringRef mlir::tfuse::stringifyLossKind(LossKind kind) {
  switch (kind) {
  case LossKind::Seed:
    return "seed";
  case LossKind::MeanSquared:
    return "mse";
  case LossKind::CrossEntropy:
    return "cross-entropy";
  }
  return "seed";
}

StringRef mlir::tfuse::stringifyRecomputePolicy(RecomputePolicy policy) {
  switch (policy) {
  case RecomputePolicy::None:
    return "none";
  case RecomputePolicy::NormsAndElementwise:
    return "norms-and-elementwise";
  case RecomputePolicy::Full:
    return "full";
  }
  return "none";
}

namespace {

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// THE place where attention's backward is decided. With fusedAttention,
/// an attention op the flash-attention kernels cover (forward and backward
/// take the same shapes: checkAttentionKernel) whose mask needs no gradient
/// stays whole and also gives its row log-sum-exp, for the rule of
/// differentiateContraction to emit tfuse.attention_grad. Every other one is
/// differentiated through its decomposition (matmul, scale, mask, softmax,
/// dropout, matmul).
void prepareAttentionForBackward(func::FuncOp step,
                                 ArrayRef<int64_t> gradientOf,
                                 bool fusedAttention) {
  // The values that depend on an argument with a gradient.
  llvm::DenseSet<Value> active;
  Block &entry = step.getBody().front();
  for (int64_t index : gradientOf)
    active.insert(entry.getArgument(index));
  OpBuilder builder(step.getContext());
  for (Operation &op : llvm::make_early_inc_range(entry)) {
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      active.insert(op.result_begin(), op.result_end());
    auto attention = dyn_cast<AttentionOp>(op);
    if (!fusedAttention || !attention || attention.getLse() ||
        !checkAttentionKernel(attention).empty() ||
        (attention.getMask() && active.contains(attention.getMask())))
      continue;
    builder.setInsertionPoint(attention);
    RankedTensorType q = attention.getQuery().getType();
    auto lse =
        RankedTensorType::get(q.getShape().drop_back(), builder.getF32Type());
    auto whole = AttentionOp::create(
        builder, attention.getLoc(), attention.getResult().getType(), lse,
        attention.getQuery(), attention.getKey(), attention.getValue(),
        attention.getMask(), attention.getScaleAttr(),
        attention.getCausalAttr(), attention.getDropoutPAttr(),
        attention.getSeedAttr());
    attention.getResult().replaceAllUsesWith(whole.getResult());
    if (active.contains(attention.getResult()))
      active.insert(whole->result_begin(), whole->result_end());
    attention.erase();
  }
  RewritePatternSet patterns(step.getContext());
  populateDecomposeAttentionPatterns(patterns, /*keepFused=*/false);
  walkAndApplyPatterns(step, std::move(patterns));
}

/// The forward ops' gradients, built in reverse.
class BackwardSweep {
public:
  BackwardSweep(OpBuilder &builder, ArrayRef<Operation *> forwardOps)
      : builder(builder), forwardOps(forwardOps) {}

  void markActive(Value value) { active.insert(value); }
  void seed(Value value, Value grad) { accumulate(value, grad); }
  Value gradientOf(Value value) const { return grads.lookup(value); }

  LogicalResult run() {
    propagateActivity();
    for (Operation *op : llvm::reverse(forwardOps))
      if (failed(differentiate(op)))
        return failure();
    return success();
  }

private:
  void propagateActivity() {
    for (Operation *op : forwardOps)
      if (llvm::any_of(op->getOperands(),
                       [&](Value v) { return active.contains(v); }))
        for (Value result : op->getResults())
          if (isFloatTensor(result.getType()) && hasDerivative(result))
            active.insert(result);
  }

  /// False for results that are piecewise constant in every operand: a
  /// cross-entropy's count of labelled rows.
  static bool hasDerivative(Value result) {
    auto loss = result.getDefiningOp<CrossEntropyOp>();
    return !loss || result != loss.getCounted();
  }

  void accumulate(Value value, Value grad) {
    Value &slot = grads[value];
    if (!slot) {
      slot = grad;
      return;
    }
    GradientBuilder b(builder, grad.getLoc());
    slot = b.add(slot, grad);
  }

  LogicalResult differentiate(Operation *op) {
    SmallVector<Value> resultGrads;
    for (Value result : op->getResults())
      resultGrads.push_back(grads.lookup(result));
    if (llvm::all_of(resultGrads, [](Value g) { return !g; }))
      return success();
    GradientRequest request{op, resultGrads, {}, {}};
    for (Value operand : op->getOperands())
      request.wanted.push_back(active.contains(operand));
    if (!llvm::is_contained(request.wanted, true))
      return success();
    request.operandGrads.assign(op->getNumOperands(), Value());

    GradientBuilder b(
        builder, NameLoc::get(builder.getStringAttr("backward"), op->getLoc()));
    std::optional<LogicalResult> done = differentiateElementwise(request, b);
    if (!done)
      done = differentiateContraction(request, b);
    if (!done)
      done = differentiateNorm(request, b);
    if (!done)
      done = differentiateLayout(request, b);
    if (!done)
      return op->emitOpError() << "has no gradient rule";
    if (failed(*done))
      return failure();
    for (auto [operand, grad, wanted] :
         llvm::zip(op->getOperands(), request.operandGrads, request.wanted)) {
      if (!grad || !wanted)
        continue;
      if (grad.getType() != operand.getType())
        return op->emitOpError()
               << "internal error: its gradient rule built " << grad.getType()
               << " for an operand of type " << operand.getType();
      accumulate(operand, grad);
    }
    return success();
  }

  OpBuilder &builder;
  ArrayRef<Operation *> forwardOps;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> grads;
};

/// The mean-squared loss of `outputs` against `targets` over all their
/// elements; seeds each output's gradient 2 (y - t) / N.
FailureOr<Value> buildMeanSquaredLoss(OpBuilder &builder, Location loc,
                                      ValueRange outputs, ValueRange targets,
                                      BackwardSweep &sweep) {
  GradientBuilder b(builder, NameLoc::get(builder.getStringAttr("loss"), loc));
  int64_t total = 0;
  for (Value y : outputs)
    total += GradientBuilder::typeOf(y).getNumElements();
  Value loss;
  for (auto [y, t] : llvm::zip(outputs, targets)) {
    Value diff = b.sub(y, t);
    // Row sums first, then their sum: one reduce over every element would
    // be one row, one block on the GPU.
    Value squares = b.mul(diff, diff);
    ArrayRef<int64_t> shape = GradientBuilder::typeOf(y).getShape();
    int64_t count = GradientBuilder::typeOf(y).getNumElements();
    if (shape.size() >= 2 && shape.back() > 0)
      squares = b.reduce(
          ReduceKind::sum,
          b.reshape(squares, {count / shape.back(), shape.back()}), 1, false);
    else
      squares = b.reshape(squares, {count});
    Value sum = b.reduce(ReduceKind::sum, squares, 0, false);
    loss = loss ? b.add(loss, sum) : sum;
    sweep.seed(y, b.scale(diff, 2.0 / static_cast<double>(total)));
  }
  return b.scale(loss, 1.0 / static_cast<double>(total));
}

/// The mean cross-entropy of `outputs` (logits, classes on the last axis)
/// against `labels` over every row not labelled `ignoreIndex` (PyTorch's
/// reduction="mean"); seeds each output's gradient with
/// tfuse.cross_entropy_grad at 1 / (the number of counted rows).
Value buildCrossEntropyLoss(OpBuilder &builder, Location loc,
                            ValueRange outputs, ValueRange labels,
                            int64_t ignoreIndex, BackwardSweep &sweep) {
  GradientBuilder b(builder, NameLoc::get(builder.getStringAttr("loss"), loc));
  // The sum over all rows of a per-row value (rank-0 f32).
  auto sumAll = [&](Value rows) {
    int64_t count = GradientBuilder::typeOf(rows).getNumElements();
    return b.reduce(ReduceKind::sum, b.reshape(rows, {count}), 0, false);
  };
  Value loss, counted;
  SmallVector<CrossEntropyOp> losses;
  for (auto [logits, label] : llvm::zip(outputs, labels)) {
    auto rows = RankedTensorType::get(GradientBuilder::shapeOf(label),
                                      builder.getF32Type());
    auto op =
        CrossEntropyOp::create(builder, b.getLoc(), rows, rows, logits, label,
                               builder.getI64IntegerAttr(ignoreIndex));
    losses.push_back(op);
    Value sum = sumAll(op.getLoss()), count = sumAll(op.getCounted());
    loss = loss ? b.add(loss, sum) : sum;
    counted = counted ? b.add(counted, count) : count;
  }
  Type f32 = builder.getF32Type();
  Value inverse = b.div(b.scalar(f32, 1.0), counted);
  for (CrossEntropyOp op : losses) {
    Value rowGrad = b.broadcastTo(
        inverse, GradientBuilder::typeOf(op.getLabels()).getShape());
    sweep.seed(op.getLogits(),
               CrossEntropyGradOp::create(builder, b.getLoc(),
                                          op.getLogits().getType(),
                                          op.getLogits(), op.getLabels(),
                                          rowGrad, op.getIgnoreIndexAttr()));
  }
  return b.mul(loss, inverse);
}

/// Replaces the backward's uses of forward values with recomputed copies
/// as `policy` asks; returns the FLOPs of the copies.
int64_t applyRecompute(OpBuilder &builder, RecomputePolicy policy,
                       const llvm::SetVector<Operation *> &forwardOps,
                       ArrayRef<Operation *> backwardOps) {
  if (policy == RecomputePolicy::None)
    return 0;
  auto recomputes = [&](Operation *def) {
    if (isa<ConstantOp, CausalMaskOp>(def))
      return false;
    return policy == RecomputePolicy::Full || !isExpensiveToRecompute(def);
  };
  llvm::DenseMap<Value, Value> copies;
  int64_t flops = 0;
  std::function<Value(Value)> recomputed = [&](Value value) -> Value {
    Operation *def = value.getDefiningOp();
    if (!def || !forwardOps.contains(def) || !recomputes(def))
      return value;
    if (Value copy = copies.lookup(value))
      return copy;
    IRMapping map;
    for (Value operand : def->getOperands())
      map.map(operand, recomputed(operand));
    Operation *copy = builder.clone(*def, map);
    copy->setLoc(
        NameLoc::get(builder.getStringAttr("recompute"), def->getLoc()));
    if (auto cost = dyn_cast<CostOpInterface>(copy))
      flops += cost.getFlops();
    for (auto [from, to] : llvm::zip(def->getResults(), copy->getResults()))
      copies[from] = to;
    return copies.lookup(value);
  };
  for (Operation *op : backwardOps) {
    builder.setInsertionPoint(op);
    for (OpOperand &use : op->getOpOperands())
      use.set(recomputed(use.get()));
  }
  return flops;
}

/// Bytes of the forward values the backward reads (a view counts as the
/// value it views; constants are not activations).
int64_t savedBytes(const llvm::SetVector<Operation *> &forwardOps,
                   ArrayRef<Operation *> backwardOps) {
  llvm::SetVector<Value> saved;
  for (Operation *op : backwardOps)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      while (auto reshape = dyn_cast_or_null<ReshapeOp>(def)) {
        operand = reshape.getInput();
        def = operand.getDefiningOp();
      }
      if (def && forwardOps.contains(def) &&
          !isa<ConstantOp, CausalMaskOp>(def))
        saved.insert(operand);
    }
  int64_t bytes = 0;
  for (Value value : saved)
    bytes += getTensorBytes(value);
  return bytes;
}

/// Names the step's arguments and results after the forward's `tfuse.name`s:
/// the forward's arguments keep theirs (and `tfuse.checkpoint_transposed`);
/// a result R's loss input is R.target (mse), R.labels (cross-entropy; just
/// `labels` for one result) or R.grad (the seed); the loss is `loss`, the
/// gradient of argument A is A.grad. A name that would repeat one already
/// given is left out (the verifier wants them unique); a forward without
/// names (written by hand) gets none.
void nameTrainingStep(func::FuncOp forward, func::FuncOp step,
                      const AutodiffOptions &options,
                      ArrayRef<int64_t> gradientOf) {
  StringRef key = TFuseDialect::getNameAttrName();
  MLIRContext *context = forward.getContext();
  unsigned numInputs = forward.getNumArguments();
  for (unsigned i = 0; i < numInputs; ++i)
    step.setArgAttrs(i, forward.getArgAttrDict(i));
  llvm::StringSet<> argNames, resultNames;
  bool anyResultName = false;
  for (unsigned i = 0; i < numInputs; ++i)
    if (auto name = forward.getArgAttrOfType<StringAttr>(i, key))
      argNames.insert(name.getValue());
  for (unsigned r = 0; r < forward.getNumResults(); ++r)
    anyResultName |= static_cast<bool>(forward.getResultAttr(r, key));
  if (argNames.empty() && !anyResultName)
    return;
  auto nameArg = [&](unsigned index, const std::string &name) {
    if (argNames.insert(name).second)
      step.setArgAttr(index, key, StringAttr::get(context, name));
  };
  auto nameResult = [&](unsigned index, const std::string &name) {
    if (resultNames.insert(name).second)
      step.setResultAttr(index, key, StringAttr::get(context, name));
  };
  unsigned numResults = forward.getNumResults();
  for (unsigned r = 0; r < numResults; ++r) {
    auto name = forward.getResultAttrOfType<StringAttr>(r, key);
    std::string base = name ? name.str() : "result" + std::to_string(r);
    if (options.loss == LossKind::CrossEntropy)
      nameArg(numInputs + r, numResults == 1 ? "labels" : base + ".labels");
    else if (options.loss == LossKind::MeanSquared)
      nameArg(numInputs + r, base + ".target");
    else
      nameArg(numInputs + r, base + ".grad");
  }
  unsigned next = 0;
  if (options.loss == LossKind::Seed) {
    for (; next < numResults; ++next)
      if (auto name = forward.getResultAttrOfType<StringAttr>(next, key))
        nameResult(next, name.str());
  } else {
    nameResult(next++, "loss");
  }
  for (int64_t index : gradientOf) {
    if (auto name = forward.getArgAttrOfType<StringAttr>(index, key))
      nameResult(next, name.str() + ".grad");
    ++next;
  }
}

} // namespace

FailureOr<func::FuncOp>
mlir::tfuse::buildTrainingStep(func::FuncOp forward,
                               const AutodiffOptions &options) {
  if (forward.isExternal() || !forward.getBody().hasOneBlock())
    return forward.emitOpError()
           << "needs a body of one block to be differentiated";
  Block &body = forward.getBody().front();
  for (Operation &op : body.without_terminator())
    if (isa<FusionOp>(op))
      return op.emitOpError()
             << "is a fusion: differentiate the function before tfuse-fuse";
  std::string name = (forward.getSymName() + "_train").str();
  auto module = forward->getParentOfType<ModuleOp>();
  if (module && SymbolTable(module).lookup(name))
    return forward.emitOpError()
           << "cannot build its training step: '" << name << "' exists";

  FunctionType type = forward.getFunctionType();
  SmallVector<Type> inputs(type.getInputs()), results;
  for (int64_t index : options.noGrad)
    if (index < 0 || index >= static_cast<int64_t>(type.getNumInputs()) ||
        !isFloatTensor(type.getInput(index)))
      return forward.emitOpError() << "has no float tensor argument " << index
                                   << " to leave without a gradient (no-grad)";
  SmallVector<int64_t> gradientOf;
  for (auto [index, input] : llvm::enumerate(type.getInputs()))
    if (isFloatTensor(input) &&
        !llvm::is_contained(options.noGrad, static_cast<int64_t>(index)))
      gradientOf.push_back(index);
  SmallVector<Value> outputs; // the forward results the loss reads
  for (Type result : type.getResults())
    if (!isFloatTensor(result))
      return forward.emitOpError()
             << "returns " << result
             << ": a training step needs float tensor results";
  if (type.getNumResults() == 0)
    return forward.emitOpError() << "returns nothing to differentiate";
  Type lossElement = cast<RankedTensorType>(type.getResult(0)).getElementType();
  Builder types(forward.getContext());
  if (options.loss == LossKind::MeanSquared) {
    for (Type result : type.getResults())
      if (cast<RankedTensorType>(result).getElementType() != lossElement)
        return forward.emitOpError()
               << "returns results of different element types: the "
                  "mean-squared loss needs one";
    results.push_back(RankedTensorType::get({}, lossElement));
  } else if (options.loss == LossKind::CrossEntropy) {
    results.push_back(RankedTensorType::get({}, types.getF32Type()));
  } else {
    llvm::append_range(results, type.getResults());
  }
  // Seed: the gradient of every result; mse: the target of every result;
  // cross-entropy: the labels of every result's rows.
  for (Type result : type.getResults()) {
    auto logits = cast<RankedTensorType>(result);
    if (options.loss != LossKind::CrossEntropy) {
      inputs.push_back(logits);
      continue;
    }
    if (logits.getRank() == 0 || logits.getShape().back() == 0)
      return forward.emitOpError()
             << "returns " << logits
             << ": a cross-entropy loss needs logits with a class axis";
    inputs.push_back(RankedTensorType::get(logits.getShape().drop_back(),
                                           types.getI32Type()));
  }
  for (int64_t index : gradientOf)
    results.push_back(type.getInput(index));

  OpBuilder builder(forward);
  builder.setInsertionPointAfter(forward);
  auto step = func::FuncOp::create(builder, forward.getLoc(), name,
                                   builder.getFunctionType(inputs, results));
  Block *entry = step.addEntryBlock();
  IRMapping map;
  for (auto [from, to] : llvm::zip(body.getArguments(), entry->getArguments()))
    map.map(from, to);
  builder.setInsertionPointToEnd(entry);
  for (Operation &op : body)
    builder.clone(op, map);
  prepareAttentionForBackward(step, gradientOf, options.fusedAttention);

  auto terminator = cast<func::ReturnOp>(entry->getTerminator());
  llvm::SetVector<Operation *> forwardOps;
  for (Operation &op : entry->without_terminator())
    forwardOps.insert(&op);
  ValueRange lossArgs = entry->getArguments().drop_front(type.getNumInputs());
  builder.setInsertionPoint(terminator);
  BackwardSweep sweep(builder, forwardOps.getArrayRef());
  for (int64_t index : gradientOf)
    sweep.markActive(entry->getArgument(index));

  SmallVector<Value> returned;
  if (options.loss == LossKind::CrossEntropy) {
    returned.push_back(buildCrossEntropyLoss(builder, forward.getLoc(),
                                             terminator.getOperands(), lossArgs,
                                             options.ignoreIndex, sweep));
  } else if (options.loss == LossKind::MeanSquared) {
    FailureOr<Value> loss = buildMeanSquaredLoss(
        builder, forward.getLoc(), terminator.getOperands(), lossArgs, sweep);
    if (failed(loss))
      return failure();
    returned.push_back(*loss);
  } else {
    for (auto [result, grad] : llvm::zip(terminator.getOperands(), lossArgs))
      sweep.seed(result, grad);
    llvm::append_range(returned, terminator.getOperands());
  }
  llvm::DenseSet<Operation *> beforeBackward;
  for (Operation &op : entry->without_terminator())
    beforeBackward.insert(&op);
  if (failed(sweep.run())) {
    step.erase();
    return failure();
  }
  GradientBuilder zeros(builder, forward.getLoc());
  for (int64_t index : gradientOf) {
    Value arg = entry->getArgument(index);
    Value grad = sweep.gradientOf(arg);
    returned.push_back(grad ? grad
                            : zeros.splat(GradientBuilder::typeOf(arg), 0.0));
  }
  func::ReturnOp::create(builder, terminator.getLoc(), returned);
  terminator.erase();
  nameTrainingStep(forward, step, options, gradientOf);
  // Rules rebuild the same views and row statistics; share them. Before
  // recomputing, which deliberately duplicates forward ops.
  {
    IRRewriter rewriter(builder);
    DominanceInfo dominance(step);
    eliminateCommonSubExpressions(rewriter, dominance, step);
  }

  // The ops CSE kept: the forward and the loss first, then the backward.
  llvm::DenseSet<Operation *> forwardAndLoss;
  llvm::SetVector<Operation *> keptForward;
  SmallVector<Operation *> backwardOps;
  for (Operation &op : entry->without_terminator()) {
    if (!beforeBackward.contains(&op)) {
      backwardOps.push_back(&op);
      continue;
    }
    forwardAndLoss.insert(&op);
    if (forwardOps.contains(&op))
      keptForward.insert(&op);
  }
  int64_t recomputeFlops =
      applyRecompute(builder, options.recompute, keptForward, backwardOps);
  backwardOps.clear();
  for (Operation &op : entry->without_terminator())
    if (!forwardAndLoss.contains(&op))
      backwardOps.push_back(&op);
  forwardOps = std::move(keptForward);

  SmallVector<NamedAttribute> info{
      builder.getNamedAttr("forward",
                           builder.getStringAttr(forward.getSymName())),
      builder.getNamedAttr(
          "loss", builder.getStringAttr(stringifyLossKind(options.loss))),
      builder.getNamedAttr(
          "recompute",
          builder.getStringAttr(stringifyRecomputePolicy(options.recompute))),
      builder.getNamedAttr("saved_bytes", builder.getI64IntegerAttr(savedBytes(
                                              forwardOps, backwardOps))),
      builder.getNamedAttr("recompute_flops",
                           builder.getI64IntegerAttr(recomputeFlops)),
      builder.getNamedAttr("gradients",
                           builder.getDenseI64ArrayAttr(gradientOf))};
  step->setAttr(getTrainingStepAttrName(), builder.getDictionaryAttr(info));
  return step;
}
