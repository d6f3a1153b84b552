//===- Passes.td - tfuse transformation passes -------------*- tablegen -*-===//
//
// Graph-to-graph rewrites of the tfuse dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_PASSES_TD
#define TFUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TFuseDecomposeAttention : Pass<"tfuse-decompose-attention"> {
  let summary = "Rewrite tfuse.attention into matmul, scale, mask, softmax, "
                "dropout and matmul";
  let description = [{
    Each `tfuse.attention` becomes the ops it is defined as:
    `s = matmul(q, k) transpose_rhs`, `s = mul(s, scale)`, `s = add(s, mask)`
    (when a mask is given), `s = add(s, causal_mask)` (when causal),
    `p = softmax(s)` along the last axis, `p = dropout(p)` (when dropout_p
    is non-zero) and `o = matmul(p, v)`; each op rounds to the element type,
    the scale too (it becomes a constant of that type). Grouped-query attention reshapes the query
    to [B, Hkv, H/Hkv, Sq, D] and the key and value to [B, Hkv, 1, Sk, D], so
    that the matmul's batch broadcasting shares each key/value head among its
    query heads without copying it. Each step rounds, so the result is not
    exact attention: to first order it differs from it by at most
    u * (8 * max|s| + 4) * max|v|, u the unit roundoff of the element type
    (2^-8 bf16, 2^-11 f16, 2^-24 f32) and s the finite scaled, masked
    scores (four roundings of a score move a row's probabilities by at most
    twice their error in all; rounding the probabilities, the dropout scale
    and the output add u each). ReferenceTest checks the bound. Nothing but
    the attention ops changes: no folding or dead-code removal.

    With `keep-fused`, the attention ops the flash-attention kernel computes
    (`checkAttentionKernel`, lib/Analysis/KernelCost.cpp) stay whole, for
    code generation to emit as one kernel.
  }];
  let options = [
    Option<"keepFused", "keep-fused", "bool", /*default=*/"false",
           "Leave the attention ops the fused kernel computes">,
  ];
  let dependentDialects = ["::mlir::tfuse::TFuseDialect"];
}

def TFuseFuse : Pass<"tfuse-fuse", "::mlir::ModuleOp"> {
  let summary = "Fuse bandwidth-bound ops into tfuse.fusion kernels when the "
                "target's cost model says it pays";
  let description = [{
    Groups the ops of every function into the kernels code generation
    emits, in this order:
    - `gemm_epilogue`: a matmul with a bias add over its columns and a
      tanh-GELU or ReLU, as cuBLASLt epilogues run them;
    - `row_reduction`: a last-axis softmax, layer_norm, rms_norm or reduce
      with its elementwise prologue (bias, dropout, residual, scale, mask)
      and epilogue (dropout after softmax);
    - `loop`: chains of elementwise ops over one iteration space.
    Values a kernel computes that are also used outside it become extra
    results (multi-output fusion). An op joins a kernel only if the kernel
    template allows it (the rules: `not-elementwise`, `shape-mismatch`,
    `already-fused`, `order`, `gemm-layout`, `bias-not-vector`,
    `gelu-erf-epilogue`) and the cost model of `target` predicts the merged
    kernel to be faster than the two apart. Every fusion records
    `bytes_before`, `bytes_after`, `predicted_unfused_us`,
    `predicted_fused_us` and `target`; every decision, taken or not, is kept
    on the function as `tfuse.fusion_decisions` and emitted as an
    optimization remark (`--remarks-filter=tfuse-fuse`). Running the pass
    again changes nothing.
  }];
  let options = [
    Option<"target", "target", "std::string", "::mlir::tfuse::kDefaultTargetName",
           "GPU target (name or path of a JSON target file) whose cost model "
           "decides">
  ];
  let dependentDialects = ["::mlir::tfuse::TFuseDialect"];
}

def TFuseUnfuse : Pass<"tfuse-unfuse"> {
  let summary = "Inline every tfuse.fusion back into its parent";
  let description = [{
    The inverse of `tfuse-fuse`, for testing and debugging: each region's ops
    are moved in front of the fusion, whose results are replaced by the
    yielded values. The function's `tfuse.fusion_decisions` is dropped.
  }];
}

