//===- Reference.h - CPU reference semantics of tfuse ops -------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the CPU reference evaluator of the tfuse ops. It defines
// what every op computes, independently of MLIR: the compiler's folds and
// decompositions and the runtime's `--check` mode compare against it.
//
// Numerics: every op computes in double and rounds its result ONCE to the
// result element type with `roundTo` (accumulations are in double too). The
// library has no LLVM/MLIR dependency and uses no exceptions. Shapes are
// assumed to have been verified (by the MLIR verifier); where a violated
// precondition is cheap to detect, an op returns an empty tensor (shape {0})
// instead of crashing.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_REFERENCE_REFERENCE_H
#define TFUSE_REFERENCE_REFERENCE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace mlir::tfuse::ref {

//===----------------------------------------------------------------------===//
// Element types and tensors
//===----------------------------------------------------------------------===//

/// Element types of reference tensors.
enum class DType { F32, F16, BF16, I32, I64 };

/// A dense, row-major tensor. Values are stored as doubles; every stored
/// value is exactly representable in `dtype`.
struct Tensor {
  DType dtype = DType::F32;
  /// Dimensions; rank 0 (a scalar with one element) is allowed.
  std::vector<int64_t> shape;
  /// Row-major values, numElements() of them.
  std::vector<double> data;

  /// Product of the dimensions (1 for a scalar).
  int64_t numElements() const;
  /// Number of dimensions.
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

/// Number of elements of a tensor of `shape` (1 for rank 0).
int64_t numElements(const std::vector<int64_t> &shape);

/// A tensor of zeros.
Tensor zeros(DType dtype, std::vector<int64_t> shape);
/// A tensor holding `values`, each rounded to `dtype` with roundTo. If the
/// number of values does not match the shape, returns an empty tensor.
Tensor makeTensor(DType dtype, std::vector<int64_t> shape,
                  std::vector<double> values);
/// A rank-0 tensor holding roundTo(dtype, value).
Tensor scalar(DType dtype, double value);

/// Size in bytes of one element ("f32" 4, "f16"/"bf16" 2, "i32" 4, "i64" 8).
int64_t elementSize(DType dtype);
/// "f32", "f16", "bf16", "i32" or "i64".
const char *dtypeName(DType dtype);
/// Parses a name produced by dtypeName. Returns false if unknown.
bool parseDType(std::string_view name, DType &dtype);
/// True for F32, F16 and BF16.
bool isFloat(DType dtype);

/// Rounds `value` to the nearest value of `dtype`.
/// - Floats: first to f32 (round to nearest even, as a C cast does), then,
///   for f16/bf16, f32 -> f16/bf16 round to nearest even. f16 has subnormals
///   and overflows to +-inf (from 65520 up); NaN stays NaN.
/// - Integers: truncation toward zero, saturated to the type's range; NaN
///   gives 0.
double roundTo(DType dtype, double value);

/// IEEE binary16 bits of `value`, rounded to nearest even.
uint16_t toHalfBits(float value);
/// The value of IEEE binary16 bits.
float fromHalfBits(uint16_t bits);
/// bfloat16 bits of `value`, rounded to nearest even (NaN stays NaN).
uint16_t toBFloat16Bits(float value);
/// The value of bfloat16 bits.
float fromBFloat16Bits(uint16_t bits);

//===----------------------------------------------------------------------===//
// Bytes, hashes and random inputs
//===----------------------------------------------------------------------===//

/// Appends the little-endian bytes of `t` in its dtype (f32: IEEE 4 bytes,
/// f16/bf16: 2 bytes, i32: 4 bytes, i64: 8 bytes) to `out`.
void appendBytes(const Tensor &t, std::vector<uint8_t> &out);
/// The little-endian bytes of `t` in its dtype.
std::vector<uint8_t> toBytes(const Tensor &t);
/// Builds a tensor from little-endian bytes in `dtype`. `size` must be
/// numElements(shape) * elementSize(dtype); otherwise returns an empty tensor.
Tensor fromBytes(DType dtype, std::vector<int64_t> shape, const uint8_t *bytes,
                 size_t size);

/// FNV-1a 64-bit hash of `size` bytes, continuing from `hash`.
uint64_t fnv1a64(const uint8_t *bytes, size_t size,
                 uint64_t hash = 0xcbf29ce484222325ULL);
/// FNV-1a 64 of toBytes(t) (the shape and dtype are not hashed).
uint64_t hashBytes(const Tensor &t);

/// splitmix64's output function applied to `x` (one step of the generator).
uint64_t splitmix64(uint64_t x);

/// A deterministic random tensor. Element i draws the 64-bit value
/// splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ i). Floats: uniform in
/// [-1, 1) from the top 53 bits, rounded with roundTo; a value that rounds up
/// to 1 becomes the largest value of the dtype below 1. Integers: the value
/// modulo 1024 (uniform in [0, 1024)).
Tensor randomTensor(DType dtype, std::vector<int64_t> shape, uint64_t seed,
                    uint64_t stream);

/// Numpy broadcasting of two shapes (dimensions aligned at the end; a
/// dimension of 1 stretches). Sets `ok` to false if they do not broadcast.
std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a,
                                     const std::vector<int64_t> &b, bool &ok);

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

