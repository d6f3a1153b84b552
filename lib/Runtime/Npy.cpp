//===- Npy.cpp - NumPy .npy files for inputs and outputs --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the .npy reader (magic, version, header length, the
// header's Python dict literal, the data) and writer.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// A cursor over the header's Python dict literal, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  bool parse(NpyArray &array, std::string &error) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return fail("the header is not a dict", error);
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key in the header", error);
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after '" + key + "' in the header", error);
      skipSpace();
      if ((key == "descr" && haveDescr) ||
          (key == "fortran_order" && haveOrder) ||
          (key == "shape" && haveShape))
        return fail("'" + key + "' appears twice in the header", error);
      if (key == "descr") {
        if (!parseString(array.descr))
          return fail("'descr' must be a string such as '<f4' (structured "
                      "dtypes are not supported)",
                      error);
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (text.compare(pos, 4, "True") == 0) {
          array.fortranOrder = true;
          pos += 4;
        } else if (text.compare(pos, 5, "False") == 0) {
          array.fortranOrder = false;
          pos += 5;
        } else {
          return fail("'fortran_order' must be True or False", error);
        }
        haveOrder = true;
      } else if (key == "shape") {
        if (!parseShape(array.shape))
          return fail("'shape' must be a tuple of non-negative integers",
                      error);
        haveShape = true;
      } else {
        return fail("unexpected key '" + key + "' in the header", error);
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}' in the header", error);
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return fail("the header lacks 'descr', 'fortran_order' or 'shape'",
                  error);
    return true;
  }

private:
  bool fail(const std::string &message, std::string &error) {
    error = message;
    return false;
  }
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n'))
      ++pos;
  }
  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return false;
    while (true) {
      skipSpace();
      if (consume(')'))
        return true;
      size_t start = pos;
      int64_t value = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (value > (int64_t(1) << 48))
          return false;
        value = value * 10 + (text[pos++] - '0');
      }
      // Python 2 wrote longs as "3L".
      if (pos < text.size() && text[pos] == 'L')
        ++pos;
      if (pos == start)
        return false;
      shape.push_back(value);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return true;
      return false;
    }
  }

  const std::string &text;
  size_t pos = 0;
};

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    out += std::to_string(shape[i]) +
           (shape.size() == 1 || i + 1 < shape.size() ? "," : "") +
           (i + 1 < shape.size() ? " " : "");
  return out + ")";
}

std::string formatList(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Strips a native or little-endian byte order mark: "<f4", "=f4", "|V2"
/// -> "f4"/"V2". Returns "" for big-endian descrs.
std::string withoutByteOrder(const std::string &descr) {
  if (descr.empty())
    return descr;
  if (descr[0] == '<' || descr[0] == '=' || descr[0] == '|')
    return descr.substr(1);
  if (descr[0] == '>' || descr[0] == '!')
    return "";
  return descr;
}

} // namespace

std::optional<NpyArray>
mlir::tfuse::rt::parseNpy(const std::vector<uint8_t> &bytes,
                          std::string &error) {
  if (bytes.size() < kMagicSize + 4 ||
      std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    error = "not a .npy file (no \\x93NUMPY magic)";
    return std::nullopt;
  }
  unsigned major = bytes[6], minor = bytes[7];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = bytes[8] | (size_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "truncated .npy header";
      return std::nullopt;
    }
    headerLength = bytes[8] | (size_t(bytes[9]) << 8) |
                   (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major) + "." +
            std::to_string(minor);
    return std::nullopt;
  }
  if (bytes.size() < headerStart + headerLength) {
    error = "truncated .npy header";
    return std::nullopt;
  }
  std::string header(bytes.begin() + headerStart,
                     bytes.begin() + headerStart + headerLength);
  NpyArray array;
  HeaderParser parser(header);
  if (!parser.parse(array, error))
    return std::nullopt;
  size_t dataStart = headerStart + headerLength;
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  return array;
}

std::optional<NpyArray> mlir::tfuse::rt::readNpyFile(const std::string &path,
                                                     std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  bool readError = std::ferror(file);
  std::fclose(file);
  if (readError) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  std::optional<NpyArray> array = parseNpy(bytes, error);
  if (!array)
    error = path + ": " + error;
  return array;
}

