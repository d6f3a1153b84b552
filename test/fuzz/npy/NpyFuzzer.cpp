//===- NpyFuzzer.cpp - fuzz the .npy reader ---------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libFuzzer target for `tfuse-run --input NAME=file.npy`: parseNpy, then
// npyToTensor for every element type the descr may hold. A tensor read this
// way must come back unchanged through tensorToNpy and parseNpy.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

/// Equal values, or both NaN (a NaN's payload need not survive), with the
/// sign of zero kept.
static bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  std::string error;
  std::optional<NpyArray> array = parseNpy(bytes, error);
  if (!array)
    return 0;
  for (ref::DType dtype : {ref::DType::F32, ref::DType::F16, ref::DType::BF16,
                           ref::DType::I32, ref::DType::I64}) {
    if (!npyDescrMatches(array->descr, dtype))
      continue;
    std::optional<ref::Tensor> tensor =
        npyToTensor(*array, dtype, &array->shape, error);
    if (!tensor)
      continue;
    std::optional<NpyArray> again = parseNpy(tensorToNpy(*tensor), error);
    std::optional<ref::Tensor> back =
        again ? npyToTensor(*again, dtype, &tensor->shape, error)
              : std::nullopt;
    if (!back || back->shape != tensor->shape ||
        !std::equal(back->data.begin(), back->data.end(), tensor->data.begin(),
                    tensor->data.end(), sameValue)) {
      std::fprintf(stderr,
                   "a tensor read from .npy does not round-trip "
                   "(descr '%s'): %s\n",
                   array->descr.c_str(), error.c_str());
      std::abort();
    }
  }
  return 0;
}
