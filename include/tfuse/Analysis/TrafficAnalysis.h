//===- TrafficAnalysis.h - per-op memory traffic and roofline ---*- C++ -*-===//
//
// Walks the functions of a module, asks every op's cost interface for its
// bytes and FLOPs, and predicts each kernel's time on each GPU target with the
// roofline model. The reports (text, JSON, HTML) print this structure.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_ANALYSIS_TRAFFICANALYSIS_H
#define TFUSE_ANALYSIS_TRAFFICANALYSIS_H

#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Target/CommCost.h"
#include "tfuse/Target/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfuse {

/// A tensor as reports print it.
struct TensorDesc {
  std::vector<int64_t> shape;
  std::string dtype; ///< "f32", "bf16", "i32", ...
  /// A function argument's `tfuse.name` (a weight's state-dict key), else
  /// empty.
  std::string name;
};

/// The part of a training step an op belongs to, from the locations
/// tfuse-autodiff gives the ops it builds ("loss", "recompute", "backward",
/// "optimizer"); every op of a forward function is Forward.
enum class StepPhase { Forward, Loss, Recompute, Backward, Optimizer };
constexpr size_t kNumStepPhases = 5;
StringRef stringifyStepPhase(StepPhase phase);
/// The phase of an op at `loc`; a fused kernel's is the latest phase of its
/// members' (a recomputed value fused into a backward kernel is backward
/// work).
StepPhase phaseOf(Location loc);

/// What a collective sends between GPUs on one target, priced by
/// tfuse/Target/CommCost.h apart from its device-memory traffic (an optional
/// NVLink bridge counts as fitted). A group of one rank sends nothing (link
/// "none"); a target without an interconnect has no price (`unavailable`).
struct OpComm {
  std::string link; ///< "nvlink", "pcie" or "none"; "" when unavailable
  CollectiveTime time;
  std::string unavailable; ///< why there is no price ("" when there is)
};

/// The communication of a collective op: which one, among how many ranks,
/// over how big a buffer (the whole tensor: an all-gather's result, the
/// others' input), and its price on each report target.
struct CollectiveTraffic {
  Collective collective = Collective::AllReduce;
  int64_t groupSize = 1;
  int64_t bufferBytes = 0;
  std::vector<OpComm> targets; ///< one per report target
};

/// One op: what it moves and computes, and the kernels it runs as.
struct OpTraffic {
  Operation *op = nullptr;
  std::string function; ///< the enclosing func.func
  std::string name;     ///< "tfuse.layer_norm"
  std::string location; ///< "file.mlir:12:8"
  OpClass opClass = OpClass::Elementwise;
  ComputeClass computeClass = ComputeClass::Fp32Simt;
  StepPhase phase = StepPhase::Forward;
  bool launchesKernel = true;
  std::vector<TensorDesc> operands, results;
  /// The op's own traffic (its cost interface).
  int64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  /// Its kernels in TrafficReport::kernels (none for views and constants).
  size_t firstKernel = 0, numKernels = 0;
  /// For a collective: what it sends over the interconnect (not part of its
  /// kernels' times).
  std::optional<CollectiveTraffic> comm;

  int64_t bytes() const { return bytesRead + bytesWritten; }
  /// FLOPs per byte moved (0 when nothing moves).
  double intensity() const;
};

/// An op's kernels on one target, summed.
struct OpTime {
  KernelTime time;
  int64_t l2Bytes = 0;
  /// Why the compiler cannot emit one of its kernels ("" when it can).
  std::string unsupported;
};

/// Sums over a set of kernels on one target.
struct TargetTotals {
  double timeUs = 0;
  double memoryBoundUs = 0, computeBoundUs = 0, launchBoundUs = 0;
  int64_t kernels = 0;
  int64_t l2Bytes = 0;
  /// The collectives' communication (not in timeUs): NCCL bus bytes per
  /// GPU and their predicted time, over those with a price.
  double commUs = 0, busBytes = 0;
  /// Share of the predicted time spent in memory-bound kernels.
  double bandwidthBoundShare() const;
};

/// Bytes, FLOPs and per-target time of a set of ops.
struct Totals {
  int64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  int64_t collectives = 0;           ///< collective ops among them
  std::vector<TargetTotals> targets; ///< one per report target
};

/// One target against the first (the baseline).
struct TargetComparison {
  size_t baseline = 0, other = 0; ///< indices into the report's targets
  double speedup = 0;             ///< baseline time / other time
  /// Speedup of the baseline given only the other's memory system
  /// (achievable bandwidth and L2), or only its peak FLOP/s.
  double memorySystemSpeedup = 0, computeSpeedup = 0;
};

/// Predicted time at each swept datasheet bandwidth, per target.
struct BandwidthSweep {
  std::vector<double> bandwidthsGBps;
  std::vector<std::vector<double>> timeUs; ///< [target][bandwidth]
};

/// A tfuse.fusion of the analysed IR, with what tfuse-fuse recorded on it.
struct FusionSummary {
  std::string function;
  size_t op = 0; ///< index in TrafficReport::ops
  std::string kind;
  std::vector<std::string> members; ///< op names, in order
  int64_t bytesBefore = 0, bytesAfter = 0;
  double predictedUnfusedUs = 0, predictedFusedUs = 0;
  std::string target; ///< the target whose cost model decided
};

/// One entry of a function's `tfuse.fusion_decisions`.
struct DecisionSummary {
  std::string function;
  bool fused = false;
  std::string kind, producer, consumer, rule, reason;
};

