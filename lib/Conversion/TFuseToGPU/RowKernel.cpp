//===- RowKernel.cpp - row-reduction kernels --------------------*- C++ -*-===//
//
// One block per row: each thread holds its chunks of the row in registers
// (16-byte vector loads), the prologue runs per element, the row statistics
// come from warp shuffles and one shared-memory exchange between warps, then
// the epilogue runs and the results are stored. softmax is max / exp / sum
// (numerically stable); layer_norm is two-pass (mean, then the centred sum
// of squares) over the registers.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

namespace {

enum class Combine { Add, Max };

/// Reduces one f32 per thread over the block; every thread gets the result.
/// `slot` selects the 32 floats of shared memory this reduction uses.
class BlockReducer {
public:
  BlockReducer(OpBuilder &b, Location loc, Value thread, Value smem,
               int64_t threads)
      : b(b), loc(loc), thread(thread), smem(smem), threads(threads) {}

  Value reduce(Value value, Combine combine, int64_t slot) {
    value = warpReduce(value, combine);
    int64_t warps = llvm::divideCeil(threads, 32);
    if (warps == 1)
      return value;
    Value lane = arith::RemUIOp::create(b, loc, thread, indexConst(b, loc, 32));
    Value warp = arith::DivUIOp::create(b, loc, thread, indexConst(b, loc, 32));
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                        indexConst(b, loc, 0));
    auto write = scf::IfOp::create(b, loc, first, false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&write.getThenRegion().front());
      Value index =
          arith::AddIOp::create(b, loc, warp, indexConst(b, loc, slot * 32));
      memref::StoreOp::create(b, loc, value, smem, ValueRange{index});
    }
    gpu::BarrierOp::create(b, loc);
    // Every warp reads the per-warp partials and reduces them again.
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                        indexConst(b, loc, warps));
    Value index =
        arith::SelectOp::create(b, loc, valid, lane, indexConst(b, loc, 0));
    Value partial = memref::LoadOp::create(
        b, loc, smem,
        ValueRange{arith::AddIOp::create(b, loc, index,
                                         indexConst(b, loc, slot * 32))});
    partial = arith::SelectOp::create(b, loc, valid, partial, neutral(combine));
    return warpReduce(partial, combine);
  }

  Value neutral(Combine combine) {
    return f32Const(b, loc, combine == Combine::Add ? 0.0 : -INFINITY);
  }

  Value apply(Combine combine, Value lhs, Value rhs) {
    if (combine == Combine::Add)
      return arith::AddFOp::create(b, loc, lhs, rhs);
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  }

private:
  Value warpReduce(Value value, Combine combine) {
    Value width = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(32));
    for (int offset = 16; offset >= 1; offset /= 2) {
      Value shift =
          arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(offset));
      auto shuffle = gpu::ShuffleOp::create(b, loc, value, shift, width,
                                            gpu::ShuffleMode::XOR);
      value = apply(combine, value, shuffle.getShuffleResult());
    }
    return value;
  }

  OpBuilder &b;
  Location loc;
  Value thread, smem;
  int64_t threads;
};

/// The row op of a row_reduction region.
Operation *findRowOp(Block &body) {
  for (Operation &op : body.without_terminator())
    if (isa<SoftmaxOp, LayerNormOp, RmsNormOp, ReduceOp>(op))
      return &op;
  return nullptr;
}

} // namespace

