//===- MultiTensorKernel.cpp - optimizer updates, one launch ----*- C++ -*-===//
//
// The tfuse.adamw and tfuse.sgd updates of a function in one kernel: each
// update owns a contiguous range of blocks, one thread per vector of 4
// elements (1 when its size is not a multiple of 4), so every byte of every
// parameter, gradient and state tensor moves once. AdamW's per-tensor
// scalars are computed as the reference computes them (in f64 from the f32
// lr and step, rounded once to f32), by one thread of each block, which
// shares them through workgroup memory; every per-element operation is one
// f32 operation in the reference's order.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::kernel;

namespace {

/// Element-wise f32 arithmetic of one update.
struct Arith {
  OpBuilder &b;
  Location loc;
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value f64(double value) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  }
  Value toF64(Value x) {
    return arith::ExtFOp::create(b, loc, b.getF64Type(), x);
  }
  Value toF32(Value x) {
    return arith::TruncFOp::create(b, loc, b.getF32Type(), x);
  }
};

/// Loads the rank-0 f32 scalar `memref` holds.
Value loadScalar(OpBuilder &b, Location loc, Value memref) {
  return memref::LoadOp::create(b, loc, memref,
                                ValueRange{indexConst(b, loc, 0)});
}

/// AdamW's per-tensor scalars, as the reference computes them: lr *
/// weight_decay, lr / (1 - beta1^step) and sqrt(1 - beta2^step) in f64 from
/// the f32 lr and step, each rounded once to f32.
SmallVector<Value> adamwScalars(OpBuilder &b, Location loc, AdamWOp op,
                                Value lrRaw, Value stepRaw) {
  Arith e{b, loc};
  Value lr = e.toF64(lrRaw), step = e.toF64(stepRaw);
  Value one = e.f64(1.0);
  auto correction = [&](FloatAttr beta) {
    return arith::SubFOp::create(
        b, loc, one,
        math::PowFOp::create(b, loc, e.f64(beta.getValueAsDouble()), step));
  };
  Value decay = e.toF32(arith::MulFOp::create(
      b, loc, lr, e.f64(op.getWeightDecay().convertToDouble())));
  Value stepSize =
      e.toF32(arith::DivFOp::create(b, loc, lr, correction(op.getBeta1Attr())));
  Value root =
      e.toF32(math::SqrtOp::create(b, loc, correction(op.getBeta2Attr())));
  return {decay, stepSize, root};
}

/// The lanes of one AdamW update (Reference.h gives the formulas), from its
/// scalars (adamwScalars).
SmallVector<SmallVector<Value>> adamwLanes(OpBuilder &b, Location loc,
                                           AdamWOp op, ArrayRef<Value> scalars,
                                           ArrayRef<SmallVector<Value>> in) {
  Arith e{b, loc};
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  bool decays = op.getWeightDecay().convertToDouble() != 0.0;
  Value decay = scalars[0], stepSize = scalars[1], root = scalars[2];
  Value b1 = f32Const(b, loc, static_cast<float>(beta1));
  Value b2 = f32Const(b, loc, static_cast<float>(beta2));
  Value c1 = f32Const(b, loc, static_cast<float>(1.0 - beta1));
  Value c2 = f32Const(b, loc, static_cast<float>(1.0 - beta2));
  Value eps =
      f32Const(b, loc, static_cast<float>(op.getEpsilon().convertToDouble()));
  SmallVector<SmallVector<Value>> out(3);
  for (size_t lane = 0; lane < in[0].size(); ++lane) {
    Value p = in[0][lane], g = in[1][lane], m = in[2][lane], v = in[3][lane];
    if (decays)
      p = e.sub(p, e.mul(decay, p));
    m = e.add(e.mul(b1, m), e.mul(c1, g));
    v = e.add(e.mul(b2, v), e.mul(e.mul(c2, g), g));
    Value denom = e.add(e.div(math::SqrtOp::create(b, loc, v), root), eps);
    p = e.sub(p, e.div(e.mul(stepSize, m), denom));
    out[0].push_back(p);
    out[1].push_back(m);
    out[2].push_back(v);
  }
  return out;
}

/// The lanes of one SGD update.
SmallVector<SmallVector<Value>> sgdLanes(OpBuilder &b, Location loc, SgdOp op,
                                         Value lr, Value step,
                                         ArrayRef<SmallVector<Value>> in) {
  Arith e{b, loc};
  double momentum = op.getMomentum().convertToDouble();
  double weightDecay = op.getWeightDecay().convertToDouble();
  Value first = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, step,
                                      f32Const(b, loc, 1.0));
  Value mom = f32Const(b, loc, static_cast<float>(momentum));
  Value c = f32Const(
      b, loc, static_cast<float>(1.0 - op.getDampening().convertToDouble()));
  Value wd = f32Const(b, loc, static_cast<float>(weightDecay));
  SmallVector<SmallVector<Value>> out(2);
  for (size_t lane = 0; lane < in[0].size(); ++lane) {
    Value p = in[0][lane], d = in[1][lane], buf = in[2][lane];
    if (weightDecay != 0.0)
      d = e.add(d, e.mul(wd, p));
    buf = arith::SelectOp::create(b, loc, first, d,
                                  e.add(e.mul(mom, buf), e.mul(c, d)));
    d = op.getNesterov() ? e.add(d, e.mul(mom, buf)) : buf;
    p = e.sub(p, e.mul(lr, d));
    out[0].push_back(p);
    out[1].push_back(buf);
  }
  return out;
}

} // namespace

