//===- AttentionKernel.cpp - the flash-attention forward kernel -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's forward pass (Dao 2023) for one tfuse.attention: a
// block of kAttentionWarps warps takes kAttentionQueryTile query rows of one
// (batch, head), 16 rows a warp, and walks the keys kAttentionKeyTile at a
// time with an online softmax, so the score matrix never leaves registers.
// Both products run on tensor cores as nvvm.mma.sync m16n8k16 with f32
// accumulation (bf16 pairs packed in i32, f16 pairs as vector<2xf16>); each
// key/value tile is staged in shared memory (16-byte vectors, rows padded by
// 16 bytes against bank conflicts) and its B fragments are read with
// ldmatrix.x4, transposed for the values. Layout of one warp's fragments
// (PTX ISA, "Matrix Fragments for mma.m16n8k16"), g = lane / 4, t = lane % 4:
//   A (16x16): {row g, cols 2t..2t+1}, {g+8, 2t}, {g, 2t+8}, {g+8, 2t+8}
//   B (16x8):  {rows 2t..2t+1, col g}, {rows 2t+8..2t+9, col g}
//   C (16x8):  {row g, cols 2t, 2t+1}, {row g+8, cols 2t, 2t+1}
// The C fragments of two neighbouring 8-key tiles of the scores are the A
// fragment of those 16 keys, so the probabilities feed the second product
// without leaving registers. Rows and keys past the sequence ends are read
// clamped to the last one (finite values) and masked to -inf; rows past the
// end are not stored.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

namespace {

/// Four f32 accumulators of one 16x8 C fragment.
using Fragment = std::array<Value, 4>;

class AttentionEmitter {
public:
  AttentionEmitter(OpBuilder &b, Location loc, Type element)
      : b(b), loc(loc), element(element), f32(b.getF32Type()),
        i32(b.getI32Type()) {}

