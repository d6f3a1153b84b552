//===- LoopKernel.cpp - elementwise (loop) kernels --------------*- C++ -*-===//
//
// One thread per 16-byte vector of the iteration space: vector loads of the
// inputs (broadcast ones indexed from the element's coordinates), the region
// evaluated per lane in f32, vector stores of the results.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

FailureOr<EmittedKernel> kernel::emitLoopKernel(gpu::GPUModuleOp module,
                                                FusionOp fusion,
                                                StringRef name) {
  Location loc = fusion.getLoc();
  auto resultType = cast<RankedTensorType>(fusion.getResult(0).getType());
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t count = resultType.getNumElements();
  for (Value result : fusion.getResults())
    if (cast<RankedTensorType>(result.getType()).getShape() != shape)
      return fusion.emitOpError()
             << "loop kernels need every result in one iteration space";

  // The vector width of the narrowest full-size access that still moves 16
  // bytes for the widest element type; lanes stay within a row.
  SmallVector<RankedTensorType> buffers;
  int64_t width = 16;
  for (Value value :
       llvm::concat<Value>(fusion.getInputs(), fusion.getResults())) {
    auto type = cast<RankedTensorType>(value.getType());
    buffers.push_back(type);
    if (type.getShape() == shape)
      width = std::min(width, vectorWidth(type.getElementType(), count));
  }
  if (shape.empty() || shape.back() % width != 0)
    width = 1;
  int64_t threads = count / width;

  OpBuilder b(module.getContext());
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers);
  Block &entry = func.getBody().front();
  Value tid = guardedThreadIndex(b, loc, threads);

  Value base = arith::MulIOp::create(b, loc, tid, indexConst(b, loc, width));
  SmallVector<Value> coords = delinearize(b, loc, base, shape);
  Block &body = fusion.getBody().front();
  LaneMap lanes;
  for (auto [arg, memref] :
       llvm::zip(body.getArguments(), entry.getArguments())) {
    ArrayRef<int64_t> from = cast<RankedTensorType>(arg.getType()).getShape();
    lanes[arg] =
        loadBroadcastLanes(b, loc, memref, from, shape, base, coords, width);
  }
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  ElementwiseEmitter emitter;
  if (failed(evaluateLanes(b, emitter, ops, lanes, base, coords, shape, width)))
    return failure();
  for (auto [value, memref] :
       llvm::zip(fusion.getYield().getValues(),
                 entry.getArguments().drop_front(fusion.getInputs().size())))
    storeLanes(b, loc, lanes.lookup(value), memref, base);

  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);

  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "loop";
  launch.block = {kBlockSize, 1, 1};
  launch.grid = {static_cast<int64_t>(llvm::divideCeil(threads, kBlockSize)), 1,
                 1};
  return launch;
}
