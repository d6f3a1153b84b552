//===- TrafficAnalysis.cpp - per-op memory traffic and roofline -*- C++ -*-===//
//
// Collects the cost interface of every op and predicts its time per target.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Support/CheckedInt.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tfuse;

double OpTraffic::intensity() const {
  return bytes() == 0 ? 0.0 : static_cast<double>(flops) / bytes();
}

OpTime TrafficReport::timeOf(const OpTraffic &op,
                             const GpuTarget &target) const {
  OpTime sum;
  for (const KernelCost &kernel : kernelsOf(op)) {
    KernelWork work = kernel.workOn(target);
    KernelTime time = predictKernelTime(work, target);
    sum.time.memoryUs += time.memoryUs;
    sum.time.computeUs += time.computeUs;
    sum.time.integerUs += time.integerUs;
    sum.time.launchUs += time.launchUs;
    sum.time.totalUs += time.totalUs;
    // The pieces of one op are alike: the first says what bounds them.
    if (sum.time.bound == Bound::None)
      sum.time.bound = time.bound;
    sum.l2Bytes += work.l2Bytes;
    if (sum.unsupported.empty())
      sum.unsupported = kernel.unsupported;
  }
  return sum;
}

double TargetTotals::bandwidthBoundShare() const {
  return timeUs == 0 ? 0.0 : memoryBoundUs / timeUs;
}

std::string mlir::tfuse::formatLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text.empty() ? "unknown" : text;
}

static TensorDesc describe(Value value) {
  auto type = cast<ShapedType>(value.getType());
  TensorDesc desc{
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
      formatElementType(type.getElementType()), ""};
  auto arg = dyn_cast<BlockArgument>(value);
  auto func = arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
                  : FunctionOpInterface();
  if (func)
    if (auto name = func.getArgAttrOfType<StringAttr>(
            arg.getArgNumber(), TFuseDialect::getNameAttrName()))
      desc.name = name.str();
  return desc;
}

static ComputeClass computeClassOf(CostOpInterface op) {
  if (op.getOpClass() != OpClass::Contraction)
    return ComputeClass::Fp32Simt;
  return getContractionClass(op);
}

static OpTraffic describeOp(CostOpInterface op) {
  OpTraffic traffic;
  traffic.op = op;
  traffic.name = op->getName().getStringRef().str();
  traffic.location = formatLocation(op->getLoc());
  traffic.opClass = op.getOpClass();
  traffic.computeClass = computeClassOf(op);
  traffic.launchesKernel =
      traffic.opClass != OpClass::View && traffic.opClass != OpClass::Constant;
  for (Value operand : op->getOperands())
    traffic.operands.push_back(describe(operand));
  for (Value result : op->getResults())
    traffic.results.push_back(describe(result));
  traffic.bytesRead = op.getBytesRead();
  traffic.bytesWritten = op.getBytesWritten();
  traffic.flops = op.getFlops();
  return traffic;
}

