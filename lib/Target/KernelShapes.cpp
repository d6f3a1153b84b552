//===- KernelShapes.cpp - what the kernel emitters can build ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/KernelShapes.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::tfuse;

int64_t mlir::tfuse::getVectorWidth(int64_t elementBytes, int64_t count) {
  int64_t width = 16 / std::max<int64_t>(1, elementBytes);
  return width > 0 && count % width == 0 ? width : 1;
}

std::optional<RowKernelShape> mlir::tfuse::getRowKernelShape(int64_t length,
                                                             int64_t width) {
  if (length <= 0 || width <= 0)
    return std::nullopt;
  if (length % width != 0)
    width = 1;
  RowKernelShape shape;
  shape.width = width;
  int64_t vectors = length / width;
  if (vectors < 32) {
    // A power-of-two lane group per row, several rows per block.
    shape.threads = int64_t(1) << llvm::Log2_64_Ceil(vectors);
    shape.rowsPerBlock = kPackedRowBlockThreads / shape.threads;
    return shape;
  }
  // Whole warps, at most one block's worth.
  shape.threads = std::min(kMaxRowThreads, (vectors + 31) / 32 * 32);
  shape.chunks = (vectors + shape.threads - 1) / shape.threads;
  if (shape.chunks * width <= kMaxRowElementsPerThread)
    return shape;
  shape.threads = kLoopingRowThreads;
  shape.chunks = std::max<int64_t>(1, kLoopingRowElementsPerThread / width);
  int64_t tile = shape.threads * shape.chunks * width;
  shape.tiles = (length + tile - 1) / tile;
  return shape;
}

RowKernelShape mlir::tfuse::getColumnReduceShape(int64_t length) {
  RowKernelShape shape;
  shape.threads = kColumnReduceWarps;
  int64_t perThread = (length + shape.threads - 1) / shape.threads;
  shape.chunks = std::min(perThread, kLoopingRowElementsPerThread);
  if (perThread > shape.chunks)
    shape.tiles = (length + shape.threads * shape.chunks - 1) /
                  (shape.threads * shape.chunks);
  return shape;
}

AttentionKernelShape mlir::tfuse::getAttentionKernelShape(int64_t headDim,
                                                          int64_t valueDim) {
  AttentionKernelShape shape;
  shape.rowTiles = std::max(headDim, valueDim) <= 64 ? 2 : 1;
  shape.minBlocksPerSm = shape.rowTiles == 1 ? 3 : 2;
  return shape;
}

AttentionGradKernelShape
mlir::tfuse::getAttentionGradKernelShape(int64_t headDim, int64_t valueDim,
                                         int64_t elementBytes) {
  AttentionGradKernelShape shape;
  // Scores and their gradient take keyTile / 2 registers a thread each,
  // beside dQ's 2 headDim / 4 and the query and dO fragments.
  shape.keyTile = std::max(headDim, valueDim) <= 64 ? 64 : 32;
  for (int64_t tile : {64, 32, 16}) {
    shape.queryTile = tile;
    if (shape.keyKernelSharedBytes(headDim, valueDim, elementBytes) <=
        48 * 1024)
      break;
  }
  return shape;
}
