//===- Passes.h - tfuse conversion passes -----------------------*- C++ -*-===//
//
// Declarations and registration of the lowerings to upstream dialects.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_PASSES_H
#define TFUSE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfuse {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "tfuse/Conversion/Passes.h.inc"

} // namespace mlir::tfuse

#endif // TFUSE_CONVERSION_PASSES_H
