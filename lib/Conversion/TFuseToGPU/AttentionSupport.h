//===- AttentionSupport.h - tensor-core pieces of attention -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the flash-attention kernels share (AttentionKernel.cpp, the forward;
// AttentionGradKernel.cpp, the backward): mma.sync m16n8k16 with f32
// accumulation, ldmatrix of 8x8 tiles, operand packing, quad reductions,
// cp.async staging of row tiles and the broadcast strides of a mask. Private
// to lib/Conversion/TFuseToGPU. Fragment layouts (PTX ISA, "Matrix Fragments
// for mma.m16n8k16"), g = lane / 4, t = lane % 4:
//   A (16x16): {row g, cols 2t..2t+1}, {g+8, 2t}, {g, 2t+8}, {g+8, 2t+8}
//   B (16x8):  {rows 2t..2t+1, col g}, {rows 2t+8..2t+9, col g}
//   C (16x8):  {row g, cols 2t, 2t+1}, {row g+8, cols 2t, 2t+1}
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_CONVERSION_TFUSETOGPU_ATTENTIONSUPPORT_H
#define TFUSE_LIB_CONVERSION_TFUSETOGPU_ATTENTIONSUPPORT_H

#include "KernelSupport.h"
#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Reference/Philox.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <array>

namespace mlir::tfuse::kernel {

/// log2(e): the kernels keep scores in log2 units for exp2.
constexpr double kLog2E = 1.4426950408889634;

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

/// Dropout of attention's probabilities, drawn as the reference draws it
/// (ref::attention): element (row, key) of (batch, head) pair `pair` takes
/// the draw of flat element (pair * Sq + row) * Sk + key of the op's stream,
/// so the kernels regenerate the reference's mask instead of storing one.
class AttentionDropout {
public:
  AttentionDropout(std::optional<APFloat> p, uint64_t seed, int64_t querySeq,
                   int64_t keySeq)
      : p(p ? p->convertToDouble() : 0.0), seed(seed), querySeq(querySeq),
        keySeq(keySeq) {}

  bool active() const { return p > 0; }

  /// The draw of element (row, key).
  Value word(OpBuilder &b, Location loc, Value pair, Value row, Value key) {
    return emitPhiloxWord(b, loc, linear(b, loc, pair, row, key), seed);
  }

