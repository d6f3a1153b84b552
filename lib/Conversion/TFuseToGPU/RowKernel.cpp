//===- RowKernel.cpp - row-reduction kernels --------------------*- C++ -*-===//
//
// One block per row, or lane groups of a warp per row when a row needs fewer
// than 32 lanes: each thread holds its chunks of the row in registers
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
#include <functional>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

namespace {

enum class Combine { Add, Max };

/// Reduces one f32 per thread over the `threads` threads of a row (the
/// block, or an aligned lane group of a power of two below 32); every thread
/// gets the result. `slot` selects the 32 floats of shared memory this
/// reduction uses.
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
    // XOR offsets below the group's size stay inside the group.
    for (int64_t offset = std::min<int64_t>(16, threads / 2); offset >= 1;
         offset /= 2) {
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

/// The sum or max over the block's warps of `partial`, per lane: warp w
/// stores its lane's partial at smem[w * 32 + lane], and warp 0 combines the
/// `warps` partials of its lane (the result is valid in warp 0 only).
Value columnReduce(OpBuilder &b, Location loc, BlockReducer &reducer,
                   Value partial, Combine combine, Value smem, Value lane,
                   Value warp, int64_t warps) {
  Value lanes = indexConst(b, loc, kColumnReduceLanes);
  Value slot = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, lanes), lane);
  memref::StoreOp::create(b, loc, partial, smem, ValueRange{slot});
  gpu::BarrierOp::create(b, loc);
  Value total = reducer.neutral(combine);
  for (int64_t w = 0; w < warps; ++w) {
    Value index = arith::AddIOp::create(
        b, loc, indexConst(b, loc, w * kColumnReduceLanes), lane);
    total =
        reducer.apply(combine, total,
                      memref::LoadOp::create(b, loc, smem, ValueRange{index}));
  }
  return total;
}

