//===- CopyKernel.cpp - layout (copy) kernels -------------------*- C++ -*-===//
//
// transpose, slice and the pieces of split: every output element reads the
// input at permuted, offset coordinates. When the last dimension stays last
// the copy moves whole 16-byte vectors. A rotation (tfuse.rope) is applied
// as the kernel copies: the transpose that writes q or k head-major rotates
// them on the way, so rope costs no pass of its own.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

FailureOr<EmittedKernel>
mlir::tfuse::emitCopyKernel(gpu::GPUModuleOp module, Location loc,
                            RankedTensorType input, RankedTensorType output,
                            ArrayRef<int64_t> perm, ArrayRef<int64_t> offsets,
                            StringRef name, const CopyRotation *rotation) {
  ArrayRef<int64_t> out = output.getShape(), in = input.getShape();
  size_t rank = out.size();
  int64_t count = output.getNumElements();
  int64_t width = 1;
  // A rotated vector lies within one half of the rotary dims (or past them)
  // and so does its partner.
  int64_t half = rotation ? rotation->invFreq.getNumElements() : 0;
  if (rank && perm.back() == (int64_t)rank - 1) {
    width = vectorWidth(output.getElementType(), out.back());
    if (in.back() % width || offsets.back() % width || (half && half % width))
      width = 1;
  }
  int64_t threads = count / width;

  OpBuilder b(module.getContext());
  SmallVector<RankedTensorType> buffers = {input};
  if (rotation)
    buffers.push_back(rotation->invFreq);
  buffers.push_back(output);
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers);
  Block &entry = func.getBody().front();
  Value tid = guardedThreadIndex(b, loc, threads);

  Value base = arith::MulIOp::create(b, loc, tid, indexConst(b, loc, width));
  SmallVector<Value> coords = delinearize(b, loc, base, out);
  // Output coordinates c read input dimension perm[d] at c[d] + offset.
  auto sourceIndex = [&](ArrayRef<Value> at) {
    SmallVector<Value> source(rank);
    for (size_t d = 0; d < rank; ++d)
      source[perm[d]] = arith::AddIOp::create(
          b, loc, at[d], indexConst(b, loc, offsets[perm[d]]));
    Value index = indexConst(b, loc, 0);
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      index = arith::AddIOp::create(
          b, loc, index,
          arith::MulIOp::create(b, loc, source[d], indexConst(b, loc, stride)));
      stride *= in[d];
    }
    return index;
  };
  Value source = entry.getArgument(0);
  SmallVector<Value> lanes =
      loadLanes(b, loc, source, sourceIndex(coords), width);
  if (rotation)
    lanes = rotateLanes(b, loc, *rotation, source, entry.getArgument(1), coords,
                        lanes, sourceIndex);
  storeLanes(b, loc, lanes, entry.getArguments().back(), base);

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

SmallVector<Value> mlir::tfuse::kernel::rotateLanes(
    OpBuilder &b, Location loc, const CopyRotation &rotation, Value source,
    Value invFreq, ArrayRef<Value> coords, ArrayRef<Value> lanes,
    function_ref<Value(ArrayRef<Value>)> sourceIndex) {
  size_t rank = coords.size();
  int64_t width = lanes.size();
  int64_t half = rotation.invFreq.getNumElements();
  Value column = coords[rank - 1];
  Value halfC = indexConst(b, loc, half);
  // The vector's partner: h columns on in the first half, h back in the
  // second; past the rotary dims it is not read (column 0 stands in).
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column, halfC);
  Value rotated = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        column, indexConst(b, loc, 2 * half));
  Value partnerColumn = arith::SelectOp::create(
      b, loc, first, arith::AddIOp::create(b, loc, column, halfC),
      arith::SelectOp::create(b, loc, rotated,
                              arith::SubIOp::create(b, loc, column, halfC),
                              indexConst(b, loc, 0)));
  SmallVector<Value> partnerCoords(coords);
  partnerCoords.back() = partnerColumn;
  SmallVector<Value> partners =
      loadLanes(b, loc, source, sourceIndex(partnerCoords), width);
  // Frequencies of the vector's columns, h apart in the two halves.
  Value frequencyColumn = arith::SelectOp::create(
      b, loc, first, column,
      arith::SelectOp::create(b, loc, rotated,
                              arith::SubIOp::create(b, loc, column, halfC),
                              indexConst(b, loc, 0)));
  SmallVector<Value> frequencies =
      loadLanes(b, loc, invFreq, frequencyColumn, width);
  Value position = arith::UIToFPOp::create(
      b, loc, b.getF32Type(),
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), coords[rank - 2]));
  Value scaling = f32Const(b, loc, rotation.attentionScaling);
  SmallVector<Value> result;
  for (int64_t lane = 0; lane < width; ++lane) {
    Value angle = arith::MulFOp::create(b, loc, position, frequencies[lane]);
    Value c = arith::MulFOp::create(b, loc, math::CosOp::create(b, loc, angle),
                                    scaling);
    Value s = arith::MulFOp::create(b, loc, math::SinOp::create(b, loc, angle),
                                    scaling);
    Value partner = arith::SelectOp::create(
        b, loc, first, arith::NegFOp::create(b, loc, partners[lane]),
        partners[lane]);
    Value y = math::FmaOp::create(
        b, loc, partner, s, arith::MulFOp::create(b, loc, lanes[lane], c));
    result.push_back(arith::SelectOp::create(b, loc, rotated, y, lanes[lane]));
  }
  return result;
}
