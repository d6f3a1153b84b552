//===- ApplyOptimizer.cpp - the tfuse-apply-optimizer pass ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Appends the parameter update to a training step of tfuse-autodiff: one
// tfuse.adamw or tfuse.sgd per parameter, reading the gradient the step
// returns, with the optimizer state, lr and step as new arguments and the
// updated tensors as new results.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Transforms/Autodiff.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEAPPLYOPTIMIZER
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

/// The attribute tfuse-apply-optimizer records on a step it extended.
static constexpr StringLiteral kOptimizerAttrName = "tfuse.optimizer";

namespace {

enum class OptimizerKind { AdamW, Sgd };

/// The validated options of one run.
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::AdamW;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01;
  double momentum = 0.9, dampening = 0.0;
  bool nesterov = false;
  /// The model weight's element type, or null for none.
  Type modelWeight;

  /// State tensors per parameter.
  unsigned numState() const { return kind == OptimizerKind::AdamW ? 2 : 1; }
  /// The suffix of state tensor `s`'s name: PyTorch's optimizer state keys.
  StringRef stateName(unsigned s) const {
    if (kind == OptimizerKind::Sgd)
      return "momentum_buffer";
    return s == 0 ? "exp_avg" : "exp_avg_sq";
  }
};

/// `tfuse.name` dictionaries for the new arguments and results: a name once
/// per side, none where the parameter has none or the name is taken, and
/// none at all in a step without names (written by hand).
class UpdateNames {
public:
  UpdateNames(func::FuncOp step) : step(step) {
    for (unsigned i = 0; i < step.getNumArguments(); ++i)
      if (auto name = step.getArgAttrOfType<StringAttr>(i, key()))
        argNames.insert(name.getValue());
    for (unsigned i = 0; i < step.getNumResults(); ++i)
      if (auto name = step.getResultAttrOfType<StringAttr>(i, key()))
        resultNames.insert(name.getValue());
  }
  /// The name of `param`, or empty.
  StringRef nameOf(BlockArgument param) {
    auto name = step.getArgAttrOfType<StringAttr>(param.getArgNumber(), key());
    return name ? name.getValue() : StringRef();
  }
  /// `base`.`suffix` (`base` without a suffix), or no name for no base.
  DictionaryAttr argument(StringRef base, StringRef suffix = "") {
    return named(base, suffix, argNames);
  }
  DictionaryAttr result(StringRef base, StringRef suffix = "") {
    return named(base, suffix, resultNames);
  }

private:
  static StringRef key() { return TFuseDialect::getNameAttrName(); }
  DictionaryAttr named(StringRef base, StringRef suffix,
                       llvm::StringSet<> &taken) {
    std::string text =
        suffix.empty() ? base.str() : (base + "." + suffix).str();
    Builder b(step.getContext());
    if (base.empty() || (argNames.empty() && resultNames.empty()) ||
        !taken.insert(text).second)
      return DictionaryAttr();
    return b.getDictionaryAttr(b.getNamedAttr(key(), b.getStringAttr(text)));
  }
  func::FuncOp step;
  llvm::StringSet<> argNames, resultNames;
};

/// The parameters of `step` and the result index of each one's gradient.
/// Emits an error and fails when `requested` names an argument without a
/// gradient or a parameter is not f32.
FailureOr<SmallVector<std::pair<int64_t, unsigned>>>
selectParameters(func::FuncOp step, ArrayRef<int64_t> requested) {
  auto info = step->getAttrOfType<DictionaryAttr>(getTrainingStepAttrName());
  auto gradients =
      info ? info.getAs<DenseI64ArrayAttr>("gradients") : DenseI64ArrayAttr();
  if (!gradients)
    return step.emitError()
           << "tfuse-apply-optimizer: the tfuse.training_step of @"
           << step.getSymName() << " has no `gradients`";
  unsigned numResults = step.getNumResults();
  if (gradients.size() > numResults)
    return step.emitError()
           << "tfuse-apply-optimizer: @" << step.getSymName() << " lists "
           << gradients.size() << " gradients but returns " << numResults
           << " values";
  // Gradients are the step's last results, in the order of `gradients`.
  llvm::DenseMap<int64_t, unsigned> gradientResult;
  unsigned first = numResults - gradients.size();
  for (auto [position, argument] : llvm::enumerate(gradients.asArrayRef()))
    gradientResult.try_emplace(argument, first + position);

  SmallVector<int64_t> chosen(requested);
  if (chosen.empty())
    chosen.assign(gradients.asArrayRef().begin(), gradients.asArrayRef().end());
  SmallVector<std::pair<int64_t, unsigned>> params;
  llvm::DenseSet<int64_t> seen;
  for (int64_t argument : chosen) {
    auto it = gradientResult.find(argument);
    if (it == gradientResult.end())
      return step.emitError() << "tfuse-apply-optimizer: @" << step.getSymName()
                              << " returns no gradient of argument " << argument
                              << " (params must be listed in its gradients)";
    if (!seen.insert(argument).second)
      return step.emitError() << "tfuse-apply-optimizer: argument " << argument
                              << " is listed twice in params";
    Type type = step.getArgument(argument).getType();
    if (!cast<RankedTensorType>(type).getElementType().isF32())
      return step.emitError() << "tfuse-apply-optimizer: parameter " << argument
                              << " of @" << step.getSymName() << " is " << type
                              << "; the optimizer updates f32 master weights";
    params.emplace_back(argument, it->second);
  }
  return params;
}

