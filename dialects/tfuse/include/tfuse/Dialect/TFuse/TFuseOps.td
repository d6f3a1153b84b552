//===- TFuseOps.td - tfuse operations ----------------------*- tablegen -*-===//
//
// Forward ops of a Transformer layer. Every op has a verifier; the messages are
// tested in test/Dialect/TFuse/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEOPS_TD
#define TFUSE_DIALECT_TFUSE_TFUSEOPS_TD

include "tfuse/Dialect/TFuse/TFuseBase.td"
include "tfuse/Dialect/TFuse/TFuseInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def TFuse_MatmulOp : TFuse_Op<"matmul", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "batched matrix multiplication with f32 accumulation";
  let description = [{
    Multiplies `lhs` [..., M, K] by `rhs` [..., K, N] into [..., M, N].
    `transpose_lhs` reads `lhs` as [..., K, M], `transpose_rhs` reads `rhs` as
    [..., N, K]. The batch dimensions (all but the last two) broadcast with
    numpy rules, so a rank-2 weight multiplies every batch of a rank-3
    activation. Products accumulate in f32 (f64 in the reference) and the
    result is rounded once to the element type. `tf32` (f32 operands only)
    lets the tensor cores multiply in TF32, each input rounded to a 10-bit
    mantissa (PyTorch's `allow_tf32`).

    ```mlir
    %y = tfuse.matmul %x, %w : (tensor<8x128x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<8x128x4096xbf16>
    %s = tfuse.matmul %q, %k transpose_rhs : (tensor<2x16x64x64xf32>, tensor<2x16x64x64xf32>) -> tensor<2x16x64x64xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$lhs, TFuse_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       UnitAttr:$tf32);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    (`tf32` $tf32^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// M, N and K of one matrix product, and the broadcast batch shape.
    int64_t getM();
    int64_t getN();
    int64_t getK();
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (numpy broadcasting)
//===----------------------------------------------------------------------===//

class TFuse_BinaryOp<string mnemonic, string what, list<Trait> traits = []>
    : TFuse_Op<mnemonic, !listconcat([Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>], traits)> {
  let summary = "elementwise " # what # " with numpy broadcasting";
  let description = [{
    Applies the operation elementwise after broadcasting both operands to a
    common shape: shapes align at the trailing dimension and a dimension of
    size 1 stretches. Both operands and the result share one element type.

    ```mlir
    %y = tfuse.}] # mnemonic # [{ %x, %bias : (tensor<4x1024xf32>, tensor<1024xf32>) -> tensor<4x1024xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$lhs, TFuse_FloatTensor:$rhs);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_AddOp : TFuse_BinaryOp<"add", "addition", [Commutative]>;
def TFuse_SubOp : TFuse_BinaryOp<"sub", "subtraction">;
def TFuse_MulOp : TFuse_BinaryOp<"mul", "multiplication", [Commutative]>;
def TFuse_DivOp : TFuse_BinaryOp<"div", "division">;
def TFuse_MaxOp : TFuse_BinaryOp<"max", "maximum", [Commutative]>;
def TFuse_MinOp : TFuse_BinaryOp<"min", "minimum", [Commutative]>;

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// `flops` counts the arithmetic of one element, a transcendental function
// (exp, log, tanh, erf, sqrt) as one operation.
class TFuse_UnaryOp<string mnemonic, string formula, int flops,
                    list<Trait> traits = []>
    : TFuse_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                      DeclareOpInterfaceMethods<TFuse_CostOpInterface>], traits)> {
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` for every element, in f32 (f64 in the
    reference), rounding the result to the element type.

    ```mlir
    %y = tfuse.}] # mnemonic # [{ %x : tensor<4x1024xbf16>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDeclaration =
      "static constexpr int64_t kFlopsPerElement = " # flops # ";";
}

def TFuse_NegOp : TFuse_UnaryOp<"neg", "-x", 1>;
def TFuse_ExpOp : TFuse_UnaryOp<"exp", "exp(x)", 1>;
def TFuse_LogOp : TFuse_UnaryOp<"log", "log(x)", 1>;
def TFuse_TanhOp : TFuse_UnaryOp<"tanh", "tanh(x)", 1>;
def TFuse_ErfOp : TFuse_UnaryOp<"erf", "erf(x)", 1>;
def TFuse_SqrtOp : TFuse_UnaryOp<"sqrt", "sqrt(x)", 1>;
def TFuse_RsqrtOp : TFuse_UnaryOp<"rsqrt", "1 / sqrt(x)", 2>;
def TFuse_SigmoidOp : TFuse_UnaryOp<"sigmoid", "1 / (1 + exp(-x))", 4>;
def TFuse_ReluOp : TFuse_UnaryOp<"relu", "max(x, 0)", 1>;
def TFuse_SiluOp : TFuse_UnaryOp<"silu", "x * sigmoid(x)", 5>;