enum class BinaryKind { Add, Sub, Mul, Div, Max, Min };

/// `a op b` with numpy broadcasting; the result has a.dtype. Max and Min are
/// IEEE 754-2019 maximum/minimum (as arith.maximumf/minimumf): a NaN operand
/// gives NaN, and -0 < +0.
Tensor binary(BinaryKind kind, const Tensor &a, const Tensor &b);

enum class UnaryKind {
  Neg,
  Exp,
  Log,
  Tanh,
  Erf,
  Sqrt,
  Rsqrt,
  Sigmoid,
  /// maximum(x, +0): NaN stays NaN, -0 gives +0.
  Relu,
  /// x * sigmoid(x).
  Silu,
  /// 0.5 x (1 + erf(x / sqrt(2))).
  GeluErf,
  /// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
  GeluTanh,
  /// 1 where x > 0, else 0 (NaN gives 0): relu's derivative.
  Step
};

/// Applies `kind` elementwise; the result has x.dtype.
Tensor unary(UnaryKind kind, const Tensor &x);

/// Converts `x` to `to` with roundTo.
Tensor cast(const Tensor &x, DType to);

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// Batched matrix product. `a` is [..., M, K] ([..., K, M] if transposeA), `b`
/// is [..., K, N] ([..., N, K] if transposeB), both of rank >= 2; the batch
/// dimensions broadcast numpy-style. The result is [batch..., M, N] of
/// a.dtype. Each element is the double sum of the products for k = 0..K-1 in
/// increasing order, rounded once; results do not depend on the number of
/// threads used.
Tensor matmul(const Tensor &a, const Tensor &b, bool transposeA = false,
              bool transposeB = false);

/// Scaled dot-product attention. q [B,H,Sq,D], k [B,Hkv,Sk,D], v
/// [B,Hkv,Sk,Dv] with H % Hkv == 0 (query head h uses kv head h / (H/Hkv));
/// `mask` (optional, additive) broadcasts to [B,H,Sq,Sk]. Exact attention,
/// every step in double and the output rounded once to q.dtype:
///   s_ij = scale * sum_c q_ic k_jc + mask_ij (+ -inf where causal and j > i);
///   p_ij = exp(s_ij - max_j s) / sum_j exp(s_ij - max_j s), times
///   1 / (1 - dropoutP) or 0 by dropoutKeep of the flat index of (b, h, i, j)
///   in [B,H,Sq,Sk] when dropoutP > 0; o_ic = sum_j p_ij v_jc.
/// A row whose scores are all -inf gives NaN (as softmax does).
/// With `lse`, also sets it to each row's log-sum-exp of its scores,
/// log(sum_j exp(s_ij)) in double rounded to f32 ([B,H,Sq]).
Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v,
                 const Tensor *mask, double scale, bool causal,
                 double dropoutP = 0.0, uint64_t seed = 0,
                 Tensor *lse = nullptr);

