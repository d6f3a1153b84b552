//===- AttentionKernel.cpp - the flash-attention forward kernel -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's forward pass (Dao 2023) for one tfuse.attention: a
// block of warps (getAttentionKernelShape) takes a tile of query rows of one
// (batch, head), 16 or 32 rows a warp, and walks the keys 64 at a time with
// an online softmax, so the score matrix never leaves registers. Both
// products run on tensor cores as nvvm.mma.sync m16n8k16 with f32
// accumulation (bf16 pairs packed in i32, f16 pairs as vector<2xf16>); each
// key/value tile is copied to shared memory with cp.async (16 bytes a copy,
// rows padded by 16 bytes against bank conflicts), the value tile while the
// scores are computed and the next key tile while the softmax and P·V run,
// and its B fragments are read with ldmatrix.x4, transposed for the values
// (one load serves the products of every row tile). Layout of one warp's
// fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"), g = lane / 4,
// t = lane % 4:
//   A (16x16): {row g, cols 2t..2t+1}, {g+8, 2t}, {g, 2t+8}, {g+8, 2t+8}
//   B (16x8):  {rows 2t..2t+1, col g}, {rows 2t+8..2t+9, col g}
//   C (16x8):  {row g, cols 2t, 2t+1}, {row g+8, cols 2t, 2t+1}
// The C fragments of two neighbouring 8-key tiles of the scores are the A
// fragment of those 16 keys, so the probabilities feed the second product
// without leaving registers. Rows and keys past the sequence ends are read
// clamped to the last one (finite values) and masked to -inf; rows past the
// end are not stored. Dropout regenerates the reference's Philox mask per
// probability (AttentionDropout) before P·V.
//
//===----------------------------------------------------------------------===//

#include "AttentionSupport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