  /// The draws of (row, key) and (row, key + 1), `key` even: one Philox
  /// call when Sk is even (the pair is then words 0-1 or 2-3 of one call).
  std::array<Value, 2> pairWords(OpBuilder &b, Location loc, Value pair,
                                 Value row, Value key) {
    Value first = linear(b, loc, pair, row, key);
    if (keySeq % 2 != 0)
      return {emitPhiloxWord(b, loc, first, seed),
              emitPhiloxWord(
                  b, loc,
                  arith::AddIOp::create(b, loc, first, indexConst(b, loc, 1)),
                  seed)};
    constexpr int64_t words = ref::philox::kWordsPerCall;
    std::array<Value, 4> draws = emitPhilox(
        b, loc,
        arith::DivUIOp::create(b, loc, first, indexConst(b, loc, words)), seed);
    Value high = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, first, indexConst(b, loc, 2)),
        indexConst(b, loc, 0));
    return {arith::SelectOp::create(b, loc, high, draws[2], draws[0]),
            arith::SelectOp::create(b, loc, high, draws[3], draws[1])};
  }

  /// The draws of a C fragment: (rowLo, key), (rowLo, key + 1), (rowHi,
  /// key), (rowHi, key + 1), key = 2t + a multiple of 8. When Sk is a
  /// multiple of 4, a call covers keys 4j..4j+3 of one row, the pairs of
  /// lanes t and t ^ 1: each lane computes one call (row lo for even t, row
  /// hi for odd t) and swaps half of its words with lane ^ 1, one call per
  /// four elements instead of two.
  std::array<Value, 4> fragmentWords(OpBuilder &b, Location loc, Value pair,
                                     Value rowLo, Value rowHi, Value key) {
    if (!sharedCalls()) {
      std::array<Value, 2> lo = pairWords(b, loc, pair, rowLo, key);
      std::array<Value, 2> hi = pairWords(b, loc, pair, rowHi, key);
      return {lo[0], lo[1], hi[0], hi[1]};
    }
    Value odd = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, key, indexConst(b, loc, 2)),
        indexConst(b, loc, 0));
    Value row = arith::SelectOp::create(b, loc, odd, rowHi, rowLo);
    std::array<Value, 4> w = call(b, loc, linear(b, loc, pair, row, key));
    // Even lanes give words 2-3 of row lo, odd lanes words 0-1 of row hi.
    std::array<Value, 2> mine, theirs;
    for (int k = 0; k < 2; ++k) {
      Value give = arith::SelectOp::create(b, loc, odd, w[k], w[k + 2]);
      theirs[k] = shuffleXor(b, loc, give, 1);
      mine[k] = arith::SelectOp::create(b, loc, odd, w[k + 2], w[k]);
    }
    auto pick = [&](Value ifOdd, Value ifEven) -> Value {
      return arith::SelectOp::create(b, loc, odd, ifOdd, ifEven);
    };
    return {pick(theirs[0], mine[0]), pick(theirs[1], mine[1]),
            pick(mine[0], theirs[0]), pick(mine[1], theirs[1])};
  }

  /// The draws of a transposed C fragment (keys as its rows): element i is
  /// (rows[i % 2], keys[i / 2]) with keys = {base + g, base + g + 8}, base a
  /// multiple of 16, and `quadKey` = g % 4. The four lanes g = 4a..4a+3 (lane
  /// bits 2-3) hold the four keys of a call, so each computes one of the
  /// group's four calls (element i's, for i = its quadKey) and a 4x4
  /// transpose of words over those lanes hands every lane its own: one call
  /// per four elements instead of four. Needs sharedCalls().
  std::array<Value, 4> transposedFragmentWords(OpBuilder &b, Location loc,
                                               Value pair,
                                               std::array<Value, 2> rows,
                                               std::array<Value, 2> keys,
                                               Value quadKey) {
    auto bit = [&](int64_t mask) -> Value {
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(b, loc, quadKey, indexConst(b, loc, mask)),
          indexConst(b, loc, 0));
    };
    Value row = arith::SelectOp::create(b, loc, bit(1), rows[1], rows[0]);
    Value key = arith::SubIOp::create(
        b, loc, arith::SelectOp::create(b, loc, bit(2), keys[1], keys[0]),
        quadKey);
    std::array<Value, 4> m = call(b, loc, linear(b, loc, pair, row, key));
    // m[c] is word c of element quadKey's call; lane quadKey wants word
    // quadKey of every element's call: the transpose, in two stages that
    // swap the off-diagonal halves across bit 0, then bit 1, of quadKey.
    for (int64_t stage : {1, 2}) {
      Value high = bit(stage);
      for (int64_t low = 0; low < 4; ++low) {
        if (low & stage)
          continue;
        int64_t other = low | stage;
        Value give = arith::SelectOp::create(b, loc, high, m[low], m[other]);
        Value got = shuffleXor(b, loc, give, 4 * stage);
        m[low] = arith::SelectOp::create(b, loc, high, got, m[low]);
        m[other] = arith::SelectOp::create(b, loc, high, m[other], got);
      }
    }
    return m;
  }

  /// Whether one Philox call serves four keys of one row (Sk % 4 == 0).
  bool sharedCalls() const {
    return keySeq % static_cast<int64_t>(ref::philox::kWordsPerCall) == 0;
  }

  /// `x` (f32) after dropout with draw `word`.
  Value apply(OpBuilder &b, Location loc, Value x, Value word) {
    return emitDropout(b, loc, x, word, p);
  }

private:
  /// The call covering flat element `first` (and the three after it when
  /// `first` is a multiple of 4).
  std::array<Value, 4> call(OpBuilder &b, Location loc, Value first) {
    constexpr int64_t words = ref::philox::kWordsPerCall;
    return emitPhilox(
        b, loc,
        arith::DivUIOp::create(b, loc, first, indexConst(b, loc, words)), seed);
  }

  /// `value` (i32) of lane ^ `mask`.
  static Value shuffleXor(OpBuilder &b, Location loc, Value value,
                          int64_t mask) {
    Value offset = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(mask));
    Value width = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(32));
    return gpu::ShuffleOp::create(b, loc, value, offset, width,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }

  Value linear(OpBuilder &b, Location loc, Value pair, Value row, Value key) {
    Value flatRow = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, pair, indexConst(b, loc, querySeq)), row);
    return arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, flatRow, indexConst(b, loc, keySeq)),
        key);
  }

  double p;
  uint64_t seed;
  int64_t querySeq, keySeq;
};