def TFuseAutodiff : Pass<"tfuse-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the training step (forward, loss, backward) of each "
                "function";
  let description = [{
    For every function `@f` with a body (or only `function`), adds
    `@f_train`: the forward, a loss, and the gradient of every float
    argument, all as tfuse ops. Its arguments are `@f`'s, then one per
    result of `@f`: with `loss=seed` the gradient of that result, with
    `loss=mse` its target (the loss is the mean of (y - target)^2 over all
    elements), with `loss=cross-entropy` the i32 labels of its rows (the
    result is logits, classes on the last axis; the loss is the mean
    tfuse.cross_entropy over the rows not labelled -100, as PyTorch's
    default). Its results are `@f`'s results (`seed`) or the loss as a
    rank-0 tensor (`mse`: the result's type, `cross-entropy`: f32), then the
    gradients, in argument order.

    Rules by op family: a matmul's operands get two matmuls with the
    transposes of the product, summed over broadcast batch dimensions (a
    shared [K, N] weight as one GEMM over all rows); elementwise ops their
    derivatives, summed over broadcast dimensions; layer_norm and rms_norm
    recompute their row statistics and give gamma and beta column
    reductions; softmax `y (g - sum(g y))`; dropout regenerates its Philox
    mask (the same dropout applied to the gradient); layout ops move the
    gradient back (slice pads with zeros, split concatenates). Attention is
    differentiated through its decomposition (tfuse-decompose-attention),
    or, with `fused-attention`, where the flash-attention kernels cover it
    and its mask needs no gradient, kept whole: the forward also gives its
    row log-sum-exp, and the backward is `delta` = the row sums of dO * O in
    f32 and one `tfuse.attention_grad`.
    A rope's gradient is the rotation by the negated angle (the same rope
    with its constant frequencies negated); the gradient of a gather's table
    is refused (no scatter-add op yet).

    `recompute` chooses which forward values the backward reads: `none`
    saves them all; `norms-and-elementwise` recomputes everything but
    matmul and attention results; `full` recomputes every forward op from
    the arguments. The step's `tfuse.training_step` attribute records the
    forward's name, the loss, the policy, `saved_bytes` (forward values the
    backward reads), `recompute_flops` and which argument each gradient
    belongs to. `no-grad` lists float arguments (by index) that get no
    gradient, as PyTorch's requires_grad=False. Backward ops are located at `"backward"(forward op)`,
    recomputed copies at `"recompute"(...)`, the loss at `"loss"(...)`.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "The function to differentiate (all when empty)">,
    Option<"loss", "loss", "std::string", /*default=*/"\"seed\"",
           "seed (result gradients are arguments), mse or cross-entropy">,
    Option<"recompute", "recompute", "std::string", /*default=*/"\"none\"",
           "none, norms-and-elementwise or full">,
    ListOption<"noGrad", "no-grad", "int64_t",
               "Indices of float arguments that get no gradient (masks, "
               "frozen weights)">,
    Option<"fusedAttention", "fused-attention", "bool", /*default=*/"false",
           "Differentiate the attention ops the flash-attention kernels "
           "cover with tfuse.attention_grad instead of their decomposition">,
  ];
  let dependentDialects = ["::mlir::tfuse::TFuseDialect"];
}

def TFuseApplyOptimizer : Pass<"tfuse-apply-optimizer", "::mlir::ModuleOp"> {
  let summary = "Append the optimizer update of every parameter to the "
                "training steps of tfuse-autodiff";
  let description = [{
    For every function carrying `tfuse.training_step` (or only `function`),
    appends one `tfuse.adamw` or `tfuse.sgd` per parameter: an argument
    whose gradient the step returns (its `gradients` indices), all of them
    or those listed in `params`. Parameters must be f32 (master weights).
    The step gains arguments, after its own: the optimizer state of each
    parameter in order (adamw: exp_avg, exp_avg_sq; sgd: momentum_buffer),
    then `lr` and `step` as rank-0 f32 tensors (`step` is 1 on the first
    update), so a schedule needs no recompile. It gains results, after its
    own: per parameter the new param, the new state and, with
    `model-weight=bf16|f16`, the new param in that type. The dictionary
    `tfuse.optimizer` records the optimizer, the parameters' argument
    indices (`params`), where the state arguments (`state`) and the new
    results (`results`) start, and the `lr` and `step` argument indices.
    Updates are located at `"optimizer"(argument location)`.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "The training step to extend (all when empty)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"adamw\"",
           "adamw or sgd">,
    ListOption<"params", "params", "int64_t",
               "Argument indices of the parameters (default: every argument "
               "with a gradient)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "AdamW beta2">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "AdamW epsilon">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "Weight decay (when not given: 0.01 for adamw, 0 for sgd, as "
           "PyTorch)">,
    Option<"momentum", "momentum", "double", /*default=*/"0.9",
           "SGD momentum">,
    Option<"dampening", "dampening", "double", /*default=*/"0",
           "SGD dampening">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD Nesterov momentum">,
    Option<"modelWeight", "model-weight", "std::string",
           /*default=*/"\"none\"",
           "none, bf16 or f16: also return each new param in that type">,
  ];
  let dependentDialects = ["::mlir::tfuse::TFuseDialect"];
}

def TFuseShardTensorParallel
    : Pass<"tfuse-shard-tensor-parallel", "::mlir::ModuleOp"> {
  let summary = "Rewrite a layer function into one rank's program of "
                "Megatron-LM tensor parallelism";
  let description = [{
    Every function becomes the program each of `degree` ranks runs: the
    weights of the column-parallel GEMMs (QKV or fused c_attn, MLP up and
    gate) and their biases take a slice of their output columns, attention
    runs over heads / degree (and kv heads / degree), the row-parallel GEMMs
    (attention output and MLP down projections) take a slice of their input
    rows, and their partial sums are summed by a `tfuse.all_reduce` right
    after the GEMM, before any bias, residual or norm. Everything else
    (norms, residuals, dropout outside attention) stays replicated.

    The decision is a propagation over a lattice per value (replicated,
    split along an axis in logical segments, partial sum) seeded by the
    matmuls whose right operand is a function argument: such a matmul with
    a replicated left operand is column split when its result reaches,
    through ops with a rule, a matmul whose left operand is split along the
    contracted axis, which is row split. A fused projection whose result is
    `tfuse.split` along the columns is split per piece (segments), so each
    rank gets its share of q, k and v. Each rewritten argument records its
    slice as `tfuse.shard = {axis, degree, segments}`; the function gets
    `tfuse.tensor_parallel_degree`. docs/multi-gpu.md, "The sharding pass",
    gives the rules and the weight layout.

    An op without a rule for the sharding of its operands, a function that
    would return a split value, or a segment that `degree` does not divide
    is an error at that op; the function is left untouched and the pass
    fails. `degree = 1` changes nothing.
  }];
  let options = [
    Option<"degree", "degree", "int64_t", /*default=*/"1",
           "Number of tensor-parallel ranks (at least 1)">,
  ];
  let dependentDialects = ["::mlir::tfuse::TFuseDialect"];
}

#endif // TFUSE_TRANSFORMS_PASSES_TD