const char *mlir::tfuse::rt::npyDescrFor(ref::DType dtype) {
  switch (dtype) {
  case ref::DType::F32:
    return "<f4";
  case ref::DType::F16:
    return "<f2";
  case ref::DType::BF16:
    return "<u2";
  case ref::DType::I32:
    return "<i4";
  case ref::DType::I64:
    return "<i8";
  }
  return "";
}

bool mlir::tfuse::rt::npyDescrMatches(const std::string &descr,
                                      ref::DType dtype) {
  std::string d = withoutByteOrder(descr);
  switch (dtype) {
  case ref::DType::F32:
    return d == "f4";
  case ref::DType::F16:
    return d == "f2" || d == "e";
  case ref::DType::BF16:
    return d == "u2" || d == "V2";
  case ref::DType::I32:
    return d == "i4";
  case ref::DType::I64:
    return d == "i8";
  }
  return false;
}

std::optional<ref::Tensor>
mlir::tfuse::rt::npyToTensor(const NpyArray &array, ref::DType dtype,
                             const std::vector<int64_t> *shape,
                             std::string &error) {
  if (array.fortranOrder) {
    error = "the array is in Fortran order; save it C-contiguous "
            "(np.ascontiguousarray)";
    return std::nullopt;
  }
  if (!npyDescrMatches(array.descr, dtype)) {
    error =
        "the array's dtype '" + array.descr + "' cannot hold " +
        ref::dtypeName(dtype) + " (expected '" + npyDescrFor(dtype) + "'" +
        (dtype == ref::DType::BF16 ? ", '<V2' or '|V2' holding bfloat16 bits"
                                   : "") +
        ")";
    return std::nullopt;
  }
  if (shape && *shape != array.shape) {
    error = "the array has shape " + formatList(array.shape) + ", expected " +
            formatList(*shape);
    return std::nullopt;
  }
  // Every product of leading dimensions counts: element counts are computed
  // in that order, and must not overflow before a zero dimension.
  double elements = 1, largest = 1;
  for (int64_t d : array.shape) {
    elements *= static_cast<double>(d);
    largest = std::max(largest, elements);
  }
  if (largest > static_cast<double>(int64_t(1) << 48)) {
    error = "the array has shape " + formatList(array.shape) +
            ", too many elements";
    return std::nullopt;
  }
  size_t expected = static_cast<size_t>(ref::numElements(array.shape)) *
                    static_cast<size_t>(ref::elementSize(dtype));
  if (array.data.size() != expected) {
    error = "the array's data has " + std::to_string(array.data.size()) +
            " bytes, its shape needs " + std::to_string(expected) +
            (array.data.size() < expected ? " (truncated file?)" : "");
    return std::nullopt;
  }
  return ref::fromBytes(dtype, array.shape, array.data.data(),
                        array.data.size());
}

std::vector<uint8_t> mlir::tfuse::rt::tensorToNpy(const ref::Tensor &tensor) {
  std::string header =
      std::string("{'descr': '") + npyDescrFor(tensor.dtype) +
      "', 'fortran_order': False, 'shape': " + formatShape(tensor.shape) +
      ", }";
  // Pad with spaces so that the data starts at a multiple of 64, and end the
  // header with '\n', as NumPy does.
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  bool v2 = false;
  if ((total + 63) / 64 * 64 - prefix > 65535) {
    v2 = true;
    prefix = kMagicSize + 2 + 4;
    total = prefix + header.size() + 1;
  }
  size_t padded = (total + 63) / 64 * 64;
  header.append(padded - total, ' ');
  header.push_back('\n');

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  size_t length = header.size();
  out.push_back(static_cast<uint8_t>(length & 0xff));
  out.push_back(static_cast<uint8_t>((length >> 8) & 0xff));
  if (v2) {
    out.push_back(static_cast<uint8_t>((length >> 16) & 0xff));
    out.push_back(static_cast<uint8_t>((length >> 24) & 0xff));
  }
  out.insert(out.end(), header.begin(), header.end());
  ref::appendBytes(tensor, out);
  return out;
}
