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
      "int64_t", "getFlops">,
    InterfaceMethod<"Bytes read from memory when run as its own kernel",
      "int64_t", "getBytesRead", (ins), [{}], [{
        // Each distinct operand once, at its own (unbroadcast) size.
        ::llvm::SmallPtrSet<::mlir::Value, 4> seen;
        int64_t bytes = 0;
        for (::mlir::Value operand : $_op->getOperands())
          if (seen.insert(operand).second)
            bytes += ::mlir::tfuse::getTensorBytes(operand);
        return bytes;
      }]>,
    InterfaceMethod<"Bytes written to memory when run as its own kernel",
      "int64_t", "getBytesWritten", (ins), [{}], [{
        int64_t bytes = 0;
        for (::mlir::Value result : $_op->getResults())
          bytes += ::mlir::tfuse::getTensorBytes(result);
        return bytes;
      }]>,
  ];
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_TD
