//===- Bench.h - Time a plan on the GPU -------------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the benchmark of `tfuse-run --bench`:
//   1. warm-up: the whole plan, `warmup` times;
//   2. the whole plan captured once in a CUDA graph and replayed `reps`
//      times, each replay timed with events (median and minimum);
//   3. each step on its own, `reps` times between events (median).
// Before every timed replay or step the L2 cache is flushed (a memset of
// twice its size, outside the timed region), so that a step reads its
// inputs from HBM as it would in a real layer, not from a warm L2.
// Achieved bandwidth is the step's planned `bytes` over its median time.
//
// The result structs are CUDA-free so that the results writer can use them;
// runBenchmark itself lives in the CUDA part of the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_BENCH_H
#define TFUSE_RUNTIME_BENCH_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfuse::rt {

class Executor;

struct BenchOptions {
  int warmup = 3;
  int reps = 20;
  bool flushL2 = true;
};

/// Event timings of one step, in microseconds.
struct StepTiming {
  size_t step = 0;
  double medianUs = 0;
  double minUs = 0;
  double maxUs = 0;
};

/// How a GEMM step's algorithm was chosen: cuBLASLt's heuristic ranks up to
/// GemmRunner::kMaxCandidates (8) algorithms; with autotuning the first eager
/// execution times each of them on the step's own operands and keeps the
/// fastest (the heuristic's first pick is not always the fastest, and rarely
/// so for misaligned leading dimensions).
struct GemmChoice {
  /// Algorithms the heuristic returned.
  int candidates = 0;
  /// Index of the algorithm used (0: the heuristic's first).
  int chosen = 0;
  /// Whether the candidates were timed.
  bool tuned = false;
  /// While tuning: the heuristic's first pick and the chosen one, in us.
  double heuristicUs = 0;
  double chosenUs = 0;
};

struct BenchResult {
  BenchOptions options;
  /// Whether the whole plan was replayed as a CUDA graph; otherwise the
  /// steps were launched directly and `note` says why.
  bool usedGraph = false;
  std::string note;
  double planMedianUs = 0;
  double planMinUs = 0;
  std::vector<StepTiming> steps;

  double sumOfStepMediansUs() const {
    double sum = 0;
    for (const StepTiming &s : steps)
      sum += s.medianUs;
    return sum;
  }
};

/// 10^9 bytes per second for `bytes` moved in `us` microseconds (0 when
/// either is 0).
inline double achievedGBps(int64_t bytes, double us) {
  return bytes > 0 && us > 0 ? static_cast<double>(bytes) / (us * 1e3) : 0.0;
}

/// The median of `values` (which it sorts); 0 when empty.
inline double median(std::vector<double> &values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// Runs the benchmark on a ready executor (inputs filled). On failure
/// returns an empty optional and sets `error`.
std::optional<BenchResult> runBenchmark(Executor &executor,
                                        const BenchOptions &options,
                                        std::string &error);

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_BENCH_H
