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

/// How the row-reduction template lays out one row: one block per row, each
/// thread holding `chunks` vectors of `width` elements in registers.
struct RowKernelShape {
  int64_t width = 1;
  int64_t threads = 32;
  int64_t chunks = 1;
};

/// The most elements of a row one thread keeps in registers. Measured on the
/// H200 (bench/device-rows.sh, 2026-12-03): softmax(x + b) rows of 32768 f32
/// (32 per thread) launch with 1024 threads; rows of 65536 (64 per thread)
/// need more than 64 registers per thread and cannot launch a full block.
constexpr int64_t kMaxRowElementsPerThread = 32;
/// The most threads of a row-reduction block.
constexpr int64_t kMaxRowThreads = 1024;

/// The layout of a row of `length` elements accessed `width` elements at a
/// time (the narrowest vector width of its row-shaped buffers), or nothing
/// when the row does not fit in the registers of one block. The kernel reads
/// each input once and writes each output once (a single pass).
std::optional<RowKernelShape> getRowKernelShape(int64_t length, int64_t width);

/// The flash-attention template: a block of kAttentionWarps warps computes
/// kAttentionQueryTile query rows of one (batch, head), 16 rows a warp,
/// walking the keys kAttentionKeyTile at a time.
constexpr int64_t kAttentionQueryTile = 64;
constexpr int64_t kAttentionKeyTile = 64;
constexpr int64_t kAttentionWarps = 4;
/// The head dims it keeps in registers: multiples of 16 (the k of
/// mma.m16n8k16) up to 128 (the output accumulator of a 16-row warp tile).
constexpr bool isAttentionHeadDim(int64_t dim) {
  return dim >= 16 && dim <= 128 && dim % 16 == 0;
}

} // namespace mlir::tfuse

#endif // TFUSE_TARGET_KERNELSHAPES_H
