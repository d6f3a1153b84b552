//===- CommCost.cpp - time of collectives between GPUs ----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/CommCost.h"

using namespace mlir::tfuse;

const char *mlir::tfuse::stringifyCollective(Collective collective) {
  switch (collective) {
  case Collective::AllReduce:
    return "all_reduce";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllGather:
    return "all_gather";
  }
  return "?";
}

std::optional<CommLink> mlir::tfuse::selectCommLink(const GpuTarget &target,
                                                    int gpus,
                                                    BridgeFitted bridge,
                                                    std::string &why) {
  if (gpus < 2) {
    why = "a collective needs at least 2 GPUs, got " + std::to_string(gpus);
    return std::nullopt;
  }
  if (!target.interconnect) {
    why = "target \"" + target.name +
          "\" describes no interconnect (add \"interconnect\" to its file, "
          "docs/targets.md)";
    return std::nullopt;
  }
  const Interconnect &ic = *target.interconnect;
  if (const std::optional<NvlinkLink> &nv = ic.nvlink;
      nv && (!nv->bridge || bridge == BridgeFitted::Yes) &&
      gpus <= nv->gpusPerDomain)
    return CommLink{"nvlink", nv->bandwidthGBps * nv->achievableFraction,
                    nv->latencyUs};
  return CommLink{"pcie", ic.pcie.bandwidthGBps() * ic.pcie.achievableFraction,
                  ic.pcie.latencyUs};
}

CollectiveTime mlir::tfuse::predictCollectiveTime(Collective collective,
                                                  int64_t bytes, int gpus,
                                                  const CommLink &link) {
  CollectiveTime t;
  if (gpus < 2 || bytes <= 0)
    return t;
  const double n = gpus;
  // A ring all-reduce is a reduce-scatter then an all-gather: n - 1 steps
  // each, every step moving 1/n of the buffer over every GPU's link.
  const int steps =
      collective == Collective::AllReduce ? 2 * (gpus - 1) : gpus - 1;
  t.busBytes = steps * (static_cast<double>(bytes) / n);
  t.bandwidthUs = t.busBytes / (link.bandwidthGBps * 1e3);
  t.latencyUs = steps * link.latencyUs;
  t.totalUs = t.bandwidthUs + t.latencyUs;
  return t;
}
