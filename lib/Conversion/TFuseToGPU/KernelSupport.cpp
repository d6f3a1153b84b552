//===- KernelSupport.cpp - shared pieces of the kernel emitters -*- C++ -*-===//
//
// Index arithmetic, f32 loads/stores and the per-element semantics of the
// elementwise ops, matching lib/Reference (computed in f32 instead of f64).
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "tfuse/Reference/Philox.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

Value kernel::indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value kernel::f32Const(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(value)));
}

MemRefType kernel::flatMemRef(RankedTensorType type) {
  return MemRefType::get({type.getNumElements()}, type.getElementType());
}

int64_t kernel::vectorWidth(Type elementType, int64_t count) {
  return getVectorWidth(
      llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8), count);
}

SmallVector<Value> kernel::delinearize(OpBuilder &b, Location loc, Value linear,
                                       ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  Value rest = linear;
  for (int64_t dim = shape.size() - 1; dim >= 0; --dim) {
    Value size = indexConst(b, loc, shape[dim]);
    coords[dim] = dim == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size);
    if (dim > 0)
      rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return coords;
}

Value kernel::broadcastIndex(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                             ArrayRef<int64_t> to, ArrayRef<int64_t> from) {
  Value index = indexConst(b, loc, 0);
  int64_t stride = 1;
  for (int64_t dim = from.size() - 1; dim >= 0; --dim) {
    int64_t toDim = dim + (to.size() - from.size());
    if (from[dim] != 1) {
      Value term = arith::MulIOp::create(b, loc, coords[toDim],
                                         indexConst(b, loc, stride));
      index = arith::AddIOp::create(b, loc, index, term);
    }
    stride *= from[dim];
  }
  return index;
}

static Value toF32(OpBuilder &b, Location loc, Value value) {
  Type type = getElementTypeOrSelf(value.getType());
  if (type.isF32())
    return value;
  Type f32 = b.getF32Type();
  if (auto vector = dyn_cast<VectorType>(value.getType()))
    f32 = VectorType::get(vector.getShape(), f32);
  if (isa<FloatType>(type))
    return arith::ExtFOp::create(b, loc, f32, value);
  return arith::SIToFPOp::create(b, loc, f32, value);
}

SmallVector<Value> kernel::loadLanes(OpBuilder &b, Location loc, Value memref,
                                     Value index, int64_t width) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  if (width == 1)
    return {toF32(b, loc, memref::LoadOp::create(b, loc, memref, index))};
  auto vectorType = VectorType::get({width}, element);
  int64_t alignment =
      width * llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  auto load = vector::LoadOp::create(b, loc, vectorType, memref, index);
  load.setAlignment(alignment);
  Value wide = toF32(b, loc, load);
  SmallVector<Value> lanes;
  for (int64_t lane = 0; lane < width; ++lane)
    lanes.push_back(vector::ExtractOp::create(b, loc, wide, lane));
  return lanes;
}

static Value fromF32(OpBuilder &b, Location loc, Value value, Type element) {
  if (element.isF32())
    return value;
  Type target = element;
  if (auto vector = dyn_cast<VectorType>(value.getType()))
    target = VectorType::get(vector.getShape(), element);
  return arith::TruncFOp::create(b, loc, target, value);
}

void kernel::storeLanes(OpBuilder &b, Location loc, ArrayRef<Value> lanes,
                        Value memref, Value index) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  if (lanes.size() == 1) {
    memref::StoreOp::create(b, loc, fromF32(b, loc, lanes[0], element), memref,
                            index);
    return;
  }
  auto f32Vector = VectorType::get({(int64_t)lanes.size()}, b.getF32Type());
  Value wide = vector::FromElementsOp::create(b, loc, f32Vector, lanes);
  auto store = vector::StoreOp::create(b, loc, fromF32(b, loc, wide, element),
                                       memref, index);
  store.setAlignment(lanes.size() *
                     llvm::divideCeil(element.getIntOrFloatBitWidth(), 8));
}

