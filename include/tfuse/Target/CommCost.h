//===- CommCost.h - time of collectives between GPUs ------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The communication half of the cost model (docs/cost-model.md, "Collectives"):
// which link a group of GPUs talks over, and how long a ring collective takes
// on it. MLIR-free, like CostModel.h, so the runtime can print the same
// predictions next to NCCL's measured times.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TARGET_COMMCOST_H
#define TFUSE_TARGET_COMMCOST_H

#include "tfuse/Target/GpuTarget.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tfuse {

enum class Collective { AllReduce, ReduceScatter, AllGather };

const char *stringifyCollective(Collective collective);

/// Whether a system fitted an optional NVLink bridge (targets whose NVLink
/// is built in ignore this).
enum class BridgeFitted { Yes, No };

/// The link a ring collective is limited by: its achievable rate per GPU and
/// direction, and the fixed cost of each ring step.
struct CommLink {
  std::string name; ///< "nvlink", "pcie"
  double bandwidthGBps = 0;
  double latencyUs = 0;
};

/// The slowest link in a ring of `gpus` GPUs of `target`: NVLink when the
/// target has it (a bridge only when fitted) and all the GPUs share one NVLink
/// domain, else PCIe (a ring over bridged pairs crosses PCIe between pairs).
/// Empty, with `why` set, when the target describes no interconnect or
/// `gpus` < 2.
std::optional<CommLink> selectCommLink(const GpuTarget &target, int gpus,
                                       BridgeFitted bridge, std::string &why);

struct CollectiveTime {
  /// Bytes each GPU sends over its link: NCCL's "bus bytes",
  /// 2(n-1)/n * size for an all-reduce, (n-1)/n * size for reduce-scatter
  /// and all-gather, where size is the whole (unsharded) buffer.
  double busBytes = 0;
  double bandwidthUs = 0; ///< busBytes / link rate
  double latencyUs = 0;   ///< ring steps * step latency
  double totalUs = 0;
};

/// A ring `collective` over a buffer of `bytes` (the whole tensor, before
/// sharding) among `gpus` GPUs on `link`. One GPU communicates nothing.
CollectiveTime predictCollectiveTime(Collective collective, int64_t bytes,
                                     int gpus, const CommLink &link);

} // namespace mlir::tfuse

#endif // TFUSE_TARGET_COMMCOST_H
