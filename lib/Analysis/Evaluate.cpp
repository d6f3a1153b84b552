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

/// Bytes the reference holds to evaluate `func`: 8 (a double) per element
/// of its arguments, of every op's results (fusions are inlined: their body
/// ops' results) and of the returned copies. Overflowed when too large.
CheckedInt estimateMemory(func::FuncOp func) {
  auto elements = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasStaticShape() ? checkedProduct(shaped.getShape())
                                             : CheckedInt(0);
  };
  CheckedInt total = 0;
  for (Type type : func.getArgumentTypes())
    total += elements(type);
  for (Type type : func.getResultTypes())
    total += elements(type);
  func.getBody().walk([&](Operation *op) {
    if (!isa<FusionOp>(op))
      for (Type type : op->getResultTypes())
        total += elements(type);
  });
  return total * 8;
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
      if (failed(verifyArgumentSizes(func)))
        return signalPassFailure();
      CheckedInt bytes = estimateMemory(func);
      CheckedInt limit = CheckedInt(static_cast<int64_t>(
                             std::min<uint64_t>(maxMemoryMB, INT64_MAX))) *
                         (1 << 20);
      if (!bytes.valid() || !limit.valid() || *bytes.get() > *limit.get()) {
        InFlightDiagnostic diag = func.emitOpError() << "needs ";
        if (bytes.valid())
          diag << *bytes.get() << " bytes ("
               << llvm::divideCeil(*bytes.get(), 1 << 20) << " MiB)";
        else
          diag << "more than 2^63 bytes";
        diag << " for its reference values, more than the "
             << static_cast<uint64_t>(maxMemoryMB)
             << " MiB that tfuse-evaluate{max-memory-mb} allows";
        return signalPassFailure();
      }
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
