//===- AttentionGradKernel.cpp - the flash-attention backward ---*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's backward (Dao 2023) for one tfuse.attention_grad as two
// kernels that never write the scores and need no atomics:
//   the query kernel (piece 0): a block takes 16 query rows a warp and walks
//     the keys; it recomputes S = Q K^T and P = exp(S - lse), dP = dO V^T,
//     dS = P (dP - delta) and accumulates dQ = scale dS K in registers;
//   the key kernel (piece 1): a block takes 16 keys a warp of one key/value
//     head and walks the query rows of every query head that reads it; it
//     recomputes S^T = K Q^T and P^T, accumulates dV = P^T dO, computes
//     dP^T = V dO^T and dS^T, and accumulates dK = scale dS^T Q.
// Every product is an mma.sync m16n8k16 with f32 accumulation (the
// probabilities and dS rounded to the element type as its A operand, as
// FlashAttention-2 does); the streamed tiles are staged in shared memory
// with cp.async and read with ldmatrix (AttentionSupport.h). The C fragments
// of two neighbouring 8-column tiles are the A fragment of those 16 columns,
// so P and dS feed the next products without leaving registers. Rows and
// keys past the sequence ends are read clamped to the last one and their
// probabilities set to 0; results past the ends are not stored.
//
//===----------------------------------------------------------------------===//

#include "AttentionSupport.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

namespace {

/// What both kernels of one op share: shapes, the kernel's buffers and the
/// lane's coordinates.
struct GradKernelContext {
  explicit GradKernelContext(AttentionGradOp op)
      : op(op), loc(op.getLoc()),
        element(op.getQuery().getType().getElementType()),
        dropout(op.getDropoutP(), op.getSeed().value_or(0),
                op.getQuery().getType().getShape()[2],
                op.getKey().getType().getShape()[2]) {
    ArrayRef<int64_t> q = op.getQuery().getType().getShape();
    ArrayRef<int64_t> k = op.getKey().getType().getShape();
    ArrayRef<int64_t> v = op.getValue().getType().getShape();
    batch = q[0];
    heads = q[1];
    kvHeads = k[1];
    group = heads / kvHeads;
    querySeq = q[2];
    keySeq = k[2];
    headDim = q[3];
    valueDim = v[3];
    elementBytes = element.getIntOrFloatBitWidth() / 8;
    shape = getAttentionGradKernelShape(headDim, valueDim, elementBytes);
    log2Scale = op.getScale().convertToDouble() * kLog2E;

    if (op.getMask())
      maskStrides = getMaskStrides(
          cast<RankedTensorType>(op.getMask().getType()).getShape());
    // Q, K, V and dO are read, and dQ, dK and dV written, in their head
    // layouts: a token-major buffer when the transpose is absorbed.
    queryLayout = getAttentionOperandLayout(op.getQuery());
    keyLayout = getAttentionOperandLayout(op.getKey());
    valueLayout = getAttentionOperandLayout(op.getValue());
    outGradLayout = getAttentionOperandLayout(op.getOutGrad());
    queryGradLayout = getAttentionResultLayout(op.getQueryGrad());
    keyGradLayout = getAttentionResultLayout(op.getKeyGrad());
    valueGradLayout = getAttentionResultLayout(op.getValueGrad());
  }

  /// The kernel's arguments: every operand, then the results it writes.
  gpu::GPUFuncOp createFunc(OpBuilder &b, gpu::GPUModuleOp module,
                            StringRef name, ValueRange outputs) {
    SmallVector<RankedTensorType> buffers;
    for (Value operand : op->getOperands())
      buffers.push_back(cast<RankedTensorType>(
          getAttentionOperandLayout(operand).buffer.getType()));
    for (Value output : outputs)
      buffers.push_back(cast<RankedTensorType>(
          getAttentionResultLayout(output).buffer.getType()));
    gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers);
    func->setAttr(
        NVVM::NVVMDialect::getMaxntidAttrName(),
        b.getDenseI32ArrayAttr({static_cast<int32_t>(shape.threads()), 1, 1}));
    Block &entry = func.getBody().front();
    query = entry.getArgument(0);
    key = entry.getArgument(1);
    value = entry.getArgument(2);
    outGrad = entry.getArgument(3);
    lse = entry.getArgument(4);
    delta = entry.getArgument(5);
    mask = op.getMask() ? entry.getArgument(6) : Value();
    firstOutput = op->getNumOperands();
    return func;
  }

