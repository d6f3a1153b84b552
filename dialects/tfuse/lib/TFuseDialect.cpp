//===- TFuseDialect.cpp - tfuse dialect registration ------------*- C++ -*-===//
//
// Registers the tfuse operations with the dialect and verifies the
// dialect's discardable attributes.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;

#include "tfuse/Dialect/TFuse/TFuseOpsDialect.cpp.inc"

void TFuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tfuse/Dialect/TFuse/TFuseOps.cpp.inc"
      >();
}

/// Checks one entry of `tfuse.fusion_decisions` (see
/// TFuseDialect::getFusionDecisionsAttrName).
static LogicalResult verifyFusionDecision(Operation *op, StringRef name,
                                          size_t index, Attribute entry) {
  auto fail = [&]() {
    return op->emitOpError() << "'" << name << "' entry " << index << " ";
  };
  auto decision = dyn_cast<DictionaryAttr>(entry);
  if (!decision)
    return fail() << "must be a dictionary";
  if (!decision.getAs<BoolAttr>("fused"))
    return fail() << "requires a boolean 'fused'";
  auto kind = decision.getAs<StringAttr>("kind");
  if (!kind || !symbolizeFusionKind(kind.getValue()))
    return fail() << "requires a fusion kind 'kind'";
  for (StringRef text : {"producer", "consumer", "rule", "reason"})
    if (!decision.getAs<StringAttr>(text))
      return fail() << "requires a string '" << text << "'";
  // The cost model's numbers come exactly when no rule decided.
  bool priced = decision.getAs<StringAttr>("rule").getValue().empty();
  SmallVector<StringRef> known = {"fused",    "kind", "producer",
                                  "consumer", "rule", "reason"};
  if (priced) {
    for (StringRef bytes : {"bytes_apart", "bytes_merged"}) {
      auto value = decision.getAs<IntegerAttr>(bytes);
      if (!value || value.getInt() < 0)
        return fail() << "requires a non-negative integer '" << bytes
                      << "' when 'rule' is empty";
      known.push_back(bytes);
    }
    for (StringRef time : {"us_apart", "us_merged"}) {
      auto value = decision.getAs<FloatAttr>(time);
      if (!value || !std::isfinite(value.getValueAsDouble()) ||
          value.getValueAsDouble() < 0.0)
        return fail() << "requires a finite non-negative float '" << time
                      << "' when 'rule' is empty";
      known.push_back(time);
    }
  }
  for (NamedAttribute field : decision)
    if (!llvm::is_contained(known, field.getName().getValue()))
      return fail() << "has an unexpected field '" << field.getName().getValue()
                    << "'";
  return success();
}

LogicalResult TFuseDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name != getFusionDecisionsAttrName())
    return success();
  if (!isa<func::FuncOp>(op))
    return op->emitOpError() << "'" << name << "' is only valid on func.func";
  auto decisions = dyn_cast<ArrayAttr>(attribute.getValue());
  if (!decisions)
    return op->emitOpError() << "'" << name << "' must be an array";
  for (auto [index, entry] : llvm::enumerate(decisions))
    if (failed(verifyFusionDecision(op, name, index, entry)))
      return failure();
  return success();
}

/// Checks a `tfuse.name` of argument or result `index` of `op`: a non-empty
/// string that no earlier argument (result) of the function carries.
static LogicalResult verifyValueName(Operation *op, StringRef what,
                                     unsigned index, Attribute value,
                                     function_ref<Attribute(unsigned)> nameOf) {
  auto name = dyn_cast<StringAttr>(value);
  if (!name || name.getValue().empty())
    return op->emitOpError()
           << "'" << TFuseDialect::getNameAttrName() << "' of " << what << " "
           << index << " must be a non-empty string";
  for (unsigned other = 0; other < index; ++other)
    if (nameOf(other) == name)
      return op->emitOpError()
             << "'" << TFuseDialect::getNameAttrName() << "' \""
             << name.getValue() << "\" is given to " << what << "s " << other
             << " and " << index << "; names must be unique";
  return success();
}

LogicalResult TFuseDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name != getNameAttrName() && name != getCheckpointTransposedAttrName())
    return success();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || regionIndex != 0)
    return op->emitOpError()
           << "'" << name << "' is only valid on function arguments";
  if (name == getNameAttrName())
    return verifyValueName(op, "argument", argIndex, attribute.getValue(),
                           [&](unsigned other) -> Attribute {
                             return func.getArgAttr(other, getNameAttrName());
                           });
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitOpError() << "'" << name << "' must be a unit attribute";
  auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes()[argIndex]);
  if (!type || type.getRank() != 2)
    return op->emitOpError() << "'" << name << "' on argument " << argIndex
                             << " needs a rank-2 tensor [in, out]";
  return success();
}

LogicalResult
TFuseDialect::verifyRegionResultAttribute(Operation *op, unsigned regionIndex,
                                          unsigned resultIndex,
                                          NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == getCheckpointTransposedAttrName())
    return op->emitOpError()
           << "'" << name << "' is only valid on function arguments";
  if (name != getNameAttrName())
    return success();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || regionIndex != 0)
    return op->emitOpError()
           << "'" << name << "' is only valid on function results";
  return verifyValueName(op, "result", resultIndex, attribute.getValue(),
                         [&](unsigned other) -> Attribute {
                           return func.getResultAttr(other, getNameAttrName());
                         });
}
