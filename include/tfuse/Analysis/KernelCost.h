//===- KernelCost.h - kernels a function compiles to, priced ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one place that says which kernels a function becomes and what each of
// them moves: the traffic report, the fusion planner and the bundle's plan
// all price kernels through it, so a kernel has one predicted time wherever
// it is printed. Kernels are named as plan.json names its steps ("gemm_0",
// "row_reduction_3", "copy_5"); the report, the plan and tfuse-run's results
// share these ids.
//
// The walk mirrors code generation (lib/Conversion/TFuseToGPU): a matmul or
// a gemm_epilogue fusion is a library GEMM; a loop or row_reduction fusion,
// or a standalone elementwise or row op (which the plan builder wraps into a
// one-op fusion), is one emitted kernel that reads its inputs once and writes
// its results once, splat constants rebuilt inside (a row too long for one
// block's registers is read twice: once for its statistics, once more for
// the results); a transpose or slice is one copy kernel and a split one copy
// kernel per piece; a concat one copy kernel, a gather one gather kernel, a
// gather_grad two or three (zero, atomic scatter-add, round); a
// tfuse.rope the copy kernel of the transpose before it (which then launches
// nothing) or a copy kernel of its own; a tfuse.attention the
// flash-attention template covers is one kernel; a collective is priced by
// its own device-memory traffic and marked not compiled (its communication
// is the traffic analysis' business); reshapes and constants launch
// nothing. What the emitters
// cannot build is still listed, with the reason, so that no report prices it
// as if it compiled.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_ANALYSIS_KERNELCOST_H
#define TFUSE_ANALYSIS_KERNELCOST_H

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Target/CostModel.h"
#include "tfuse/Target/KernelShapes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::tfuse {

/// One kernel (or library GEMM) of a compiled function.
struct KernelCost {
  /// The step name in plan.json ("" for a kernel the compiler cannot emit).
  std::string id;
  /// "gemm", "loop", "row_reduction", "copy", "attention", or the op's name
  /// when the compiler has no emitter for it.
  std::string templateName;
  /// The top-level op the kernel computes; `piece` picks a result of a split.
  Operation *op = nullptr;
  unsigned piece = 0;
  int64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  /// Integer instructions of dropout's Philox draws (KernelWork).
  int64_t integerOps = 0;
  ComputeClass computeClass = ComputeClass::Fp32Simt;
  /// A library GEMM whose rows are not 16-byte aligned (isAlignedGemm).
  bool unalignedGemm = false;
  /// Bytes read from values the previous kernel wrote, and how much that
  /// kernel wrote in all: the reads come from L2 when the latter fits.
  int64_t l2CandidateBytes = 0, producerBytesWritten = 0;
  /// Bytes the kernel reads again that it read itself before (counted in
  /// bytesRead too): a looping row kernel's second pass, over `rows` rows of
  /// `rowThreads` threads, or flash attention's K and V once per query tile
  /// after the first, from a working set of `rereadFootprint` bytes. They
  /// come from L2 when what they come from fits there (docs/cost-model.md).
  int64_t rereadBytes = 0, rows = 0, rowThreads = 0, rereadFootprint = 0;
  /// Why the compiler cannot emit this kernel ("" when it can).
  std::string unsupported;

  int64_t bytes() const { return bytesRead + bytesWritten; }
  bool emitted() const { return unsupported.empty(); }
  /// The cost model's view of this kernel on `target`.
  KernelWork workOn(const GpuTarget &target) const;
  /// Its predicted time on `target`.
  KernelTime timeOn(const GpuTarget &target) const {
    return predictKernelTime(workOn(target), target);
  }
};

/// Integer issue slots one Philox4x32-10 call (four dropout draws) costs
/// as the kernels emit it, with the draws applied, measured on an H100 and
/// an H200 (docs/cost-model.md, calibration 3): elementwise kernels pay
/// each element's index arithmetic too; the flash-attention kernels share a
/// fragment's indices and hand words between lanes by shuffles.
constexpr int64_t kElementwisePhiloxCallOps = 130;
constexpr int64_t kAttentionPhiloxCallOps = 80;

