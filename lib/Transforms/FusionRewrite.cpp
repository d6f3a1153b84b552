//===- FusionRewrite.cpp - turn a fusion plan into tfuse.fusion -*- C++ -*-===//
//
// Builds one isolated tfuse.fusion per planned group at the position of its
// last member, and records the planner's decisions on the function.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Transforms/FusionPlanner.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tfuse;

static DictionaryAttr decisionAttr(Builder &b, const FusionDecision &decision) {
  SmallVector<NamedAttribute> fields{
      b.getNamedAttr("fused", b.getBoolAttr(decision.fused)),
      b.getNamedAttr("kind",
                     b.getStringAttr(stringifyFusionKind(decision.kind))),
      b.getNamedAttr("producer",
                     b.getStringAttr(describeOp(decision.producer))),
      b.getNamedAttr("consumer",
                     b.getStringAttr(describeOp(decision.consumer))),
      b.getNamedAttr("rule", b.getStringAttr(decision.rule)),
      b.getNamedAttr("reason", b.getStringAttr(decision.reason))};
  if (decision.rule.empty()) {
    fields.push_back(b.getNamedAttr("bytes_apart",
                                    b.getI64IntegerAttr(decision.apart.bytes)));
    fields.push_back(b.getNamedAttr(
        "bytes_merged", b.getI64IntegerAttr(decision.merged.bytes)));
    fields.push_back(
        b.getNamedAttr("us_apart", b.getF64FloatAttr(decision.apart.timeUs)));
    fields.push_back(
        b.getNamedAttr("us_merged", b.getF64FloatAttr(decision.merged.timeUs)));
  }
  return b.getDictionaryAttr(fields);
}

static void buildFusion(OpBuilder &builder, const FusionGroup &group,
                        const GpuTarget &target) {
  llvm::SmallPtrSet<Operation *, 8> members(group.ops.begin(), group.ops.end());
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  SmallVector<Location> locs;
  for (Operation *op : group.ops) {
    locs.push_back(op->getLoc());
    for (Value operand : op->getOperands())
      if (!members.count(operand.getDefiningOp()) && !isSplatConstant(operand))
        inputs.insert(operand);
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !members.count(user); }))
        outputs.push_back(result);
  }
  // Every value of the group is dead (nothing uses the chain): the kernel
  // still computes it, as the unfused ops did, and a fusion has results.
  if (outputs.empty())
    llvm::append_range(outputs, group.ops.back()->getResults());

  builder.setInsertionPointAfter(group.ops.back());
  Location loc = builder.getFusedLoc(locs);
  auto fusion = FusionOp::create(builder, loc, ValueRange(outputs).getTypes(),
                                 group.kind, inputs.getArrayRef());
  SmallVector<Location> argLocs(inputs.size(), loc);
  Block *body =
      builder.createBlock(&fusion.getBody(), {},
                          ValueRange(inputs.getArrayRef()).getTypes(), argLocs);
  IRMapping mapping;
  mapping.map(inputs.getArrayRef(), body->getArguments());
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands())
      if (isSplatConstant(operand) && !mapping.contains(operand))
        builder.clone(*operand.getDefiningOp(), mapping);
    builder.clone(*op, mapping);
  }
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  YieldOp::create(builder, loc, yielded);

  fusion.setBytesBeforeAttr(builder.getI64IntegerAttr(group.unfused.bytes));
  fusion.setBytesAfterAttr(builder.getI64IntegerAttr(group.fused.bytes));
  fusion.setPredictedUnfusedUsAttr(
      builder.getF64FloatAttr(group.unfused.timeUs));
  fusion.setPredictedFusedUsAttr(builder.getF64FloatAttr(group.fused.timeUs));
  fusion.setTargetAttr(builder.getStringAttr(target.name));

  for (auto [output, result] : llvm::zip(outputs, fusion.getResults()))
    output.replaceAllUsesWith(result);
  llvm::SetVector<Operation *> constants;
  for (Value input : mapping.getValueMap().keys())
    if (isSplatConstant(input))
      constants.insert(input.getDefiningOp());
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
  // Constants now only live inside the region.
  for (Operation *constant : constants)
    if (constant->use_empty())
      constant->erase();
}

void mlir::tfuse::materializeFusionPlan(func::FuncOp func,
                                        const FusionPlan &plan,
                                        const GpuTarget &target) {
  if (plan.groups.empty())
    return;
  OpBuilder builder(func.getContext());
  // Describe the decisions while their ops still exist.
  SmallVector<Attribute> decisions;
  for (const FusionDecision &decision : plan.decisions)
    decisions.push_back(decisionAttr(builder, decision));
  func->setAttr(TFuseDialect::getFusionDecisionsAttrName(),
                builder.getArrayAttr(decisions));
  for (const FusionGroup &group : plan.groups)
    buildFusion(builder, group, target);
  // The planner priced each group on its own; in the final order a kernel
  // may read its producer's output from L2. Record the price the report and
  // the plan give the kernel, so all three agree.
  for (const KernelCost &kernel : scheduleKernels(func))
    if (auto fusion = dyn_cast<FusionOp>(kernel.op)) {
      fusion.setBytesAfterAttr(builder.getI64IntegerAttr(kernel.bytes()));
      fusion.setPredictedFusedUsAttr(
          builder.getF64FloatAttr(kernel.timeOn(target).totalUs));
    }
}
