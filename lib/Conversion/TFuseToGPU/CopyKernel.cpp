//===- CopyKernel.cpp - layout (copy) kernels -------------------*- C++ -*-===//
//
// transpose, slice and the pieces of split: every output element reads the
// input at permuted, offset coordinates. When the last dimension stays last
// the copy moves whole 16-byte vectors.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

FailureOr<EmittedKernel>
mlir::tfuse::emitCopyKernel(gpu::GPUModuleOp module, Location loc,
                            RankedTensorType input, RankedTensorType output,
                            ArrayRef<int64_t> perm, ArrayRef<int64_t> offsets,
                            StringRef name) {
  ArrayRef<int64_t> out = output.getShape(), in = input.getShape();
  size_t rank = out.size();
  int64_t count = output.getNumElements();
  int64_t width = 1;
  if (rank && perm.back() == (int64_t)rank - 1) {
    width = vectorWidth(output.getElementType(), out.back());
    if (in.back() % width || offsets.back() % width)
      width = 1;
  }
  int64_t threads = count / width;

  OpBuilder b(module.getContext());
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, {input, output});
  Block &entry = func.getBody().front();
  Value tid = guardedThreadIndex(b, loc, threads);

  Value base = arith::MulIOp::create(b, loc, tid, indexConst(b, loc, width));
  SmallVector<Value> coords = delinearize(b, loc, base, out);
  // Output dimension d reads input dimension perm[d], shifted by the offset.
  SmallVector<Value> source(rank);
  for (size_t d = 0; d < rank; ++d)
    source[perm[d]] = arith::AddIOp::create(
        b, loc, coords[d], indexConst(b, loc, offsets[perm[d]]));
  Value index = indexConst(b, loc, 0);
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    index = arith::AddIOp::create(
        b, loc, index,
        arith::MulIOp::create(b, loc, source[d], indexConst(b, loc, stride)));
    stride *= in[d];
  }
  SmallVector<Value> lanes =
      loadLanes(b, loc, entry.getArgument(0), index, width);
  storeLanes(b, loc, lanes, entry.getArgument(1), base);

  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);
  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "layout";
  launch.block = {kBlockSize, 1, 1};
  launch.grid = {static_cast<int64_t>(llvm::divideCeil(threads, kBlockSize)), 1,
                 1};
  return launch;
}