gpu::GPUFuncOp kernel::createKernel(OpBuilder &b, gpu::GPUModuleOp module,
                                    Location loc, StringRef name,
                                    ArrayRef<RankedTensorType> buffers,
                                    int64_t workgroupFloats) {
  SmallVector<Type> argTypes;
  for (RankedTensorType buffer : buffers)
    argTypes.push_back(flatMemRef(buffer));
  SmallVector<Type> workgroup;
  if (workgroupFloats)
    workgroup.push_back(MemRefType::get(
        {workgroupFloats}, b.getF32Type(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup)));
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(
      b, loc, name, b.getFunctionType(argTypes, {}), workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(&func.getBody().front());
  return func;
}

Value kernel::guardedThreadIndex(OpBuilder &b, Location loc, int64_t threads) {
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value index = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, block, indexConst(b, loc, kBlockSize)),
      thread);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        index, indexConst(b, loc, threads));
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  return index;
}

SmallVector<Value> kernel::laneCoords(OpBuilder &b, Location loc,
                                      ArrayRef<Value> coords, int64_t lane) {
  SmallVector<Value> result(coords);
  if (lane && !result.empty())
    result.back() =
        arith::AddIOp::create(b, loc, result.back(), indexConst(b, loc, lane));
  return result;
}

SmallVector<Value> kernel::loadBroadcastLanes(
    OpBuilder &b, Location loc, Value arg, ArrayRef<int64_t> from,
    ArrayRef<int64_t> to, Value linear, ArrayRef<Value> coords, int64_t width) {
  if (from == to)
    return loadLanes(b, loc, arg, linear, width);
  if (!from.empty() && from.back() == to.back() && from.back() != 1)
    return loadLanes(b, loc, arg, broadcastIndex(b, loc, coords, to, from),
                     width);
  if (from.empty() || from.back() == 1) {
    Value shared =
        loadLanes(b, loc, arg, broadcastIndex(b, loc, coords, to, from), 1)[0];
    return SmallVector<Value>(width, shared);
  }
  SmallVector<Value> lanes;
  for (int64_t lane = 0; lane < width; ++lane)
    lanes.push_back(loadLanes(
        b, loc, arg,
        broadcastIndex(b, loc, laneCoords(b, loc, coords, lane), to, from),
        1)[0]);
  return lanes;
}

Value kernel::roundToElementType(OpBuilder &b, Location loc, Value value,
                                 Value result) {
  Type element = getElementTypeOrSelf(result.getType());
  if (element.isF32() || !isa<FloatType>(element))
    return value;
  Value narrow = arith::TruncFOp::create(b, loc, element, value);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), narrow);
}

LogicalResult kernel::evaluateLanes(OpBuilder &b, ElementwiseEmitter &emitter,
                                    ArrayRef<Operation *> ops, LaneMap &lanes,
                                    Value base, ArrayRef<Value> coords,
                                    ArrayRef<int64_t> shape, int64_t width) {
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    SmallVector<Value> results;
    for (int64_t lane = 0; lane < width; ++lane) {
      Element element;
      element.shape = shape;
      element.lane = lane;
      element.coords = laneCoords(b, loc, coords, lane);
      element.linear =
          lane ? arith::AddIOp::create(b, loc, base, indexConst(b, loc, lane))
               : base;
      if (width % 4 == 0)
        element.vectorBase = base;
      SmallVector<Value> operands;
      for (Value operand : op->getOperands())
        operands.push_back(lanes.lookup(operand)[lane]);
      FailureOr<Value> value = emitter.emit(b, op, operands, element);
      if (failed(value))
        return failure();
      results.push_back(roundToElementType(b, loc, *value, op->getResult(0)));
    }
    lanes[op->getResult(0)] = std::move(results);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise semantics (mirrors lib/Reference/Elementwise.cpp)
//===----------------------------------------------------------------------===//

std::array<Value, 4> mlir::tfuse::kernel::emitPhilox(OpBuilder &b, Location loc,
                                                     Value counter,
                                                     uint64_t seed) {
  Type i32 = b.getI32Type();
  auto i32Const = [&](uint32_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  };
  Value wide = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), counter);
  Value c0 = arith::TruncIOp::create(b, loc, i32, wide);
  Value c1 = arith::TruncIOp::create(
      b, loc, i32,
      arith::ShRUIOp::create(
          b, loc, wide,
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32))));
  // The counter's high words are zero (ref::philox::counterOfBlock).
  Value c2 = i32Const(0), c3 = i32Const(0);
  std::array<uint32_t, 2> key = ref::philox::keyFromSeed(seed);
  Value m0 = i32Const(ref::philox::kMultiplier0),
        m1 = i32Const(ref::philox::kMultiplier1);
  for (int round = 0; round < ref::philox::kRounds; ++round) {
    auto [k0, k1] = ref::philox::roundKey(key, round);
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c0);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c2);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c1), i32Const(k0));
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c3), i32Const(k1));
    c0 = n0;
    c1 = p1.getLow();
    c2 = n2;
    c3 = p0.getLow();
  }
  return {c0, c1, c2, c3};
}