  Value idx(int64_t value) { return indexConst(b, loc, value); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, idx(y)); }
  Value mul(Value x, int64_t y) { return mul(x, idx(y)); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fmax(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }

  /// Two consecutive elements of `memref` at `index`, as one mma operand
  /// register.
  Value loadPair(Value memref, Value index) {
    auto load = vector::LoadOp::create(b, loc, VectorType::get({2}, element),
                                       memref, ValueRange{index});
    load.setAlignment(4);
    return packed(load);
  }

  /// ldmatrix.x4 (transposed with `transpose`) of four 8x8 tiles of the
  /// shared `memref`: this lane gives the address of row `lane % 8` of tile
  /// `lane / 8` at element `index`. Each of the four results is one operand
  /// register of the lane's part of one tile.
  std::array<Value, 4> loadMatrices(Value memref, Value index, bool transpose) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value address = arith::AddIOp::create(
        b, loc, base,
        arith::MulIOp::create(b, loc, index, indexConst(b, loc, 2)));
    Value pointer = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
        arith::IndexCastOp::create(b, loc, i32, address),
        LLVM::DereferenceableAttr());
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, i32));
    Value tiles = NVVM::LdMatrixOp::create(
        b, loc, resultType, pointer, /*num=*/4,
        transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    std::array<Value, 4> registers;
    for (int64_t i = 0; i < 4; ++i) {
      registers[i] =
          LLVM::ExtractValueOp::create(b, loc, tiles, ArrayRef<int64_t>{i});
      if (!element.isBF16())
        registers[i] = LLVM::BitcastOp::create(
            b, loc, VectorType::get({2}, element), registers[i]);
    }
    return registers;
  }

  /// Two f32 values rounded to the element type, as one operand register.
  Value packF32(Value lo, Value hi) {
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, f32), ValueRange{lo, hi});
    return packed(
        arith::TruncFOp::create(b, loc, VectorType::get({2}, element), pair));
  }

  /// D = A B + C for one m16n8k16 tile.
  Fragment mma(ArrayRef<Value> a, ArrayRef<Value> bOperand, const Fragment &c) {
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes type =
        element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, a, bOperand, ValueRange(c), {16, 8, 16},
        std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    Fragment out;
    for (int64_t i = 0; i < 4; ++i)
      out[i] = LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{i});
    return out;
  }

  /// The maximum or sum of `value` over the four threads of a quad (the
  /// threads holding one row of a C fragment).
  Value quadReduce(Value value, bool sum) {
    for (int64_t offset : {1, 2}) {
      Value other = gpu::ShuffleOp::create(b, loc, value, offset, 32,
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      value = sum ? Value(arith::AddFOp::create(b, loc, value, other))
                  : fmax(value, other);
    }
    return value;
  }

  OpBuilder &b;
  Location loc;
  Type element, f32, i32;

private:
  /// A vector<2 x element> as the mma operand type: i32 for bf16 (which
  /// NVVM's mma.sync takes packed), the vector itself for f16.
  Value packed(Value pair) {
    if (element.isBF16())
      return LLVM::BitcastOp::create(b, loc, i32, pair);
    return pair;
  }
};

} // namespace

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
  // Shared rows padded by 16 bytes so that the 8 rows a fragment load
  // touches fall in different banks.
  int64_t keyStride = headDim + 8, valueStride = valueDim + 8;
  constexpr int64_t kTile = kAttentionKeyTile;
  // Causal skipping counts key tiles in query tiles.
  static_assert(kAttentionKeyTile == kAttentionQueryTile);
  constexpr int64_t threads = kAttentionWarps * 32;

  OpBuilder b(module.getContext());
  SmallVector<RankedTensorType> buffers{
      op.getQuery().getType(), op.getKey().getType(), op.getValue().getType()};
  if (op.getMask())
    buffers.push_back(cast<RankedTensorType>(op.getMask().getType()));
  buffers.push_back(op.getResult().getType());
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value keyTile = func.addWorkgroupAttribution(
      MemRefType::get({kTile * keyStride}, element, MemRefLayoutAttrInterface(),
                      workgroup),
      loc);
  Value valueTile = func.addWorkgroupAttribution(
      MemRefType::get({kTile * valueStride}, element,
                      MemRefLayoutAttrInterface(), workgroup),
      loc);
  // 16-byte stores and ldmatrix rows need 16-byte aligned tiles.
  for (unsigned i = 0; i < 2; ++i)
    func.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                     b.getI64IntegerAttr(16));
  Block &entry = func.getBody().front();
  Value query = entry.getArgument(0), key = entry.getArgument(1),
        value = entry.getArgument(2),
        out = entry.getArgument(buffers.size() - 1);
  Value mask = op.getMask() ? entry.getArgument(3) : Value();
  AttentionEmitter e(b, loc, element);

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value queryTile = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value pair = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value warp = arith::DivUIOp::create(b, loc, tid, e.idx(32));
  Value lane = arith::RemUIOp::create(b, loc, tid, e.idx(32));
  Value g = arith::DivUIOp::create(b, loc, lane, e.idx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, e.idx(4));
  Value t2 = e.mul(t, 2);
  // Query head h of batch n reads key/value head n * Hkv + h / group.
  Value batch = arith::DivUIOp::create(b, loc, pair, e.idx(heads));
  Value head = arith::RemUIOp::create(b, loc, pair, e.idx(heads));
  Value kvPair = e.add(e.mul(batch, kvHeads),
                       arith::DivUIOp::create(b, loc, head, e.idx(group)));
  Value keyBase = e.mul(kvPair, keySeq * headDim);
  Value valueBase = e.mul(kvPair, keySeq * valueDim);

  // This thread's two rows (g and g + 8 of its warp's 16).
  Value row0 =
      e.add(e.add(e.mul(queryTile, kAttentionQueryTile), e.mul(warp, 16)), g);
  Value row1 = e.add(row0, 8);
  Value lastRow = e.idx(querySeq - 1);
  auto queryRowBase = [&](Value row) {
    Value clamped = arith::MinUIOp::create(b, loc, row, lastRow);
    return e.mul(e.add(e.mul(pair, querySeq), clamped), headDim);
  };
  Value q0 = queryRowBase(row0), q1 = queryRowBase(row1);
  // The additive mask broadcasts to [B, H, Sq, Sk]: stride 0 along its
  // size-1 (or missing) dims. Its element of (row, key) is
  // maskRow[r] + min(key, Sk - 1) * strides[3].
  SmallVector<int64_t> maskStrides(4, 0);
  std::array<Value, 2> maskRow;
  if (mask) {
    ArrayRef<int64_t> maskShape =
        cast<RankedTensorType>(op.getMask().getType()).getShape();
    int64_t stride = 1;
    for (int64_t d = 3, m = maskShape.size() - 1; d >= 0 && m >= 0; --d, --m) {
      maskStrides[d] = maskShape[m] == 1 ? 0 : stride;
      stride *= maskShape[m];
    }
    Value base =
        e.add(e.mul(batch, maskStrides[0]), e.mul(head, maskStrides[1]));
    for (int64_t r = 0; r < 2; ++r)
      maskRow[r] = e.add(base, e.mul(arith::MinUIOp::create(
                                         b, loc, r == 0 ? row0 : row1, lastRow),
                                     maskStrides[2]));
  }
  // The query's A fragments, one per 16 columns of the head dim.
  SmallVector<std::array<Value, 4>> queryFragments;
  for (int64_t kk = 0; kk < headDim / 16; ++kk) {
    Value col = e.add(t2, kk * 16);
    Value col8 = e.add(col, 8);
    queryFragments.push_back({e.loadPair(query, e.add(q0, col)),
                              e.loadPair(query, e.add(q1, col)),
                              e.loadPair(query, e.add(q0, col8)),
                              e.loadPair(query, e.add(q1, col8))});
  }

  // Online-softmax state: per row the running max (in log2 units) and the
  // thread's partial sum; the output accumulators, one fragment per 8
  // columns of the value head dim.
  Value negInf = f32Const(b, loc, -INFINITY), zero = f32Const(b, loc, 0.0);
  SmallVector<Value> init{negInf, negInf, zero, zero};
  int64_t outTiles = valueDim / 8;
  init.append(outTiles * 4, zero);
  int64_t keyTiles = llvm::divideCeil(keySeq, kTile);
  Value end = e.idx(keyTiles);
  if (op.getCausal())
    // Tiles past the diagonal are fully masked: skip them.
    end = arith::MinUIOp::create(b, loc, end, e.add(queryTile, 1));
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
  auto loop = scf::ForOp::create(b, loc, e.idx(0), end, e.idx(1), init);
  b.setInsertionPointToStart(loop.getBody());
  Value tile = loop.getInductionVar();
  ValueRange state = loop.getRegionIterArgs();
  Value firstKey = e.mul(tile, kTile);

  // Stage the key and value tiles: 16-byte vectors, rows clamped.
  auto stage = [&](Value global, Value base, Value shared, int64_t dim,
                   int64_t stride) {
    int64_t vectors = kTile * dim / 8;
    for (int64_t i = 0; i < vectors / threads; ++i) {
      Value linear = e.add(tid, i * threads);
      Value row = arith::DivUIOp::create(b, loc, linear, e.idx(dim / 8));
      Value chunk =
          e.mul(arith::RemUIOp::create(b, loc, linear, e.idx(dim / 8)), 8);
      Value keyRow = arith::MinUIOp::create(b, loc, e.add(firstKey, row),
                                            e.idx(keySeq - 1));
      auto vec = vector::LoadOp::create(
          b, loc, VectorType::get({8}, element), global,
          ValueRange{e.add(e.add(base, e.mul(keyRow, dim)), chunk)});
      vec.setAlignment(16);
      vector::StoreOp::create(b, loc, vec, shared,
                              ValueRange{e.add(e.mul(row, stride), chunk)})
          .setAlignment(16);
    }
  };
  stage(key, keyBase, keyTile, headDim, keyStride);
  stage(value, valueBase, valueTile, valueDim, valueStride);
  gpu::BarrierOp::create(b, loc);

  // Scores of this warp's 16 rows against the tile's 64 keys, in log2 units.
  constexpr double kLog2E = 1.4426950408889634;
  double log2Scale = op.getScale().convertToDouble() * kLog2E;
  Value scale = f32Const(b, loc, log2Scale);
  // One ldmatrix.x4 gives the B fragments of two 8-key blocks for one
  // k-step: tiles {keys n, dims k}, {n, k + 8}, {n + 8, k}, {n + 8, k + 8}.
  SmallVector<Fragment> scores(kTile / 8, Fragment{zero, zero, zero, zero});
  for (int64_t n = 0; n < kTile / 8; n += 2)
    for (int64_t kk = 0; kk < headDim / 16; ++kk) {
      std::array<Value, 4> keys = e.loadMatrices(
          keyTile, e.add(keyLane, n * 8 * keyStride + kk * 16), false);
      scores[n] = e.mma(queryFragments[kk], {keys[0], keys[1]}, scores[n]);
      scores[n + 1] =
          e.mma(queryFragments[kk], {keys[2], keys[3]}, scores[n + 1]);
    }
  for (int64_t n = 0; n < kTile / 8; ++n) {
    Fragment &acc = scores[n];
    // Keys past the end, and with causal keys after the row, are -inf.
    for (int64_t i = 0; i < 4; ++i) {
      Value col = e.add(firstKey, e.add(t2, n * 8 + i % 2));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          col, e.idx(keySeq));
      if (op.getCausal())
        valid = arith::AndIOp::create(
            b, loc, valid,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, col,
                                  i < 2 ? row0 : row1));
      Value score = e.fmul(acc[i], scale);
      if (mask) {
        Value key = arith::MinUIOp::create(b, loc, col, e.idx(keySeq - 1));
        Value bias = memref::LoadOp::create(
            b, loc, mask,
            ValueRange{e.add(maskRow[i / 2], e.mul(key, maskStrides[3]))});
        bias = arith::ExtFOp::create(b, loc, e.f32, bias);
        score = arith::AddFOp::create(b, loc, score,
                                      e.fmul(bias, f32Const(b, loc, kLog2E)));
      }
      acc[i] = arith::SelectOp::create(b, loc, valid, score, negInf);
    }
  }

  // The online softmax, per row r (C elements 2r and 2r + 1).
  SmallVector<Value> next(state.begin(), state.end());
  std::array<Value, 2> alpha;
  for (int64_t r = 0; r < 2; ++r) {
    Value tileMax = negInf;
    for (const Fragment &s : scores)
      tileMax = e.fmax(tileMax, e.fmax(s[2 * r], s[2 * r + 1]));
    Value newMax = e.fmax(state[r], e.quadReduce(tileMax, /*sum=*/false));
    // A row with no key yet keeps exp2 finite: subtract 0 instead of -inf.
    Value isEmpty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          newMax, negInf);
    Value shift = arith::SelectOp::create(b, loc, isEmpty, zero, newMax);
    alpha[r] = math::Exp2Op::create(
        b, loc, arith::SubFOp::create(b, loc, state[r], shift));
    Value sum = zero;
    for (Fragment &s : scores)
      for (int64_t i = 2 * r; i < 2 * r + 2; ++i) {
        s[i] = math::Exp2Op::create(b, loc,
                                    arith::SubFOp::create(b, loc, s[i], shift));
        sum = arith::AddFOp::create(b, loc, sum, s[i]);
      }
    next[r] = newMax;
    next[2 + r] =
        arith::AddFOp::create(b, loc, e.fmul(state[2 + r], alpha[r]), sum);
  }

  // O = O * alpha + P V: P's A fragments come from two score fragments;
  // one transposing ldmatrix.x4 gives the B fragments of two 8-column
  // blocks for one 16-key step: tiles {keys k, cols n}, {k + 8, n},
  // {k, n + 8}, {k + 8, n + 8}.
  SmallVector<std::array<Value, 4>> probabilities;
  for (int64_t kk = 0; kk < kTile / 16; ++kk) {
    const Fragment &lo = scores[2 * kk], &hi = scores[2 * kk + 1];
    probabilities.push_back({e.packF32(lo[0], lo[1]), e.packF32(lo[2], lo[3]),
                             e.packF32(hi[0], hi[1]), e.packF32(hi[2], hi[3])});
  }
  for (int64_t n = 0; n < outTiles; n += 2) {
    std::array<Fragment, 2> acc;
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t i = 0; i < 4; ++i)
        acc[half][i] = e.fmul(state[4 + (n + half) * 4 + i], alpha[i / 2]);
    for (int64_t kk = 0; kk < kTile / 16; ++kk) {
      std::array<Value, 4> values = e.loadMatrices(
          valueTile, e.add(valueLane, kk * 16 * valueStride + n * 8), true);
      acc[0] = e.mma(probabilities[kk], {values[0], values[1]}, acc[0]);
      acc[1] = e.mma(probabilities[kk], {values[2], values[3]}, acc[1]);
    }
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t i = 0; i < 4; ++i)
        next[4 + (n + half) * 4 + i] = acc[half][i];
  }
  // The tiles are overwritten by the next iteration.
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, next);

  // Normalise and store the rows inside the sequence.
  b.setInsertionPointAfter(loop);
  ValueRange final = loop.getResults();
  for (int64_t r = 0; r < 2; ++r) {
    Value row = r == 0 ? row0 : row1;
    Value total = e.quadReduce(final[2 + r], /*sum=*/true);
    Value inverse = arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0), total);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                         e.idx(querySeq));
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insideGuard(b);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    Value rowBase = e.mul(e.add(e.mul(pair, querySeq), row), valueDim);
    for (int64_t n = 0; n < outTiles; ++n) {
      Value lo = e.fmul(final[4 + n * 4 + 2 * r], inverse);
      Value hi = e.fmul(final[4 + n * 4 + 2 * r + 1], inverse);
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
  launch.grid = {
      static_cast<int64_t>(llvm::divideCeil(querySeq, kAttentionQueryTile)),
      qShape[0] * heads, 1};
  return launch;
}