/// The gradients of attention(q, k, v, mask, scale, causal, dropoutP, seed)
/// with respect to q, k and v from the output's gradient `outGrad`
/// [B,H,Sq,Dv], the forward's row log-sum-exp `lse` and `delta` = the row
/// sums of outGrad * output (both [B,H,Sq]), as tfuse.attention_grad defines
/// them: every step in double from p_ij = exp(s_ij - lse_i), each gradient
/// rounded once to q.dtype; a key/value head's gradients sum over the query
/// heads that read it. Invalid shapes give invalid tensors. With `visit`,
/// also calls it once for every (query row, key) term of the sums, from
/// the thread that owns the term's (batch, key/value head): what it writes
/// at the term's query row or key row does not race.
struct AttentionGrads {
  Tensor query, key, value;
};
/// One (query row i, key j) term of attentionGrad: `row` is the flat
/// (b, h, i) of [B,H,Sq], `keyRow` the flat (b, hk, j) of [B,Hkv,Sk];
/// keep is the dropout factor (1, 0 or 1 / (1 - p)), dP = dO_i . v_j and
/// dS = p (dP keep - delta_i) scale, so dQ_i = sum_j dS k_j,
/// dK_j = sum_i dS q_i and dV_j = sum_i p keep dO_i.
struct AttentionGradTerm {
  int64_t row = 0, keyRow = 0;
  double probability = 0, keep = 1, probabilityGrad = 0, scoreGrad = 0;
};
using AttentionGradVisitor = std::function<void(const AttentionGradTerm &)>;
AttentionGrads attentionGrad(const Tensor &q, const Tensor &k, const Tensor &v,
                             const Tensor &outGrad, const Tensor &lse,
                             const Tensor &delta, const Tensor *mask,
                             double scale, bool causal, double dropoutP = 0.0,
                             uint64_t seed = 0,
                             const AttentionGradVisitor *visit = nullptr);

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Max, Mean };

/// tfuse.cross_entropy: for each row of `logits` (the last axis) and its
/// label, the loss log(sum_j exp(x_j)) - x_label and counted = 1, in double
/// and rounded to f32; rows labelled `ignoreIndex` give 0 and 0; other
/// labels clamp into [0, V). Sets `counted`; returns the losses.
Tensor crossEntropy(const Tensor &logits, const Tensor &labels,
                    int64_t ignoreIndex, Tensor &counted);

/// tfuse.cross_entropy_grad: (softmax(row) - onehot(label)) * lossGrad[row],
/// in double and rounded to the logits' type; zero for ignored rows.
Tensor crossEntropyGrad(const Tensor &logits, const Tensor &labels,
                        const Tensor &lossGrad, int64_t ignoreIndex);

/// Reduces `x` along `axis` (negative counts from the end). Sum and Mean add
/// in increasing index order in double; Max propagates NaN. The axis is kept
/// with size 1 if `keepDims`.
Tensor reduce(ReduceKind kind, const Tensor &x, int64_t axis, bool keepDims);

/// Softmax along `axis`: exp(x - max) / sum(exp(x - max)), in double. A row
/// that is entirely -inf gives NaN (as PyTorch).
Tensor softmax(const Tensor &x, int64_t axis);

/// Layer normalisation over the last axis: (x - mean) / sqrt(var + eps), then
/// `* gamma` and `+ beta` when given (each of shape [D]). The mean and the
/// biased variance are computed in two passes, in double.
Tensor layerNorm(const Tensor &x, const Tensor *gamma, const Tensor *beta,
                 double eps);

/// RMS normalisation over the last axis: x / sqrt(mean(x^2) + eps), then
/// `* gamma` when given (shape [D]).
Tensor rmsNorm(const Tensor &x, const Tensor *gamma, double eps);