FailureOr<EmittedKernel> kernel::emitRowKernel(gpu::GPUModuleOp module,
                                               FusionOp fusion,
                                               StringRef name) {
  Location loc = fusion.getLoc();
  Block &body = fusion.getBody().front();
  Operation *rowOp = findRowOp(body);
  if (!rowOp)
    return fusion.emitOpError() << "row_reduction region has no row op";
  auto rowType = cast<RankedTensorType>(rowOp->getOperand(0).getType());
  ArrayRef<int64_t> rowShape = rowType.getShape();
  int64_t length = rowShape.back();
  int64_t rows = rowType.getNumElements() / length;
  if (auto reduce = dyn_cast<ReduceOp>(rowOp);
      reduce && reduce.getAxis() + 1 != rowShape.size())
    return rowOp->emitOpError() << "row kernels reduce the last axis only";
  if (auto softmax = dyn_cast<SoftmaxOp>(rowOp);
      softmax && softmax.getAxis() + 1 != rowShape.size())
    return rowOp->emitOpError() << "row kernels reduce the last axis only";

  // Vector width: 16 bytes of the widest row-shaped buffer.
  SmallVector<RankedTensorType> buffers;
  int64_t width = 16;
  for (Value value :
       llvm::concat<Value>(fusion.getInputs(), fusion.getResults())) {
    auto type = cast<RankedTensorType>(value.getType());
    buffers.push_back(type);
    if (type.getShape() == rowShape)
      width = std::min(width, vectorWidth(type.getElementType(), length));
  }
  std::optional<RowKernelShape> shape = getRowKernelShape(length, width);
  if (!shape)
    return rowOp->emitOpError()
           << "row of " << length
           << " elements does not fit in the registers of one block";
  width = shape->width;
  int64_t vectors = length / width;
  int64_t threads = shape->threads, chunks = shape->chunks;
  bool ragged = chunks * threads != vectors;

  OpBuilder b(module.getContext());
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers, 64);
  Block &entry = func.getBody().front();
  Value smem = func.getWorkgroupAttributions().front();
  Value row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value rowBase =
      arith::MulIOp::create(b, loc, row, indexConst(b, loc, length));
  auto inputs = entry.getArguments().take_front(fusion.getInputs().size());
  auto outputs = entry.getArguments().drop_front(fusion.getInputs().size());

  // Split the region at the row op: the prologue computes its operands.
  SmallVector<Operation *> prologue, epilogue;
  bool after = false;
  for (Operation &op : body.without_terminator()) {
    if (&op == rowOp)
      after = true;
    else
      (after ? epilogue : prologue).push_back(&op);
  }

  struct Chunk {
    Value column, base, valid;
    SmallVector<Value> coords;
    LaneMap lanes;
  };
  SmallVector<Chunk> row_(chunks);
  ElementwiseEmitter emitter;
  for (int64_t c = 0; c < chunks; ++c) {
    Chunk &chunk = row_[c];
    Value vector =
        arith::AddIOp::create(b, loc, thread, indexConst(b, loc, c * threads));
    Value column =
        arith::MulIOp::create(b, loc, vector, indexConst(b, loc, width));
    chunk.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        column, indexConst(b, loc, length));
    // Out-of-row lanes read column 0 (always in bounds) and are masked out.
    chunk.column = ragged ? arith::SelectOp::create(b, loc, chunk.valid, column,
                                                    indexConst(b, loc, 0))
                          : column;
    chunk.base = arith::AddIOp::create(b, loc, rowBase, chunk.column);
    chunk.coords = delinearize(b, loc, chunk.base, rowShape);
    for (auto [arg, memref] : llvm::zip(body.getArguments(), inputs)) {
      ArrayRef<int64_t> from = cast<RankedTensorType>(arg.getType()).getShape();
      chunk.lanes[arg] = loadBroadcastLanes(b, loc, memref, from, rowShape,
                                            chunk.base, chunk.coords, width);
    }
    if (failed(evaluateLanes(b, emitter, prologue, chunk.lanes, chunk.base,
                             chunk.coords, rowShape, width)))
      return failure();
  }

  BlockReducer reducer(b, loc, thread, smem, threads);
  // Sum or max of f(x) over the valid elements of the thread's chunks; x are
  // the row op's input lanes, or `key`'s when given.
  auto rowReduce = [&](Combine combine, int64_t slot,
                       function_ref<Value(Value)> f, Value key = Value()) {
    Value partial = reducer.neutral(combine);
    for (Chunk &chunk : row_)
      for (Value x : chunk.lanes.lookup(key ? key : rowOp->getOperand(0))) {
        Value term = f(x);
        if (ragged)
          term = arith::SelectOp::create(b, loc, chunk.valid, term,
                                         reducer.neutral(combine));
        partial = reducer.apply(combine, partial, term);
      }
    return reducer.reduce(partial, combine, slot);
  };
  auto identity = [](Value x) { return x; };
  auto perElement = [&](function_ref<Value(Value, Chunk &, int64_t)> f) {
    for (Chunk &chunk : row_) {
      SmallVector<Value> xs = chunk.lanes.lookup(rowOp->getOperand(0));
      SmallVector<Value> ys;
      for (auto [lane, x] : llvm::enumerate(xs))
        ys.push_back(f(x, chunk, lane));
      chunk.lanes[rowOp->getResult(0)] = ys;
    }
  };
  Value lengthF = f32Const(b, loc, static_cast<double>(length));
  // Optional per-column parameters (gamma, beta) of a normalisation.
  auto column = [&](Value param, Chunk &chunk, int64_t lane) -> Value {
    return param ? chunk.lanes.lookup(param)[lane] : Value();
  };

  if (isa<SoftmaxOp>(rowOp)) {
    Value max = rowReduce(Combine::Max, 0, identity);
    // exp(x - max) per element, kept under the row op's result until the
    // sum is known.
    Value exps = rowOp->getResult(0);
    for (Chunk &chunk : row_) {
      SmallVector<Value> es;
      for (Value x : chunk.lanes.lookup(rowOp->getOperand(0)))
        es.push_back(
            math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, x, max)));
      chunk.lanes[exps] = es;
    }
    Value sum = rowReduce(Combine::Add, 1, identity, exps);
    Value inverse = arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0), sum);
    for (Chunk &chunk : row_)
      for (Value &e : chunk.lanes[exps])
        e = arith::MulFOp::create(b, loc, e, inverse);
  } else if (auto norm = dyn_cast<LayerNormOp>(rowOp)) {
    Value mean = arith::DivFOp::create(
        b, loc, rowReduce(Combine::Add, 0, identity), lengthF);
    Value var = arith::DivFOp::create(
        b, loc,
        rowReduce(Combine::Add, 1,
                  [&](Value x) -> Value {
                    Value d = arith::SubFOp::create(b, loc, x, mean);
                    return arith::MulFOp::create(b, loc, d, d);
                  }),
        lengthF);
    Value rstd = math::RsqrtOp::create(
        b, loc,
        arith::AddFOp::create(
            b, loc, var,
            f32Const(b, loc, norm.getEpsilon().convertToDouble())));
    perElement([&](Value x, Chunk &chunk, int64_t lane) -> Value {
      Value y = arith::MulFOp::create(
          b, loc, arith::SubFOp::create(b, loc, x, mean), rstd);
      if (Value gamma = column(norm.getGamma(), chunk, lane))
        y = arith::MulFOp::create(b, loc, y, gamma);
      if (Value beta = column(norm.getBeta(), chunk, lane))
        y = arith::AddFOp::create(b, loc, y, beta);
      return y;
    });
  } else if (auto norm = dyn_cast<RmsNormOp>(rowOp)) {
    Value meanSquare = arith::DivFOp::create(
        b, loc,
        rowReduce(Combine::Add, 0,
                  [&](Value x) -> Value {
                    return arith::MulFOp::create(b, loc, x, x);
                  }),
        lengthF);
    Value rms = math::RsqrtOp::create(
        b, loc,
        arith::AddFOp::create(
            b, loc, meanSquare,
            f32Const(b, loc, norm.getEpsilon().convertToDouble())));
    perElement([&](Value x, Chunk &chunk, int64_t lane) -> Value {
      Value y = arith::MulFOp::create(b, loc, x, rms);
      if (Value gamma = column(norm.getGamma(), chunk, lane))
        y = arith::MulFOp::create(b, loc, y, gamma);
      return y;
    });
  } else {
    auto reduce = cast<ReduceOp>(rowOp);
    bool isMax = reduce.getKind() == ReduceKind::max;
    Value total = rowReduce(isMax ? Combine::Max : Combine::Add, 0, identity);
    if (reduce.getKind() == ReduceKind::mean)
      total = arith::DivFOp::create(b, loc, total, lengthF);
    // One value per row: thread 0 writes it (a reduce ends its region).
    if (!epilogue.empty() || fusion.getNumResults() != 1 ||
        fusion.getYield().getValues()[0] != reduce.getResult())
      return rowOp->emitOpError()
             << "row kernels support no epilogue after tfuse.reduce";
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        thread, indexConst(b, loc, 0));
    auto write = scf::IfOp::create(b, loc, first, false);
    b.setInsertionPointToStart(&write.getThenRegion().front());
    storeLanes(b, loc, {total}, outputs.front(), row);
    b.setInsertionPointToEnd(&entry);
    gpu::ReturnOp::create(b, loc);
    EmittedKernel launch{
        name.str(), "row_reduction", {rows, 1, 1}, {threads, 1, 1}, 64 * 4};
    return launch;
  }

  // The row op's result has its element type's precision, as stored.
  for (Chunk &chunk : row_)
    for (Value &lane : chunk.lanes[rowOp->getResult(0)])
      lane = roundToElementType(b, loc, lane, rowOp->getResult(0));
  for (Chunk &chunk : row_) {
    if (failed(evaluateLanes(b, emitter, epilogue, chunk.lanes, chunk.base,
                             chunk.coords, rowShape, width)))
      return failure();
    // Ragged chunks store only when in the row.
    OpBuilder::InsertionGuard guard(b);
    if (ragged) {
      auto store = scf::IfOp::create(b, loc, chunk.valid, false);
      b.setInsertionPointToStart(&store.getThenRegion().front());
    }
    for (auto [value, memref] :
         llvm::zip(fusion.getYield().getValues(), outputs)) {
      auto type = cast<RankedTensorType>(value.getType());
      if (type.getShape() != rowShape)
        return fusion.emitOpError()
               << "row kernels store results of the row's shape only";
      storeLanes(b, loc, chunk.lanes.lookup(value), memref, chunk.base);
    }
  }
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
  EmittedKernel launch{
      name.str(), "row_reduction", {rows, 1, 1}, {threads, 1, 1}, 64 * 4};
  return launch;
}
