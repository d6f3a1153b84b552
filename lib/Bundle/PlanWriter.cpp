//===- PlanWriter.cpp - plan.json from a Plan -----------------------------===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Writes the schema PlanReader.cpp reads, key for key, in the order
// docs/bundle.md lists them.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Bundle/Plan.h"

#include <nlohmann/json.hpp>

#include <cmath>

using namespace mlir::tfuse;
using namespace mlir::tfuse::bundle;

using Json = nlohmann::ordered_json;

namespace {

/// A number, or the string the reader takes for one JSON cannot spell.
Json number(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  return value;
}

Json numbers(const std::vector<double> &values) {
  Json array = Json::array();
  for (double value : values)
    array.push_back(number(value));
  return array;
}

Json tensorType(const ref::TensorType &type) {
  return {{"shape", type.shape}, {"dtype", ref::dtypeName(type.dtype)}};
}

Json attribute(const ref::RefAttribute &value) {
  return std::visit(
      [](const auto &v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, double>)
          return number(v);
        else if constexpr (std::is_same_v<T, std::vector<double>>)
          return numbers(v);
        else
          return v;
      },
      value);
}

Json graph(const ref::RefGraph &graph) {
  Json arguments = Json::array();
  for (const ref::TensorType &type : graph.arguments)
    arguments.push_back(tensorType(type));
  Json ops = Json::array();
  for (const ref::RefOp &op : graph.ops) {
    Json results = Json::array();
    for (const ref::TensorType &type : op.results)
      results.push_back(tensorType(type));
    Json attributes = Json::object();
    for (const auto &[name, value] : op.attributes)
      attributes[name] = attribute(value);
    ops.push_back({{"op", op.name},
                   {"operands", op.operands},
                   {"results", std::move(results)},
                   {"attributes", std::move(attributes)}});
  }
  return {{"arguments", std::move(arguments)},
          {"ops", std::move(ops)},
          {"yields", graph.yields}};
}

} // namespace

std::string mlir::tfuse::bundle::formatGraph(const ref::RefGraph &ops) {
  return graph(ops).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string mlir::tfuse::bundle::formatPlan(const Plan &plan) {
  auto ids = [&](const std::vector<size_t> &indices) {
    Json array = Json::array();
    for (size_t index : indices)
      array.push_back(plan.buffers[index].id);
    return array;
  };
  auto id = [&](size_t index) { return plan.buffers[index].id; };

  Json root;
  root["schema_version"] = plan.schemaVersion;
  root["function"] = plan.function;
  root["target"] = {{"name", plan.target.name},
                    {"sm_arch", plan.target.smArch},
                    {"bandwidth_gbps", number(plan.target.bandwidthGBps)},
                    {"achievable_bandwidth_gbps",
                     number(plan.target.achievableBandwidthGBps)}};
  Json module = {{"ptx", plan.ptxFile}, {"ptx_hash", plan.ptxHash}};
  if (plan.cubinFile) {
    module["cubin"] = *plan.cubinFile;
    module["cubin_hash"] = plan.cubinHash;
  }
  root["module"] = std::move(module);
  root["arena_bytes"] = plan.arenaBytes;

  Json buffers = Json::array();
  for (const PlanBuffer &buffer : plan.buffers) {
    Json entry = {
        {"id", buffer.id},       {"name", buffer.name},
        {"shape", buffer.shape}, {"dtype", ref::dtypeName(buffer.dtype)},
        {"bytes", buffer.bytes}, {"kind", bufferKindName(buffer.kind)}};
    if (buffer.checkpointTransposed)
      entry["checkpoint_transposed"] = true;
    if (buffer.kind == BufferKind::Temp)
      entry["offset"] = buffer.offset;
    if (buffer.kind == BufferKind::Alias)
      entry["alias_of"] = id(buffer.aliasOf);
    if (buffer.kind == BufferKind::Constant)
      entry["values"] = numbers(buffer.values);
    buffers.push_back(std::move(entry));
  }
  root["buffers"] = std::move(buffers);
  root["inputs"] = ids(plan.inputs);
  root["outputs"] = ids(plan.outputs);

  Json steps = Json::array();
  for (const PlanStep &step : plan.steps) {
    Json entry;
    if (step.kind == StepKind::Kernel) {
      const KernelLaunch &launch = step.launch;
      entry = {{"kind", "kernel"},
               {"name", step.name},
               {"kernel", launch.kernel},
               {"template", launch.templateName},
               {"grid", launch.grid},
               {"block", launch.block},
               {"shared_bytes", launch.sharedBytes},
               {"args", ids(launch.args)}};
      Json params = Json::array();
      for (const KernelParam &param : launch.params)
        params.push_back({{"access", paramAccessName(param.access)},
                          {"bytes", param.bytes}});
      entry["params"] = std::move(params);
    } else {
      const GemmCall &gemm = step.gemm;
      entry = {{"kind", "gemm"},
               {"name", step.name},
               {"lhs", id(gemm.lhs)},
               {"rhs", id(gemm.rhs)}};
      if (gemm.bias)
        entry["bias"] = id(*gemm.bias);
      entry["out"] = id(gemm.out);
      entry["epilogue"] = epilogueName(gemm.epilogue);
      entry["transpose_lhs"] = gemm.transposeLhs;
      entry["transpose_rhs"] = gemm.transposeRhs;
      entry["batch"] = gemm.batch;
      entry["m"] = gemm.m;
      entry["n"] = gemm.n;
      entry["k"] = gemm.k;
      entry["lhs_batch_stride"] = gemm.lhsBatchStride;
      entry["rhs_batch_stride"] = gemm.rhsBatchStride;
      entry["out_batch_stride"] = gemm.outBatchStride;
      entry["dtype"] = ref::dtypeName(gemm.dtype);
      if (gemm.tf32)
        entry["tf32"] = true;
    }
    entry["inputs"] = ids(step.inputs);
    entry["outputs"] = ids(step.outputs);
    entry["predicted_us"] = number(step.predictedUs);
    entry["bytes"] = step.bytes;
    entry["flops"] = step.flops;
    entry["ops"] = graph(step.ops);
    steps.push_back(std::move(entry));
  }
  root["steps"] = std::move(steps);
  // Invalid UTF-8 in a name is replaced rather than aborting (the library
  // has no exceptions).
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}