/// tfuse.norm_grad: the input gradient of layerNorm (or, with `rms`, of
/// rmsNorm) at x given the output gradient dy and gamma (may be null), in
/// double and rounded to x's type, followed by the per-row mean (0 with
/// `rms`) and rstd = 1 / sqrt(var + eps) as f32 of shape [..., 1]. Invalid
/// tensors when the shapes do not fit.
std::vector<Tensor> normGrad(const Tensor &x, const Tensor &dy,
                             const Tensor *gamma, double eps, bool rms);

//===----------------------------------------------------------------------===//
// Random numbers and dropout
//===----------------------------------------------------------------------===//

/// Random123's Philox4x32 with 10 rounds.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr,
                                      std::array<uint32_t, 2> key);

/// Whether dropout keeps the element of flat index `i`: with
/// ctr = {uint32(i/4), uint32((i/4) >> 32), 0, 0} and
/// key = {uint32(seed), uint32(seed >> 32)}, r = philox4x32_10(ctr, key)[i%4];
/// kept iff r >= uint32(min(floor(p * 2^32), 2^32 - 1)). p = 0 keeps all.
/// The pieces of this rule are defined once, in tfuse/Reference/Philox.h.
bool dropoutKeep(uint64_t i, double p, uint64_t seed);

/// Dropout with probability `p` in [0, 1): y = x * (1 / (1 - p)) where
/// dropoutKeep(i, p, seed) for the flat index i, else 0.
Tensor dropout(const Tensor &x, double p, uint64_t seed);

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//
//
// Unlike the ops above, an optimizer update computes in f32, as PyTorch's
// optimizers do, so that the reference is the update a training run makes:
// the per-tensor scalars (1 - beta, lr * weight_decay, the bias
// corrections) are computed in double from the f32 lr and step and rounded
// once to f32; every per-element operation is one f32 operation, in the
// order the formulas below give (no FMA).

/// Hyperparameters of tfuse.adamw.
struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weightDecay = 0.01;
};

/// One AdamW update (tfuse.adamw, torch.optim.AdamW): param, expAvg and
/// expAvgSq are f32 of one shape, grad of that shape in any float dtype;
/// lr and step are scalars (step 1 on the first update). With
/// c1 = 1 - beta1, c2 = 1 - beta2, d = lr * weightDecay,
/// s = lr / (1 - beta1^step) and r = sqrt(1 - beta2^step), each element:
///   p = p - d * p              (only when weightDecay != 0)
///   m = beta1 * m + c1 * g
///   v = beta2 * v + (c2 * g) * g
///   p = p - (s * m) / (sqrt(v) / r + eps)
/// Returns {p, m, v} (f32) and, when `modelWeight` is given, p rounded to
/// it. Mismatched shapes give empty tensors.
std::vector<Tensor> adamw(const Tensor &param, const Tensor &grad,
                          const Tensor &expAvg, const Tensor &expAvgSq,
                          const Tensor &lr, const Tensor &step,
                          const AdamWOptions &options,
                          const DType *modelWeight = nullptr);

/// Hyperparameters of tfuse.sgd.
struct SgdOptions {
  double momentum = 0.9;
  double dampening = 0.0;
  double weightDecay = 0.0;
  bool nesterov = false;
};

/// One SGD-with-momentum update (tfuse.sgd, torch.optim.SGD): param and
/// buffer f32 of one shape, grad of that shape in any float dtype, lr and
/// step scalars. With c = 1 - dampening, each element:
///   d = g + weightDecay * p    (only when weightDecay != 0)
///   b = step <= 1 ? d : momentum * b + c * d
///   d = nesterov ? d + momentum * b : b
///   p = p - lr * d
/// Returns {p, b} (f32) and, when `modelWeight` is given, p rounded to it.
std::vector<Tensor> sgd(const Tensor &param, const Tensor &grad,
                        const Tensor &buffer, const Tensor &lr,
                        const Tensor &step, const SgdOptions &options,
                        const DType *modelWeight = nullptr);

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

/// The same elements with `newShape` (one dimension may be -1, inferred).
Tensor reshape(const Tensor &x, std::vector<int64_t> newShape);

/// Permutes dimensions: result dimension i is input dimension perm[i].
Tensor transpose(const Tensor &x, const std::vector<int64_t> &perm);