/// The communication of a collective `op` on each of `targets`, or nothing
/// for other ops.
static std::optional<CollectiveTraffic>
describeComm(Operation *op, ArrayRef<GpuTarget> targets) {
  std::optional<CollectiveTraffic> comm =
      llvm::TypeSwitch<Operation *, std::optional<CollectiveTraffic>>(op)
          .Case([](AllReduceOp c) {
            return CollectiveTraffic{Collective::AllReduce,
                                     static_cast<int64_t>(c.getGroupSize()),
                                     getTensorBytes(c.getInput()),
                                     {}};
          })
          .Case([](ReduceScatterOp c) {
            return CollectiveTraffic{Collective::ReduceScatter,
                                     static_cast<int64_t>(c.getGroupSize()),
                                     getTensorBytes(c.getInput()),
                                     {}};
          })
          .Case([](AllGatherOp c) {
            return CollectiveTraffic{Collective::AllGather,
                                     static_cast<int64_t>(c.getGroupSize()),
                                     getTensorBytes(c.getResult()),
                                     {}};
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!comm)
    return comm;
  // The verifier bounds group_size by kMaxGroupSize, so it fits an int.
  int gpus = static_cast<int>(comm->groupSize);
  for (const GpuTarget &target : targets) {
    OpComm price;
    std::string why;
    if (gpus == 1) {
      price.link = "none";
    } else if (std::optional<CommLink> link =
                   selectCommLink(target, gpus, BridgeFitted::Yes, why)) {
      price.link = link->name;
      price.time = predictCollectiveTime(comm->collective, comm->bufferBytes,
                                         gpus, *link);
    } else {
      price.unavailable = why;
    }
    comm->targets.push_back(std::move(price));
  }
  return comm;
}

/// Appends the ops of `func` to `ops` and its kernels to `kernels`, in
/// order, each op pointing at its kernels.
static void describeFunction(func::FuncOp func, ArrayRef<GpuTarget> targets,
                             std::vector<OpTraffic> &ops,
                             std::vector<KernelCost> &kernels) {
  std::vector<KernelCost> scheduled = scheduleKernels(func);
  size_t next = 0;
  for (Operation &op : func.getBody().front()) {
    auto cost = dyn_cast<CostOpInterface>(&op);
    if (!cost)
      continue;
    OpTraffic traffic = describeOp(cost);
    // A transpose a rope or an attention kernel absorbs moves its bytes in
    // that kernel.
    if (isAbsorbedByRope(&op) || isAbsorbedByAttention(&op))
      traffic.bytesRead = traffic.bytesWritten = 0;
    traffic.function = func.getSymName().str();
    traffic.phase = phaseOf(op.getLoc());
    traffic.comm = describeComm(&op, targets);
    traffic.firstKernel = kernels.size();
    while (next < scheduled.size() && scheduled[next].op == &op)
      kernels.push_back(std::move(scheduled[next++]));
    traffic.numKernels = kernels.size() - traffic.firstKernel;
    ops.push_back(std::move(traffic));
  }
}

/// The sums over `ops` and `kernels`; fails with an error at the op where a
/// sum of bytes or FLOPs leaves int64 (each op's own figures fit: its
/// verifier checked), and every kernel's bytes are part of an op's.
static FailureOr<Totals> computeTotals(ArrayRef<OpTraffic> ops,
                                       ArrayRef<KernelCost> kernels,
                                       ArrayRef<GpuTarget> targets) {
  Totals totals;
  CheckedInt bytesRead = 0, bytesWritten = 0, flops = 0;
  for (const OpTraffic &op : ops) {
    bytesRead += op.bytesRead;
    bytesWritten += op.bytesWritten;
    flops += op.flops;
    if (!(bytesRead + bytesWritten).valid() || !flops.valid())
      return op.op->emitOpError()
             << "brings the bytes or FLOPs of the report's totals past what "
                "an int64 can count";
  }
  totals.bytesRead = *bytesRead.get();
  totals.bytesWritten = *bytesWritten.get();
  totals.flops = *flops.get();
  for (const GpuTarget &target : targets) {
    TargetTotals sums;
    for (const KernelCost &kernel : kernels) {
      KernelWork work = kernel.workOn(target);
      KernelTime time = predictKernelTime(work, target);
      sums.timeUs += time.totalUs;
      sums.l2Bytes += work.l2Bytes;
      sums.kernels += 1;
      if (time.bound == Bound::Memory)
        sums.memoryBoundUs += time.totalUs;
      else if (time.bound == Bound::Compute)
        sums.computeBoundUs += time.totalUs;
      else if (time.bound == Bound::Launch)
        sums.launchBoundUs += time.totalUs;
    }
    totals.targets.push_back(sums);
  }
  for (const OpTraffic &op : ops) {
    if (!op.comm)
      continue;
    ++totals.collectives;
    for (auto [sums, price] : llvm::zip(totals.targets, op.comm->targets)) {
      sums.commUs += price.time.totalUs;
      sums.busBytes += price.time.busBytes;
    }
  }
  return totals;
}

/// `summary.training` for a function tfuse-autodiff built: the totals of
/// each phase's ops and kernels, and what its attribute records.
static LogicalResult summarizeTraining(func::FuncOp func,
                                       const TrafficReport &report,
                                       FunctionSummary &summary,
                                       ArrayRef<GpuTarget> targets) {
  auto step = func->getAttrOfType<DictionaryAttr>("tfuse.training_step");
  if (!step)
    return success();
  TrainingSummary training;
  auto text = [&](StringRef key) {
    auto value = step.getAs<StringAttr>(key);
    return value ? value.getValue().str() : std::string();
  };
  auto number = [&](StringRef key) {
    auto value = step.getAs<IntegerAttr>(key);
    return value ? value.getInt() : int64_t(0);
  };
  training.forward = text("forward");
  training.loss = text("loss");
  training.recompute = text("recompute");
  training.savedBytes = number("saved_bytes");
  training.recomputeFlops = number("recompute_flops");
  CheckedInt parameters = 0;
  if (auto gradients = step.getAs<DenseI64ArrayAttr>("gradients"))
    for (int64_t index : gradients.asArrayRef())
      if (index >= 0 && index < func.getNumArguments())
        parameters += getCheckedTensorBytes(func.getArgument(index));
  if (!parameters.valid())
    return func.emitOpError()
           << "has more parameter bytes than an int64 can count";
  training.parameterBytes = *parameters.get();
  ArrayRef<OpTraffic> ops =
      ArrayRef(report.ops).slice(summary.firstOp, summary.numOps);
  for (size_t phase = 0; phase < kNumStepPhases; ++phase) {
    std::vector<OpTraffic> phaseOps;
    std::vector<KernelCost> phaseKernels;
    for (const OpTraffic &op : ops) {
      if (static_cast<size_t>(op.phase) != phase)
        continue;
      phaseOps.push_back(op);
      llvm::append_range(phaseKernels, report.kernelsOf(op));
    }
    FailureOr<Totals> totals = computeTotals(phaseOps, phaseKernels, targets);
    if (failed(totals))
      return failure();
    training.phases[phase] = std::move(*totals);
  }
  summary.training = std::move(training);
  return success();
}

std::vector<std::vector<const DecisionSummary *>>
mlir::tfuse::groupDecisions(ArrayRef<DecisionSummary> decisions) {
  std::vector<std::vector<const DecisionSummary *>> groups;
  for (const DecisionSummary &decision : decisions) {
    auto group = llvm::find_if(groups, [&](const auto &g) {
      return g.front()->fused == decision.fused &&
             g.front()->rule == decision.rule &&
             g.front()->reason == decision.reason;
    });
    if (group == groups.end())
      groups.push_back({&decision});
    else
      group->push_back(&decision);
  }
  return groups;
}

double mlir::tfuse::predictTime(ArrayRef<KernelCost> kernels,
                                const GpuTarget &target) {
  double total = 0;
  for (const KernelCost &kernel : kernels)
    total += kernel.timeOn(target).totalUs;
  return total;
}

/// `base` with the memory system (bandwidth, L2) of `other`.
static GpuTarget withMemorySystemOf(GpuTarget base, const GpuTarget &other) {
  base.memoryBandwidthGBps = other.memoryBandwidthGBps;
  base.achievableBandwidthFraction = other.achievableBandwidthFraction;
  base.l2CacheMB = other.l2CacheMB;
  return base;
}

/// `base` with the peak FLOP/s of `other`, and its integer rate (SMs and
/// clock).
static GpuTarget withComputeOf(GpuTarget base, const GpuTarget &other) {
  base.smCount = other.smCount;
  base.boostClockMhz = other.boostClockMhz;
  base.fp32Tflops = other.fp32Tflops;
  base.tf32TensorTflops = other.tf32TensorTflops;
  base.fp16TensorTflops = other.fp16TensorTflops;
  base.bf16TensorTflops = other.bf16TensorTflops;
  base.fp8TensorTflops = other.fp8TensorTflops;
  return base;
}

/// baseTime / time; 1 when neither runs anything (a module without kernels),
/// which would otherwise be 0 / 0.
static double speedupOver(double baseTime, double time) {
  if (time == 0 && baseTime == 0)
    return 1;
  return baseTime / time;
}

static std::vector<TargetComparison> compareTargets(ArrayRef<KernelCost> ops,
                                                    ArrayRef<GpuTarget> targets,
                                                    const Totals &totals) {
  std::vector<TargetComparison> comparisons;
  if (targets.empty())
    return comparisons;
  const GpuTarget &base = targets.front();
  double baseTime = totals.targets.front().timeUs;
  for (size_t i = 1; i < targets.size(); ++i) {
    TargetComparison comparison;
    comparison.other = i;
    comparison.speedup = speedupOver(baseTime, totals.targets[i].timeUs);
    comparison.memorySystemSpeedup = speedupOver(
        baseTime, predictTime(ops, withMemorySystemOf(base, targets[i])));
    comparison.computeSpeedup = speedupOver(
        baseTime, predictTime(ops, withComputeOf(base, targets[i])));
    comparisons.push_back(comparison);
  }
  return comparisons;
}

static BandwidthSweep sweepBandwidth(ArrayRef<KernelCost> ops,
                                     ArrayRef<GpuTarget> targets,
                                     ArrayRef<double> bandwidths) {
  BandwidthSweep sweep;
  sweep.bandwidthsGBps.assign(bandwidths.begin(), bandwidths.end());
  for (const GpuTarget &target : targets) {
    std::vector<double> times;
    for (double bandwidth : bandwidths) {
      GpuTarget swept = target;
      swept.memoryBandwidthGBps = bandwidth;
      times.push_back(predictTime(ops, swept));
    }
    sweep.timeUs.push_back(std::move(times));
  }
  return sweep;
}

static KernelSums sumKernels(ArrayRef<KernelCost> kernels,
                             ArrayRef<GpuTarget> targets) {
  KernelSums sums;
  sums.kernels = kernels.size();
  for (const KernelCost &kernel : kernels)
    sums.bytes += kernel.bytes();
  for (const GpuTarget &target : targets)
    sums.timeUs.push_back(predictTime(kernels, target));
  return sums;
}

/// The kernels of `func` with every tfuse.fusion inlined, or nothing when it
/// has no fusion. Priced on a clone: the analysed IR is left as it is.
static std::optional<KernelSums>
sumUnfusedKernels(func::FuncOp func, ArrayRef<GpuTarget> targets) {
  if (func.getOps<FusionOp>().empty())
    return std::nullopt;
  OwningOpRef<func::FuncOp> clone = func.clone();
  SmallVector<FusionOp> fusions(clone->getOps<FusionOp>());
  for (FusionOp fusion : fusions)
    inlineFusion(fusion);
  return sumKernels(scheduleKernels(*clone), targets);
}

static void addSums(KernelSums &into, const KernelSums &sums) {
  into.kernels += sums.kernels;
  into.bytes += sums.bytes;
  into.timeUs.resize(sums.timeUs.size());
  for (auto [total, time] : llvm::zip(into.timeUs, sums.timeUs))
    total += time;
}

/// Fusions in `ops[first, end)` and the decisions recorded on `func`.
static void collectFusions(func::FuncOp func, TrafficReport &report,
                           size_t first) {
  for (size_t index = first; index < report.ops.size(); ++index) {
    auto fusion = dyn_cast<FusionOp>(report.ops[index].op);
    if (!fusion)
      continue;
    FusionSummary summary;
    summary.function = func.getSymName().str();
    summary.op = index;
    summary.kind = stringifyFusionKind(fusion.getKind()).str();
    for (Operation &member : fusion.getBody().front().without_terminator())
      summary.members.push_back(member.getName().getStringRef().str());
    // A hand-written fusion has no bookkeeping (the verifier allows all of
    // it or none): it reports zeros and no target.
    if (fusion.getTargetAttr()) {
      summary.bytesBefore = fusion.getBytesBeforeAttr().getInt();
      summary.bytesAfter = fusion.getBytesAfterAttr().getInt();
      summary.predictedUnfusedUs =
          fusion.getPredictedUnfusedUsAttr().getValueAsDouble();
      summary.predictedFusedUs =
          fusion.getPredictedFusedUsAttr().getValueAsDouble();
      summary.target = fusion.getTargetAttr().str();
    }
    report.fusions.push_back(std::move(summary));
  }
  auto decisions = func->getAttrOfType<ArrayAttr>(
      TFuseDialect::getFusionDecisionsAttrName());
  if (!decisions)
    return;
  for (auto entry : decisions.getAsRange<DictionaryAttr>()) {
    auto text = [&](StringRef name) -> std::string {
      auto attr = entry.getAs<StringAttr>(name);
      return attr ? attr.str() : "";
    };
    DecisionSummary decision;
    decision.function = func.getSymName().str();
    auto fused = entry.getAs<BoolAttr>("fused");
    decision.fused = fused && fused.getValue();
    decision.kind = text("kind");
    decision.producer = text("producer");
    decision.consumer = text("consumer");
    decision.rule = text("rule");
    decision.reason = text("reason");
    report.decisions.push_back(std::move(decision));
  }
}

FailureOr<TrafficReport>
mlir::tfuse::analyzeTraffic(ModuleOp module, ArrayRef<GpuTarget> targets,
                            ArrayRef<double> sweepBandwidthsGBps) {
  TrafficReport report;
  report.targets.assign(targets.begin(), targets.end());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FunctionSummary summary;
    summary.name = func.getSymName().str();
    summary.firstOp = report.ops.size();
    summary.firstKernel = report.kernels.size();
    describeFunction(func, targets, report.ops, report.kernels);
    summary.numOps = report.ops.size() - summary.firstOp;
    summary.numKernels = report.kernels.size() - summary.firstKernel;
    collectFusions(func, report, summary.firstOp);
    ArrayRef<KernelCost> kernels =
        ArrayRef(report.kernels).slice(summary.firstKernel, summary.numKernels);
    FailureOr<Totals> totals = computeTotals(
        ArrayRef(report.ops).slice(summary.firstOp, summary.numOps), kernels,
        targets);
    if (failed(totals))
      return failure();
    summary.totals = std::move(*totals);
    summary.fused = sumKernels(kernels, targets);
    summary.unfused = sumUnfusedKernels(func, targets);
    FailureOr<int64_t> peak = estimatePeakBytes(func);
    if (failed(peak))
      return failure();
    summary.peakBytes = *peak;
    if (failed(summarizeTraining(func, report, summary, targets)))
      return failure();
    report.functions.push_back(std::move(summary));
  }
  FailureOr<Totals> totals = computeTotals(report.ops, report.kernels, targets);
  if (failed(totals))
    return failure();
  report.totals = std::move(*totals);
  report.fused = sumKernels(report.kernels, targets);
  bool anyFused = llvm::any_of(report.functions, [](const FunctionSummary &f) {
    return f.unfused.has_value();
  });
  if (anyFused) {
    report.unfused = KernelSums();
    for (const FunctionSummary &function : report.functions)
      addSums(*report.unfused,
              function.unfused ? *function.unfused : function.fused);
  }
  report.comparisons = compareTargets(report.kernels, targets, report.totals);
  if (!sweepBandwidthsGBps.empty())
    report.sweep = sweepBandwidth(report.kernels, targets, sweepBandwidthsGBps);
  return report;
}