/// Extends `step` with the update of every parameter (see the pass's
/// description).
LogicalResult applyOptimizer(func::FuncOp step, const OptimizerConfig &config,
                             ArrayRef<int64_t> requested) {
  if (step->hasAttr(kOptimizerAttrName))
    return step.emitError() << "tfuse-apply-optimizer: @" << step.getSymName()
                            << " already has an optimizer update "
                               "(tfuse.optimizer)";
  FailureOr<SmallVector<std::pair<int64_t, unsigned>>> params =
      selectParameters(step, requested);
  if (failed(params))
    return failure();

  MLIRContext *context = step.getContext();
  Block &entry = step.getBody().front();
  auto terminator = cast<func::ReturnOp>(entry.getTerminator());
  OpBuilder builder(terminator);
  auto scalarType = RankedTensorType::get({}, builder.getF32Type());

  // New arguments: the state of every parameter, then lr and step.
  unsigned stateStart = step.getNumArguments();
  Location stepLoc = NameLoc::get(builder.getStringAttr("optimizer"));
  UpdateNames names(step);
  for (auto [argument, result] : *params) {
    BlockArgument param = step.getArgument(argument);
    StringRef name = names.nameOf(param);
    for (unsigned s = 0; s < config.numState(); ++s)
      (void)step.insertArgument(step.getNumArguments(), param.getType(),
                                names.argument(name, config.stateName(s)),
                                param.getLoc());
  }
  unsigned lrIndex = step.getNumArguments();
  (void)step.insertArgument(lrIndex, scalarType, names.argument("lr"), stepLoc);
  (void)step.insertArgument(lrIndex + 1, scalarType, names.argument("step"),
                            stepLoc);
  Value lr = step.getArgument(lrIndex), count = step.getArgument(lrIndex + 1);

  SmallVector<Value> returned(terminator.getOperands());
  SmallVector<DictionaryAttr> resultNames;
  unsigned resultStart = returned.size();
  for (auto [index, entryPair] : llvm::enumerate(*params)) {
    auto [argument, result] = entryPair;
    BlockArgument param = step.getArgument(argument);
    // The updated tensors take the names of the ones they replace, so that
    // --save-outputs writes the next step's --inputs.
    StringRef name = names.nameOf(param);
    resultNames.push_back(names.result(name));
    for (unsigned s = 0; s < config.numState(); ++s)
      resultNames.push_back(names.result(name, config.stateName(s)));
    if (config.modelWeight)
      resultNames.push_back(names.result(name, "model"));
    Value grad = terminator.getOperand(result);
    Location loc =
        NameLoc::get(builder.getStringAttr("optimizer"), param.getLoc());
    unsigned state = stateStart + index * config.numState();
    SmallVector<Type> types(1 + config.numState(), param.getType());
    if (config.modelWeight)
      types.push_back(RankedTensorType::get(
          cast<RankedTensorType>(param.getType()).getShape(),
          config.modelWeight));
    Operation *update;
    if (config.kind == OptimizerKind::AdamW)
      update =
          AdamWOp::create(builder, loc, types, param, grad,
                          step.getArgument(state), step.getArgument(state + 1),
                          lr, count, builder.getF64FloatAttr(config.beta1),
                          builder.getF64FloatAttr(config.beta2),
                          builder.getF64FloatAttr(config.eps),
                          builder.getF64FloatAttr(config.weightDecay));
    else
      update = SgdOp::create(
          builder, loc, types, param, grad, step.getArgument(state), lr, count,
          builder.getF64FloatAttr(config.momentum),
          builder.getF64FloatAttr(config.dampening),
          builder.getF64FloatAttr(config.weightDecay),
          config.nesterov ? builder.getUnitAttr() : UnitAttr());
    llvm::append_range(returned, update->getResults());
  }
  func::ReturnOp::create(builder, terminator.getLoc(), returned);
  terminator.erase();
  for (unsigned i = resultStart; i < returned.size(); ++i)
    (void)step.insertResult(i, returned[i].getType(),
                            resultNames[i - resultStart]);

  SmallVector<int64_t> paramIndices;
  for (auto [argument, result] : *params)
    paramIndices.push_back(argument);
  Builder b(context);
  SmallVector<NamedAttribute> record{
      b.getNamedAttr("optimizer",
                     b.getStringAttr(config.kind == OptimizerKind::AdamW
                                         ? "adamw"
                                         : "sgd")),
      b.getNamedAttr("params", b.getDenseI64ArrayAttr(paramIndices)),
      b.getNamedAttr("state", b.getI64IntegerAttr(stateStart)),
      b.getNamedAttr("lr", b.getI64IntegerAttr(lrIndex)),
      b.getNamedAttr("step", b.getI64IntegerAttr(lrIndex + 1)),
      b.getNamedAttr("results", b.getI64IntegerAttr(resultStart))};
  step->setAttr(kOptimizerAttrName, b.getDictionaryAttr(record));
  return success();
}