Value mlir::tfuse::kernel::emitPhiloxWord(OpBuilder &b, Location loc,
                                          Value linear, uint64_t seed) {
  // Element i takes word i % 4 of the call at counter i / 4.
  constexpr int64_t words = ref::philox::kWordsPerCall;
  std::array<Value, 4> draws = emitPhilox(
      b, loc, arith::DivUIOp::create(b, loc, linear, indexConst(b, loc, words)),
      seed);
  Value which =
      arith::RemUIOp::create(b, loc, linear, indexConst(b, loc, words));
  Value word = draws[words - 1];
  for (int i = words - 2; i >= 0; --i) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, which,
                                     indexConst(b, loc, i));
    word = arith::SelectOp::create(b, loc, is, draws[i], word);
  }
  return word;
}

Value ElementwiseEmitter::dropout(OpBuilder &b, Location loc, DropoutOp op,
                                  Value x, const Element &element) {
  double p = op.getP().convertToDouble();
  uint64_t seed = op.getSeed();
  constexpr int64_t words = ref::philox::kWordsPerCall;
  Value word;
  if (element.vectorBase) {
    // Lanes base .. base+3 share one counter (base is a multiple of 4).
    auto key = std::make_tuple(op.getOperation(), element.vectorBase,
                               element.lane / words);
    auto it = philoxCache.find(key);
    if (it == philoxCache.end()) {
      Value counter = arith::AddIOp::create(
          b, loc,
          arith::DivUIOp::create(b, loc, element.vectorBase,
                                 indexConst(b, loc, words)),
          indexConst(b, loc, element.lane / words));
      it = philoxCache.insert({key, emitPhilox(b, loc, counter, seed)}).first;
    }
    word = it->second[element.lane % words];
  } else {
    word = emitPhiloxWord(b, loc, element.linear, seed);
  }
  return emitDropout(b, loc, x, word, p);
}

Value mlir::tfuse::kernel::emitDropout(OpBuilder &b, Location loc, Value x,
                                       Value word, double p) {
  uint32_t threshold = ref::philox::dropoutThreshold(p);
  // ref::philox::keeps: an unsigned word >= threshold.
  Value keep = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::uge, word,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(threshold)));
  // x * (1 / (1 - p)) with the scale in two f32 parts, so the product is
  // the correctly rounded one the reference computes in f64.
  double scale = 1.0 / (1.0 - p);
  float high = static_cast<float>(scale);
  float low = static_cast<float>(scale - high);
  Value kept = math::FmaOp::create(
      b, loc, x, f32Const(b, loc, high),
      arith::MulFOp::create(b, loc, x, f32Const(b, loc, low)));
  return arith::SelectOp::create(b, loc, keep, kept, f32Const(b, loc, 0.0));
}