/// Copies rows [first, first + rows) of the [*, dim] block at element
/// `base` of `global` (rows `pitch` elements apart) into `shared` (row
/// stride `stride`, padded) with cp.async, 16 bytes a copy spread over the
/// block's `threads` threads (`tid`), and commits them as one group. Rows
/// past `lastRow` read row `lastRow`: finite values the kernels mask.
inline void stageRows(OpBuilder &b, Location loc, Value tid, int64_t threads,
                      Value global, Value base, Value first, int64_t lastRow,
                      int64_t rows, int64_t dim, int64_t pitch, Value shared,
                      int64_t stride) {
  auto idx = [&](int64_t v) { return indexConst(b, loc, v); };
  int64_t vectors = rows * dim / 8;
  for (int64_t i = 0; i * threads < vectors; ++i) {
    OpBuilder::InsertionGuard guard(b);
    Value linear = arith::AddIOp::create(b, loc, tid, idx(i * threads));
    if ((i + 1) * threads > vectors) {
      // The last round of a tile that is not whole copies a thread.
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           linear, idx(vectors));
      auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    Value row = arith::DivUIOp::create(b, loc, linear, idx(dim / 8));
    Value chunk = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, linear, idx(dim / 8)), idx(8));
    Value source = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, first, row), idx(lastRow));
    Value from = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, base, arith::MulIOp::create(b, loc, source, idx(pitch))),
        chunk);
    Value to = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, idx(stride)), chunk);
    nvgpu::DeviceAsyncCopyOp::create(b, loc, shared, ValueRange{to}, global,
                                     ValueRange{from}, b.getIndexAttr(8),
                                     Value(), b.getUnitAttr());
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

/// The shared tiles of a kernel, carved in order out of its dynamic shared
/// memory (a block may need more than the 48 KiB static shared memory
/// allows); each tile starts 16-byte aligned, as cp.async and ldmatrix need.
/// The launch asks for bytes().
class SharedTiles {
public:
  /// Must be built at the kernel's entry, before any tile is used.
  SharedTiles(OpBuilder &b, Location loc) : loc(loc) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    base = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), workgroup));
  }

  /// The next tile: `elements` elements of `type`.
  Value take(OpBuilder &b, int64_t elements, Type type) {
    auto source = cast<MemRefType>(base.getType());
    auto tileType = MemRefType::get(
        {elements}, type, MemRefLayoutAttrInterface(), source.getMemorySpace());
    Value tile = memref::ViewOp::create(b, loc, tileType, base,
                                        indexConst(b, loc, used), ValueRange{});
    used += llvm::alignTo(elements * type.getIntOrFloatBitWidth() / 8, 16);
    return tile;
  }

  int64_t bytes() const { return used; }

private:
  Location loc;
  Value base;
  int64_t used = 0;
};

/// Element (batch, head, 0, 0) of a [B, H, S, D] tensor in `layout`.
inline Value headBase(OpBuilder &b, Location loc, const HeadLayout &layout,
                      Value batch, Value head) {
  Value batchPart = arith::MulIOp::create(
      b, loc, batch, indexConst(b, loc, layout.strides[0]));
  Value headPart = arith::MulIOp::create(b, loc, head,
                                         indexConst(b, loc, layout.strides[1]));
  Value start = arith::AddIOp::create(b, loc, batchPart, headPart);
  if (layout.offset == 0)
    return start;
  return arith::AddIOp::create(b, loc, start,
                               indexConst(b, loc, layout.offset));
}

/// Element (row, 0) of the (batch, head) pair at `base` in `layout`.
inline Value rowStart(OpBuilder &b, Location loc, const HeadLayout &layout,
                      Value base, Value row) {
  Value rowPart =
      arith::MulIOp::create(b, loc, row, indexConst(b, loc, layout.strides[2]));
  return arith::AddIOp::create(b, loc, base, rowPart);
}

/// Waits for every cp.async group of this thread, then for the block.
inline void waitForStagedRows(OpBuilder &b, Location loc) {
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  gpu::BarrierOp::create(b, loc);
}

/// The strides (in elements, 0 along broadcast dims) of a mask of shape
/// `maskShape` broadcast to the scores [B, H, Sq, Sk].
inline SmallVector<int64_t> getMaskStrides(ArrayRef<int64_t> maskShape) {
  SmallVector<int64_t> strides(4, 0);
  int64_t stride = 1;
  for (int64_t d = 3, m = maskShape.size() - 1; d >= 0 && m >= 0; --d, --m) {
    strides[d] = maskShape[m] == 1 ? 0 : stride;
    stride *= maskShape[m];
  }
  return strides;
}

} // namespace mlir::tfuse::kernel

#endif // TFUSE_LIB_CONVERSION_TFUSETOGPU_ATTENTIONSUPPORT_H