  /// Stages rows [first, first + rows) (clamped to `seq` rows) of head
  /// (batch, head) of `global`, in `layout`, into `shared` (row stride
  /// `stride`) as one cp.async group.
  void stageHead(OpBuilder &b, Value global, const HeadLayout &layout,
                 Value batch, Value head, Value first, int64_t seq,
                 int64_t rows, int64_t dim, Value shared, int64_t stride) {
    Value base = headBase(b, loc, layout, batch, head);
    stageRows(b, loc, tid, shape.threads(), global, base, first, seq - 1, rows,
              dim, layout.strides[2], shared, stride);
  }

  /// The lane's coordinates (tid, warp, g = lane / 4, 2t) and the element
  /// offsets it gives ldmatrix in a tile of row stride `stride`: `bLane`
  /// for B fragments of a [n, k] block (row lane % 8 of the 8x8 tiles
  /// {n, k}, {n, k + 8}, {n + 8, k}, {n + 8, k + 8}), `aLane` for A
  /// fragments of an [m, k] block and for transposed B fragments of a
  /// [k, n] block (tiles {0, 0}, {8, 0}, {0, 8}, {8, 8}).
  void setLane(AttentionEmitter &e, OpBuilder &b) {
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    warp = arith::DivUIOp::create(b, loc, tid, e.idx(32));
    Value lane = arith::RemUIOp::create(b, loc, tid, e.idx(32));
    g = arith::DivUIOp::create(b, loc, lane, e.idx(4));
    t = arith::RemUIOp::create(b, loc, lane, e.idx(4));
    t2 = e.mul(t, 2);
    Value tileOfLane = arith::DivUIOp::create(b, loc, lane, e.idx(8));
    rowOfLane = arith::RemUIOp::create(b, loc, lane, e.idx(8));
    tileHigh = arith::DivUIOp::create(b, loc, tileOfLane, e.idx(2));
    tileLow = arith::RemUIOp::create(b, loc, tileOfLane, e.idx(2));
  }
  Value bLane(AttentionEmitter &e, int64_t stride) {
    return e.add(e.mul(e.add(e.mul(tileHigh, 8), rowOfLane), stride),
                 e.mul(tileLow, 8));
  }
  Value aLane(AttentionEmitter &e, int64_t stride) {
    return e.add(e.mul(e.add(e.mul(tileLow, 8), rowOfLane), stride),
                 e.mul(tileHigh, 8));
  }

  /// The mask's element for (pair (batch, head), row, key), as f32 in log2
  /// units; row and key are clamped into the sequences.
  Value maskBias(AttentionEmitter &e, OpBuilder &b, Value batchIndex,
                 Value head, Value row, Value col) {
    Value r = arith::MinUIOp::create(b, loc, row, e.idx(querySeq - 1));
    Value c = arith::MinUIOp::create(b, loc, col, e.idx(keySeq - 1));
    Value index = e.add(
        e.add(e.mul(batchIndex, maskStrides[0]), e.mul(head, maskStrides[1])),
        e.add(e.mul(r, maskStrides[2]), e.mul(c, maskStrides[3])));
    Value bias = memref::LoadOp::create(b, loc, mask, ValueRange{index});
    bias = arith::ExtFOp::create(b, loc, e.f32, bias);
    return e.fmul(bias, f32Const(b, loc, kLog2E));
  }

  /// p = exp(scale s + mask - lse) from the raw score s and lse in log2
  /// units (`lse2`); `bias` is the mask's term (null without a mask).
  Value probability(AttentionEmitter &e, OpBuilder &b, Value score, Value bias,
                    Value lse2) {
    Value c = f32Const(b, loc, log2Scale);
    Value negLse = arith::NegFOp::create(b, loc, lse2);
    Value exponent;
    if (!bias)
      exponent = math::FmaOp::create(b, loc, score, c, negLse);
    else
      exponent = arith::AddFOp::create(
          b, loc, math::FmaOp::create(b, loc, score, c, bias), negLse);
    return math::Exp2Op::create(b, loc, exponent);
  }

  AttentionGradOp op;
  Location loc;
  Type element;
  /// The forward's dropout, regenerated.
  AttentionDropout dropout;
  int64_t batch, heads, kvHeads, group, querySeq, keySeq, headDim, valueDim;
  int64_t elementBytes;
  AttentionGradKernelShape shape;
  double log2Scale;
  SmallVector<int64_t> maskStrides;
  HeadLayout queryLayout, keyLayout, valueLayout, outGradLayout;
  HeadLayout queryGradLayout, keyGradLayout, valueGradLayout;
  Value query, key, value, outGrad, lse, delta, mask;
  unsigned firstOutput = 0;
  Value tid, warp, g, t, t2, rowOfLane, tileHigh, tileLow;
};