FailureOr<EmittedKernel> kernel::emitMultiTensorKernel(gpu::GPUModuleOp module,
                                                       FusionOp fusion,
                                                       StringRef name) {
  Location loc = fusion.getLoc();
  Block &body = fusion.getBody().front();
  SmallVector<RankedTensorType> buffers;
  for (Value value :
       llvm::concat<Value>(fusion.getInputs(), fusion.getResults()))
    buffers.push_back(cast<RankedTensorType>(value.getType()));

  // AdamW's scalars are computed once per block (f64 is slow on the
  // workstation GPUs) and shared through workgroup memory.
  constexpr int64_t kNumScalars = 3;
  OpBuilder b(module.getContext());
  gpu::GPUFuncOp func =
      createKernel(b, module, loc, name, buffers, kNumScalars);
  Value shared = func.getWorkgroupAttributions().front();
  Block &entry = func.getBody().front();
  // Region values -> kernel arguments: inputs, then yielded results.
  llvm::DenseMap<Value, Value> memrefOf;
  for (auto [arg, memref] :
       llvm::zip(body.getArguments(), entry.getArguments()))
    memrefOf[arg] = memref;
  auto yield = fusion.getYield();
  for (auto [value, memref] :
       llvm::zip(yield.getValues(),
                 entry.getArguments().drop_front(fusion.getInputs().size())))
    memrefOf.try_emplace(value, memref);

  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  int64_t firstBlock = 0;
  for (Operation &member : body.without_terminator()) {
    if (!isa<AdamWOp, SgdOp>(member))
      return member.emitOpError()
             << "is not an optimizer update: a multi_tensor kernel runs "
                "tfuse.adamw and tfuse.sgd only";
    for (Value operand : member.getOperands())
      if (!memrefOf.count(operand) || !isa<BlockArgument>(operand))
        return member.emitOpError()
               << "reads a value computed in its multi_tensor kernel";
    int64_t count =
        cast<RankedTensorType>(member.getOperand(0).getType()).getNumElements();
    int64_t width = count % 4 == 0 ? 4 : 1;
    int64_t threads = count / width;
    int64_t blocks = llvm::divideCeil(threads, kBlockSize);
    if (blocks == 0)
      continue;

    // This update's blocks: [firstBlock, firstBlock + blocks).
    OpBuilder::InsertionGuard guard(b);
    Value offset =
        arith::SubIOp::create(b, loc, block, indexConst(b, loc, firstBlock));
    Value mine = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, block,
                              indexConst(b, loc, firstBlock)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, offset,
                              indexConst(b, loc, blocks)));
    auto inRange = scf::IfOp::create(b, loc, mine, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&inRange.getThenRegion().front());
    bool adamw = isa<AdamWOp>(member);
    unsigned numTensors = adamw ? 4 : 3;
    Value lrMemref = memrefOf[member.getOperand(numTensors)];
    Value stepMemref = memrefOf[member.getOperand(numTensors + 1)];
    SmallVector<Value> scalars;
    if (adamw) {
      // Block-uniform: thread 0 computes, every thread of the block reads.
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          thread, indexConst(b, loc, 0));
      auto leader = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inLeader(b);
        b.setInsertionPointToStart(&leader.getThenRegion().front());
        Value lr = loadScalar(b, loc, lrMemref);
        Value step = loadScalar(b, loc, stepMemref);
        SmallVector<Value> computed =
            adamwScalars(b, loc, cast<AdamWOp>(member), lr, step);
        for (auto [i, value] : llvm::enumerate(computed))
          memref::StoreOp::create(b, loc, value, shared,
                                  ValueRange{indexConst(b, loc, i)});
      }
      gpu::BarrierOp::create(b, loc);
      for (int64_t i = 0; i < kNumScalars; ++i)
        scalars.push_back(memref::LoadOp::create(
            b, loc, shared, ValueRange{indexConst(b, loc, i)}));
    }
    Value index = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, offset, indexConst(b, loc, kBlockSize)),
        thread);
    auto inTensor = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                              indexConst(b, loc, threads)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(&inTensor.getThenRegion().front());
    Value base =
        arith::MulIOp::create(b, loc, index, indexConst(b, loc, width));

    SmallVector<SmallVector<Value>> in;
    for (unsigned i = 0; i < numTensors; ++i)
      in.push_back(
          loadLanes(b, loc, memrefOf[member.getOperand(i)], base, width));
    SmallVector<SmallVector<Value>> out;
    if (adamw) {
      out = adamwLanes(b, loc, cast<AdamWOp>(member), scalars, in);
    } else {
      Value lr = loadScalar(b, loc, lrMemref);
      Value step = loadScalar(b, loc, stepMemref);
      out = sgdLanes(b, loc, cast<SgdOp>(member), lr, step, in);
    }
    // The model weight is the new param, rounded as it is stored.
    if (member.getNumResults() > out.size())
      out.push_back(out.front());
    for (auto [result, lanes] : llvm::zip(member.getResults(), out))
      if (Value memref = memrefOf.lookup(result))
        storeLanes(b, loc, lanes, memref, base);
    firstBlock += blocks;
  }
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b, loc);

  EmittedKernel launch;
  launch.name = name.str();
  launch.templateName = "multi_tensor";
  launch.block = {kBlockSize, 1, 1};
  launch.grid = {std::max<int64_t>(firstBlock, 1), 1, 1};
  return launch;
}