FailureOr<EmittedKernel>
mlir::tfuse::emitAttentionKernel(gpu::GPUModuleOp module, AttentionOp op,
                                 StringRef name) {
  std::string reason = checkAttentionKernel(op);
  if (!reason.empty())
    return op.emitOpError() << "has no fused attention kernel: " << reason;
  Location loc = op.getLoc();
  ArrayRef<int64_t> qShape = op.getQuery().getType().getShape();
  ArrayRef<int64_t> kShape = op.getKey().getType().getShape();
  ArrayRef<int64_t> vShape = op.getValue().getType().getShape();
  int64_t heads = qShape[1], kvHeads = kShape[1], group = heads / kvHeads;
  int64_t querySeq = qShape[2], keySeq = kShape[2];
  int64_t headDim = qShape[3], valueDim = vShape[3];
  Type element = op.getQuery().getType().getElementType();
  AttentionKernelShape shape = getAttentionKernelShape(headDim, valueDim);
  // Shared rows padded by 16 bytes so that the 8 rows a fragment load
  // touches fall in different banks.
  int64_t keyStride = headDim + 8, valueStride = valueDim + 8;
  const int64_t kTile = shape.keyTile, rowTiles = shape.rowTiles;
  const int64_t threads = shape.threads();
  // Causal skipping counts key tiles in query tiles.
  assert(shape.queryTile() % kTile == 0 && "query tile not whole key tiles");

  // Q, K and V are read, and O written, in their head layouts: a
  // token-major buffer when the transpose to or from it is absorbed.
  HeadLayout queryLayout = getAttentionOperandLayout(op.getQuery());
  HeadLayout keyLayout = getAttentionOperandLayout(op.getKey());
  HeadLayout valueLayout = getAttentionOperandLayout(op.getValue());
  HeadLayout outLayout = getAttentionResultLayout(op.getResult());
  auto typeOf = [](const HeadLayout &layout) {
    return cast<RankedTensorType>(layout.buffer.getType());
  };
  OpBuilder b(module.getContext());
  SmallVector<RankedTensorType> buffers{typeOf(queryLayout), typeOf(keyLayout),
                                        typeOf(valueLayout)};
  if (op.getMask())
    buffers.push_back(cast<RankedTensorType>(op.getMask().getType()));
  buffers.push_back(typeOf(outLayout));
  if (op.getLse())
    buffers.push_back(cast<RankedTensorType>(op.getLse().getType()));
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers);
  // Launch bounds: ptxas keeps the registers to what minBlocksPerSm blocks
  // of this size leave.
  func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                b.getI32IntegerAttr(shape.minBlocksPerSm));
  SharedTiles shared(b, loc);
  Value keyTile = shared.take(b, kTile * keyStride, element);
  Value valueTile = shared.take(b, kTile * valueStride, element);
  Block &entry = func.getBody().front();
  Value query = entry.getArgument(0), key = entry.getArgument(1),
        value = entry.getArgument(2),
        out = entry.getArgument(op.getMask() ? 4 : 3);
  Value mask = op.getMask() ? entry.getArgument(3) : Value();
  Value lse = op.getLse() ? entry.getArgument(op.getMask() ? 5 : 4) : Value();
  AttentionEmitter e(b, loc, element);

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // The last query tiles first: with causal masking they have the most key
  // tiles, and starting them first keeps them off the end of the grid.
  int64_t queryTiles = llvm::divideCeil(querySeq, shape.queryTile());
  Value queryTile =
      arith::SubIOp::create(b, loc, e.idx(queryTiles - 1),
                            gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value pair = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value warp = arith::DivUIOp::create(b, loc, tid, e.idx(32));
  Value lane = arith::RemUIOp::create(b, loc, tid, e.idx(32));
  Value g = arith::DivUIOp::create(b, loc, lane, e.idx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, e.idx(4));
  Value t2 = e.mul(t, 2);
  // Query head h reads key/value head h / group of its batch.
  Value batch = arith::DivUIOp::create(b, loc, pair, e.idx(heads));
  Value head = arith::RemUIOp::create(b, loc, pair, e.idx(heads));
  Value kvHead = arith::DivUIOp::create(b, loc, head, e.idx(group));
  Value keyBase = headBase(b, loc, keyLayout, batch, kvHead);
  Value valueBase = headBase(b, loc, valueLayout, batch, kvHead);
  Value queryBase = headBase(b, loc, queryLayout, batch, head);
  Value outBase = headBase(b, loc, outLayout, batch, head);

  // This thread's rows: g and g + 8 of each of its warp's 16-row tiles;
  // rows[2 * m + r] is row g + 8 r of tile m.
  Value warpRow =
      e.add(e.mul(queryTile, shape.queryTile()), e.mul(warp, 16 * rowTiles));
  SmallVector<Value> rows;
  for (int64_t m = 0; m < rowTiles; ++m)
    for (int64_t r = 0; r < 2; ++r)
      rows.push_back(e.add(warpRow, e.add(g, m * 16 + r * 8)));
  Value lastRow = e.idx(querySeq - 1);
  SmallVector<Value> clampedRows;
  for (Value row : rows)
    clampedRows.push_back(arith::MinUIOp::create(b, loc, row, lastRow));
  // The additive mask broadcasts to [B, H, Sq, Sk]: stride 0 along its
  // size-1 (or missing) dims. Its element of (row, key) is
  // maskRow[row] + min(key, Sk - 1) * strides[3].
  SmallVector<int64_t> maskStrides(4, 0);
  SmallVector<Value> maskRow;
  if (mask) {
    maskStrides = getMaskStrides(
        cast<RankedTensorType>(op.getMask().getType()).getShape());
    Value base =
        e.add(e.mul(batch, maskStrides[0]), e.mul(head, maskStrides[1]));
    for (Value row : clampedRows)
      maskRow.push_back(e.add(base, e.mul(row, maskStrides[2])));
  }
  // The query's A fragments, per row tile one per 16 columns of the head
  // dim.
  SmallVector<SmallVector<std::array<Value, 4>>> queryFragments(rowTiles);
  for (int64_t m = 0; m < rowTiles; ++m) {
    Value q0 = rowStart(b, loc, queryLayout, queryBase, clampedRows[2 * m]);
    Value q1 = rowStart(b, loc, queryLayout, queryBase, clampedRows[2 * m + 1]);
    for (int64_t kk = 0; kk < headDim / 16; ++kk) {
      Value col = e.add(t2, kk * 16);
      Value col8 = e.add(col, 8);
      queryFragments[m].push_back({e.loadPair(query, e.add(q0, col)),
                                   e.loadPair(query, e.add(q1, col)),
                                   e.loadPair(query, e.add(q0, col8)),
                                   e.loadPair(query, e.add(q1, col8))});
    }
  }

  // Online-softmax state: per row the running max (of the scores as kept:
  // unscaled or in log2 units), then per row the thread's partial sum, then
  // the output accumulators, per row tile one fragment per 8 columns of the
  // value head dim.
  const int64_t rowCount = 2 * rowTiles;
  Value negInf = f32Const(b, loc, -INFINITY), zero = f32Const(b, loc, 0.0);
  SmallVector<Value> init(rowCount, negInf);
  init.append(rowCount, zero);
  int64_t outTiles = valueDim / 8;
  init.append(rowTiles * outTiles * 4, zero);
  auto accIndex = [&](int64_t m, int64_t n, int64_t i) {
    return 2 * rowCount + (m * outTiles + n) * 4 + i;
  };
  int64_t keyTiles = llvm::divideCeil(keySeq, kTile);
  Value end = e.idx(keyTiles);
  if (op.getCausal())
    // Tiles past the diagonal are fully masked: skip them.
    end = arith::MinUIOp::create(
        b, loc, end, e.mul(e.add(queryTile, 1), shape.queryTile() / kTile));
  // The shared element each lane gives ldmatrix: row lane % 8 of tile
  // lane / 8, the tiles in the order the loads below name them.
  Value tileOfLane = arith::DivUIOp::create(b, loc, lane, e.idx(8));
  Value rowOfLane = arith::RemUIOp::create(b, loc, lane, e.idx(8));
  Value tileHigh = arith::DivUIOp::create(b, loc, tileOfLane, e.idx(2));
  Value tileLow = arith::RemUIOp::create(b, loc, tileOfLane, e.idx(2));
  Value keyLane = e.add(e.mul(e.add(e.mul(tileHigh, 8), rowOfLane), keyStride),
                        e.mul(tileLow, 8));
  Value valueLane =
      e.add(e.mul(e.add(e.mul(tileLow, 8), rowOfLane), valueStride),
            e.mul(tileHigh, 8));
  // Stage one key or value tile with cp.async (16 bytes a copy, bypassing
  // L1; rows clamped), as one commit group.
  auto stage = [&](Value firstKey, Value global, Value base,
                   const HeadLayout &layout, Value shared, int64_t dim,
                   int64_t stride) {
    stageRows(b, loc, tid, threads, global, base, firstKey, keySeq - 1, kTile,
              dim, layout.strides[2], shared, stride);
  };
  // FlashAttention-2's pipeline on one key and one value buffer: the value
  // tile loads while the scores are computed, the next key tile while the
  // softmax and P·V run.
  auto waitForTile = [&] { waitForStagedRows(b, loc); };
  stage(e.idx(0), key, keyBase, keyLayout, keyTile, headDim, keyStride);
  auto loop = scf::ForOp::create(b, loc, e.idx(0), end, e.idx(1), init);
  b.setInsertionPointToStart(loop.getBody());
  Value tile = loop.getInductionVar();
  ValueRange state = loop.getRegionIterArgs();
  Value firstKey = e.mul(tile, kTile);
  // K(tile) has landed and every warp is done with V(tile - 1).
  waitForTile();
  stage(firstKey, value, valueBase, valueLayout, valueTile, valueDim,
        valueStride);

  // Scores of this warp's rows against the tile's keys, in log2 units.
  double log2Scale = op.getScale().convertToDouble() * kLog2E;
  Value scale = f32Const(b, loc, log2Scale);
  // One ldmatrix.x4 gives the B fragments of two 8-key blocks for one
  // k-step: tiles {keys n, dims k}, {n, k + 8}, {n + 8, k}, {n + 8, k + 8};
  // every row tile uses them.
  SmallVector<SmallVector<Fragment>> scores(
      rowTiles,
      SmallVector<Fragment>(kTile / 8, Fragment{zero, zero, zero, zero}));
  for (int64_t n = 0; n < kTile / 8; n += 2)
    for (int64_t kk = 0; kk < headDim / 16; ++kk) {
      std::array<Value, 4> keys = e.loadMatrices(
          keyTile, e.add(keyLane, n * 8 * keyStride + kk * 16), false);
      for (int64_t m = 0; m < rowTiles; ++m) {
        scores[m][n] =
            e.mma(queryFragments[m][kk], {keys[0], keys[1]}, scores[m][n]);
        scores[m][n + 1] =
            e.mma(queryFragments[m][kk], {keys[2], keys[3]}, scores[m][n + 1]);
      }
    }
  // Without a mask and with a positive scale the scores stay unscaled: the
  // row maximum is the same key, and exp2(s * scale - max * scale) is one
  // fma (FlashAttention-2's trick). Otherwise they are scaled, plus the mask.
  const bool foldScale = !mask && log2Scale > 0;
  if (!foldScale)
    for (int64_t m = 0; m < rowTiles; ++m)
      for (int64_t n = 0; n < kTile / 8; ++n)
        for (int64_t i = 0; i < 4; ++i) {
          Value &acc = scores[m][n][i];
          acc = e.fmul(acc, scale);
          if (!mask)
            continue;
          int64_t row = 2 * m + i / 2;
          Value col = e.add(firstKey, e.add(t2, n * 8 + i % 2));
          Value key = arith::MinUIOp::create(b, loc, col, e.idx(keySeq - 1));
          Value bias = memref::LoadOp::create(
              b, loc, mask,
              ValueRange{e.add(maskRow[row], e.mul(key, maskStrides[3]))});
          bias = arith::ExtFOp::create(b, loc, e.f32, bias);
          acc = arith::AddFOp::create(b, loc, acc,
                                      e.fmul(bias, f32Const(b, loc, kLog2E)));
        }
  // Keys past the end, and with causal keys after the row, are -inf. Only
  // the last tile (keys past the end, when Sk is not whole tiles) and the
  // tiles crossing the diagonal of the warp's rows have any: the others
  // skip the compare and select of every score.
  const bool ragged = keySeq % kTile != 0;
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
    SmallVector<Value> flat;
    for (const SmallVector<Fragment> &tileScores : scores)
      for (const Fragment &fragment : tileScores)
        flat.append(fragment.begin(), fragment.end());
    auto masked = scf::IfOp::create(b, loc, TypeRange(ValueRange(flat)), needed,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&masked.getThenRegion().front());
      SmallVector<Value> selected;
      for (int64_t m = 0; m < rowTiles; ++m)
        for (int64_t n = 0; n < kTile / 8; ++n)
          for (int64_t i = 0; i < 4; ++i) {
            Value col = e.add(firstKey, e.add(t2, n * 8 + i % 2));
            Value valid = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, col, e.idx(keySeq));
            if (op.getCausal())
              valid = arith::AndIOp::create(
                  b, loc, valid,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, col,
                                        rows[2 * m + i / 2]));
            selected.push_back(arith::SelectOp::create(
                b, loc, valid, scores[m][n][i], negInf));
          }
      scf::YieldOp::create(b, loc, selected);
      b.setInsertionPointToStart(&masked.getElseRegion().front());
      scf::YieldOp::create(b, loc, flat);
    }
    int64_t k = 0;
    for (SmallVector<Fragment> &tileScores : scores)
      for (Fragment &fragment : tileScores)
        for (Value &score : fragment)
          score = masked.getResult(k++);
  }

  // V(tile) has landed and every warp is done with K(tile): fetch the next.
  waitForTile();
  {
    Value nextTile = e.add(tile, 1);
    Value more =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, nextTile, end);
    auto prefetch = scf::IfOp::create(b, loc, more, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&prefetch.getThenRegion().front());
    stage(e.mul(nextTile, kTile), key, keyBase, keyLayout, keyTile, headDim,
          keyStride);
  }

  // The online softmax, per row (C elements 2r and 2r + 1 of tile m).
  SmallVector<Value> next(state.begin(), state.end());
  SmallVector<Value> alpha(rowCount);
  for (int64_t m = 0; m < rowTiles; ++m)
    for (int64_t r = 0; r < 2; ++r) {
      int64_t row = 2 * m + r;
      Value tileMax = negInf;
      for (const Fragment &s : scores[m])
        tileMax = e.fmax(tileMax, e.fmax(s[2 * r], s[2 * r + 1]));
      Value newMax = e.fmax(state[row], e.quadReduce(tileMax, /*sum=*/false));
      // A row with no key yet keeps exp2 finite: subtract 0, not -inf.
      Value isEmpty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            newMax, negInf);
      Value shift = arith::SelectOp::create(b, loc, isEmpty, zero, newMax);
      Value drop = arith::SubFOp::create(b, loc, state[row], shift);
      alpha[row] =
          math::Exp2Op::create(b, loc, foldScale ? e.fmul(drop, scale) : drop);
      Value negShift = arith::NegFOp::create(
          b, loc, foldScale ? e.fmul(shift, scale) : shift);
      Value sum = zero;
      for (Fragment &s : scores[m])
        for (int64_t i = 2 * r; i < 2 * r + 2; ++i) {
          Value exponent =
              foldScale
                  ? Value(math::FmaOp::create(b, loc, s[i], scale, negShift))
                  : Value(arith::AddFOp::create(b, loc, s[i], negShift));
          s[i] = math::Exp2Op::create(b, loc, exponent);
          sum = arith::AddFOp::create(b, loc, sum, s[i]);
        }
      next[row] = newMax;
      next[rowCount + row] = arith::AddFOp::create(
          b, loc, e.fmul(state[rowCount + row], alpha[row]), sum);
    }

  // Dropout on the probabilities P·V takes; the row sums above are of the
  // probabilities before it (softmax comes first).
  AttentionDropout dropout(op.getDropoutP(), op.getSeed().value_or(0), querySeq,
                           keySeq);
  if (dropout.active())
    for (int64_t m = 0; m < rowTiles; ++m)
      for (int64_t n = 0; n < kTile / 8; ++n) {
        std::array<Value, 4> words =
            dropout.fragmentWords(b, loc, pair, rows[2 * m], rows[2 * m + 1],
                                  e.add(firstKey, e.add(t2, n * 8)));
        for (int64_t i = 0; i < 4; ++i)
          scores[m][n][i] = dropout.apply(b, loc, scores[m][n][i], words[i]);
      }

  // O = O * alpha + P V: P's A fragments come from two score fragments;
  // one transposing ldmatrix.x4 gives the B fragments of two 8-column
  // blocks for one 16-key step, for every row tile: tiles {keys k, cols n},
  // {k + 8, n}, {k, n + 8}, {k + 8, n + 8}.
  SmallVector<SmallVector<std::array<Value, 4>>> probabilities(rowTiles);
  for (int64_t m = 0; m < rowTiles; ++m)
    for (int64_t kk = 0; kk < kTile / 16; ++kk) {
      const Fragment &lo = scores[m][2 * kk], &hi = scores[m][2 * kk + 1];
      probabilities[m].push_back(
          {e.packF32(lo[0], lo[1]), e.packF32(lo[2], lo[3]),
           e.packF32(hi[0], hi[1]), e.packF32(hi[2], hi[3])});
    }
  for (int64_t n = 0; n < outTiles; n += 2) {
    SmallVector<std::array<Fragment, 2>> acc(rowTiles);
    for (int64_t m = 0; m < rowTiles; ++m)
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t i = 0; i < 4; ++i)
          acc[m][half][i] =
              e.fmul(state[accIndex(m, n + half, i)], alpha[2 * m + i / 2]);
    for (int64_t kk = 0; kk < kTile / 16; ++kk) {
      std::array<Value, 4> values = e.loadMatrices(
          valueTile, e.add(valueLane, kk * 16 * valueStride + n * 8), true);
      for (int64_t m = 0; m < rowTiles; ++m) {
        acc[m][0] =
            e.mma(probabilities[m][kk], {values[0], values[1]}, acc[m][0]);
        acc[m][1] =
            e.mma(probabilities[m][kk], {values[2], values[3]}, acc[m][1]);
      }
    }
    for (int64_t m = 0; m < rowTiles; ++m)
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t i = 0; i < 4; ++i)
          next[accIndex(m, n + half, i)] = acc[m][half][i];
  }
  scf::YieldOp::create(b, loc, next);

  // Normalise and store the rows inside the sequence.
  b.setInsertionPointAfter(loop);
  ValueRange final = loop.getResults();
  for (int64_t m = 0; m < rowTiles; ++m)
    for (int64_t r = 0; r < 2; ++r) {
      int64_t rowIndex = 2 * m + r;
      Value row = rows[rowIndex];
      Value total = e.quadReduce(final[rowCount + rowIndex], /*sum=*/true);
      Value inverse =
          arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0), total);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           row, e.idx(querySeq));
      auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard insideGuard(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      Value flatRow = e.add(e.mul(pair, querySeq), row);
      if (lse) {
        // The row's log-sum-exp in natural units: ln 2 (max + log2 sum),
        // the max in the units the scores are kept in.
        Value max = final[rowIndex];
        if (foldScale)
          max = e.fmul(max, f32Const(b, loc, log2Scale));
        Value log2Sum = arith::AddFOp::create(
            b, loc, max, math::Log2Op::create(b, loc, total));
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t,
                                            e.idx(0));
        auto store = scf::IfOp::create(b, loc, first, false);
        OpBuilder::InsertionGuard storeGuard(b);
        b.setInsertionPointToStart(&store.getThenRegion().front());
        memref::StoreOp::create(
            b, loc, e.fmul(log2Sum, f32Const(b, loc, llvm::numbers::ln2)), lse,
            ValueRange{flatRow});
      }
      Value rowBase = rowStart(b, loc, outLayout, outBase, row);
      for (int64_t n = 0; n < outTiles; ++n) {
        Value lo = e.fmul(final[accIndex(m, n, 2 * r)], inverse);
        Value hi = e.fmul(final[accIndex(m, n, 2 * r + 1)], inverse);
        Value pairF32 = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, e.f32), ValueRange{lo, hi});
        Value rounded = arith::TruncFOp::create(
            b, loc, VectorType::get({2}, element), pairF32);
        vector::StoreOp::create(b, loc, rounded, out,
                                ValueRange{e.add(rowBase, e.add(t2, n * 8))})
            .setAlignment(4);
      }
    }
  gpu::ReturnOp::create(b, loc);

  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "attention";
  launch.block = {threads, 1, 1};
  launch.grid = {queryTiles, qShape[0] * heads, 1};
  launch.sharedBytes = shared.bytes();
  return launch;
}