def TFuse_GeluOp : TFuse_Op<"gelu", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>, SameOperandsAndResultType]> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    `approximate = none` (the default) computes `0.5 x (1 + erf(x / sqrt(2)))`;
    `approximate = tanh` computes
    `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`, as GPT-2 does.

    ```mlir
    %y = tfuse.gelu %x : tensor<4x4096xf32>
    %z = tfuse.gelu %x approximate = tanh : tensor<4x4096xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input,
      DefaultValuedAttr<TFuse_GeluApproximation,
                        "::mlir::tfuse::GeluApproximation::none">:$approximate);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($input)
  }];
}

def TFuse_CastOp : TFuse_Op<"cast", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "elementwise conversion between f32, f16 and bf16";
  let description = [{
    Converts every element to the result's element type, rounding to nearest
    even. The shape does not change.

    ```mlir
    %y = tfuse.cast %x : tensor<4x1024xf32> to tensor<4x1024xbf16>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TFuse_ConstantOp : TFuse_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>,
     DeclareOpInterfaceMethods<TFuse_CostOpInterface,
        ["computeBytesRead", "computeBytesWritten"]>]> {
  let summary = "a constant tensor";
  let description = [{
    Materialises a dense constant; scalars broadcast through rank-0 tensors.

    ```mlir
    %scale = tfuse.constant dense<0.125> : tensor<bf16>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs TFuse_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

def TFuse_ReduceOp : TFuse_Op<"reduce", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "sum, max or mean along one axis";
  let description = [{
    Reduces `input` along `axis`. The result drops that dimension, or keeps it
    with size 1 when `keep_dims` is set (so it broadcasts back against the
    input). Sums accumulate in f32 (f64 in the reference).

    ```mlir
    %m = tfuse.reduce mean %x axis = 1 keep_dims : tensor<4x1024xf32> -> tensor<4x1xf32>
    %s = tfuse.reduce sum %x axis = 0 : tensor<4x1024xf32> -> tensor<1024xf32>
    ```
  }];
  let arguments = (ins TFuse_ReduceKind:$kind, TFuse_FloatTensor:$input,
                       I64Attr:$axis, UnitAttr:$keep_dims);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $input `axis` `=` $axis (`keep_dims` $keep_dims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TFuse_SoftmaxOp : TFuse_Op<"softmax", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>, SameOperandsAndResultType]> {
  let summary = "numerically stable softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`.

    ```mlir
    %p = tfuse.softmax %s axis = 3 : tensor<2x16x64x64xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, I64Attr:$axis);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def TFuse_LayerNormOp : TFuse_Op<"layer_norm",
    [Pure, AttrSizedOperandSegments, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "layer normalisation over the last dimension";
  let description = [{
    `(x - mean) / sqrt(var + eps) * gamma + beta` over the last dimension, with
    the biased variance (as PyTorch). `gamma` and `beta` are optional and
    have shape [D], D being the last dimension of the input.

    ```mlir
    %y = tfuse.layer_norm %x gamma %g beta %b eps = 1.0e-12 : (tensor<4x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4x1024xf32>
    %z = tfuse.layer_norm %x eps = 1.0e-05 : (tensor<4x1024xf32>) -> tensor<4x1024xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input,
                       Optional<TFuse_FloatTensor>:$gamma,
                       Optional<TFuse_FloatTensor>:$beta, F64Attr:$epsilon);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`gamma` $gamma^)? (`beta` $beta^)? `eps` `=` $epsilon attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_RmsNormOp : TFuse_Op<"rms_norm", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "root-mean-square normalisation over the last dimension";
  let description = [{
    `x / sqrt(mean(x^2) + eps) * gamma` over the last dimension, as in LLaMA.
    `gamma` is optional and has shape [D].

    ```mlir
    %y = tfuse.rms_norm %x gamma %g eps = 1.0e-06 : (tensor<4x4096xbf16>, tensor<4096xbf16>) -> tensor<4x4096xbf16>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input,
                       Optional<TFuse_FloatTensor>:$gamma, F64Attr:$epsilon);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`gamma` $gamma^)? `eps` `=` $epsilon attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_NormGradOp : TFuse_Op<"norm_grad", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "gradient of tfuse.layer_norm / tfuse.rms_norm with respect to the input";
  let description = [{
    The backward of a normalisation over the last dimension (D elements) in
    one row pass, from the forward's input `x`, the output's gradient `dy`
    and the optional `gamma` ([D]). Per row, in f32 (the reference in f64):
    `mean` and `rstd = 1 / sqrt(var + eps)` are recomputed from x (biased
    variance; with `rms` the mean is 0 and var is mean(x^2)), `xhat = (x -
    mean) rstd`, `g = dy gamma` and

        dx = rstd (g - mean(g) - xhat mean(g xhat))      (layer_norm)
        dx = rstd (g - xhat mean(g xhat))                (rms)

    rounded once to x's type. `mean` and `rstd` are also results (f32, the
    input's shape with a last dimension of 1), so that the gamma gradient,
    sum over the rows of dy xhat, is a column reduction that reads x and dy
    without the statistics being computed twice.

    ```mlir
    %dx, %mean, %rstd = tfuse.norm_grad %x, %dy gamma %g eps = 1.0e-12 : (tensor<4x1024xbf16>, tensor<4x1024xbf16>, tensor<1024xbf16>) -> (tensor<4x1024xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, TFuse_FloatTensor:$output_grad,
                       Optional<TFuse_FloatTensor>:$gamma, F64Attr:$epsilon,
                       UnitAttr:$rms);
  let results = (outs TFuse_FloatTensor:$result,
                      StaticShapeTensorOf<[F32]>:$mean,
                      StaticShapeTensorOf<[F32]>:$rstd);
  let assemblyFormat = [{
    $input `,` $output_grad (`gamma` $gamma^)? `eps` `=` $epsilon (`rms` $rms^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Stochastic
//===----------------------------------------------------------------------===//

def TFuse_DropoutOp : TFuse_Op<"dropout", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>, SameOperandsAndResultType]> {
  let summary = "inverted dropout with a counter-based random stream";
  let description = [{
    Zeroes each element with probability `p` and scales the kept ones by
    `1 / (1 - p)`. The mask is a pure function of `seed` and the flat element
    index i: Philox4x32-10 keyed by `seed` (low word first) at counter
    (i / 4, 0, 0) gives four 32-bit words, element i takes word i % 4, and the
    element is kept when that word is at least floor(p * 2^32). The reference,
    the unfused and the fused kernels therefore draw the same mask. `p` is in
    [0, 1) and `seed` is non-negative.

    ```mlir
    %y = tfuse.dropout %x p = 1.000000e-01 seed = 42 : tensor<4x1024xbf16>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, F64Attr:$p, I64Attr:$seed);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input `p` `=` $p `seed` `=` $seed attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def TFuse_CrossEntropyOp : TFuse_Op<"cross_entropy", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "softmax cross-entropy of each row of logits against its label";
  let description = [{
    For every row i of `logits` (the last axis, V classes) and its label
    l = labels[i]: loss[i] = log(sum_j exp(x[i, j])) - x[i, l], computed in
    f32 with the row's maximum subtracted first, and counted[i] = 1. A row
    whose label equals `ignore_index` has loss 0 and counted 0, so that
    sum(loss) / sum(counted) is PyTorch's `cross_entropy(reduction="mean")`.
    Other labels outside [0, V) are clamped into it (as tfuse.gather clamps
    its indices), so the op never reads out of bounds.

    ```mlir
    %loss, %counted = tfuse.cross_entropy %logits[%labels] ignore = -100 : (tensor<512x30522xbf16>, tensor<512xi32>) -> (tensor<512xf32>, tensor<512xf32>)
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$logits, TFuse_IndexTensor:$labels,
                       I64Attr:$ignore_index);
  let results = (outs StaticShapeTensorOf<[F32]>:$loss,
                      StaticShapeTensorOf<[F32]>:$counted);
  let assemblyFormat = [{
    $logits `[` $labels `]` `ignore` `=` $ignore_index attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_CrossEntropyGradOp : TFuse_Op<"cross_entropy_grad", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "gradient of tfuse.cross_entropy's loss with respect to the logits";
  let description = [{
    Row i of the result is (softmax(x[i, :]) - onehot(l)) * loss_grad[i],
    l = labels[i] clamped as tfuse.cross_entropy clamps it, in f32 and
    rounded to the logits' type; rows whose label equals `ignore_index` are
    zero. The softmax is recomputed from the logits (nothing of the forward
    is saved but the logits themselves).

    ```mlir
    %dx = tfuse.cross_entropy_grad %logits[%labels], %dloss ignore = -100 : (tensor<512x30522xbf16>, tensor<512xi32>, tensor<512xf32>) -> tensor<512x30522xbf16>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$logits, TFuse_IndexTensor:$labels,
                       StaticShapeTensorOf<[F32]>:$loss_grad,
                       I64Attr:$ignore_index);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `[` $labels `]` `,` $loss_grad `ignore` `=` $ignore_index
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

def TFuse_ReshapeOp : TFuse_Op<"reshape", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface,
        ["computeBytesRead", "computeBytesWritten"]>]> {
  let summary = "reinterprets a tensor with another shape, same elements";
  let description = [{
    Row-major order is kept, so a reshape is a view: it moves no bytes.

    ```mlir
    %h = tfuse.reshape %x : tensor<2x64x1024xf32> -> tensor<2x64x16x64xf32>
    ```
  }];
  let arguments = (ins TFuse_AnyTensor:$input);
  let results = (outs TFuse_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TFuse_TransposeOp : TFuse_Op<"transpose", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension i is input dimension `perm[i]`.

    ```mlir
    %t = tfuse.transpose %x perm = [0, 2, 1, 3] : tensor<2x64x16x64xf32> -> tensor<2x16x64x64xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TFuse_SliceOp : TFuse_Op<"slice", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface,
        ["computeBytesRead", "computeBytesWritten"]>]> {
  let summary = "a contiguous box of a tensor";
  let description = [{
    Takes the elements from `offsets` with the result's sizes, stride 1.

    ```mlir
    %q = tfuse.slice %qkv offsets = [0, 0, 0] : tensor<2x64x3072xf32> -> tensor<2x64x1024xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, DenseI64ArrayAttr:$offsets);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TFuse_SplitOp : TFuse_Op<"split", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "splits a tensor along one axis into consecutive pieces";
  let description = [{
    The pieces' sizes along `axis` come from the result types and must add up
    to the input's size.

    ```mlir
    %q, %k, %v = tfuse.split %qkv axis = 2 : tensor<2x64x3072xf32> -> tensor<2x64x1024xf32>, tensor<2x64x1024xf32>, tensor<2x64x1024xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Variadic<TFuse_FloatTensor>:$results);
  let assemblyFormat = [{
    $input `axis` `=` $axis attr-dict `:` type($input) `->` type($results)
  }];
  let hasVerifier = 1;
}

def TFuse_ConcatOp : TFuse_Op<"concat", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "joins tensors along one axis";
  let description = [{
    All inputs agree on every dimension but `axis`.

    ```mlir
    %y = tfuse.concat %a, %b axis = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<TFuse_FloatTensor>:$inputs, I64Attr:$axis);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` functional-type($inputs, $result)
  }];
  let hasVerifier = 1;
}

def TFuse_GatherOp : TFuse_Op<"gather", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface,
        ["computeBytesRead", "computeBytesWritten"]>]> {
  let summary = "embedding lookup: rows of a table selected by indices";
  let description = [{
    Result[i..., :] = table[indices[i...], :]. Indices outside the table are
    clamped into range (as XLA does), so the op never reads out of bounds.

    ```mlir
    %e = tfuse.gather %table[%ids] : (tensor<30522x1024xf32>, tensor<2x64xi32>) -> tensor<2x64x1024xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$table, TFuse_IndexTensor:$indices);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_GatherGradOp : TFuse_Op<"gather_grad", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface,
        ["computeBytesRead", "computeBytesWritten"]>]> {
  let summary = "the gradient of a gather's table: a scatter-add of rows";
  let description = [{
    The backward of `tfuse.gather` with respect to its table (an embedding
    gradient). With the result of the table's type [V, ...]:
    result[v, ...] = sum of grad[i..., ...] over the index positions i whose
    index clamps to v (clamped into [0, V - 1] as tfuse.gather clamps), and
    zero for rows no index selects. `grad` has the shape of the gather's
    result (indices' shape + result's shape[1:]) and the result's element
    type. The sums accumulate in f32 (the GPU kernel in an f32 buffer, in
    an unspecified order) and round once to the element type; the reference
    sums in double.

    ```mlir
    %dt = tfuse.gather_grad %de[%ids] : (tensor<2x64x1024xf32>, tensor<2x64xi32>) -> tensor<30522x1024xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$grad, TFuse_IndexTensor:$indices);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_CausalMaskOp : TFuse_Op<"causal_mask", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "the additive causal mask: 0 on and below the diagonal, -inf above";
  let description = [{
    Element [i, j] is 0 when j <= i and -inf otherwise. It is computed from
    indices, so a kernel that fuses it reads no bytes for it.

    ```mlir
    %m = tfuse.causal_mask : tensor<64x64xf32>
    ```
  }];
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Composite
//===----------------------------------------------------------------------===//

def TFuse_AttentionOp : TFuse_Op<"attention", [Pure,
    DeclareOpInterfaceMethods<TFuse_CostOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "scaled dot-product attention";
  let description = [{
    `softmax(q k^T * scale + mask) v` per batch and head, with an optional
    additive `mask` (broadcast to [B, H, Sq, Sk]), a causal mask, and dropout
    on the probabilities. `query` is [B, H, Sq, D]; `key` [B, Hkv, Sk, D] and
    `value` [B, Hkv, Sk, Dv] may have fewer heads than the query
    (grouped-query attention: query head h reads key/value head
    h / (H / Hkv)). The causal mask is aligned top-left (query i sees keys
    j <= i), as PyTorch's `is_causal`. It is exact attention, rounded once:
    scores, softmax and the product with `value` are computed without
    intermediate rounding (in f32 or wider) and only the result is rounded
    to the element type; dropout drops probability (b, h, i, j) by the
    Philox rule of `tfuse.dropout` at that element's flat index in
    [B, H, Sq, Sk]. A row whose scores are all -inf gives NaN. `tfuse-run
    --check` holds a fused attention kernel to the element type's tolerance
    with the longest reduction max(D, Sk) (docs/bundle.md, "Checking");
    `tfuse-decompose-attention` rounds every step instead and states its own
    bound. `scale` is positive and finite; `dropout_p` (in [0, 1)) and a
    non-negative `seed` come together.

    The optional second result `lse` (f32 [B, H, Sq]) is each row's
    log-sum-exp of its scores, `log(sum_j exp(s_ij))` with s_ij the scaled,
    masked scores before dropout: what `tfuse.attention_grad` needs to
    recompute the probabilities. An op with it is the forward half of a
    fused backward and is never decomposed.

    ```mlir
    %o = tfuse.attention %q, %k, %v mask %m scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 7
        : (tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>, tensor<2x1x1x64xbf16>) -> tensor<2x16x64x64xbf16>
    %o2, %lse = tfuse.attention %q, %k, %v scale = 1.250000e-01 causal
        : (tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>) -> (tensor<2x16x64x64xbf16>, tensor<2x16x64xf32>)
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$query, TFuse_FloatTensor:$key,
                       TFuse_FloatTensor:$value,
                       Optional<TFuse_FloatTensor>:$mask, F64Attr:$scale,
                       UnitAttr:$causal, OptionalAttr<F64Attr>:$dropout_p,
                       OptionalAttr<I64Attr>:$seed);
  let results = (outs TFuse_FloatTensor:$result,
                      Optional<TFuse_FloatTensor>:$lse);
  let builders = [
    // The attention alone, without the log-sum-exp.
    OpBuilder<(ins "Type":$result, "Value":$query, "Value":$key,
                   "Value":$value, "Value":$mask, "FloatAttr":$scale,
                   "UnitAttr":$causal, "FloatAttr":$dropout_p,
                   "IntegerAttr":$seed), [{
      build($_builder, $_state, result, /*lse=*/Type(), query, key, value,
            mask, scale, causal, dropout_p, seed);
    }]>
  ];
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `scale` `=` $scale
    (`causal` $causal^)? (`dropout_p` `=` $dropout_p^ `seed` `=` $seed)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_AttentionGradOp : TFuse_Op<"attention_grad", [Pure,
    DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "the gradients of tfuse.attention's query, key and value";
  let description = [{
    FlashAttention-2's backward (Dao 2023) of the `tfuse.attention` with the
    same operands and attributes: from the output's gradient `out_grad`
    (dO, [B, H, Sq, Dv]), the forward's row log-sum-exp `lse` and
    `delta` = sum_c dO_ic O_ic (both f32 [B, H, Sq]) it recomputes the
    probabilities p_ij = exp(s_ij - lse_i) and gives, exactly and rounded
    once to the element type:

        dV_j = sum_i p'_ij dO_i      dP_ij = dO_i . V_j (times the keep
        dS_ij = p_ij (dP_ij - delta_i)       scale, or 0, with dropout)
        dQ_i = scale sum_j dS_ij K_j dK_j = scale sum_i dS_ij Q_i

    where p' is p after dropout (the forward's Philox mask, regenerated). With
    grouped-query attention a key/value head's gradients sum over the query
    heads that read it. The mask gets no gradient. `tfuse-run --check` holds
    the kernels to the element type's tolerance with the longest reduction
    max(D, Dv, Sk, Sq * H / Hkv) (docs/bundle.md, "Checking").

    ```mlir
    %dq, %dk, %dv = tfuse.attention_grad %q, %k, %v, %do, %lse, %delta scale = 1.250000e-01 causal
        : (tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>, tensor<2x16x64xf32>, tensor<2x16x64xf32>)
        -> (tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>, tensor<2x16x64x64xbf16>)
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$query, TFuse_FloatTensor:$key,
                       TFuse_FloatTensor:$value, TFuse_FloatTensor:$out_grad,
                       TFuse_FloatTensor:$lse, TFuse_FloatTensor:$delta,
                       Optional<TFuse_FloatTensor>:$mask, F64Attr:$scale,
                       UnitAttr:$causal, OptionalAttr<F64Attr>:$dropout_p,
                       OptionalAttr<I64Attr>:$seed);
  let results = (outs TFuse_FloatTensor:$query_grad,
                      TFuse_FloatTensor:$key_grad,
                      TFuse_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $out_grad `,` $lse `,` $delta
    (`mask` $mask^)? `scale` `=` $scale (`causal` $causal^)?
    (`dropout_p` `=` $dropout_p^ `seed` `=` $seed)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Grouping
//===----------------------------------------------------------------------===//

// A number of bytes moved: a non-negative i64.
def TFuse_ByteCountAttr : ConfinedAttr<I64Attr, [IntNonNegative]>;

def TFuse_FusionOp : TFuse_Op<"fusion", [IsolatedFromAbove,
    RecursiveMemoryEffects, RecursivelySpeculatable, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "ops that code generation emits as one kernel";
  let description = [{
    An isolated region whose block arguments are the `inputs`; the region's
    `tfuse.yield` gives the results. `kind` names the kernel template
    (`loop`, `row_reduction`, `gemm_epilogue`, or `multi_tensor`: the
    optimizer updates of a function, one launch over every parameter).

    `tfuse-fuse` records its bookkeeping on every fusion it builds, for the
    traffic report: the HBM bytes the members move as separate kernels
    (`bytes_before`) and as this kernel (`bytes_after`), the predicted times
    of both (`predicted_unfused_us`, `predicted_fused_us`, in microseconds)
    and the name of the GPU `target` they were priced on. The five come
    together or not at all (a hand-written fusion carries none); bytes and
    times are non-negative and the times finite.

    ```mlir
    %y = tfuse.fusion loop (%x, %b) : (tensor<4x1024xf32>, tensor<1024xf32>) -> tensor<4x1024xf32> {
    ^bb0(%a: tensor<4x1024xf32>, %c: tensor<1024xf32>):
      %s = tfuse.add %a, %c : (tensor<4x1024xf32>, tensor<1024xf32>) -> tensor<4x1024xf32>
      %g = tfuse.gelu %s : tensor<4x1024xf32>
      tfuse.yield %g : tensor<4x1024xf32>
    }
    ```
  }];
  let arguments = (ins TFuse_FusionKind:$kind,
                       Variadic<TFuse_AnyTensor>:$inputs,
                       OptionalAttr<TFuse_ByteCountAttr>:$bytes_before,
                       OptionalAttr<TFuse_ByteCountAttr>:$bytes_after,
                       OptionalAttr<F64Attr>:$predicted_unfused_us,
                       OptionalAttr<F64Attr>:$predicted_fused_us,
                       OptionalAttr<StrAttr>:$target);
  let results = (outs Variadic<TFuse_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict-with-keyword `:`
    functional-type($inputs, $results) $body
  }];
  // A fusion without bookkeeping; tfuse-fuse sets it afterwards.
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$results, "FusionKind":$kind,
                   "::mlir::ValueRange":$inputs), [{
      build($_builder, $_state, results, kind, inputs,
            /*bytes_before=*/IntegerAttr(), /*bytes_after=*/IntegerAttr(),
            /*predicted_unfused_us=*/FloatAttr(),
            /*predicted_fused_us=*/FloatAttr(), /*target=*/StringAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The region's terminator.
    YieldOp getYield();
  }];
}

def TFuse_YieldOp : TFuse_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"FusionOp">]> {
  let summary = "the results of a tfuse.fusion region";
  let description = [{
    ```mlir
    tfuse.yield %a, %b : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<TFuse_AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Training (tfuse-autodiff, optimizers)
//===----------------------------------------------------------------------===//

// The derivative of relu, and the selector of max/min gradients.
def TFuse_StepOp : TFuse_UnaryOp<"step", "x > 0 ? 1 : 0 (NaN gives 0)", 1>;

def TFuse_AdamWOp : TFuse_Op<"adamw", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "one AdamW update (decoupled weight decay, as torch.optim.AdamW)";
  let description = [{
    Updates f32 master weights `param` and the moments `exp_avg` and
    `exp_avg_sq` (f32, of param's shape) with the gradient `grad` (f32, f16
    or bf16, converted to f32). `lr` and `step` are rank-0 f32 tensors, so a
    learning-rate schedule needs no recompile; `step` is the step's count
    after PyTorch's increment (1 on the first update). Per element, in f32
    and in PyTorch's order (its fused kernel):

      p  = p - lr * weight_decay * p
      m  = beta1 * m + (1 - beta1) * g
      v  = beta2 * v + (1 - beta2) * g * g
      p  = p - (lr / (1 - beta1^step)) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps)

    The results are the new param, exp_avg and exp_avg_sq, and, when a
    fourth result type is given, the new param rounded to that low-precision
    type (f16 or bf16): the model weight of mixed-precision training.
    0 <= beta1, beta2 < 1, eps > 0 and weight_decay >= 0, all finite.

    ```mlir
    %p1, %m1, %v1, %w = tfuse.adamw %p, %g, %m, %v lr %lr step %t beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01
        : (tensor<1024xf32>, tensor<1024xbf16>, tensor<1024xf32>, tensor<1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xbf16>)
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$param, TFuse_FloatTensor:$grad,
                       TFuse_FloatTensor:$exp_avg,
                       TFuse_FloatTensor:$exp_avg_sq, TFuse_FloatTensor:$lr,
                       TFuse_FloatTensor:$step, F64Attr:$beta1, F64Attr:$beta2,
                       F64Attr:$epsilon, F64Attr:$weight_decay);
  let results = (outs TFuse_FloatTensor:$new_param,
                      TFuse_FloatTensor:$new_exp_avg,
                      TFuse_FloatTensor:$new_exp_avg_sq,
                      Optional<TFuse_FloatTensor>:$model_weight);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `lr` $lr `step` $step
    `beta1` `=` $beta1 `beta2` `=` $beta2 `eps` `=` $epsilon
    `weight_decay` `=` $weight_decay attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TFuse_SgdOp : TFuse_Op<"sgd", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "one SGD-with-momentum update (as torch.optim.SGD)";
  let description = [{
    Updates f32 master weights `param` and the f32 `momentum_buffer` with the
    gradient `grad` (f32, f16 or bf16, converted to f32). `lr` and `step` are
    rank-0 f32 tensors (`step` is 1 on the first update, when PyTorch creates
    the buffer). Per element, in f32 and in PyTorch's order:

      d   = g + weight_decay * p            (when weight_decay != 0)
      buf = step <= 1 ? d : momentum * buf + (1 - dampening) * d
      d   = nesterov ? d + momentum * buf : buf
      p   = p - lr * d

    The results are the new param and buffer and, when a third result type
    is given, the new param rounded to that low-precision type (f16 or
    bf16). momentum > 0 (plain SGD keeps no buffer) and finite, dampening in
    [0, 1], weight_decay >= 0 and finite; nesterov needs dampening = 0 (as
    PyTorch).

    ```mlir
    %p1, %b1 = tfuse.sgd %p, %g, %b lr %lr step %t momentum = 0.9 dampening = 0.0 weight_decay = 0.0 nesterov
        : (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<f32>, tensor<f32>) -> (tensor<1024xf32>, tensor<1024xf32>)
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$param, TFuse_FloatTensor:$grad,
                       TFuse_FloatTensor:$momentum_buffer,
                       TFuse_FloatTensor:$lr, TFuse_FloatTensor:$step,
                       F64Attr:$momentum, F64Attr:$dampening,
                       F64Attr:$weight_decay, UnitAttr:$nesterov);
  let results = (outs TFuse_FloatTensor:$new_param,
                      TFuse_FloatTensor:$new_momentum_buffer,
                      Optional<TFuse_FloatTensor>:$model_weight);
  let assemblyFormat = [{
    $param `,` $grad `,` $momentum_buffer `lr` $lr `step` $step
    `momentum` `=` $momentum `dampening` `=` $dampening
    `weight_decay` `=` $weight_decay (`nesterov` $nesterov^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives (parallel plans: one function is one rank's program)
//===----------------------------------------------------------------------===//

// A collective among `group_size` ranks (1 to 2^20), each running the same
// function on its own data; the types are the rank-local tensors. Pure as
// upstream's shard collectives: every rank runs the same ops in the same
// order, so removing or merging identical collectives stays consistent
// across ranks.
class TFuse_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : TFuse_Op<mnemonic, !listconcat([Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>], traits)> {
  let hasVerifier = 1;
}

def TFuse_AllReduceOp : TFuse_CollectiveOp<"all_reduce", [SameOperandsAndResultType]> {
  let summary = "sum of every rank's tensor, given to every rank";
  let description = [{
    Every rank of the group of `group_size` ranks contributes its `input`
    and receives the elementwise sum of all of them, added in rank order in
    f32 or wider (double in the reference) and rounded once to the element
    type (NCCL rounds after each ring step instead; the reference is the
    exact sum rounded once). The reference's per-rank semantics is
    `ref::allReduce` (tfuse/Reference/Reference.h); `--tfuse-evaluate`,
    which runs one rank's program, assumes every rank holds the same data:
    the result is `group_size * x` rounded once.

    ```mlir
    %g = tfuse.all_reduce %x group_size = 8 : tensor<4x1024xbf16>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, I64Attr:$group_size);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input `group_size` `=` $group_size attr-dict `:` type($input)
  }];
}

def TFuse_ReduceScatterOp : TFuse_CollectiveOp<"reduce_scatter"> {
  let summary = "sum of every rank's tensor, each rank keeping one slice";
  let description = [{
    The all-reduce's sum (rounded once), cut along `axis` (default 0) into
    `group_size` equal consecutive slices: rank r receives slice r. The
    input's size along `axis` must be a multiple of `group_size`; the
    result has that size divided by `group_size`, every other dimension
    unchanged. With identical data on every rank (`--tfuse-evaluate`) the
    result is rank 0's slice of `group_size * x`.

    ```mlir
    %s = tfuse.reduce_scatter %x axis = 0 group_size = 4 : tensor<8x1024xf32> -> tensor<2x1024xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       I64Attr:$group_size);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? `group_size` `=` $group_size attr-dict `:`
    type($input) `->` type($result)
  }];
}

def TFuse_AllGatherOp : TFuse_CollectiveOp<"all_gather"> {
  let summary = "every rank's tensor, concatenated in rank order";
  let description = [{
    Every rank receives the concatenation along `axis` (default 0) of the
    `group_size` ranks' inputs, rank 0 first: the result's size along
    `axis` is the input's times `group_size`. No arithmetic, so no
    rounding. With identical data on every rank (`--tfuse-evaluate`) the
    result is `x` repeated `group_size` times along `axis`.

    ```mlir
    %w = tfuse.all_gather %shard axis = 1 group_size = 2 : tensor<1024x512xbf16> -> tensor<1024x1024xbf16>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       I64Attr:$group_size);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? `group_size` `=` $group_size attr-dict `:`
    type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Model front ends: position encodings and attention masks
//===----------------------------------------------------------------------===//

def TFuse_RopeOp : TFuse_Op<"rope", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>, AllTypesMatch<["input", "result"]>]> {
  let summary = "rotary position embedding, rotate-half layout (Hugging Face)";
  let description = [{
    Rotates `input` [..., S, D] by position: for the element at index p of
    dimension rank - 2 (positions 0..S-1) and index d of the last dimension,
    with R = 2 x size(inv_freq) rotary dims (R <= D; the others pass
    through) and h = R / 2,

      y[d] = x[d] c - x[d + h] s   (d < h)
      y[d] = x[d] c + x[d - h] s   (h <= d < R)

    where c = cos(p x inv_freq[d mod h]) x attention_scaling and s the same
    with sin: `apply_rotary_pos_emb` with `rotate_half`, as Hugging Face's
    LLaMA-family models apply it to q and k in [B, H, S, D]. `inv_freq` [h]
    holds the frequencies (f32, as Hugging Face computes them from
    rope_theta, partial_rotary_factor and rope_scaling; the importer builds
    them as a constant), so one op serves every rope type.

    ```mlir
    %r = tfuse.rope %q, %inv_freq attention_scaling = 1.0 : tensor<1x2x16x64xbf16>, tensor<32xf32>
    ```
  }];
  let arguments = (ins TFuse_FloatTensor:$input, TFuse_FloatTensor:$inv_freq,
                       F64Attr:$attention_scaling);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $inv_freq `attention_scaling` `=` $attention_scaling attr-dict
    `:` type($input) `,` type($inv_freq)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The rotated dims R, a prefix of the last dimension.
    int64_t getRotaryDim() { return 2 * getInvFreq().getType().getNumElements(); }
  }];
}

def TFuse_WindowMaskOp : TFuse_Op<"window_mask", [Pure, DeclareOpInterfaceMethods<TFuse_CostOpInterface>]> {
  let summary = "the additive causal sliding-window mask";
  let description = [{
    Element [i, j] is 0 when j <= i and i - j < window, -inf otherwise: each
    query sees itself and the window - 1 keys before it (Mistral's and
    Qwen2's sliding_window). Like `tfuse.causal_mask`, it is computed from
    indices, so a kernel that fuses it reads no bytes for it.

    ```mlir
    %m = tfuse.window_mask window = 4096 : tensor<8192x8192xbf16>
    ```
  }];
  let arguments = (ins I64Attr:$window);
  let results = (outs TFuse_FloatTensor:$result);
  let assemblyFormat = "`window` `=` $window attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEOPS_TD
