//===- TFuseBase.td - tfuse dialect definition -------------*- tablegen -*-===//
//
// The tfuse dialect: Transformer layer graphs on statically shaped tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEBASE_TD
#define TFUSE_DIALECT_TFUSE_TFUSEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TFuse_Dialect : Dialect {
  let name = "tfuse";
  let summary = "Transformer layer graphs for memory-traffic analysis and fusion";
  let description = [{
    The tfuse dialect captures the forward graph of a Transformer layer with
    value semantics on ranked, statically shaped tensors of f32, f16 or bf16.
    Each op has a CPU reference semantics (lib/Reference) and a cost model
    (bytes moved and FLOPs when it runs as its own kernel); `tfuse.fusion`
    groups ops that code generation emits as one kernel.
  }];
  let cppNamespace = "::mlir::tfuse";
  let dependentDialects = ["::mlir::func::FuncDialect"];
  // `tfuse.fusion_decisions` on a function, `tfuse.name` and
  // `tfuse.checkpoint_transposed` on its arguments and results: checked in
  // TFuseDialect.cpp.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The function attribute where tfuse-fuse records every decision it
    /// took, fused or not: an array of dictionaries with `fused`, `kind`,
    /// `producer`, `consumer`, `rule` and `reason`, plus `bytes_apart`,
    /// `bytes_merged`, `us_apart` and `us_merged` when `rule` is empty (the
    /// cost model decided).
    static ::llvm::StringRef getFusionDecisionsAttrName() {
      return "tfuse.fusion_decisions";
    }
    /// A function argument's or result's name (a state-dict key for weights,
    /// `input_ids`, `logits`, ...): a non-empty string, unique among the
    /// function's arguments and among its results. Plans, reports and
    /// tfuse-run's --input / --inputs / --save-outputs use it.
    static ::llvm::StringRef getNameAttrName() { return "tfuse.name"; }
    /// A unit attribute on a rank-2 weight argument [in, out] whose
    /// checkpoint stores it transposed, [out, in] (nn.Linear), or as
    /// [out, ...] with `in` unflattened (a Conv2d patch embedding):
    /// scripts/checkpoint-to-npy.py reshapes to [out, in] and transposes.
    static ::llvm::StringRef getCheckpointTransposedAttrName() {
      return "tfuse.checkpoint_transposed";
    }
  }];
}

class TFuse_Op<string mnemonic, list<Trait> traits = []>
    : Op<TFuse_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def TFuse_FloatElement : AnyTypeOf<[F32, F16, BF16]>;

// Activations and weights: static shapes, f32 / f16 / bf16.
def TFuse_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16]>;

// Indices (embedding lookups): static shapes, i32 / i64.
def TFuse_IndexTensor : StaticShapeTensorOf<[I32, I64]>;

def TFuse_AnyTensor : AnyTypeOf<[TFuse_FloatTensor, TFuse_IndexTensor]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def TFuse_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::mlir::tfuse";
}

def TFuse_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"mean", 2>
    ]> {
  let cppNamespace = "::mlir::tfuse";
}

def TFuse_FusionKind : I32EnumAttr<"FusionKind",
    "the kernel template a fusion region is emitted with", [
      I32EnumAttrCase<"loop", 0>,
      I32EnumAttrCase<"row_reduction", 1>,
      I32EnumAttrCase<"gemm_epilogue", 2>,
      I32EnumAttrCase<"multi_tensor", 3>
    ]> {
  let cppNamespace = "::mlir::tfuse";
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEBASE_TD