/// Rounds pairs of f32 fragments to A operands: the C fragments of 8-column
/// tiles 2kk and 2kk + 1 give the A fragment of 16 columns.
SmallVector<std::array<Value, 4>> toOperands(AttentionEmitter &e,
                                             ArrayRef<Fragment> tiles) {
  SmallVector<std::array<Value, 4>> operands;
  for (size_t kk = 0; kk + 1 < tiles.size(); kk += 2) {
    const Fragment &lo = tiles[kk], &hi = tiles[kk + 1];
    operands.push_back({e.packF32(lo[0], lo[1]), e.packF32(lo[2], lo[3]),
                        e.packF32(hi[0], hi[1]), e.packF32(hi[2], hi[3])});
  }
  return operands;
}

/// Selects 0 for every element of `tiles` where `valid(tile, i)` is false,
/// only when `needed` holds at run time (the other tiles skip the
/// compares).
void zeroInvalid(AttentionEmitter &e, OpBuilder &b, Location loc,
                 SmallVector<Fragment> &tiles, Value needed,
                 function_ref<Value(int64_t, int64_t)> valid) {
  SmallVector<Value> flat;
  for (const Fragment &fragment : tiles)
    flat.append(fragment.begin(), fragment.end());
  auto masked = scf::IfOp::create(b, loc, TypeRange(ValueRange(flat)), needed,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&masked.getThenRegion().front());
    Value zero = f32Const(b, loc, 0.0);
    SmallVector<Value> selected;
    for (auto [n, fragment] : llvm::enumerate(tiles))
      for (int64_t i = 0; i < 4; ++i)
        selected.push_back(
            arith::SelectOp::create(b, loc, valid(n, i), fragment[i], zero));
    scf::YieldOp::create(b, loc, selected);
    b.setInsertionPointToStart(&masked.getElseRegion().front());
    scf::YieldOp::create(b, loc, flat);
  }
  int64_t k = 0;
  for (Fragment &fragment : tiles)
    for (Value &x : fragment)
      x = masked.getResult(k++);
}

/// Stores `acc` (per 8 columns one fragment, rows g and g + 8 of the warp's
/// 16) times `factor` at rows `rows` of the (batch, head) pair at `headStart`
/// of `out` in `layout`, the rows before `limit` only.
void storeRows(AttentionEmitter &e, OpBuilder &b, Location loc,
               ArrayRef<Fragment> acc, double factor, ArrayRef<Value> rows,
               const HeadLayout &layout, Value headStart, int64_t limit,
               Value t2, Value out) {
  Value scale = f32Const(b, loc, factor);
  for (int64_t r = 0; r < 2; ++r) {
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         rows[r], e.idx(limit));
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insideGuard(b);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    Value base = rowStart(b, loc, layout, headStart, rows[r]);
    for (auto [n, fragment] : llvm::enumerate(acc)) {
      Value pair = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, e.f32),
          ValueRange{e.fmul(fragment[2 * r], scale),
                     e.fmul(fragment[2 * r + 1], scale)});
      Value rounded = arith::TruncFOp::create(
          b, loc, VectorType::get({2}, e.element), pair);
      vector::StoreOp::create(b, loc, rounded, out,
                              ValueRange{e.add(base, e.add(t2, n * 8))})
          .setAlignment(4);
    }
  }
}

/// Fragments as the flat iter_args of a loop, and back.
SmallVector<Value> flatten(ArrayRef<SmallVector<Fragment>> groups) {
  SmallVector<Value> flat;
  for (const SmallVector<Fragment> &fragments : groups)
    for (const Fragment &fragment : fragments)
      flat.append(fragment.begin(), fragment.end());
  return flat;
}
SmallVector<Fragment> unflatten(ValueRange flat, int64_t first, int64_t count) {
  SmallVector<Fragment> fragments(count);
  for (int64_t n = 0; n < count; ++n)
    for (int64_t i = 0; i < 4; ++i)
      fragments[n][i] = flat[first + 4 * n + i];
  return fragments;
}