/// The Philox calls a flash-attention kernel makes for dropout over
/// `scores` visited scores of rows `keySeq` keys long: one per four keys of
/// a row when Sk % 4 == 0 (calls shared between lanes), otherwise one per
/// key pair (Sk even) or per key, and per key in the key kernel (`keyMajor`:
/// its fragments hold keys as rows).
int64_t getAttentionDropoutCalls(int64_t scores, int64_t keySeq, bool keyMajor);

/// The optimizer updates (tfuse.adamw, tfuse.sgd) of `block`, in order.
/// tfuse-compile runs them as multi_tensor kernels at the last of them
/// unless `problem` says why it cannot (set with the update `at`): one reads
/// another's result, or a result is used before the last update. `launches`
/// splits the updates, in order, into kernels whose buffer pointers fit
/// kMultiTensorParamBytes.
struct OptimizerGroup {
  SmallVector<Operation *> updates;
  SmallVector<SmallVector<Operation *>> launches;
  std::string problem;
  Operation *at = nullptr;
};
/// The kernel-parameter bytes a multi_tensor launch's buffer pointers (8
/// bytes each) may take: PTX before ISA 8.1 allows 4352 bytes of kernel
/// parameters; the rest is headroom.
constexpr int64_t kMultiTensorParamBytes = 4096;
OptimizerGroup findOptimizerGroup(Block &block);

/// The kernels of `func`'s top-level ops, in execution order: standalone
/// optimizer updates as the one multi_tensor kernel they run as.
std::vector<KernelCost> scheduleKernels(func::FuncOp func);

/// The kernel a fusion of `kind` over `members` (in program order, not yet
/// rewritten into a tfuse.fusion) would be, without neighbours (no L2 reuse).
KernelCost describeFusedKernel(ArrayRef<Operation *> members, FusionKind kind);

/// The kernels tfuse.gather_grad runs as, over an f32 accumulator of the
/// table's shape (the result itself for an f32 table, else a temporary): 0
/// zeroes it, 1 adds every element of grad into it with an f32 atomic add, 2
/// (bf16 and f16 tables only) rounds it into the result.
unsigned getGatherGradKernelCount(GatherGradOp op);
/// Kernel `piece` of those: what it reads and writes, the atomic adds
/// counted as f32 writes, each element of grad once.
KernelCost describeGatherGradKernel(GatherGradOp op, unsigned piece);

/// The kernel one top-level op runs as on its own (no neighbours).
KernelCost describeSingleKernel(Operation *op);

/// Where a contraction (matmul, attention) multiplies: f16/bf16 and TF32
/// matmuls on tensor cores, the rest in f32 on CUDA cores.
ComputeClass getContractionClass(Operation *contraction);

/// Whether cuBLASLt can run `matmul` on its 16-byte-aligned tensor-core
/// kernels: the rows of both operands and of the result, as stored (their
/// last dimensions), are multiples of 16 bytes. An odd vocabulary (BERT's
/// 30522, GPT-2's 50257) is not.
bool isAlignedGemm(MatmulOp matmul);

/// The ops a row_reduction kernel is built around, one row at a time:
/// softmax, reduce, layer_norm, rms_norm, cross_entropy (and its gradient).
bool isRowOp(Operation *op);
/// Row ops whose results hold one value per row (reduce, cross_entropy),
/// not a row: thread 0 of the row's block writes them, no epilogue follows.
bool writesPerRowValues(Operation *rowOp);

/// The axis a row op works along (the last but for softmax and reduce),
/// the row's length, and the distance in elements between neighbouring
/// elements of a row: 1 along the last axis, the product of the later
/// dimensions otherwise (a strided row, read one element at a time; blocks
/// of neighbouring rows read neighbouring columns, so the row kernel moves
/// each element once).
int64_t getRowAxis(Operation *rowOp);
int64_t getRowLength(Operation *rowOp);
int64_t getRowStride(Operation *rowOp);

