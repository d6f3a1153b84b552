//===- Npy.h - NumPy .npy files for inputs and outputs ----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the reader and writer of NumPy's .npy format (versions
// 1.0, 2.0 and 3.0 are read; 1.0, or 2.0 for huge headers, is written), used
// by `tfuse-run --input NAME=file.npy` and `--save-outputs DIR`.
//
// Element types, by the plan's dtype:
//   f32 '<f4'   f16 '<f2'   i32 '<i4'   i64 '<i8'
//   bf16        NumPy has no bfloat16: written as '<u2' (the raw bits; view
//               them with ml_dtypes: `np.load(f).view(ml_dtypes.bfloat16)`);
//               read from '<u2', '<V2' or '|V2' (what ml_dtypes' bfloat16
//               arrays save as), always as raw bfloat16 bits.
// Only little-endian, C-order (fortran_order False) arrays are accepted.
//
// No LLVM/MLIR, no CUDA, no exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_NPY_H
#define TFUSE_RUNTIME_NPY_H

#include "tfuse/Reference/Reference.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tfuse::rt {

/// The contents of a .npy file.
struct NpyArray {
  /// The header's 'descr' ("<f4").
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  /// The raw element bytes, as stored.
  std::vector<uint8_t> data;
};

/// Parses the bytes of a .npy file. On failure sets `error` (without a file
/// name) and returns an empty optional.
std::optional<NpyArray> parseNpy(const std::vector<uint8_t> &bytes,
                                 std::string &error);

/// Reads a .npy file; errors name the file.
std::optional<NpyArray> readNpyFile(const std::string &path,
                                    std::string &error);

/// The descr this library writes for `dtype` ('<u2' for bf16).
const char *npyDescrFor(ref::DType dtype);

/// Whether `descr` may hold elements of `dtype` (see the table above).
bool npyDescrMatches(const std::string &descr, ref::DType dtype);

/// Converts an array to a tensor of `dtype`, which must match its descr.
/// `shape`, when given, must equal the array's shape.
std::optional<ref::Tensor> npyToTensor(const NpyArray &array, ref::DType dtype,
                                       const std::vector<int64_t> *shape,
                                       std::string &error);

/// The bytes of a .npy file holding `tensor` (version 1.0, or 2.0 when the
/// header does not fit in 65535 bytes).
std::vector<uint8_t> tensorToNpy(const ref::Tensor &tensor);

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_NPY_H
