//===- Onnx.h - ONNX front end ----------------------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reads an ONNX model (a static graph of the operators below) into @forward,
// node by node:
//
//   MatMul, Gemm, Add, Sub, Mul, Div, Pow (exponent 0.5, 1, 2, 3 or -0.5),
//   Sqrt, Erf, Tanh, Exp, Log, Neg, Relu, Sigmoid, Gelu (ai.onnx and
//   com.microsoft), Softmax, LayerNormalization, ReduceMean/ReduceSum/
//   ReduceMax over one axis, Reshape, Transpose, Split, Concat, Gather
//   (axis 0: embedding lookups), Identity, Dropout (inference: identity),
//   Cast between float types, Constant.
//
// Graph inputs become the function's first arguments, float initializers
// with more than one element become weight arguments (in order of first
// use), scalars and Constant nodes become tfuse.constant, and integer
// constants (shapes, split sizes, axes) are read at import time. Every
// argument is named after its ONNX value (`tfuse.name`). The graph must be
// static: symbolic dimensions of the inputs are bound with --dim NAME=VALUE.
// Attention spelt out (softmax(q k^T * c + mask) v) then becomes
// tfuse.attention where the match is exact (tfuse/Import/AttentionMatch.h).
//
// The ONNX front end is built only when CMake finds the ONNX and protobuf
// development packages (Debian: libonnx-dev libprotobuf-dev).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_IMPORT_ONNX_H
#define TFUSE_IMPORT_ONNX_H

#include "tfuse/Import/TransformerSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>

namespace mlir::tfuse {

struct OnnxImportOptions {
  /// "bf16", "f16" or "f32" for every float tensor; empty keeps the model's
  /// float type (which must then be one type throughout).
  std::string dtype;
  /// Values of the symbolic dimensions of the graph inputs.
  std::map<std::string, int64_t> dims;
  /// Replace attention spelt out op by op with tfuse.attention
  /// (tfuse/Import/AttentionMatch.h).
  bool matchAttention = true;
};

/// Whether this build has the ONNX front end.
bool isOnnxImportAvailable();

/// Imports the ONNX model at `path`. The error lists every unsupported
/// operator type with the names of its nodes, or says what else is wrong
/// (with the node's name). The module is not verified.
llvm::Expected<ImportedModel> importOnnxModel(MLIRContext *context,
                                              llvm::StringRef path,
                                              const OnnxImportOptions &options);

/// Imports the bytes of an ONNX model file (what importOnnxModel reads from
/// `path`), as above.
llvm::Expected<ImportedModel>
importOnnxModelFromBytes(MLIRContext *context, llvm::StringRef bytes,
                         const OnnxImportOptions &options);

} // namespace mlir::tfuse

#endif // TFUSE_IMPORT_ONNX_H