/// Why the row-reduction template cannot emit a kernel of `members` whose
/// row op is `rowOp`, with the given row-shaped buffers, or "" when it can.
std::string checkRowKernel(Operation *rowOp, ArrayRef<Operation *> members,
                           ArrayRef<Value> rowBuffers);

/// The layout the row-reduction template gives that kernel (nothing when it
/// cannot emit it): the emitter's rule (tfuse/Target/KernelShapes.h) applied
/// to the buffers' vector widths.
std::optional<RowKernelShape> getRowKernelShape(Operation *rowOp,
                                                ArrayRef<Value> rowBuffers);

/// Why the flash-attention template cannot compute `op`, or "" when it can
/// (the emitters' supports predicate: the planner, the cost model and
/// tfuse-decompose-attention ask it).
std::string checkAttentionKernel(AttentionOp op);

/// The flash-attention kernel computing `op` (which checkAttentionKernel
/// accepts): Q read and O written once, K and V read once per query tile,
/// the FLOPs of the score tiles it visits (causal skips those above the
/// diagonal).
KernelCost describeAttentionKernel(AttentionOp op);

/// Why the flash-attention backward template cannot compute `op`, or "" when
/// it can.
std::string checkAttentionGradKernel(AttentionGradOp op);

/// Kernel `piece` of the flash-attention backward of `op` (which
/// checkAttentionGradKernel accepts): 0, the query kernel (Q, dO and the row
/// statistics read once, K and V once per 64-row query tile, dQ written);
/// 1, the key kernel (K and V read once, Q, dO and the statistics once per
/// 64-key block, dK and dV written).
KernelCost describeAttentionGradKernel(AttentionGradOp op, unsigned piece);

/// The transpose a tfuse.rope is applied in: its input, when a transpose in
/// the same block that nothing else reads (the copy kernel writing q or k
/// head-major rotates them as it copies, so rope costs no pass of its own);
/// null when the rope is a copy kernel of its own.
TransposeOp getRopeTranspose(RopeOp rope);

/// Whether `op` is such a transpose: it launches nothing itself.
bool isAbsorbedByRope(Operation *op);

/// How a flash-attention kernel addresses a [B, H, S, D] operand or result:
/// element (b, h, s, d) lies at offset + b * strides[0] + h * strides[1] +
/// s * strides[2] + d of `buffer`'s storage. Head-major (`buffer` the value
/// itself) unless a [B, S, H, D] <-> [B, H, S, D] transpose is absorbed
/// (isAbsorbedByAttention): the kernel then reads the transpose's token-major
/// input, or writes its token-major result, so head layout costs no kernel.
/// An input that is a piece of a fused QKV projection (a split along the
/// last axis, reshaped) is read in the split's input at the piece's offset.
/// A tensor of another rank (mask, row statistics) is the value itself with
/// zero strides: the kernels index it as stored.
struct HeadLayout {
  Value buffer;
  std::array<int64_t, 3> strides;
  int64_t offset = 0;
};

/// The layout operand `operand` (query, key, value or output gradient) of a
/// tfuse.attention or tfuse.attention_grad is read in.
HeadLayout getAttentionOperandLayout(Value operand);

/// The layout result `result` (output; dQ, dK or dV) is written in.
HeadLayout getAttentionResultLayout(Value result);

/// Whether `op` is a transpose a flash-attention kernel absorbs (every use
/// reads it as such an operand, or it is the only use of such a result), or
/// a split whose pieces only such transposes read (through reshapes). It
/// launches nothing itself.
bool isAbsorbedByAttention(Operation *op);

/// A splat constant: rebuilt inside a kernel instead of being read.
bool isSplatConstant(Value value);

} // namespace mlir::tfuse

#endif // TFUSE_ANALYSIS_KERNELCOST_H