FailureOr<Value> ElementwiseEmitter::emit(OpBuilder &b, Operation *op,
                                          ArrayRef<Value> in,
                                          const Element &element) {
  Location loc = op->getLoc();
  auto one = [&] { return f32Const(b, loc, 1.0); };
  auto sigmoid = [&](Value x) -> Value {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, one(),
                                 arith::AddFOp::create(b, loc, one(), e));
  };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](AddOp) -> Value {
        return arith::AddFOp::create(b, loc, in[0], in[1]);
      })
      .Case([&](SubOp) -> Value {
        return arith::SubFOp::create(b, loc, in[0], in[1]);
      })
      .Case([&](MulOp) -> Value {
        return arith::MulFOp::create(b, loc, in[0], in[1]);
      })
      .Case([&](DivOp) -> Value {
        return arith::DivFOp::create(b, loc, in[0], in[1]);
      })
      .Case([&](MaxOp) -> Value {
        return arith::MaximumFOp::create(b, loc, in[0], in[1]);
      })
      .Case([&](MinOp) -> Value {
        return arith::MinimumFOp::create(b, loc, in[0], in[1]);
      })
      .Case(
          [&](NegOp) -> Value { return arith::NegFOp::create(b, loc, in[0]); })
      .Case([&](ExpOp) -> Value { return math::ExpOp::create(b, loc, in[0]); })
      .Case([&](LogOp) -> Value { return math::LogOp::create(b, loc, in[0]); })
      .Case(
          [&](TanhOp) -> Value { return math::TanhOp::create(b, loc, in[0]); })
      .Case([&](ErfOp) -> Value { return math::ErfOp::create(b, loc, in[0]); })
      .Case(
          [&](SqrtOp) -> Value { return math::SqrtOp::create(b, loc, in[0]); })
      .Case([&](RsqrtOp) -> Value {
        return math::RsqrtOp::create(b, loc, in[0]);
      })
      .Case([&](SigmoidOp) -> Value { return sigmoid(in[0]); })
      .Case([&](ReluOp) -> Value {
        return arith::MaximumFOp::create(b, loc, in[0], f32Const(b, loc, 0.0));
      })
      .Case([&](SiluOp) -> Value {
        return arith::MulFOp::create(b, loc, in[0], sigmoid(in[0]));
      })
      .Case([&](StepOp) -> Value {
        // Ordered compare: NaN gives 0, as in the reference.
        Value positive = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGT, in[0], f32Const(b, loc, 0.0));
        return arith::SelectOp::create(b, loc, positive, one(),
                                       f32Const(b, loc, 0.0));
      })
      .Case([&](GeluOp gelu) -> Value {
        Value x = in[0];
        Value inner;
        if (gelu.getApproximate() == GeluApproximation::tanh) {
          Value cube = arith::MulFOp::create(
              b, loc, arith::MulFOp::create(b, loc, x, x), x);
          Value poly = arith::AddFOp::create(
              b, loc, x,
              arith::MulFOp::create(b, loc, cube, f32Const(b, loc, 0.044715)));
          inner = math::TanhOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, poly,
                                    f32Const(b, loc, std::sqrt(2.0 / M_PI))));
        } else {
          inner = math::ErfOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, x, f32Const(b, loc, M_SQRT1_2)));
        }
        Value half = arith::MulFOp::create(b, loc, x, f32Const(b, loc, 0.5));
        return arith::MulFOp::create(
            b, loc, half, arith::AddFOp::create(b, loc, one(), inner));
      })
      .Case([&](CastOp cast) -> Value {
        // Round through the result type so that the value matches storing it.
        Type to = cast.getType().getElementType();
        if (to.isF32())
          return in[0];
        Value narrow = arith::TruncFOp::create(b, loc, to, in[0]);
        return arith::ExtFOp::create(b, loc, b.getF32Type(), narrow);
      })
      .Case([&](ConstantOp constant) -> FailureOr<Value> {
        auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
        if (!dense || !dense.isSplat())
          return constant.emitOpError()
                 << "only splat constants are built inside kernels";
        return f32Const(b, loc,
                        dense.getSplatValue<APFloat>().convertToDouble());
      })
      .Case([&](CausalMaskOp) -> Value {
        size_t rank = element.coords.size();
        Value row = element.coords[rank - 2], col = element.coords[rank - 1];
        Value above =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, col, row);
        return arith::SelectOp::create(
            b, loc, above, f32Const(b, loc, -INFINITY), f32Const(b, loc, 0.0));
      })
      .Case([&](WindowMaskOp mask) -> Value {
        // Masked above the diagonal or window or more rows below it.
        size_t rank = element.coords.size();
        Value row = element.coords[rank - 2], col = element.coords[rank - 1];
        Value above =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, col, row);
        Value reach = arith::AddIOp::create(
            b, loc, col, indexConst(b, loc, mask.getWindow()));
        Value far = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                          reach, row);
        return arith::SelectOp::create(
            b, loc, arith::OrIOp::create(b, loc, above, far),
            f32Const(b, loc, -INFINITY), f32Const(b, loc, 0.0));
      })
      .Case([&](DropoutOp dropoutOp) -> Value {
        return dropout(b, loc, dropoutOp, in[0], element);
      })
      .Default([&](Operation *other) -> FailureOr<Value> {
        return other->emitOpError() << "has no elementwise kernel semantics";
      });
}
