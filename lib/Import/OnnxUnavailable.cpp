//===- OnnxUnavailable.cpp - the ONNX front end, not built ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Stands in for Onnx.cpp when CMake did not find the ONNX and protobuf
// development packages.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/Onnx.h"

using namespace mlir;
using namespace mlir::tfuse;

bool mlir::tfuse::isOnnxImportAvailable() { return false; }

llvm::Expected<ImportedModel>
mlir::tfuse::importOnnxModel(MLIRContext *context, llvm::StringRef,
                             const OnnxImportOptions &options) {
  return importOnnxModelFromBytes(context, "", options);
}

llvm::Expected<ImportedModel>
mlir::tfuse::importOnnxModelFromBytes(MLIRContext *, llvm::StringRef,
                                      const OnnxImportOptions &) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "this tfuse-import was built without the ONNX front end; install "
      "libonnx-dev and libprotobuf-dev and reconfigure");
}