/// The query kernel: dQ.
FailureOr<EmittedKernel> emitQueryKernel(gpu::GPUModuleOp module,
                                         AttentionGradOp op, StringRef name) {
  OpBuilder b(module.getContext());
  GradKernelContext c(op);
  AttentionEmitter e(b, c.loc, c.element);
  Location loc = c.loc;
  const int64_t kTile = c.shape.keyTile, rowsPerBlock = c.shape.rowsPerBlock();
  const int64_t threads = c.shape.threads();
  const int64_t keyStride = c.headDim + 8, valueStride = c.valueDim + 8;
  gpu::GPUFuncOp func = c.createFunc(b, module, name, op.getQueryGrad());
  SharedTiles shared(b, loc);
  Value keyTile = shared.take(b, kTile * keyStride, c.element);
  Value valueTile = shared.take(b, kTile * valueStride, c.element);
  Value dq = func.getBody().front().getArgument(c.firstOutput);
  c.setLane(e, b);

  int64_t queryTiles = llvm::divideCeil(c.querySeq, rowsPerBlock);
  // The last query tiles first: with causal masking they walk the most keys.
  Value queryTile =
      arith::SubIOp::create(b, loc, e.idx(queryTiles - 1),
                            gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value pair = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value batchIndex = arith::DivUIOp::create(b, loc, pair, e.idx(c.heads));
  Value head = arith::RemUIOp::create(b, loc, pair, e.idx(c.heads));
  Value kvHead = arith::DivUIOp::create(b, loc, head, e.idx(c.group));
  Value keyBase = headBase(b, loc, c.keyLayout, batchIndex, kvHead);
  Value valueBase = headBase(b, loc, c.valueLayout, batchIndex, kvHead);
  Value warpRow = e.add(e.mul(queryTile, rowsPerBlock), e.mul(c.warp, 16));
  SmallVector<Value> rows, clamped;
  for (int64_t r = 0; r < 2; ++r) {
    rows.push_back(e.add(warpRow, e.add(c.g, r * 8)));
    clamped.push_back(
        arith::MinUIOp::create(b, loc, rows.back(), e.idx(c.querySeq - 1)));
  }
  // The row statistics are [B, H, Sq] as stored.
  Value rowBase = e.mul(pair, c.querySeq);
  // This thread's rows' A fragments of Q and dO, and their statistics.
  auto rowFragments = [&](Value memref, const HeadLayout &layout, int64_t dim) {
    SmallVector<std::array<Value, 4>> fragments;
    Value start = headBase(b, loc, layout, batchIndex, head);
    Value r0 = rowStart(b, loc, layout, start, clamped[0]);
    Value r1 = rowStart(b, loc, layout, start, clamped[1]);
    for (int64_t kk = 0; kk < dim / 16; ++kk) {
      Value col = e.add(c.t2, kk * 16), col8 = e.add(col, 8);
      fragments.push_back({e.loadPair(memref, e.add(r0, col)),
                           e.loadPair(memref, e.add(r1, col)),
                           e.loadPair(memref, e.add(r0, col8)),
                           e.loadPair(memref, e.add(r1, col8))});
    }
    return fragments;
  };
  SmallVector<std::array<Value, 4>> queryFragments =
      rowFragments(c.query, c.queryLayout, c.headDim);
  SmallVector<std::array<Value, 4>> outGradFragments =
      rowFragments(c.outGrad, c.outGradLayout, c.valueDim);
  SmallVector<Value> lse2, delta;
  for (int64_t r = 0; r < 2; ++r) {
    Value index = e.add(rowBase, clamped[r]);
    lse2.push_back(
        e.fmul(memref::LoadOp::create(b, loc, c.lse, ValueRange{index}),
               f32Const(b, loc, kLog2E)));
    delta.push_back(memref::LoadOp::create(b, loc, c.delta, ValueRange{index}));
  }

  int64_t keyTiles = llvm::divideCeil(c.keySeq, kTile);
  Value end = e.idx(keyTiles);
  if (op.getCausal())
    end = arith::MinUIOp::create(
        b, loc, end, e.mul(e.add(queryTile, 1), rowsPerBlock / kTile));
  Value zero = f32Const(b, loc, 0.0);
  const int64_t dqTiles = c.headDim / 8;
  SmallVector<Value> init(dqTiles * 4, zero);
  Value keyB = c.bLane(e, keyStride), valueB = c.bLane(e, valueStride);
  Value keyA = c.aLane(e, keyStride);

  auto loop = scf::ForOp::create(b, loc, e.idx(0), end, e.idx(1), init);
  b.setInsertionPointToStart(loop.getBody());
  Value tile = loop.getInductionVar();
  Value firstKey = e.mul(tile, kTile);
  stageRows(b, loc, c.tid, threads, c.key, keyBase, firstKey, c.keySeq - 1,
            kTile, c.headDim, c.keyLayout.strides[2], keyTile, keyStride);
  stageRows(b, loc, c.tid, threads, c.value, valueBase, firstKey, c.keySeq - 1,
            kTile, c.valueDim, c.valueLayout.strides[2], valueTile,
            valueStride);
  waitForStagedRows(b, loc);

  // S = Q K^T and dP = dO V^T over the tile's keys.
  auto product = [&](ArrayRef<std::array<Value, 4>> rowsA, Value tileMemref,
                     Value lane, int64_t stride, int64_t dim) {
    SmallVector<Fragment> acc(kTile / 8, Fragment{zero, zero, zero, zero});
    for (int64_t n = 0; n < kTile / 8; n += 2)
      for (int64_t kk = 0; kk < dim / 16; ++kk) {
        std::array<Value, 4> cols = e.loadMatrices(
            tileMemref, e.add(lane, n * 8 * stride + kk * 16), false);
        acc[n] = e.mma(rowsA[kk], {cols[0], cols[1]}, acc[n]);
        acc[n + 1] = e.mma(rowsA[kk], {cols[2], cols[3]}, acc[n + 1]);
      }
    return acc;
  };
  SmallVector<Fragment> p =
      product(queryFragments, keyTile, keyB, keyStride, c.headDim);
  for (auto [n, fragment] : llvm::enumerate(p))
    for (int64_t i = 0; i < 4; ++i) {
      Value bias;
      if (c.mask)
        bias = c.maskBias(e, b, batchIndex, head, rows[i / 2],
                          e.add(firstKey, e.add(c.t2, n * 8 + i % 2)));
      fragment[i] = c.probability(e, b, fragment[i], bias, lse2[i / 2]);
    }
  // Keys past the end, and with causal keys after the row, have p = 0.
  const bool ragged = c.keySeq % kTile != 0;
  if (ragged || op.getCausal()) {
    Value needed = arith::ConstantIntOp::create(b, loc, 0, 1);
    if (ragged)
      needed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tile,
                                     e.idx(keyTiles - 1));
    if (op.getCausal())
      needed = arith::OrIOp::create(
          b, loc, needed,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                e.add(firstKey, kTile - 1), warpRow));
    zeroInvalid(e, b, loc, p, needed, [&](int64_t n, int64_t i) -> Value {
      Value col = e.add(firstKey, e.add(c.t2, n * 8 + i % 2));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          col, e.idx(c.keySeq));
      if (op.getCausal())
        valid = arith::AndIOp::create(
            b, loc, valid,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, col,
                                  rows[i / 2]));
      return valid;
    });
  }
  SmallVector<Fragment> ds =
      product(outGradFragments, valueTile, valueB, valueStride, c.valueDim);
  // With dropout dP is the kept one: dP_ij keep_ij / (1 - p) or 0.
  if (c.dropout.active())
    for (auto [n, fragment] : llvm::enumerate(ds)) {
      std::array<Value, 4> words = c.dropout.fragmentWords(
          b, loc, pair, rows[0], rows[1], e.add(firstKey, e.add(c.t2, n * 8)));
      for (int64_t i = 0; i < 4; ++i)
        fragment[i] = c.dropout.apply(b, loc, fragment[i], words[i]);
    }
  for (auto [n, fragment] : llvm::enumerate(ds))
    for (int64_t i = 0; i < 4; ++i)
      fragment[i] = e.fmul(
          p[n][i], arith::SubFOp::create(b, loc, fragment[i], delta[i / 2]));

  // dQ += dS K: dS's A fragments; one transposing ldmatrix.x4 of the key
  // tile gives the B fragments of two 8-column blocks for 16 keys.
  SmallVector<std::array<Value, 4>> dsOperands = toOperands(e, ds);
  SmallVector<Fragment> acc = unflatten(loop.getRegionIterArgs(), 0, dqTiles);
  for (int64_t n = 0; n < dqTiles; n += 2)
    for (int64_t kk = 0; kk < kTile / 16; ++kk) {
      std::array<Value, 4> keys = e.loadMatrices(
          keyTile, e.add(keyA, kk * 16 * keyStride + n * 8), true);
      acc[n] = e.mma(dsOperands[kk], {keys[0], keys[1]}, acc[n]);
      acc[n + 1] = e.mma(dsOperands[kk], {keys[2], keys[3]}, acc[n + 1]);
    }
  // Every warp is done with the tiles before the next step overwrites them.
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, flatten({acc}));

  b.setInsertionPointAfter(loop);
  storeRows(e, b, loc, unflatten(loop.getResults(), 0, dqTiles),
            op.getScale().convertToDouble(), rows, c.queryGradLayout,
            headBase(b, loc, c.queryGradLayout, batchIndex, head), c.querySeq,
            c.t2, dq);
  gpu::ReturnOp::create(b, loc);

  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "attention_grad";
  launch.block = {threads, 1, 1};
  launch.grid = {queryTiles, c.batch * c.heads, 1};
  launch.sharedBytes = shared.bytes();
  return launch;
}