/// What a set of kernels moves and takes, per target: the same sums for the
/// fused IR and for its unfused baseline, so the two compare like for like.
struct KernelSums {
  int64_t kernels = 0, bytes = 0;
  std::vector<double> timeUs; ///< one per report target
};

/// What a training step (a function tfuse-autodiff built, with its
/// tfuse.training_step attribute) moves per phase and what it holds.
struct TrainingSummary {
  std::string forward, loss, recompute; ///< as the attribute gives them
  /// Bytes, FLOPs and per-target time of the ops of each phase, indexed by
  /// StepPhase.
  std::array<Totals, kNumStepPhases> phases;
  /// The arguments that get a gradient (the parameters and, where they are
  /// float arguments, the inputs), and their gradients.
  int64_t parameterBytes = 0;
  /// Forward values the backward reads (saved activations), and the FLOPs
  /// the backward spends recomputing the others (the recompute policy's
  /// trade).
  int64_t savedBytes = 0, recomputeFlops = 0;
};

struct FunctionSummary {
  std::string name;
  size_t firstOp = 0, numOps = 0;         ///< its ops in TrafficReport::ops
  size_t firstKernel = 0, numKernels = 0; ///< in TrafficReport::kernels
  Totals totals;
  /// Its kernels, and (only where it has tfuse.fusion ops) the kernels of the
  /// same function with every fusion inlined.
  KernelSums fused;
  std::optional<KernelSums> unfused;
  /// Device memory the function needs run in program order: its arguments,
  /// constants and results, plus the most bytes of intermediate values live
  /// at once (a value lives from its op to its last use; views share their
  /// operand's bytes; values inside a fused kernel take none).
  int64_t peakBytes = 0;
  std::optional<TrainingSummary> training;
};

/// One kernel as `tfuse-run --json --bench` measured it.
struct MeasuredKernel {
  size_t kernel = 0; ///< index in TrafficReport::kernels
  size_t op = 0;     ///< the op it computes, index in TrafficReport::ops
  double measuredUs = 0, measuredMinUs = 0;
  /// The prediction plan.json carried (equal to the report's when the report
  /// and the bundle come from the same graph and target).
  double planPredictedUs = 0;
};

/// A results file of `tfuse-run --json --bench`, matched to the report.
struct MeasuredRun {
  std::string file, device, function;
  size_t target = 0; ///< index in TrafficReport::targets
  std::vector<MeasuredKernel> kernels;
  /// The whole plan replayed (CUDA graph), median.
  double planMedianUs = 0;
};

/// The whole module: every op of every function, in order, and the totals
/// over all of them (a module is one layer or one model).
struct TrafficReport {
  std::vector<GpuTarget> targets;
  std::vector<OpTraffic> ops;
  /// Every kernel of every function, in order (scheduleKernels).
  std::vector<KernelCost> kernels;
  std::vector<FunctionSummary> functions;
  std::vector<FusionSummary> fusions;
  std::vector<DecisionSummary> decisions;
  Totals totals;
  std::vector<TargetComparison> comparisons;
  BandwidthSweep sweep;
  /// Every function's kernels, and their unfused baseline where any function
  /// has fusions (functions without fusions count the same in both).
  KernelSums fused;
  std::optional<KernelSums> unfused;
  std::vector<MeasuredRun> measured;

  ArrayRef<KernelCost> kernelsOf(const OpTraffic &op) const {
    return ArrayRef(kernels).slice(op.firstKernel, op.numKernels);
  }
  /// The predicted time of `op`'s kernels on `target`.
  OpTime timeOf(const OpTraffic &op, const GpuTarget &target) const;
};

/// Analyses every function of `module` on `targets`; `sweepBandwidthsGBps`
/// may be empty. Fails, with an error at the op, when a total of bytes or
/// FLOPs does not fit in int64.
FailureOr<TrafficReport> analyzeTraffic(ModuleOp module,
                                        ArrayRef<GpuTarget> targets,
                                        ArrayRef<double> sweepBandwidthsGBps);

/// FunctionSummary::peakBytes of `func`; fails, with an error at the
/// function, when the sum does not fit in int64.
FailureOr<int64_t> estimatePeakBytes(func::FuncOp func);

/// Reads a `tfuse-run --json` results file with measured times and matches
/// its steps to `report`'s kernels by id, within the function it names;
/// errors (unreadable file, no --bench times, a target or step the report
/// does not have) are reported at `loc`.
LogicalResult addMeasuredResults(TrafficReport &report, StringRef path,
                                 Location loc);

/// `decisions` grouped by outcome, rule and reason, in the order each group
/// first appears: identical reasons print once, with every pair they cover.
std::vector<std::vector<const DecisionSummary *>>
groupDecisions(ArrayRef<DecisionSummary> decisions);

/// Predicted time of `kernels` on `target` (the sum).
double predictTime(ArrayRef<KernelCost> kernels, const GpuTarget &target);

/// "file.mlir:12:8" for the first file location inside `loc`.
std::string formatLocation(Location loc);

/// The report writers (TrafficReportText.cpp, -Json.cpp, -Html.cpp).
void printTextReport(const TrafficReport &report, llvm::raw_ostream &os);
/// The JSON writer refuses, with the offending line, a report holding a
/// number JSON cannot spell (infinite or NaN).
llvm::Error printJsonReport(const TrafficReport &report, llvm::raw_ostream &os);
void printHtmlReport(const TrafficReport &report, llvm::raw_ostream &os);

} // namespace mlir::tfuse

#endif // TFUSE_ANALYSIS_TRAFFICANALYSIS_H
