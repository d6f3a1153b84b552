//===- TFuseDialect.h - tfuse dialect declaration ---------------*- C++ -*-===//
//
// The tfuse dialect class.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEDIALECT_H
#define TFUSE_DIALECT_TFUSE_TFUSEDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "tfuse/Dialect/TFuse/TFuseOpsDialect.h.inc"

#endif // TFUSE_DIALECT_TFUSE_TFUSEDIALECT_H