/// The key kernel: dK and dV.
FailureOr<EmittedKernel> emitKeyKernel(gpu::GPUModuleOp module,
                                       AttentionGradOp op, StringRef name) {
  OpBuilder b(module.getContext());
  GradKernelContext c(op);
  AttentionEmitter e(b, c.loc, c.element);
  Location loc = c.loc;
  const int64_t qTile = c.shape.queryTile,
                keysPerBlock = c.shape.rowsPerBlock();
  const int64_t threads = c.shape.threads();
  const int64_t keyStride = c.headDim + 8, valueStride = c.valueDim + 8;
  const int64_t queryStride = keyStride, outGradStride = valueStride;
  gpu::GPUFuncOp func = c.createFunc(
      b, module, name, ValueRange{op.getKeyGrad(), op.getValueGrad()});
  SharedTiles shared(b, loc);
  Value keyTile = shared.take(b, keysPerBlock * keyStride, c.element);
  Value valueTile = shared.take(b, keysPerBlock * valueStride, c.element);
  Value queryTileMem = shared.take(b, qTile * queryStride, c.element);
  Value outGradTile = shared.take(b, qTile * outGradStride, c.element);
  Value lseTile = shared.take(b, qTile, e.f32);
  Value deltaTile = shared.take(b, qTile, e.f32);
  Block &entry = func.getBody().front();
  Value dk = entry.getArgument(c.firstOutput);
  Value dv = entry.getArgument(c.firstOutput + 1);
  c.setLane(e, b);

  Value keyBlock = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value kvPair = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value batchIndex = arith::DivUIOp::create(b, loc, kvPair, e.idx(c.kvHeads));
  Value kvHead = arith::RemUIOp::create(b, loc, kvPair, e.idx(c.kvHeads));
  Value firstKey = e.mul(keyBlock, keysPerBlock);
  Value warpKey = e.add(firstKey, e.mul(c.warp, 16));
  SmallVector<Value> keys{e.add(warpKey, c.g), e.add(warpKey, e.add(c.g, 8))};
  c.stageHead(b, c.key, c.keyLayout, batchIndex, kvHead, firstKey, c.keySeq,
              keysPerBlock, c.headDim, keyTile, keyStride);
  c.stageHead(b, c.value, c.valueLayout, batchIndex, kvHead, firstKey, c.keySeq,
              keysPerBlock, c.valueDim, valueTile, valueStride);

  // The steps: every query tile of every query head of the group; with
  // causal masking the tiles before the block's first key see none of it.
  int64_t queryTiles = llvm::divideCeil(c.querySeq, qTile);
  Value firstTile = e.idx(0);
  if (op.getCausal())
    firstTile = arith::MinUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, firstKey, e.idx(qTile)),
        e.idx(queryTiles));
  Value tilesPerHead =
      arith::SubIOp::create(b, loc, e.idx(queryTiles), firstTile);
  Value steps = e.mul(tilesPerHead, c.group);
  Value zero = f32Const(b, loc, 0.0);
  const int64_t dkTiles = c.headDim / 8, dvTiles = c.valueDim / 8;
  SmallVector<Value> init((dkTiles + dvTiles) * 4, zero);
  Value queryB = c.bLane(e, queryStride), outGradB = c.bLane(e, outGradStride);
  Value queryA = c.aLane(e, queryStride), outGradA = c.aLane(e, outGradStride);
  Value keyA = e.add(c.aLane(e, keyStride), e.mul(c.warp, 16 * keyStride));
  Value valueA =
      e.add(c.aLane(e, valueStride), e.mul(c.warp, 16 * valueStride));

  auto loop = scf::ForOp::create(b, loc, e.idx(0), steps, e.idx(1), init);
  b.setInsertionPointToStart(loop.getBody());
  Value step = loop.getInductionVar();
  Value head = e.add(e.mul(kvHead, c.group),
                     arith::DivUIOp::create(b, loc, step, tilesPerHead));
  Value tile =
      e.add(firstTile, arith::RemUIOp::create(b, loc, step, tilesPerHead));
  Value firstRow = e.mul(tile, qTile);
  Value pair = e.add(e.mul(batchIndex, c.heads), head);
  // The row statistics are [B, H, Sq] as stored.
  Value rowBase = e.mul(pair, c.querySeq);
  c.stageHead(b, c.query, c.queryLayout, batchIndex, head, firstRow, c.querySeq,
              qTile, c.headDim, queryTileMem, queryStride);
  c.stageHead(b, c.outGrad, c.outGradLayout, batchIndex, head, firstRow,
              c.querySeq, qTile, c.valueDim, outGradTile, outGradStride);
  {
    // The rows' statistics, lse in log2 units.
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         c.tid, e.idx(qTile));
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value row = arith::MinUIOp::create(b, loc, e.add(firstRow, c.tid),
                                       e.idx(c.querySeq - 1));
    Value index = e.add(rowBase, row);
    Value lse = memref::LoadOp::create(b, loc, c.lse, ValueRange{index});
    memref::StoreOp::create(b, loc, e.fmul(lse, f32Const(b, loc, kLog2E)),
                            lseTile, ValueRange{c.tid});
    memref::StoreOp::create(
        b, loc, memref::LoadOp::create(b, loc, c.delta, ValueRange{index}),
        deltaTile, ValueRange{c.tid});
  }
  waitForStagedRows(b, loc);

  // S^T = K Q^T and dP^T = V dO^T: this warp's 16 keys (A fragments from
  // the staged key or value rows) against the tile's rows.
  auto product = [&](Value rowsMemref, Value rowsA, Value colsMemref,
                     Value colsB, int64_t stride, int64_t dim) {
    SmallVector<Fragment> acc(qTile / 8, Fragment{zero, zero, zero, zero});
    for (int64_t kk = 0; kk < dim / 16; ++kk) {
      std::array<Value, 4> a =
          e.loadMatrices(rowsMemref, e.add(rowsA, kk * 16), false);
      for (int64_t n = 0; n < qTile / 8; n += 2) {
        std::array<Value, 4> cols = e.loadMatrices(
            colsMemref, e.add(colsB, n * 8 * stride + kk * 16), false);
        acc[n] = e.mma(a, {cols[0], cols[1]}, acc[n]);
        acc[n + 1] = e.mma(a, {cols[2], cols[3]}, acc[n + 1]);
      }
    }
    return acc;
  };
  // The query row of element i of fragment n, as an index into the tile.
  auto rowInTile = [&](int64_t n, int64_t i) {
    return e.add(c.t2, n * 8 + i % 2);
  };
  SmallVector<Fragment> p =
      product(keyTile, keyA, queryTileMem, queryB, queryStride, c.headDim);
  // A fragment's two columns' statistics, read once for its four elements.
  auto columnValues = [&](Value tileMemref, int64_t n) {
    return std::array<Value, 2>{
        memref::LoadOp::create(b, loc, tileMemref, ValueRange{rowInTile(n, 0)}),
        memref::LoadOp::create(b, loc, tileMemref,
                               ValueRange{rowInTile(n, 1)})};
  };
  for (auto [n, fragment] : llvm::enumerate(p)) {
    std::array<Value, 2> lse2 = columnValues(lseTile, n);
    for (int64_t i = 0; i < 4; ++i) {
      Value bias;
      if (c.mask)
        bias = c.maskBias(e, b, batchIndex, head,
                          e.add(firstRow, rowInTile(n, i)), keys[i / 2]);
      fragment[i] = c.probability(e, b, fragment[i], bias, lse2[i % 2]);
    }
  }
  // Rows past the end, and with causal rows before the key, have p = 0.
  const bool ragged = c.querySeq % qTile != 0;
  if (ragged || op.getCausal()) {
    Value needed = arith::ConstantIntOp::create(b, loc, 0, 1);
    if (ragged)
      needed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tile,
                                     e.idx(queryTiles - 1));
    if (op.getCausal())
      needed = arith::OrIOp::create(
          b, loc, needed,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, firstRow,
                                e.add(warpKey, 15)));
    zeroInvalid(e, b, loc, p, needed, [&](int64_t n, int64_t i) -> Value {
      Value row = e.add(firstRow, rowInTile(n, i));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          row, e.idx(c.querySeq));
      if (op.getCausal())
        valid = arith::AndIOp::create(
            b, loc, valid,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                  keys[i / 2], row));
      return valid;
    });
  }
  ValueRange state = loop.getRegionIterArgs();
  SmallVector<Fragment> dkAcc = unflatten(state, 0, dkTiles);
  SmallVector<Fragment> dvAcc = unflatten(state, 4 * dkTiles, dvTiles);
  // acc += X^T-rows · (tile rows): X's A fragments (P^T or dS^T), the B
  // fragments of two 8-column blocks of 16 rows from one transposing
  // ldmatrix.x4 of the staged tile.
  auto accumulate = [&](SmallVector<Fragment> &acc,
                        ArrayRef<std::array<Value, 4>> operands,
                        Value tileMemref, Value lane, int64_t stride) {
    for (int64_t n = 0; n < static_cast<int64_t>(acc.size()); n += 2)
      for (int64_t kk = 0; kk < qTile / 16; ++kk) {
        std::array<Value, 4> cols = e.loadMatrices(
            tileMemref, e.add(lane, kk * 16 * stride + n * 8), true);
        acc[n] = e.mma(operands[kk], {cols[0], cols[1]}, acc[n]);
        acc[n + 1] = e.mma(operands[kk], {cols[2], cols[3]}, acc[n + 1]);
      }
  };
  // With dropout, dV takes the kept probabilities and dP^T the kept
  // gradient; one draw serves both. A thread's elements of one Philox call
  // are rows apart here: with Sk % 4 == 0 the four lanes holding a call's
  // keys share their calls (transposedFragmentWords), else each element
  // draws its own.
  SmallVector<Fragment> kept = p;
  SmallVector<SmallVector<Value>> words(p.size());
  if (c.dropout.active())
    for (auto [n, fragment] : llvm::enumerate(kept)) {
      std::array<Value, 2> queryRows = {e.add(firstRow, rowInTile(n, 0)),
                                        e.add(firstRow, rowInTile(n, 1))};
      if (c.dropout.sharedCalls()) {
        std::array<Value, 4> drawn = c.dropout.transposedFragmentWords(
            b, loc, pair, queryRows, {keys[0], keys[1]},
            arith::RemUIOp::create(b, loc, c.g, e.idx(4)));
        words[n].assign(drawn.begin(), drawn.end());
      } else {
        for (int64_t i = 0; i < 4; ++i)
          words[n].push_back(
              c.dropout.word(b, loc, pair, queryRows[i % 2], keys[i / 2]));
      }
      for (int64_t i = 0; i < 4; ++i)
        fragment[i] = c.dropout.apply(b, loc, fragment[i], words[n][i]);
    }
  accumulate(dvAcc, toOperands(e, kept), outGradTile, outGradA, outGradStride);
  SmallVector<Fragment> ds = product(valueTile, valueA, outGradTile, outGradB,
                                     outGradStride, c.valueDim);
  for (auto [n, fragment] : llvm::enumerate(ds)) {
    std::array<Value, 2> rowDelta = columnValues(deltaTile, n);
    for (int64_t i = 0; i < 4; ++i) {
      Value dp = fragment[i];
      if (c.dropout.active())
        dp = c.dropout.apply(b, loc, dp, words[n][i]);
      fragment[i] =
          e.fmul(p[n][i], arith::SubFOp::create(b, loc, dp, rowDelta[i % 2]));
    }
  }
  accumulate(dkAcc, toOperands(e, ds), queryTileMem, queryA, queryStride);
  // Every warp is done with the staged rows before the next step's copies.
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, flatten({dkAcc, dvAcc}));

  b.setInsertionPointAfter(loop);
  ValueRange final = loop.getResults();
  // A block whose keys no row sees ran no step: its copies are still out.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  storeRows(e, b, loc, unflatten(final, 0, dkTiles),
            op.getScale().convertToDouble(), keys, c.keyGradLayout,
            headBase(b, loc, c.keyGradLayout, batchIndex, kvHead), c.keySeq,
            c.t2, dk);
  storeRows(e, b, loc, unflatten(final, 4 * dkTiles, dvTiles), 1.0, keys,
            c.valueGradLayout,
            headBase(b, loc, c.valueGradLayout, batchIndex, kvHead), c.keySeq,
            c.t2, dv);
  gpu::ReturnOp::create(b, loc);

  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "attention_grad";
  launch.block = {threads, 1, 1};
  int64_t keyBlocks = llvm::divideCeil(c.keySeq, keysPerBlock);
  launch.grid = {keyBlocks, c.batch * c.kvHeads, 1};
  launch.sharedBytes = shared.bytes();
  return launch;
}

} // namespace

FailureOr<EmittedKernel>
mlir::tfuse::emitAttentionGradKernel(gpu::GPUModuleOp module,
                                     AttentionGradOp op, unsigned piece,
                                     StringRef name) {
  std::string reason = checkAttentionGradKernel(op);
  if (!reason.empty())
    return op.emitOpError()
           << "has no fused attention backward kernel: " << reason;
  return piece == 0 ? emitQueryKernel(module, op, name)
                    : emitKeyKernel(module, op, name);
}
