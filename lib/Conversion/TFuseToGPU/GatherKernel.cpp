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
  Value rowLengthC = indexConst(b, loc, std::max<int64_t>(1, rowLength));
  Value row = arith::DivUIOp::create(b, loc, base, rowLengthC);
  Value column = arith::RemUIOp::create(b, loc, base, rowLengthC);
  Value id = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, entry.getArgument(1), row));
  id = arith::MaxSIOp::create(b, loc, id, indexConst(b, loc, 0));
  id = arith::MinSIOp::create(b, loc, id, indexConst(b, loc, vocab - 1));
  Value source = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, id, rowLengthC), column);
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
