//===- Bench.cpp - Time a plan on the GPU -----------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the benchmark: warm-up, CUDA-graph capture and
// replay of the whole plan, and per-step event timings, each rep after an L2
// flush.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Bench.h"

#include "tfuse/Runtime/Executor.h"

#include <algorithm>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

namespace {

/// A start/stop pair of events.
class EventPair {
public:
  ~EventPair() {
    if (start)
      driver().cuEventDestroy(start);
    if (stop)
      driver().cuEventDestroy(stop);
  }
  bool create(std::string &error) {
    TFUSE_CU(error, cuEventCreate, &start, CU_EVENT_DEFAULT);
    TFUSE_CU(error, cuEventCreate, &stop, CU_EVENT_DEFAULT);
    return true;
  }

  CUevent start = nullptr;
  CUevent stop = nullptr;
};

/// The captured plan.
class Graph {
public:
  ~Graph() {
    if (exec)
      driver().cuGraphExecDestroy(exec);
    if (graph)
      driver().cuGraphDestroy(graph);
  }

  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

/// Times `body` (which enqueues work on `stream`) `reps` times, flushing the
/// L2 before each rep, and returns the times in microseconds.
template <typename Body>
bool timeReps(CUstream stream, EventPair &events, const DeviceMemory &flush,
              int reps, Body body, std::vector<double> &times,
              std::string &error) {
  times.clear();
  for (int rep = 0; rep < reps; ++rep) {
    if (flush.get())
      TFUSE_CU(error, cuMemsetD8Async, flush.get(),
               static_cast<unsigned char>(rep), flush.size(), stream);
    TFUSE_CU(error, cuEventRecord, events.start, stream);
    if (!body(error))
      return false;
    TFUSE_CU(error, cuEventRecord, events.stop, stream);
    TFUSE_CU(error, cuEventSynchronize, events.stop);
    float ms = 0;
    TFUSE_CU(error, cuEventElapsedTime, &ms, events.start, events.stop);
    times.push_back(static_cast<double>(ms) * 1e3);
  }
  return true;
}

/// Captures the whole plan into `graph`. On failure leaves the stream out of
/// capture mode and sets `error`.
bool capturePlan(Executor &executor, Graph &graph, std::string &error) {
  CUstream stream = executor.device().stream();
  TFUSE_CU(error, cuStreamBeginCapture, stream, CU_STREAM_CAPTURE_MODE_RELAXED);
  std::string enqueueError;
  bool enqueued = executor.enqueuePlan(enqueueError);
  CUresult end = driver().cuStreamEndCapture(stream, &graph.graph);
  if (!enqueued) {
    error = enqueueError;
    return false;
  }
  if (end != CUDA_SUCCESS) {
    error = describeCuError("cuStreamEndCapture", end);
    return false;
  }
  TFUSE_CU(error, cuGraphInstantiateWithFlags, &graph.exec, graph.graph, 0);
  return true;
}

} // namespace

std::optional<BenchResult>
mlir::tfuse::rt::runBenchmark(Executor &executor, const BenchOptions &options,
                              std::string &error) {
  Device &device = executor.device();
  CUstream stream = device.stream();
  const Plan &plan = executor.plan();
  BenchResult result;
  result.options = options;

  DeviceMemory flush;
  if (options.flushL2) {
    size_t bytes = std::max<size_t>(
        2 * static_cast<size_t>(device.info().l2CacheBytes), size_t(8) << 20);
    if (!flush.allocate(bytes, error)) {
      error = "cannot allocate the L2 flush buffer: " + error;
      return std::nullopt;
    }
  }
  EventPair events;
  if (!events.create(error))
    return std::nullopt;

  for (int i = 0; i < options.warmup; ++i)
    if (!executor.enqueuePlan(error))
      return std::nullopt;
  if (!device.synchronize("warm-up", error))
    return std::nullopt;

  // The whole plan: a CUDA graph when capture works, else direct launches.
  Graph graph;
  std::string captureError;
  result.usedGraph = capturePlan(executor, graph, captureError);
  if (!result.usedGraph) {
    result.note = "CUDA graph capture failed (" + captureError +
                  "); the whole plan was timed with direct launches";
    // A failed capture may leave a sticky error on the stream; make sure it
    // still works.
    driver().cuStreamSynchronize(stream);
  }
  auto runPlan = [&](std::string &err) -> bool {
    if (result.usedGraph) {
      TFUSE_CU(err, cuGraphLaunch, graph.exec, stream);
      return true;
    }
    return executor.enqueuePlan(err);
  };
  std::vector<double> times;
  // One untimed replay: the first launch of a graph uploads it.
  if (!runPlan(error) || !device.synchronize("the first replay", error))
    return std::nullopt;
  if (!timeReps(stream, events, flush, options.reps, runPlan, times, error))
    return std::nullopt;
  result.planMinUs =
      times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  result.planMedianUs = median(times);

  // Each step on its own.
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    auto runStep = [&](std::string &err) {
      return executor.enqueueStep(i, err);
    };
    if (!timeReps(stream, events, flush, options.reps, runStep, times, error)) {
      error = plan.describeStep(i) + ": " + error;
      return std::nullopt;
    }
    StepTiming t;
    t.step = i;
    t.minUs = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
    t.maxUs = times.empty() ? 0 : *std::max_element(times.begin(), times.end());
    t.medianUs = median(times);
    result.steps.push_back(t);
  }
  return result;
}
