//===- KernelShapes.h - what the kernel emitters can build ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The shape rules of the kernel templates, in one place: the emitters
// (lib/Conversion/TFuseToGPU) build their kernels from these, and the cost
// model and the fusion planner ask them whether a kernel can be built and
// how it moves its bytes, so nothing is priced that the compiler would then
// refuse. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TARGET_KERNELSHAPES_H
#define TFUSE_TARGET_KERNELSHAPES_H

#include <cstdint>
#include <optional>

namespace mlir::tfuse {

/// Elements per 16-byte vector access of a buffer of `count` elements of
/// `elementBytes` each; 1 when `count` is not a multiple of it.
int64_t getVectorWidth(int64_t elementBytes, int64_t count);

/// How the row-reduction template lays out one row: `threads` threads run
/// it. A row that fits stays in registers: each thread holds `chunks`
/// vectors of `width` elements and the kernel reads it once. A longer row is
/// walked in `tiles` tiles of threads x chunks x width elements (the looping
/// kernel): one pass for the row's statistics and, unless the kernel writes
/// one value per row (a reduction), a second pass that reads the row again
/// and writes the results. A block runs `rowsPerBlock` rows: one, unless a
/// row needs fewer than a warp's lanes, when lane groups of a power of two
/// share warps (a row of 64 bf16, 8 vectors, would leave 24 of 32 lanes
/// idle and launch a block per 128 bytes).
struct RowKernelShape {
  int64_t width = 1;
  int64_t threads = 32;
  int64_t chunks = 1;
  /// 0 for the register-resident kernel.
  int64_t tiles = 0;
  int64_t rowsPerBlock = 1;

  bool looping() const { return tiles > 0; }
  int64_t blockThreads() const { return threads * rowsPerBlock; }
  /// How many times the kernel reads the row: 1 in registers; when looping,
  /// 2 when it writes a row of results, 1 when it writes one value per row.
  int64_t passes(bool writesRow) const {
    return looping() && writesRow ? 2 : 1;
  }
};

/// The most elements of a row one thread keeps in registers. Measured on the
/// H200 (bench/device-rows.sh, 2026-12-03): softmax(x + b) rows of 32768 f32
/// (32 per thread) launch with 1024 threads; rows of 65536 (64 per thread)
/// need more than 64 registers per thread and cannot launch a full block.
constexpr int64_t kMaxRowElementsPerThread = 32;
/// The most threads of a register-resident row-reduction block.
constexpr int64_t kMaxRowThreads = 1024;
/// The block of rows shorter than a warp: lane groups share its 4 warps.
constexpr int64_t kPackedRowBlockThreads = 128;
/// The looping kernel's block, and the elements each thread loads per tile:
/// 16 independent loads (or 16 / width vectors) in flight per thread, a
/// small register footprint, and 4 blocks (2048 threads) per SM.
constexpr int64_t kLoopingRowThreads = 512;
constexpr int64_t kLoopingRowElementsPerThread = 16;

/// A reduce over a strided row (a column reduction) runs 32 neighbouring
/// rows per block, one per lane (a warp's loads are contiguous), and
/// kColumnReduceWarps warps that split each row.
constexpr int64_t kColumnReduceLanes = 32;
constexpr int64_t kColumnReduceWarps = 8;

/// The layout of that kernel for rows of `length` elements: `threads` is
/// the warps per row (the block is 32 x threads), one element per load, 16
/// loads in flight per thread, looping over tiles when the row is longer.
RowKernelShape getColumnReduceShape(int64_t length);

/// The most elements a kernel buffer may have for 32-bit index arithmetic:
/// indices are signed (2^31 - 1). Bytes set no limit: an address is the
/// 32-bit element index sign-extended and scaled by the element size in 64
/// bits (mul.wide), so a buffer of 2^29 f32 (2^31 bytes) is addressed
/// exactly.
constexpr int64_t kMaxNarrowIndex = 2147483647;

/// Whether a kernel buffer of `count` elements needs 64-bit index
/// arithmetic.
inline bool needsWideIndex(int64_t count) { return count > kMaxNarrowIndex; }

/// The layout of a row of `length` elements accessed `width` elements at a
/// time (the narrowest vector width of its row-shaped buffers): in registers
/// when the row fits in one block, looping otherwise; nothing for an empty
/// row.
std::optional<RowKernelShape> getRowKernelShape(int64_t length, int64_t width);

/// The flash-attention template: a block of `warps` warps computes
/// queryTile() query rows of one (batch, head), 16 * rowTiles rows a warp,
/// walking the keys keyTile at a time. Two 16-row tiles a warp share each
/// key/value fragment read from shared memory between two products, which
/// halves the shared-memory traffic per product (one tile is bound by it).
struct AttentionKernelShape {
  int64_t warps = 4;
  int64_t rowTiles = 1;
  int64_t keyTile = 64;
  /// The blocks a multiprocessor must hold (the register cap ptxas is given):
  /// the one-tile kernel needs 3 of 4 warps to hide the latency of its
  /// shared-memory reads and exponentials.
  int64_t minBlocksPerSm = 3;
  int64_t queryTile() const { return warps * 16 * rowTiles; }
  int64_t threads() const { return warps * 32; }
};

/// The shape for head dims `headDim` (queries, keys) and `valueDim`: two
/// row tiles a warp while the output accumulators, scores and query
/// fragments fit in registers without spilling (both dims at most 64), one
/// otherwise.
AttentionKernelShape getAttentionKernelShape(int64_t headDim, int64_t valueDim);

/// The two kernels of the flash-attention backward (FlashAttention-2's,
/// without atomics): the query kernel gives dQ, one block of `warps` warps a
/// tile of 16 query rows a warp walking the keys `keyTile` at a time; the
/// key kernel gives dK and dV, one block a tile of 16 keys a warp walking
/// the query rows (of every query head that reads the block's key/value
/// head) `queryTile` at a time. The tiles shrink with the head dims so that
/// the accumulators stay in registers and the staged tiles in 48 KiB of
/// shared memory.
struct AttentionGradKernelShape {
  int64_t warps = 4;
  int64_t keyTile = 64;   ///< keys per step of the query kernel
  int64_t queryTile = 64; ///< query rows per step of the key kernel
  int64_t rowsPerBlock() const { return warps * 16; }
  int64_t threads() const { return warps * 32; }
  /// Shared bytes of the key kernel: its key and value tiles, the staged
  /// query and output-gradient rows (each row padded by 8 elements) and the
  /// rows' two f32 statistics.
  int64_t keyKernelSharedBytes(int64_t headDim, int64_t valueDim,
                               int64_t elementBytes) const {
    return elementBytes * (rowsPerBlock() + queryTile) *
               (headDim + valueDim + 16) +
           8 * queryTile;
  }
};

AttentionGradKernelShape getAttentionGradKernelShape(int64_t headDim,
                                                     int64_t valueDim,
                                                     int64_t elementBytes);

/// The head dims it keeps in registers: multiples of 16 (the k of
/// mma.m16n8k16) up to 128 (the output accumulator of a 16-row warp tile).
constexpr bool isAttentionHeadDim(int64_t dim) {
  return dim >= 16 && dim <= 128 && dim % 16 == 0;
}

} // namespace mlir::tfuse

#endif // TFUSE_TARGET_KERNELSHAPES_H
