//===- NpyTest.cpp - Tests of the .npy reader and writer --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of rt::parseNpy, npyToTensor and tensorToNpy: round trips for
// every dtype, the exact header NumPy expects, headers as NumPy writes them
// (versions 1 and 2), bfloat16 spellings, and the errors.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Npy.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

namespace {

/// A .npy file as NumPy writes it: magic, version, header padded to 64.
std::vector<uint8_t> npyBytes(const std::string &dict,
                              const std::vector<uint8_t> &data, int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  size_t total = prefix + header.size() + 1;
  header.append((total + 63) / 64 * 64 - total, ' ');
  header += '\n';
  std::vector<uint8_t> out = {
      0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  size_t n = header.size();
  out.push_back(n & 0xff);
  out.push_back((n >> 8) & 0xff);
  if (major != 1) {
    out.push_back((n >> 16) & 0xff);
    out.push_back((n >> 24) & 0xff);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::optional<ref::Tensor> load(const std::vector<uint8_t> &bytes,
                                ref::DType dtype, std::string &error,
                                const std::vector<int64_t> *shape = nullptr) {
  std::optional<NpyArray> a = parseNpy(bytes, error);
  if (!a)
    return std::nullopt;
  return npyToTensor(*a, dtype, shape, error);
}

TEST(Npy, RoundTripEveryDType) {
  for (ref::DType dtype : {ref::DType::F32, ref::DType::F16, ref::DType::BF16,
                           ref::DType::I32, ref::DType::I64}) {
    ref::Tensor t = ref::randomTensor(dtype, {3, 5, 2}, 1, 2);
    std::vector<uint8_t> bytes = tensorToNpy(t);
    std::string error;
    std::optional<ref::Tensor> back = load(bytes, dtype, error, &t.shape);
    ASSERT_TRUE(back.has_value()) << ref::dtypeName(dtype) << ": " << error;
    EXPECT_EQ(back->shape, t.shape);
    EXPECT_EQ(back->data, t.data) << ref::dtypeName(dtype);
  }
}

TEST(Npy, HeaderIsWhatNumPyWrites) {
  ref::Tensor t = ref::makeTensor(ref::DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<uint8_t> bytes = tensorToNpy(t);
  std::vector<uint8_t> data = ref::toBytes(t);
  EXPECT_EQ(bytes, npyBytes("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (2, 3), }",
                            data));
  EXPECT_EQ((bytes.size() - data.size()) % 64, 0u);

  ref::Tensor v = ref::makeTensor(ref::DType::BF16, {5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(
      tensorToNpy(v),
      npyBytes("{'descr': '<u2', 'fortran_order': False, 'shape': (5,), }",
               ref::toBytes(v)));
  ref::Tensor s = ref::scalar(ref::DType::I64, 7);
  EXPECT_EQ(tensorToNpy(s),
            npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                     ref::toBytes(s)));
}

TEST(Npy, ReadsVersion2AndOtherSpellings) {
  ref::Tensor t = ref::makeTensor(ref::DType::F16, {2}, {0.5, -2});
  std::string error;
  std::optional<ref::Tensor> back =
      load(npyBytes("{\"descr\":\"<f2\",\"fortran_order\":False,"
                    "\"shape\":(2,)}",
                    ref::toBytes(t), 2),
           ref::DType::F16, error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->data, t.data);
  // Python 2 longs.
  back = load(npyBytes("{'descr': '<f2', 'fortran_order': False, 'shape': "
                       "(2L,), }",
                       ref::toBytes(t)),
              ref::DType::F16, error);
  ASSERT_TRUE(back.has_value()) << error;
}

TEST(Npy, BFloat16Spellings) {
  ref::Tensor t = ref::makeTensor(ref::DType::BF16, {3}, {1.5, -0.25, 3});
  for (const char *descr : {"<u2", "<V2", "|V2"}) {
    std::string error;
    std::optional<ref::Tensor> back =
        load(npyBytes(std::string("{'descr': '") + descr +
                          "', 'fortran_order': False, 'shape': (3,), }",
                      ref::toBytes(t)),
             ref::DType::BF16, error);
    ASSERT_TRUE(back.has_value()) << descr << ": " << error;
    EXPECT_EQ(back->data, t.data) << descr;
  }
  EXPECT_TRUE(npyDescrMatches("<u2", ref::DType::BF16));
  EXPECT_FALSE(npyDescrMatches("<u2", ref::DType::F16));
  EXPECT_FALSE(npyDescrMatches(">f4", ref::DType::F32));
}

TEST(Npy, Errors) {
  std::string error;
  EXPECT_FALSE(parseNpy({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}, error));
  EXPECT_EQ(error, "not a .npy file (no \\x93NUMPY magic)");

  std::vector<uint8_t> four(16, 0);
  EXPECT_FALSE(load(npyBytes("{'descr': '>f4', 'fortran_order': False, "
                             "'shape': (4,), }",
                             four),
                    ref::DType::F32, error));
  EXPECT_EQ(error, "the array's dtype '>f4' cannot hold f32 (expected '<f4')");

  EXPECT_FALSE(load(npyBytes("{'descr': '<f4', 'fortran_order': True, "
                             "'shape': (2, 2), }",
                             four),
                    ref::DType::F32, error));
  EXPECT_EQ(error, "the array is in Fortran order; save it C-contiguous "
                   "(np.ascontiguousarray)");

  std::vector<int64_t> expected = {2, 2};
  EXPECT_FALSE(load(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (4,), }",
                             four),
                    ref::DType::F32, error, &expected));
  EXPECT_EQ(error, "the array has shape [4], expected [2, 2]");

  EXPECT_FALSE(load(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (5,), }",
                             four),
                    ref::DType::F32, error));
  EXPECT_EQ(error, "the array's data has 16 bytes, its shape needs 20 "
                   "(truncated file?)");

  EXPECT_FALSE(load(npyBytes("{'descr': '<f8', 'fortran_order': False, "
                             "'shape': (2,), }",
                             four),
                    ref::DType::BF16, error));
  EXPECT_EQ(error, "the array's dtype '<f8' cannot hold bf16 (expected '<u2', "
                   "'<V2' or '|V2' holding bfloat16 bits)");

  EXPECT_FALSE(parseNpy(npyBytes("{'descr': [('a', '<f4')], 'fortran_order': "
                                 "False, 'shape': (1,), }",
                                 four),
                        error));
  EXPECT_EQ(error, "'descr' must be a string such as '<f4' (structured dtypes "
                   "are not supported)");

  std::vector<uint8_t> truncated =
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", {});
  truncated.resize(30);
  EXPECT_FALSE(parseNpy(truncated, error));
  EXPECT_EQ(error, "truncated .npy header");
}

TEST(Npy, FuzzFindings) {
  // Found by fuzzing: a second 'shape' extended the first, and the element
  // count of huge dimensions overflowed (undefined behaviour) before the
  // zero dimension was reached.
  std::string error;
  EXPECT_FALSE(parseNpy(npyBytes("{'descr': '<u2', 'fortran_order': False, "
                                 "'shape': (2,), 'shape': (0, 2), }",
                                 {}),
                        error));
  EXPECT_EQ(error, "'shape' appears twice in the header");
  EXPECT_FALSE(load(npyBytes("{'descr': '<u2', 'fortran_order': False, "
                             "'shape': (88888888883, 11113, 111111111211112, "
                             "0), }",
                             {}),
                    ref::DType::BF16, error));
  EXPECT_EQ(error, "the array has shape [88888888883, 11113, "
                   "111111111211112, 0], too many elements");
}

TEST(Npy, NeverCrashesOnTruncatedFiles) {
  ref::Tensor t = ref::randomTensor(ref::DType::BF16, {3, 4}, 0, 0);
  std::vector<uint8_t> bytes = tensorToNpy(t);
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    std::string error;
    std::optional<NpyArray> a = parseNpy(prefix, error);
    if (a) {
      EXPECT_FALSE(npyToTensor(*a, ref::DType::BF16, &t.shape, error)) << n;
    }
  }
  std::string error;
  EXPECT_FALSE(load(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (100000000, 100000000, 100000000), }",
                             {}),
                    ref::DType::F32, error));
  EXPECT_EQ(error, "the array has shape [100000000, 100000000, 100000000], "
                   "too many elements");
}

TEST(Npy, Files) {
  char path[] = "/tmp/tfuse-npy-test-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ref::Tensor t = ref::randomTensor(ref::DType::I32, {4, 4}, 3, 0);
  std::vector<uint8_t> bytes = tensorToNpy(t);
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()),
            static_cast<ssize_t>(bytes.size()));
  ::close(fd);
  std::string error;
  std::optional<NpyArray> a = readNpyFile(path, error);
  ASSERT_TRUE(a.has_value()) << error;
  EXPECT_EQ(a->descr, "<i4");
  EXPECT_EQ(a->shape, (std::vector<int64_t>{4, 4}));
  std::remove(path);
  EXPECT_FALSE(readNpyFile(path, error));
  EXPECT_EQ(error, std::string("cannot open '") + path +
                       "': No such file or directory");
}

} // namespace
