//===- TFuseDialect.cpp - tfuse dialect registration ------------*- C++ -*-===//
//
// Registers the tfuse operations with the dialect.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

using namespace mlir;
using namespace mlir::tfuse;

#include "tfuse/Dialect/TFuse/TFuseOpsDialect.cpp.inc"

void TFuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tfuse/Dialect/TFuse/TFuseOps.cpp.inc"
      >();
}
