//===- ConcatKernel.cpp - concatenation kernels -----------------*- C++ -*-===//
//
// tfuse.concat as one copy kernel: each thread owns a 16-byte vector of the
// result and reads it from the input whose range along the axis holds it
// (a chain of scf.if on that coordinate). A vector never straddles two
// inputs: along the last axis, the width divides every input's extent.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>
#include <numeric>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

FailureOr<EmittedKernel> mlir::tfuse::emitConcatKernel(gpu::GPUModuleOp module,
                                                       ConcatOp op,
                                                       StringRef name) {
  Location loc = op.getLoc();
  RankedTensorType output = op.getResult().getType();
  ArrayRef<int64_t> out = output.getShape();
  int64_t axis = op.getAxis(), rank = out.size();
  // One argument per distinct input (the plan passes each buffer once).
  SmallVector<Value> distinct;
  SmallVector<RankedTensorType> buffers, types;
  SmallVector<unsigned> argOf;
  SmallVector<int64_t> ends;
  int64_t extents = 0, end = 0;
  for (Value input : op.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    auto *at = llvm::find(distinct, input);
    argOf.push_back(at - distinct.begin());
    if (at == distinct.end()) {
      distinct.push_back(input);
      buffers.push_back(type);
    }
    types.push_back(type);
    end += type.getDimSize(axis);
    ends.push_back(end);
    extents = std::gcd(extents, type.getDimSize(axis));
  }
  buffers.push_back(output);
  int64_t width = rank ? vectorWidth(output.getElementType(), out.back()) : 1;
  if (axis == rank - 1 && (extents == 0 || extents % width != 0))
    width = 1;
  int64_t threads = output.getNumElements() / width;

  OpBuilder b(module.getContext());
  gpu::GPUFuncOp func = createKernel(b, module, loc, name, buffers);
  Block &entry = func.getBody().front();
  Value tid = guardedThreadIndex(b, loc, threads);
  Value base = arith::MulIOp::create(b, loc, tid, indexConst(b, loc, width));
  SmallVector<Value> coords = delinearize(b, loc, base, out);
  // Input i's lanes: its element at the coordinates, shifted along the axis.
  auto load = [&](size_t i) {
    ArrayRef<int64_t> in = types[i].getShape();
    int64_t start = ends[i] - in[axis];
    Value index = indexConst(b, loc, 0);
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value coord = coords[d];
      if (d == axis && start)
        coord = arith::SubIOp::create(b, loc, coord, indexConst(b, loc, start));
      index = arith::AddIOp::create(
          b, loc, index,
          arith::MulIOp::create(b, loc, coord, indexConst(b, loc, stride)));
      stride *= in[d];
    }
    return loadLanes(b, loc, entry.getArgument(argOf[i]), index, width);
  };
  SmallVector<Type> laneTypes(width, b.getF32Type());
  std::function<SmallVector<Value>(size_t)> pick =
      [&](size_t i) -> SmallVector<Value> {
    if (i + 1 == ends.size())
      return load(i);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, coords[axis],
                              indexConst(b, loc, ends[i]));
    auto branch = scf::IfOp::create(b, loc, laneTypes, inside,
                                    /*withElseRegion=*/true);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    scf::YieldOp::create(b, loc, load(i));
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    scf::YieldOp::create(b, loc, pick(i + 1));
    b.setInsertionPointAfter(branch);
    return SmallVector<Value>(branch.getResults());
  };
  SmallVector<Value> lanes = pick(0);
  storeLanes(b, loc, lanes, entry.getArgument(distinct.size()), base);

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
