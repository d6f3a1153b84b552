//===- Evaluate.cpp - print digests of reference results --------*- C++ -*-===//
//
// tfuse-evaluate: runs each function on seeded random inputs with the CPU
// reference (through its reference graph and the interpreter) and prints,
// per result, its shape, sum, largest magnitude and a hash of its bytes.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/Passes.h"
#include "tfuse/Analysis/ReferenceGraph.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEEVALUATE
#include "tfuse/Analysis/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// Random inputs for every argument of `func`; argument i uses stream i.
FailureOr<std::vector<ref::Tensor>> randomArguments(func::FuncOp func,
                                                    uint64_t seed) {
  std::vector<ref::Tensor> arguments;
  for (auto [index, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType || !tensorType.hasStaticShape())
      return func.emitOpError() << "argument " << index
                                << " must be a statically shaped tensor to be "
                                   "evaluated, got "
                                << type;
    FailureOr<ref::DType> dtype =
        toReferenceDType(func.getLoc(), tensorType.getElementType());
    if (failed(dtype))
      return failure();
    ArrayRef<int64_t> shape = tensorType.getShape();
    arguments.push_back(ref::randomTensor(
        *dtype, std::vector<int64_t>(shape.begin(), shape.end()), seed, index));
  }
  return arguments;
}

void printDigest(llvm::raw_ostream &os, StringRef function, size_t index,
                 const ref::Tensor &tensor) {
  double sum = 0.0, maxAbs = 0.0;
  for (double value : tensor.data) {
    sum += value;
    maxAbs = std::max(maxAbs, std::fabs(value));
  }
  os << "@" << function << " result " << index << ": "
     << formatShape(tensor.shape) << " " << ref::dtypeName(tensor.dtype)
     << " sum=" << llvm::format("%.6e", sum)
     << " max_abs=" << llvm::format("%.6e", maxAbs)
     << " hash=" << llvm::format_hex(ref::hashBytes(tensor), 18) << "\n";
}

struct TFuseEvaluatePass
    : mlir::tfuse::impl::TFuseEvaluateBase<TFuseEvaluatePass> {
  using TFuseEvaluateBase::TFuseEvaluateBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() ||
          (!function.empty() && func.getSymName() != function))
        continue;
      FailureOr<std::vector<ref::Tensor>> arguments =
          randomArguments(func, seed);
      if (failed(arguments))
        return signalPassFailure();
      FailureOr<std::vector<ref::Tensor>> results =
          evaluateFunction(func, *arguments);
      if (failed(results))
        return signalPassFailure();
      for (auto [index, tensor] : llvm::enumerate(*results))
        printDigest(llvm::outs(), func.getSymName(), index, tensor);
    }
    llvm::outs().flush();
    markAllAnalysesPreserved();
  }
};

} // namespace