/// The row op of a row_reduction region.
Operation *findRowOp(Block &body) {
  for (Operation &op : body.without_terminator())
    if (isRowOp(&op))
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
  // A row along a non-last axis is strided: element j of row r sits `stride`
  // elements after element j - 1 (no vectors). Rows r and r + 1 are
  // neighbouring columns, run by neighbouring blocks.
  int64_t length = getRowLength(rowOp), stride = getRowStride(rowOp);
  int64_t rows = rowType.getNumElements() / std::max<int64_t>(1, length);

  SmallVector<RankedTensorType> buffers;
  SmallVector<Value> rowBuffers(body.getArguments());
  rowBuffers.append(fusion.getYield()->operand_begin(),
                    fusion.getYield()->operand_end());
  for (Value value :
       llvm::concat<Value>(fusion.getInputs(), fusion.getResults()))
    buffers.push_back(cast<RankedTensorType>(value.getType()));
  std::optional<RowKernelShape> shape = getRowKernelShape(rowOp, rowBuffers);
  if (!shape)
    return rowOp->emitOpError() << "row kernels need a non-empty row";
  // A reduce over a strided row (a column reduction: bias and norm-weight
  // gradients) runs 32 neighbouring rows per block, one per lane, so that a
  // warp's loads are contiguous; the block's warps split each row and add
  // their partials through shared memory (columnReduce below).
  bool columns = isa<ReduceOp>(rowOp) && stride > 1;
  if (columns)
    shape = getColumnReduceShape(length);
  int64_t width = shape->width;
  int64_t threads = shape->threads, chunks = shape->chunks;
  int64_t tileElements = threads * chunks * width;
  bool ragged = std::max<int64_t>(1, shape->tiles) * tileElements != length;

  OpBuilder b(module.getContext());
  int64_t smemFloats = columns ? kColumnReduceLanes * shape->threads : 64;
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers, smemFloats);
  Block &entry = func.getBody().front();
  Value smem = func.getWorkgroupAttributions().front();
  Value row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // Rows past the end (the last block of packed or column rows) compute
  // the last row again and store nothing.
  Value lane, rowInRange;
  auto clampRow = [&]() {
    rowInRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                       indexConst(b, loc, rows));
    row = arith::SelectOp::create(b, loc, rowInRange, row,
                                  indexConst(b, loc, rows - 1));
  };
  if (shape->rowsPerBlock > 1) {
    // Lane group g of block k runs row k x rowsPerBlock + g. One op a
    // statement: the IR's order must not depend on the compiler's order of
    // evaluating arguments.
    Value lanes = indexConst(b, loc, threads);
    Value first = arith::MulIOp::create(
        b, loc, row, indexConst(b, loc, shape->rowsPerBlock));
    Value group = arith::DivUIOp::create(b, loc, thread, lanes);
    row = arith::AddIOp::create(b, loc, first, group);
    thread = arith::RemUIOp::create(b, loc, thread, lanes);
    if (rows % shape->rowsPerBlock != 0)
      clampRow();
  }
  if (columns) {
    // Lane l of block g runs row 32 g + l (the last row when past the end,
    // so that loads stay in bounds; only rows in range store).
    lane = thread;
    thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
    row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, row,
                              indexConst(b, loc, kColumnReduceLanes)),
        lane);
    clampRow();
  }
  // Whether this thread stores: `condition`, and its row is a row.
  auto storesRow = [&](Value condition) -> Value {
    if (!rowInRange)
      return condition;
    if (!condition)
      return rowInRange;
    return arith::AndIOp::create(b, loc, condition, rowInRange);
  };
  // One value per row: the row's first thread stores each (value, memref).
  auto storeRowValues = [&](ArrayRef<std::pair<Value, Value>> stores) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        thread, indexConst(b, loc, 0));
    auto write = scf::IfOp::create(b, loc, storesRow(first), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&write.getThenRegion().front());
    for (auto [value, memref] : stores)
      storeLanes(b, loc, {value}, memref, row);
  };
  // The launch: blocks of rowsPerBlock rows (column rows have their own).
  auto rowLaunch = [&]() {
    return EmittedKernel{
        name.str(),
        "row_reduction",
        {(rows + shape->rowsPerBlock - 1) / shape->rowsPerBlock, 1, 1},
        {shape->blockThreads(), 1, 1},
        64 * 4};
  };
  // Row r = (outer, inner) starts at outer x length x stride + inner.
  Value rowBase;
  if (stride == 1) {
    rowBase = arith::MulIOp::create(b, loc, row, indexConst(b, loc, length));
  } else {
    Value strideC = indexConst(b, loc, stride);
    Value outer = arith::DivUIOp::create(b, loc, row, strideC);
    Value inner = arith::RemUIOp::create(b, loc, row, strideC);
    rowBase = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, outer,
                              indexConst(b, loc, length * stride)),
        inner);
  }
  auto inputs = entry.getArguments().take_front(fusion.getInputs().size());
  auto outputs = entry.getArguments().drop_front(fusion.getInputs().size());
  // A loss's per-row operands (labels, loss gradient): one load per row,
  // by every thread, instead of lanes of the row.
  bool isLoss = isa<CrossEntropyOp, CrossEntropyGradOp>(rowOp);
  llvm::SmallPtrSet<Value, 2> perRowArgs;
  if (isLoss)
    for (Value operand : rowOp->getOperands().drop_front()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner() != &body)
        return rowOp->emitOpError()
               << "row kernels read a loss's per-row operands from memory, "
                  "not from ops of the kernel";
      perRowArgs.insert(arg);
    }
  auto loadPerRow = [&](Value operand) -> Value {
    auto arg = cast<BlockArgument>(operand);
    return memref::LoadOp::create(b, loc, inputs[arg.getArgNumber()], row);
  };

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
  ElementwiseEmitter emitter;
  // The inputs' lanes at `column` of the row, and the prologue on them.
  auto loadChunk = [&](Chunk &chunk, Value column) -> LogicalResult {
    chunk.column = column;
    Value offset = column;
    if (stride > 1)
      offset =
          arith::MulIOp::create(b, loc, column, indexConst(b, loc, stride));
    chunk.base = arith::AddIOp::create(b, loc, rowBase, offset);
    chunk.coords = delinearize(b, loc, chunk.base, rowShape);
    for (auto [arg, memref] : llvm::zip(body.getArguments(), inputs)) {
      if (perRowArgs.contains(arg))
        continue;
      ArrayRef<int64_t> from = cast<RankedTensorType>(arg.getType()).getShape();
      chunk.lanes[arg] = loadBroadcastLanes(b, loc, memref, from, rowShape,
                                            chunk.base, chunk.coords, width);
    }
    return evaluateLanes(b, emitter, prologue, chunk.lanes, chunk.base,
                         chunk.coords, rowShape, width);
  };
  // The thread's chunks of the tile at column `start` (the whole row when
  // `start` is null): vector c of the thread is vector thread + c x threads.
  auto loadTile = [&](Value start) -> FailureOr<SmallVector<Chunk>> {
    SmallVector<Chunk> tile(chunks);
    for (int64_t c = 0; c < chunks; ++c) {
      Chunk &chunk = tile[c];
      Value vector = arith::AddIOp::create(b, loc, thread,
                                           indexConst(b, loc, c * threads));
      Value column =
          arith::MulIOp::create(b, loc, vector, indexConst(b, loc, width));
      if (start)
        column = arith::AddIOp::create(b, loc, column, start);
      chunk.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          column, indexConst(b, loc, length));
      // Out-of-row lanes read column 0 (always in bounds) and are masked out.
      if (ragged)
        column = arith::SelectOp::create(b, loc, chunk.valid, column,
                                         indexConst(b, loc, 0));
      if (failed(loadChunk(chunk, column)))
        return failure();
    }
    return tile;
  };
  // The looping kernel: `body(start, carried)` for every tile of the row,
  // threading `init` through; returns the final values.
  auto forEachTile =
      [&](ValueRange init,
          function_ref<FailureOr<SmallVector<Value>>(Value, ValueRange)>
              tileBody) -> FailureOr<SmallVector<Value>> {
    auto loop = scf::ForOp::create(b, loc, indexConst(b, loc, 0),
                                   indexConst(b, loc, shape->tiles),
                                   indexConst(b, loc, 1), init);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *loopBody = loop.getBody();
      if (init.empty())
        b.setInsertionPoint(loopBody->getTerminator());
      else
        b.setInsertionPointToStart(loopBody);
      Value start = arith::MulIOp::create(b, loc, loop.getInductionVar(),
                                          indexConst(b, loc, tileElements));
      FailureOr<SmallVector<Value>> carried =
          tileBody(start, loop.getRegionIterArgs());
      if (failed(carried))
        return failure();
      if (!init.empty())
        scf::YieldOp::create(b, loc, *carried);
    }
    return SmallVector<Value>(loop.getResults());
  };

  // The register-resident kernel loads its whole row once, up front.
  SmallVector<Chunk> row_;
  if (!shape->looping()) {
    FailureOr<SmallVector<Chunk>> whole = loadTile(Value());
    if (failed(whole))
      return failure();
    row_ = std::move(*whole);
  }

  BlockReducer reducer(b, loc, thread, smem, threads);
  // The thread's sum or max of f(x) over the valid elements of `tile`; x are
  // the row op's input lanes, or `key`'s when given.
  auto threadReduce = [&](ArrayRef<Chunk> tile, Combine combine,
                          function_ref<Value(Value)> f, Value key = Value()) {
    Value partial = reducer.neutral(combine);
    for (const Chunk &chunk : tile)
      for (Value x : chunk.lanes.lookup(key ? key : rowOp->getOperand(0))) {
        Value term = f(x);
        if (ragged)
          term = arith::SelectOp::create(b, loc, chunk.valid, term,
                                         reducer.neutral(combine));
        partial = reducer.apply(combine, partial, term);
      }
    return partial;
  };
  // The same over the registers' row, reduced over the block.
  auto rowReduce = [&](Combine combine, int64_t slot,
                       function_ref<Value(Value)> f, Value key = Value()) {
    return reducer.reduce(threadReduce(row_, combine, f, key), combine, slot);
  };
  // The looping kernel's statistics pass: `update(tile, carried)` per tile.
  auto statisticsPass =
      [&](ValueRange init,
          function_ref<SmallVector<Value>(ArrayRef<Chunk>, ValueRange)> update)
      -> FailureOr<SmallVector<Value>> {
    return forEachTile(
        init,
        [&](Value start, ValueRange carried) -> FailureOr<SmallVector<Value>> {
          FailureOr<SmallVector<Chunk>> tile = loadTile(start);
          if (failed(tile))
            return failure();
          return update(*tile, carried);
        });
  };
  // The thread's partials: `update` over the registers' row, or over every
  // tile when looping.
  auto threadPartials =
      [&](ValueRange init,
          function_ref<SmallVector<Value>(ArrayRef<Chunk>, ValueRange)> update)
      -> FailureOr<SmallVector<Value>> {
    if (!shape->looping())
      return update(row_, init);
    return statisticsPass(init, update);
  };
  auto identity = [](Value x) { return x; };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubFOp::create(b, loc, x, y);
  };
  auto exp = [&](Value x) -> Value { return math::ExpOp::create(b, loc, x); };
  Value lengthF = f32Const(b, loc, static_cast<double>(length));
  // Optional per-column parameters (gamma, beta) of a normalisation.
  auto column = [&](Value param, Chunk &chunk, int64_t lane) -> Value {
    return param ? chunk.lanes.lookup(param)[lane] : Value();
  };
  // The row op's result from its input x, per element, once the statistics
  // are known (unset when the register softmax computed it already).
  std::function<Value(Value, Chunk &, int64_t)> finish;

  // The online softmax's statistics: each thread keeps its running max m
  // and the sum s of exp(x - m), rescaling s whenever m grows. A max of -inf
  // (nothing but -inf so far) shifts by 0 instead, so that no -inf - -inf
  // appears.
  Value negInf = f32Const(b, loc, -INFINITY);
  auto finiteShift = [&](Value max) -> Value {
    Value none =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, max, negInf);
    return arith::SelectOp::create(b, loc, none, f32Const(b, loc, 0.0), max);
  };
  auto onlineSoftmax = [&](ArrayRef<Chunk> tile,
                           ValueRange carried) -> SmallVector<Value> {
    Value max = arith::MaximumFOp::create(
        b, loc, carried[0], threadReduce(tile, Combine::Max, identity));
    Value shift = finiteShift(max);
    Value sum = threadReduce(tile, Combine::Add,
                             [&](Value x) { return exp(sub(x, shift)); });
    return {max, add(mul(carried[1], exp(sub(carried[0], shift))), sum)};
  };
  // The block's max and sum from the threads' (max, sum) partials.
  auto softmaxTotals = [&](Value threadMax,
                           Value threadSum) -> std::pair<Value, Value> {
    Value max = reducer.reduce(threadMax, Combine::Max, 0);
    Value shift = finiteShift(max);
    Value sum = reducer.reduce(mul(threadSum, exp(sub(threadMax, shift))),
                               Combine::Add, 1);
    return {max, sum};
  };

  // The row's mean and biased variance of the row op's input x: two passes
  // over the registers, or one shifted pass when looping.
  auto meanAndVariance = [&]() -> FailureOr<std::pair<Value, Value>> {
    if (!shape->looping()) {
      // Two passes over the registers: the mean, then the centred squares.
      Value mean = arith::DivFOp::create(
          b, loc, rowReduce(Combine::Add, 0, identity), lengthF);
      Value var = arith::DivFOp::create(b, loc,
                                        rowReduce(Combine::Add, 1,
                                                  [&](Value x) -> Value {
                                                    Value d = sub(x, mean);
                                                    return mul(d, d);
                                                  }),
                                        lengthF);
      return std::make_pair(mean, var);
    }
    // One pass of sums of d = x - k and d^2, k the row's first element:
    // shifting by a value of the row keeps E[d^2] - E[d]^2 from cancelling
    // when the mean is large against the spread.
    Chunk first;
    if (failed(loadChunk(first, indexConst(b, loc, 0))))
      return failure();
    Value k = first.lanes.lookup(rowOp->getOperand(0))[0];
    FailureOr<SmallVector<Value>> sums = statisticsPass(
        {f32Const(b, loc, 0.0), f32Const(b, loc, 0.0)},
        [&](ArrayRef<Chunk> tile, ValueRange carried) -> SmallVector<Value> {
          Value s1 = threadReduce(tile, Combine::Add,
                                  [&](Value x) { return sub(x, k); });
          Value s2 = threadReduce(tile, Combine::Add, [&](Value x) {
            Value d = sub(x, k);
            return mul(d, d);
          });
          return {add(carried[0], s1), add(carried[1], s2)};
        });
    if (failed(sums))
      return failure();
    Value meanD = arith::DivFOp::create(
        b, loc, reducer.reduce((*sums)[0], Combine::Add, 0), lengthF);
    Value meanSquareD = arith::DivFOp::create(
        b, loc, reducer.reduce((*sums)[1], Combine::Add, 1), lengthF);
    Value var = arith::MaximumFOp::create(
        b, loc, sub(meanSquareD, mul(meanD, meanD)), f32Const(b, loc, 0.0));
    return std::make_pair(add(k, meanD), var);
  };
  // The row's mean of x^2.
  auto meanOfSquares = [&]() -> FailureOr<Value> {
    auto square = [&](Value x) { return mul(x, x); };
    Value sumSquares;
    if (!shape->looping()) {
      sumSquares = rowReduce(Combine::Add, 0, square);
    } else {
      FailureOr<SmallVector<Value>> sums = statisticsPass(
          {f32Const(b, loc, 0.0)},
          [&](ArrayRef<Chunk> tile, ValueRange carried) -> SmallVector<Value> {
            return {add(carried[0], threadReduce(tile, Combine::Add, square))};
          });
      if (failed(sums))
        return failure();
      sumSquares = reducer.reduce((*sums)[0], Combine::Add, 0);
    }
    return Value(arith::DivFOp::create(b, loc, sumSquares, lengthF));
  };
  // Per-row results of the row op (tfuse.norm_grad's mean and rstd) and
  // their values, stored once per row by thread 0.
  SmallVector<std::pair<Value, Value>> perRowResults;

  if (isLoss) {
    // The row's label, clamped into the row as the reference clamps it, and
    // whether the row is ignored.
    auto forward = dyn_cast<CrossEntropyOp>(rowOp);
    int64_t ignoreIndex =
        forward ? forward.getIgnoreIndex()
                : cast<CrossEntropyGradOp>(rowOp).getIgnoreIndex();
    Value label = loadPerRow(rowOp->getOperand(1));
    if (!label.getType().isInteger(64))
      label = arith::ExtSIOp::create(b, loc, b.getI64Type(), label);
    auto i64Const = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
    };
    Value ignored = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          label, i64Const(ignoreIndex));
    Value clamped = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, label, i64Const(0)),
        i64Const(length - 1));
    Value labelColumn =
        arith::IndexCastOp::create(b, loc, b.getIndexType(), clamped);
    auto isLabel = [&, labelColumn](const Chunk &chunk, int64_t lane) -> Value {
      Value column =
          arith::AddIOp::create(b, loc, chunk.column, indexConst(b, loc, lane));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, column,
                                   labelColumn);
    };
    // The forward also sums the label's logit (one lane of the row has it).
    auto statistics = [&](ArrayRef<Chunk> tile,
                          ValueRange carried) -> SmallVector<Value> {
      SmallVector<Value> next = onlineSoftmax(tile, carried);
      if (!forward)
        return next;
      Value picked = carried[2];
      for (const Chunk &chunk : tile)
        for (auto [lane, x] :
             llvm::enumerate(chunk.lanes.lookup(rowOp->getOperand(0)))) {
          Value take = isLabel(chunk, lane);
          if (ragged)
            take = arith::AndIOp::create(b, loc, take, chunk.valid);
          picked = add(picked, arith::SelectOp::create(b, loc, take, x,
                                                       f32Const(b, loc, 0.0)));
        }
      next.push_back(picked);
      return next;
    };
    SmallVector<Value> init = {negInf, f32Const(b, loc, 0.0)};
    if (forward)
      init.push_back(f32Const(b, loc, 0.0));
    FailureOr<SmallVector<Value>> carried = threadPartials(init, statistics);
    if (failed(carried))
      return failure();
    SmallVector<Value> partials = std::move(*carried);
    std::pair<Value, Value> totals = softmaxTotals(partials[0], partials[1]);
    Value max = totals.first, sum = totals.second;
    Value zero = f32Const(b, loc, 0.0);
    if (!forward) {
      Value inverse = arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0), sum);
      Value scale = arith::SelectOp::create(b, loc, ignored, zero,
                                            loadPerRow(rowOp->getOperand(2)));
      finish = [&, max, inverse, scale, ignored, zero,
                isLabel](Value x, Chunk &chunk, int64_t lane) -> Value {
        Value p = mul(exp(sub(x, max)), inverse);
        Value oneHot = arith::SelectOp::create(b, loc, isLabel(chunk, lane),
                                               f32Const(b, loc, 1.0), zero);
        return arith::SelectOp::create(b, loc, ignored, zero,
                                       mul(sub(p, oneHot), scale));
      };
    } else {
      // Slot 0 again: every warp read the max's partials before the sum's
      // barrier.
      Value picked = reducer.reduce(partials[2], Combine::Add, 0);
      Value lse = add(math::LogOp::create(b, loc, sum), max);
      Value loss =
          arith::SelectOp::create(b, loc, ignored, zero, sub(lse, picked));
      Value counted =
          arith::SelectOp::create(b, loc, ignored, zero, f32Const(b, loc, 1.0));
      if (!epilogue.empty())
        return rowOp->emitOpError()
               << "row kernels support no epilogue after tfuse.cross_entropy";
      SmallVector<std::pair<Value, Value>> stores;
      for (auto [value, memref] :
           llvm::zip(fusion.getYield().getValues(), outputs))
        stores.push_back({value == forward.getLoss() ? loss : counted, memref});
      storeRowValues(stores);
      gpu::ReturnOp::create(b, loc);
      return rowLaunch();
    }
  } else if (isa<SoftmaxOp>(rowOp) && !shape->looping()) {
    Value max = rowReduce(Combine::Max, 0, identity);
    // exp(x - max) per element, kept under the row op's result until the
    // sum is known.
    Value exps = rowOp->getResult(0);
    for (Chunk &chunk : row_) {
      SmallVector<Value> es;
      for (Value x : chunk.lanes.lookup(rowOp->getOperand(0)))
        es.push_back(exp(sub(x, max)));
      chunk.lanes[exps] = es;
    }
    Value sum = rowReduce(Combine::Add, 1, identity, exps);
    Value inverse = arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0), sum);
    for (Chunk &chunk : row_)
      for (Value &e : chunk.lanes[exps])
        e = mul(e, inverse);
  } else if (isa<SoftmaxOp>(rowOp)) {
    FailureOr<SmallVector<Value>> stats =
        statisticsPass({negInf, f32Const(b, loc, 0.0)}, onlineSoftmax);
    if (failed(stats))
      return failure();
    std::pair<Value, Value> totals = softmaxTotals((*stats)[0], (*stats)[1]);
    Value max = totals.first, sum = totals.second;
    Value inverse = arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0), sum);
    finish = [&, max, inverse](Value x, Chunk &, int64_t) -> Value {
      return mul(exp(sub(x, max)), inverse);
    };
  } else if (auto norm = dyn_cast<LayerNormOp>(rowOp)) {
    FailureOr<std::pair<Value, Value>> stats = meanAndVariance();
    if (failed(stats))
      return failure();
    auto [mean, var] = *stats;
    Value rstd = math::RsqrtOp::create(
        b, loc,
        add(var, f32Const(b, loc, norm.getEpsilon().convertToDouble())));
    Value gammas = norm.getGamma(), betas = norm.getBeta();
    finish = [&, gammas, betas, mean, rstd](Value x, Chunk &chunk,
                                            int64_t lane) -> Value {
      Value y = mul(sub(x, mean), rstd);
      if (Value gamma = column(gammas, chunk, lane))
        y = mul(y, gamma);
      if (Value beta = column(betas, chunk, lane))
        y = add(y, beta);
      return y;
    };
  } else if (auto norm = dyn_cast<RmsNormOp>(rowOp)) {
    FailureOr<Value> meanSquare = meanOfSquares();
    if (failed(meanSquare))
      return failure();
    Value rms = math::RsqrtOp::create(
        b, loc,
        add(*meanSquare,
            f32Const(b, loc, norm.getEpsilon().convertToDouble())));
    Value gammas = norm.getGamma();
    finish = [&, gammas, rms](Value x, Chunk &chunk, int64_t lane) -> Value {
      Value y = mul(x, rms);
      if (Value gamma = column(gammas, chunk, lane))
        y = mul(y, gamma);
      return y;
    };
  } else if (auto grad = dyn_cast<NormGradOp>(rowOp)) {
    // The statistics as the forward computed them, then the row sums of
    // g = dy gamma and g xhat, then dx per element.
    bool rms = grad.getRms();
    Value mean = f32Const(b, loc, 0.0), var;
    if (rms) {
      FailureOr<Value> meanSquare = meanOfSquares();
      if (failed(meanSquare))
        return failure();
      var = *meanSquare;
    } else {
      FailureOr<std::pair<Value, Value>> stats = meanAndVariance();
      if (failed(stats))
        return failure();
      std::tie(mean, var) = *stats;
    }
    Value rstd = math::RsqrtOp::create(
        b, loc,
        add(var, f32Const(b, loc, grad.getEpsilon().convertToDouble())));
    Value dys = grad.getOutputGrad(), gammas = grad.getGamma();
    auto scaledGrad = [&, dys, gammas](const Chunk &chunk,
                                       int64_t lane) -> Value {
      Value g = chunk.lanes.lookup(dys)[lane];
      return gammas ? mul(g, chunk.lanes.lookup(gammas)[lane]) : g;
    };
    auto normalized = [&, rms, mean, rstd](Value x) -> Value {
      return mul(rms ? x : sub(x, mean), rstd);
    };
    auto sums = [&](ArrayRef<Chunk> tile,
                    ValueRange carried) -> SmallVector<Value> {
      Value sumG = carried[0], sumGXhat = carried[1];
      Value zero = f32Const(b, loc, 0.0);
      for (const Chunk &chunk : tile)
        for (auto [lane, x] :
             llvm::enumerate(chunk.lanes.lookup(rowOp->getOperand(0)))) {
          Value g = scaledGrad(chunk, lane);
          Value gXhat = mul(g, normalized(x));
          if (ragged) {
            g = arith::SelectOp::create(b, loc, chunk.valid, g, zero);
            gXhat = arith::SelectOp::create(b, loc, chunk.valid, gXhat, zero);
          }
          if (!rms)
            sumG = add(sumG, g);
          sumGXhat = add(sumGXhat, gXhat);
        }
      return {sumG, sumGXhat};
    };
    SmallVector<Value> init = {f32Const(b, loc, 0.0), f32Const(b, loc, 0.0)};
    FailureOr<SmallVector<Value>> carried = threadPartials(init, sums);
    if (failed(carried))
      return failure();
    SmallVector<Value> partials = std::move(*carried);
    // Slots 0 and 1 again: the statistics' reads came before these
    // reductions' barriers.
    Value meanG =
        rms ? Value()
            : arith::DivFOp::create(
                  b, loc, reducer.reduce(partials[0], Combine::Add, 0),
                  lengthF);
    Value meanGXhat = arith::DivFOp::create(
        b, loc, reducer.reduce(partials[1], Combine::Add, 1), lengthF);
    finish = [&, meanG, meanGXhat, rstd, scaledGrad,
              normalized](Value x, Chunk &chunk, int64_t lane) -> Value {
      Value d = sub(scaledGrad(chunk, lane), mul(normalized(x), meanGXhat));
      if (meanG)
        d = sub(d, meanG);
      return mul(rstd, d);
    };
    perRowResults = {{grad.getMean(), mean}, {grad.getRstd(), rstd}};
  } else {
    auto reduce = cast<ReduceOp>(rowOp);
    bool isMax = reduce.getKind() == ReduceKind::max;
    Combine combine = isMax ? Combine::Max : Combine::Add;
    Value partial;
    if (!shape->looping()) {
      partial = threadReduce(row_, combine, identity);
    } else {
      FailureOr<SmallVector<Value>> carried = statisticsPass(
          {reducer.neutral(combine)},
          [&](ArrayRef<Chunk> tile, ValueRange carried) -> SmallVector<Value> {
            return {reducer.apply(combine, carried[0],
                                  threadReduce(tile, combine, identity))};
          });
      if (failed(carried))
        return failure();
      partial = (*carried)[0];
    }
    Value total = columns ? columnReduce(b, loc, reducer, partial, combine,
                                         smem, lane, thread, shape->threads)
                          : reducer.reduce(partial, combine, 0);
    if (reduce.getKind() == ReduceKind::mean)
      total = arith::DivFOp::create(b, loc, total, lengthF);
    // One value per row: thread 0 writes it (a reduce ends its region).
    if (!epilogue.empty() || fusion.getNumResults() != 1 ||
        fusion.getYield().getValues()[0] != reduce.getResult())
      return rowOp->emitOpError()
             << "row kernels support no epilogue after tfuse.reduce";
    storeRowValues({{total, outputs.front()}});
    gpu::ReturnOp::create(b, loc);
    if (columns)
      return EmittedKernel{
          name.str(),
          "row_reduction",
          {(rows + kColumnReduceLanes - 1) / kColumnReduceLanes, 1, 1},
          {kColumnReduceLanes, threads, 1},
          smemFloats * 4};
    return rowLaunch();
  }

  auto isPerRowResult = [&](Value value) {
    return llvm::any_of(perRowResults,
                        [&](auto &entry) { return entry.first == value; });
  };
  // The row op's results of `tile` (rounded to its element type, as
  // stored), the epilogue on them, and the stores.
  auto finishTile = [&](MutableArrayRef<Chunk> tile) -> LogicalResult {
    if (finish)
      for (Chunk &chunk : tile) {
        SmallVector<Value> ys;
        for (auto [lane, x] :
             llvm::enumerate(chunk.lanes.lookup(rowOp->getOperand(0))))
          ys.push_back(finish(x, chunk, lane));
        chunk.lanes[rowOp->getResult(0)] = ys;
      }
    for (Chunk &chunk : tile) {
      for (Value &lane : chunk.lanes[rowOp->getResult(0)])
        lane = roundToElementType(b, loc, lane, rowOp->getResult(0));
      for (auto [result, value] : perRowResults)
        chunk.lanes[result] = SmallVector<Value>(width, value);
    }
    for (Chunk &chunk : tile) {
      if (failed(evaluateLanes(b, emitter, epilogue, chunk.lanes, chunk.base,
                               chunk.coords, rowShape, width)))
        return failure();
      // Ragged chunks store only when in the row.
      OpBuilder::InsertionGuard guard(b);
      if (Value stores = storesRow(ragged ? chunk.valid : Value())) {
        auto store = scf::IfOp::create(b, loc, stores, false);
        b.setInsertionPointToStart(&store.getThenRegion().front());
      }
      for (auto [value, memref] :
           llvm::zip(fusion.getYield().getValues(), outputs)) {
        if (isPerRowResult(value))
          continue;
        auto type = cast<RankedTensorType>(value.getType());
        if (type.getShape() != rowShape)
          return fusion.emitOpError()
                 << "row kernels store results of the row's shape only";
        storeLanes(b, loc, chunk.lanes.lookup(value), memref, chunk.base);
      }
    }
    return success();
  };
  if (!shape->looping()) {
    if (failed(finishTile(row_)))
      return failure();
  } else {
    // The second pass reads the row again (recomputing the prologue).
    FailureOr<SmallVector<Value>> written = forEachTile(
        {}, [&](Value start, ValueRange) -> FailureOr<SmallVector<Value>> {
          FailureOr<SmallVector<Chunk>> tile = loadTile(start);
          if (failed(tile) || failed(finishTile(*tile)))
            return failure();
          return SmallVector<Value>();
        });
    if (failed(written))
      return failure();
  }
  if (!perRowResults.empty()) {
    SmallVector<std::pair<Value, Value>> stores;
    for (auto [value, memref] :
         llvm::zip(fusion.getYield().getValues(), outputs))
      for (auto [result, rowValue] : perRowResults)
        if (value == result)
          stores.push_back({rowValue, memref});
    storeRowValues(stores);
  }
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
  return rowLaunch();
}
