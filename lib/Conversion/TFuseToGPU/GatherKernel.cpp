//===- GatherKernel.cpp - embedding lookup kernels --------------*- C++ -*-===//
//
// tfuse.gather: one thread per 16-byte vector of the result. The thread
// reads the index of its row once, clamps it into the table (as the op and
// the reference do) and copies its vector of that table row.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

/// The offset into a [vocab, rowLength] table of element `base` of a
/// gathered tensor: its position's index, clamped into the table as the op
/// and the reference clamp it, times the row length, plus its column.
static Value tableOffset(OpBuilder &b, Location loc, Value indices, Value base,
                         int64_t rowLength, int64_t vocab) {
  Value rowLengthC = indexConst(b, loc, std::max<int64_t>(1, rowLength));
  Value position = arith::DivUIOp::create(b, loc, base, rowLengthC);
  Value column = arith::RemUIOp::create(b, loc, base, rowLengthC);
  Value id = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, indices, position));
  id = arith::MaxSIOp::create(b, loc, id, indexConst(b, loc, 0));
  id = arith::MinSIOp::create(b, loc, id, indexConst(b, loc, vocab - 1));
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, id, rowLengthC), column);
}

FailureOr<EmittedKernel> mlir::tfuse::emitGatherKernel(gpu::GPUModuleOp module,
                                                       GatherOp op,
                                                       StringRef name) {
  Location loc = op.getLoc();
  RankedTensorType table = op.getTable().getType();
  RankedTensorType indices = op.getIndices().getType();
  RankedTensorType output = op.getResult().getType();
  int64_t vocab = table.getDimSize(0);
  int64_t rowLength = table.getNumElements() / vocab;
  // Vectors stay within one table row.
  int64_t width =
      rowLength ? vectorWidth(output.getElementType(), rowLength) : 1;
  int64_t threads = output.getNumElements() / width;

  OpBuilder b(module.getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, loc, name, {table, indices, output});
  Block &entry = func.getBody().front();
  Value tid = guardedThreadIndex(b, loc, threads);
  Value base = arith::MulIOp::create(b, loc, tid, indexConst(b, loc, width));
  Value source =
      tableOffset(b, loc, entry.getArgument(1), base, rowLength, vocab);
  SmallVector<Value> lanes =
      loadLanes(b, loc, entry.getArgument(0), source, width);
  storeLanes(b, loc, lanes, entry.getArgument(2), base);

  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "gather";
  launch.block = {kBlockSize, 1, 1};
  launch.grid = {static_cast<int64_t>(llvm::divideCeil(threads, kBlockSize)), 1,
                 1};
  return launch;
}

//===----------------------------------------------------------------------===//
// tfuse.gather_grad
//===----------------------------------------------------------------------===//
//
// The table's gradient in the kernels getGatherGradKernelCount counts, over
// an f32 accumulator of the table's shape (the result itself for an f32
// table, otherwise a temporary of the plan): piece 0 zeroes it, piece 1 adds
// every element of grad into the row its index clamps to with f32 atomic
// adds (one thread per 16-byte vector of grad, read with one vector load and
// added lane by lane: PTX has no vector atomic add before sm_90), piece 2
// (bf16 and f16 tables) rounds it into the result. The atomics make the
// order of each sum unspecified: tfuse-run --check allows for that
// (docs/bundle.md, "Checking").

/// One thread per vector of `width` elements of `count`; returns the linear
/// index of the thread's first element, the builder inside the guard.
static Value vectorBase(OpBuilder &b, Location loc, int64_t count,
                        int64_t width) {
  Value tid = guardedThreadIndex(b, loc, count / width);
  return arith::MulIOp::create(b, loc, tid, indexConst(b, loc, width));
}

FailureOr<EmittedKernel>
mlir::tfuse::emitGatherGradKernel(gpu::GPUModuleOp module, GatherGradOp op,
                                  unsigned piece, StringRef name) {
  Location loc = op.getLoc();
  RankedTensorType grad = op.getGrad().getType();
  RankedTensorType indices = op.getIndices().getType();
  RankedTensorType table = op.getResult().getType();
  RankedTensorType accumulator = table.clone(Float32Type::get(op.getContext()));
  int64_t vocab = table.getDimSize(0);
  int64_t rowLength = table.getNumElements() / vocab;
  if (piece >= getGatherGradKernelCount(op))
    return op.emitOpError()
           << "internal error: no gather_grad kernel " << piece;

  OpBuilder b(module.getContext());
  int64_t threads = 0;
  if (piece == 0) {
    // Zeroes of the accumulator, a vector a thread.
    int64_t count = accumulator.getNumElements();
    int64_t width = vectorWidth(b.getF32Type(), count);
    threads = count / width;
    gpu::GPUFuncOp func = createKernel(b, module, loc, name, {accumulator});
    Value base = vectorBase(b, loc, count, width);
    SmallVector<Value> zeros(width, f32Const(b, loc, 0.0));
    storeLanes(b, loc, zeros, func.getArgument(0), base);
    b.setInsertionPointToEnd(&func.getBody().front());
  } else if (piece == 1) {
    // Vectors stay within one row of grad (one index).
    int64_t width =
        rowLength ? vectorWidth(grad.getElementType(), rowLength) : 1;
    int64_t count = grad.getNumElements();
    threads = count / width;
    gpu::GPUFuncOp func =
        createKernel(b, module, loc, name, {grad, indices, accumulator});
    Block &entry = func.getBody().front();
    Value base = vectorBase(b, loc, count, width);
    Value target =
        tableOffset(b, loc, entry.getArgument(1), base, rowLength, vocab);
    SmallVector<Value> lanes =
        loadLanes(b, loc, entry.getArgument(0), base, width);
    for (auto [lane, value] : llvm::enumerate(lanes)) {
      Value at = lane == 0
                     ? target
                     : arith::AddIOp::create(
                           b, loc, target,
                           indexConst(b, loc, static_cast<int64_t>(lane)));
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, value,
                                  entry.getArgument(2), ValueRange{at});
    }
    b.setInsertionPointToEnd(&entry);
  } else {
    // The accumulator rounded to the table's element type.
    int64_t count = table.getNumElements();
    int64_t width = std::min(vectorWidth(b.getF32Type(), count),
                             vectorWidth(table.getElementType(), count));
    threads = count / width;
    gpu::GPUFuncOp func =
        createKernel(b, module, loc, name, {accumulator, table});
    Value base = vectorBase(b, loc, count, width);
    SmallVector<Value> lanes =
        loadLanes(b, loc, func.getArgument(0), base, width);
    storeLanes(b, loc, lanes, func.getArgument(1), base);
    b.setInsertionPointToEnd(&func.getBody().front());
  }
  gpu::ReturnOp::create(b, loc);
  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "gather_grad";
  launch.block = {kBlockSize, 1, 1};
  launch.grid = {std::max<int64_t>(1, llvm::divideCeil(threads, kBlockSize)), 1,
                 1};
  return launch;
}
