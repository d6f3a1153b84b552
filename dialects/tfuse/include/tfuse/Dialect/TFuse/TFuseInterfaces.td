//===- TFuseInterfaces.td - tfuse op interfaces ------------*- tablegen -*-===//
//
// The cost interface every tfuse op implements: what it costs when it runs as
// its own kernel. Analyses ask the interface; they never switch on op names.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_TD
#define TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_TD

include "mlir/IR/OpBase.td"

def TFuse_CostOpInterface : OpInterface<"CostOpInterface"> {
  let description = [{
    Memory traffic and arithmetic of an op when it runs as its own kernel:
    every operand is read from memory once at its real (unbroadcast) size and
    every result is written once. Views (reshape) and constants launch no
    kernel and cost nothing.
  }];
  let cppNamespace = "::mlir::tfuse";
  let methods = [
    InterfaceMethod<"The op's class (contraction, elementwise, ...)",
      "::mlir::tfuse::OpClass", "getOpClass">,
    InterfaceMethod<"Floating-point operations of one execution",
      "::mlir::tfuse::CheckedInt", "computeFlops">,
    InterfaceMethod<"Bytes read from memory when run as its own kernel",
      "::mlir::tfuse::CheckedInt", "computeBytesRead", (ins), [{}], [{
        // Each distinct operand once, at its own (unbroadcast) size.
        ::llvm::SmallPtrSet<::mlir::Value, 4> seen;
        ::mlir::tfuse::CheckedInt bytes = 0;
        for (::mlir::Value operand : $_op->getOperands())
          if (seen.insert(operand).second)
            bytes += ::mlir::tfuse::getCheckedTensorBytes(operand);
        return bytes;
      }]>,
    InterfaceMethod<"Bytes written to memory when run as its own kernel",
      "::mlir::tfuse::CheckedInt", "computeBytesWritten", (ins), [{}], [{
        ::mlir::tfuse::CheckedInt bytes = 0;
        for (::mlir::Value result : $_op->getResults())
          bytes += ::mlir::tfuse::getCheckedTensorBytes(result);
        return bytes;
      }]>,
  ];
  let extraSharedClassDeclaration = [{
    /// The figures of a verified op: its verifier checked that they, and
    /// their sum, fit in int64 (they saturate on an op it would reject).
    int64_t getFlops() { return $_op.computeFlops().valueOr(INT64_MAX); }
    int64_t getBytesRead() {
      return $_op.computeBytesRead().valueOr(INT64_MAX);
    }
    int64_t getBytesWritten() {
      return $_op.computeBytesWritten().valueOr(INT64_MAX);
    }
  }];
  // After the op's own verifier, so that its shapes are known to be sound.
  let verifyWithRegions = 1;
  let verify = [{ return ::mlir::tfuse::verifyCostFits($_op); }];
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_TD
