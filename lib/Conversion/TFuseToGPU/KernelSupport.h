//===- KernelSupport.h - shared pieces of the kernel emitters ---*- C++ -*-===//
//
// Index arithmetic, vector loads and stores in f32, the per-element
// evaluation of elementwise tfuse ops, and Philox for dropout. Private to
// lib/Conversion/TFuseToGPU.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_CONVERSION_TFUSETOGPU_KERNELSUPPORT_H
#define TFUSE_LIB_CONVERSION_TFUSETOGPU_KERNELSUPPORT_H

#include "tfuse/Conversion/TFuseToGPU.h"
#include "tfuse/Target/KernelShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::tfuse::kernel {

/// Threads per block of the elementwise and copy kernels.
constexpr int64_t kBlockSize = 256;

Value indexConst(OpBuilder &b, Location loc, int64_t value);
Value f32Const(OpBuilder &b, Location loc, double value);

/// The flat memref a buffer of `type` is passed as.
MemRefType flatMemRef(RankedTensorType type);

/// Elements per 16-byte vector of `elementType`, or 1 if `count` does not
/// divide into whole vectors.
int64_t vectorWidth(Type elementType, int64_t count);

/// Coordinates of `linear` in a row-major `shape`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape);

/// Linear index into a tensor of shape `from` that numpy-broadcasts into
/// `to`, for the element at coordinates `coords` of `to`.
Value broadcastIndex(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                     ArrayRef<int64_t> to, ArrayRef<int64_t> from);

/// Loads `width` consecutive elements at `index` of `memref`, as f32.
SmallVector<Value> loadLanes(OpBuilder &b, Location loc, Value memref,
                             Value index, int64_t width);

/// Stores f32 `lanes` (rounded to the memref's element type) at `index`.
void storeLanes(OpBuilder &b, Location loc, ArrayRef<Value> lanes, Value memref,
                Value index);

/// The element an elementwise op is computed for: its linear index in the
/// kernel's iteration space and its coordinates there. Lanes of one vector
/// share `vectorBase` (a multiple of 4) and differ in `lane`, so that one
/// Philox call serves four lanes.
struct Element {
  Value linear;
  SmallVector<Value> coords;
  ArrayRef<int64_t> shape; ///< the iteration space
  Value vectorBase;        ///< null when lanes are not 4-aligned
  int64_t lane = 0;
};

/// Evaluates elementwise ops one element at a time, in f32.
class ElementwiseEmitter {
public:
  /// `op` for `element`, from f32 operands. Splat constants and causal_mask
  /// take no operands. Emits an error and fails for other ops.
  FailureOr<Value> emit(OpBuilder &b, Operation *op, ArrayRef<Value> operands,
                        const Element &element);

private:
  Value dropout(OpBuilder &b, Location loc, DropoutOp op, Value x,
                const Element &element);

  /// Philox words already computed, by (op, vector base, lane / 4).
  llvm::DenseMap<std::tuple<Operation *, Value, int64_t>, std::array<Value, 4>>
      philoxCache;
};

/// The four Philox4x32-10 words at counter `counter` (index) for `seed`, as
/// ref::philox computes them.
std::array<Value, 4> emitPhilox(OpBuilder &b, Location loc, Value counter,
                                uint64_t seed);

/// The draw of flat element `linear` (index) of a dropout stream: word
/// linear % 4 of the Philox call at linear / 4 (ref::philox).
Value emitPhiloxWord(OpBuilder &b, Location loc, Value linear, uint64_t seed);

/// `x` (f32) after dropout with probability `p` given its draw `word` (i32):
/// x / (1 - p) where the word keeps it (ref::philox::keeps), else 0, the
/// product correctly rounded as the reference's.
Value emitDropout(OpBuilder &b, Location loc, Value x, Value word, double p);

/// Creates `gpu.func @name` (a kernel) in `module` with one flat memref
/// argument per type in `buffers`, and `workgroupFloats` f32 of shared
/// memory; the builder is left at the start of its body.
gpu::GPUFuncOp createKernel(OpBuilder &b, gpu::GPUModuleOp module, Location loc,
                            StringRef name, ArrayRef<RankedTensorType> buffers,
                            int64_t workgroupFloats = 0);

/// Lanes of the input `arg` (shape `from`, broadcast into the iteration
/// space `to`) for the `width` consecutive elements starting at the
/// coordinates `coords` (`linear` in `to`), in f32. Vector loads where the
/// elements are contiguous in the input, one splat load where they share
/// one element, one load per lane otherwise.
SmallVector<Value> loadBroadcastLanes(OpBuilder &b, Location loc, Value arg,
                                      ArrayRef<int64_t> from,
                                      ArrayRef<int64_t> to, Value linear,
                                      ArrayRef<Value> coords, int64_t width);

/// The global thread index of a 1-D launch of kBlockSize-thread blocks; the
/// builder is left inside `if (index < threads)`.
Value guardedThreadIndex(OpBuilder &b, Location loc, int64_t threads);

/// Coordinates of lane `lane` given those of lane 0 (lanes run along the
/// last dimension and never cross a row).
SmallVector<Value> laneCoords(OpBuilder &b, Location loc,
                              ArrayRef<Value> coords, int64_t lane);

/// `value` (f32) rounded to the element type of `result`, as storing the
/// op's result would: fused kernels keep each op's rounding, so they compute
/// what the unfused ops (and the reference) compute.
Value roundToElementType(OpBuilder &b, Location loc, Value value, Value result);

/// A kernel emitter's per-lane values: SSA value -> one f32 per lane.
using LaneMap = llvm::DenseMap<Value, SmallVector<Value>>;

/// Evaluates `ops` (elementwise) for every lane, reading and extending
/// `lanes`. `base` is the linear index of lane 0, `coords` its coordinates in
/// `shape`.
LogicalResult evaluateLanes(OpBuilder &b, ElementwiseEmitter &emitter,
                            ArrayRef<Operation *> ops, LaneMap &lanes,
                            Value base, ArrayRef<Value> coords,
                            ArrayRef<int64_t> shape, int64_t width);

/// The lanes of a copy kernel's vector at output `coords`, rotated by
/// `rotation`: the partner vector is read from `source` (at
/// `sourceIndex(coordinates)`) and the frequencies from `invFreq`.
SmallVector<Value>
rotateLanes(OpBuilder &b, Location loc, const CopyRotation &rotation,
            Value source, Value invFreq, ArrayRef<Value> coords,
            ArrayRef<Value> lanes,
            function_ref<Value(ArrayRef<Value>)> sourceIndex);

/// The kernel templates (LoopKernel.cpp, RowKernel.cpp).
FailureOr<EmittedKernel> emitLoopKernel(gpu::GPUModuleOp module,
                                        FusionOp fusion, StringRef name);
FailureOr<EmittedKernel> emitRowKernel(gpu::GPUModuleOp module, FusionOp fusion,
                                       StringRef name);
/// The optimizer updates of a function in one launch (MultiTensorKernel.cpp).
FailureOr<EmittedKernel> emitMultiTensorKernel(gpu::GPUModuleOp module,
                                               FusionOp fusion, StringRef name);

} // namespace mlir::tfuse::kernel

#endif // TFUSE_LIB_CONVERSION_TFUSETOGPU_KERNELSUPPORT_H