struct TFuseApplyOptimizerPass
    : mlir::tfuse::impl::TFuseApplyOptimizerBase<TFuseApplyOptimizerPass> {
  using TFuseApplyOptimizerBase::TFuseApplyOptimizerBase;

  /// Emits an error at `module` and fails unless `ok`.
  LogicalResult check(bool ok, const Twine &message) {
    if (ok)
      return success();
    getOperation().emitError() << "tfuse-apply-optimizer: " << message;
    return failure();
  }

  FailureOr<OptimizerConfig> parseOptions() {
    OptimizerConfig config;
    if (optimizer == "adamw")
      config.kind = OptimizerKind::AdamW;
    else if (optimizer == "sgd")
      config.kind = OptimizerKind::Sgd;
    else if (failed(check(false, "unknown optimizer '" + optimizer +
                                     "' (expected adamw or sgd)")))
      return failure();
    config.beta1 = beta1;
    config.beta2 = beta2;
    config.eps = eps;
    config.momentum = momentum;
    config.dampening = dampening;
    config.nesterov = nesterov;
    config.weightDecay = weightDecay.hasValue() ? double(weightDecay)
                         : config.kind == OptimizerKind::AdamW ? 0.01
                                                               : 0.0;
    Builder b(&getContext());
    if (modelWeight == "bf16")
      config.modelWeight = b.getBF16Type();
    else if (modelWeight == "f16")
      config.modelWeight = b.getF16Type();
    else if (modelWeight != "none" &&
             failed(check(false, "unknown model-weight '" + modelWeight +
                                     "' (expected none, bf16 or f16)")))
      return failure();

    auto inUnit = [](double x) { return x >= 0.0 && x < 1.0; };
    auto show = [](double x) { return std::to_string(x); };
    if (failed(check(std::isfinite(config.weightDecay) &&
                         config.weightDecay >= 0.0,
                     "weight-decay must be non-negative and finite, got " +
                         show(config.weightDecay))))
      return failure();
    if (config.kind == OptimizerKind::AdamW) {
      if (failed(check(inUnit(config.beta1),
                       "beta1 must be in [0, 1), got " + show(config.beta1))) ||
          failed(check(inUnit(config.beta2),
                       "beta2 must be in [0, 1), got " + show(config.beta2))) ||
          failed(check(std::isfinite(config.eps) && config.eps > 0.0,
                       "eps must be positive and finite, got " +
                           show(config.eps))))
        return failure();
      return config;
    }
    if (failed(check(std::isfinite(config.momentum) && config.momentum > 0.0,
                     "momentum must be positive and finite, got " +
                         show(config.momentum))) ||
        failed(check(config.dampening >= 0.0 && config.dampening <= 1.0,
                     "dampening must be in [0, 1], got " +
                         show(config.dampening))) ||
        failed(
            check(!config.nesterov || config.dampening == 0.0,
                  "nesterov needs dampening 0, got " + show(config.dampening))))
      return failure();
    return config;
  }

  void runOnOperation() override {
    FailureOr<OptimizerConfig> config = parseOptions();
    if (failed(config))
      return signalPassFailure();
    SmallVector<func::FuncOp> steps;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(getTrainingStepAttrName()) &&
          (function.empty() || func.getSymName() == function))
        steps.push_back(func);
    if (steps.empty()) {
      getOperation().emitError()
          << "tfuse-apply-optimizer: no training step"
          << (function.empty() ? std::string() : " named '" + function + "'")
          << " (run tfuse-autodiff first)";
      return signalPassFailure();
    }
    for (func::FuncOp step : steps)
      if (failed(applyOptimizer(step, *config, params)))
        return signalPassFailure();
  }
};

} // namespace
