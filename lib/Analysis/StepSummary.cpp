//===- StepSummary.cpp - phases and memory of a function --------*- C++ -*-===//
//
// Which part of a training step each op is (from tfuse-autodiff's
// locations) and how much device memory a function needs when its ops run
// in program order.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Support/CheckedInt.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tfuse;

StringRef mlir::tfuse::stringifyStepPhase(StepPhase phase) {
  switch (phase) {
  case StepPhase::Forward:
    return "forward";
  case StepPhase::Loss:
    return "loss";
  case StepPhase::Recompute:
    return "recompute";
  case StepPhase::Backward:
    return "backward";
  case StepPhase::Optimizer:
    return "optimizer";
  }
  return "forward";
}

StepPhase mlir::tfuse::phaseOf(Location loc) {
  // Only the outermost name says what built the op: a forward op's own
  // location may be a NameLoc of the importer's.
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    StepPhase latest = StepPhase::Forward;
    for (Location member : fused.getLocations())
      latest = std::max(latest, phaseOf(member));
    return latest;
  }
  if (auto name = dyn_cast<NameLoc>(loc))
    return llvm::StringSwitch<StepPhase>(name.getName().getValue())
        .Case("loss", StepPhase::Loss)
        .Case("recompute", StepPhase::Recompute)
        .Case("backward", StepPhase::Backward)
        .Case("optimizer", StepPhase::Optimizer)
        .Default(StepPhase::Forward);
  return StepPhase::Forward;
}

/// Checked: a function argument no verifier bounded may be any size.
static CheckedInt bytesOf(Value value) {
  return isa<ShapedType>(value.getType()) ? getCheckedTensorBytes(value)
                                          : CheckedInt(0);
}

/// Whether `op`'s results share its first operand's bytes.
static bool isView(Operation *op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  return op->getNumOperands() > 0 &&
         ((cost && cost.getOpClass() == OpClass::View) ||
          isAbsorbedByRope(op) || isAbsorbedByAttention(op));
}

FailureOr<int64_t> mlir::tfuse::estimatePeakBytes(func::FuncOp func) {
  Block &body = func.getBody().front();
  // Each value's storage (a view's is its operand's), and the index of the
  // last op that reads the storage; returned storage lives to the end.
  llvm::DenseMap<Value, Value> storageOf;
  llvm::DenseMap<Value, size_t> lastUse;
  auto storage = [&](Value value) {
    auto found = storageOf.find(value);
    return found == storageOf.end() ? value : found->second;
  };
  constexpr size_t kToTheEnd = ~size_t(0);
  std::vector<Operation *> order;
  for (Operation &op : body) {
    size_t index = order.size();
    order.push_back(&op);
    for (Value operand : op.getOperands()) {
      Value stored = storage(operand);
      size_t &last = lastUse[stored];
      last = isa<func::ReturnOp>(op) ? kToTheEnd : std::max(last, index);
    }
    if (isView(&op))
      for (Value result : op.getResults())
        storageOf[result] = storage(op.getOperand(0));
  }
  CheckedInt resident = 0;
  for (BlockArgument arg : body.getArguments())
    resident += bytesOf(arg);
  CheckedInt live = 0, peak = resident;
  // freedAfter[i]: the storage whose last reader is op i.
  std::vector<SmallVector<Value>> freedAfter(order.size());
  for (auto [index, op] : llvm::enumerate(order)) {
    auto cost = dyn_cast<CostOpInterface>(op);
    if (cost && cost.getOpClass() == OpClass::Constant) {
      // A constant is its own allocation, for the whole run.
      for (Value result : op->getResults())
        resident += bytesOf(result);
      continue;
    }
    if (!isView(op))
      for (Value result : op->getResults()) {
        live += bytesOf(result);
        auto use = lastUse.find(result);
        size_t last = use == lastUse.end() ? index : use->second;
        if (last != kToTheEnd)
          freedAfter[last].push_back(result);
      }
    CheckedInt now = resident + live;
    if (!now.valid())
      return func.emitOpError()
             << "needs more bytes of live values than an int64 can count";
    if (*now.get() > *peak.get())
      peak = now;
    for (Value value : freedAfter[index])
      live = live - bytesOf(value);
  }
  return *peak.get();
}