/// The block starting at `offsets` with extent `sizes` (stride 1).
Tensor slice(const Tensor &x, const std::vector<int64_t> &offsets,
             const std::vector<int64_t> &sizes);

/// Splits `x` along `axis` into consecutive pieces of the given sizes (which
/// add up to the dimension).
std::vector<Tensor> split(const Tensor &x, int64_t axis,
                          const std::vector<int64_t> &sizes);

/// Concatenates `xs` along `axis`; the result has xs[0].dtype.
Tensor concat(const std::vector<Tensor> &xs, int64_t axis);

/// Embedding lookup: rows of `table` (along axis 0) selected by the integer
/// `indices`, clamped into [0, table.shape[0] - 1] (as XLA). The result shape
/// is indices.shape + table.shape[1:], of table.dtype.
Tensor gather(const Tensor &table, const Tensor &indices);

/// The gradient of gather's table (tfuse.gather_grad): a tensor of `dtype`
/// and `tableShape` whose row v is the sum of the rows of `grad` (shape
/// indices.shape + tableShape[1:]) at the positions whose index clamps to v
/// as gather clamps, zero where none does; summed in double, rounded once.
/// An empty tensor if the shapes disagree.
Tensor gatherGrad(const Tensor &grad, const Tensor &indices,
                  const std::vector<int64_t> &tableShape, DType dtype);

/// A [rows, cols] additive causal mask: 0 where col <= row, -inf elsewhere
/// (aligned at the top-left corner, as PyTorch's is_causal).
Tensor causalMask(int64_t rows, int64_t cols, DType dtype);

/// Rotary position embedding of `x` [..., S, D] (tfuse.rope): positions are
/// the indices along dimension rank - 2; the first 2 x invFreq.size() dims
/// of the last one (2 x invFreq.numElements()) rotate in the rotate-half
/// layout, the rest pass through.
Tensor rope(const Tensor &x, const Tensor &invFreq, double attentionScaling);

/// A [rows, cols] additive causal sliding-window mask: 0 where col <= row and
/// row - col < window, -inf elsewhere.
Tensor windowMask(int64_t rows, int64_t cols, int64_t window, DType dtype);

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//
//
// A collective runs among ranks, each holding its own tensor: these take one
// tensor per rank, in rank order, and return one result per rank. The ranks'
// tensors must be floats of one dtype and shape, and there must be at least
// one rank; otherwise every result is an empty tensor (none without ranks).

/// tfuse.all_reduce: every rank gets the elementwise sum of all ranks'
/// tensors, added in rank order in double and rounded once to the dtype.
std::vector<Tensor> allReduce(const std::vector<Tensor> &ranks);

/// tfuse.reduce_scatter: rank r gets slice r of allReduce's sum cut along
/// `axis` into ranks.size() equal consecutive slices (the axis' size must
/// be a multiple of the number of ranks).
std::vector<Tensor> reduceScatter(const std::vector<Tensor> &ranks,
                                  int64_t axis);

/// tfuse.all_gather: every rank gets the concatenation of all ranks'
/// tensors along `axis`, rank 0 first.
std::vector<Tensor> allGather(const std::vector<Tensor> &ranks, int64_t axis);

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather };

/// What a single program computes for a collective when all `groupSize`
/// ranks hold `x` (the rule of `tfuse-opt --tfuse-evaluate`, where a
/// function is one rank's program): rank 0's result of the function above on
/// `groupSize` copies of `x`, without making the copies. all_reduce gives
/// groupSize * x rounded once (the rank-order double sum of up to 2^29
/// equal f32-representable values is exact, so the two agree bit for bit),
/// reduce_scatter the first slice of that, all_gather x repeated groupSize
/// times along `axis`. groupSize must be at least 1.
Tensor collectiveOfIdenticalRanks(CollectiveKind kind, const Tensor &x,
                                  int64_t groupSize, int64_t axis);

} // namespace mlir::tfuse::ref

#endif // TFUSE_REFERENCE_REFERENCE_H
