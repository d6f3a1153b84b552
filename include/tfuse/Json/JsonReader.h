//===- JsonReader.h - JSON with source positions ----------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares a strict RFC 8259 JSON parser that keeps the line and
// column of every value (nlohmann::json's SAX parser underneath, which stays
// out of this header), and a checked accessor layer on top of it that reports
// bad fields with their position and JSON path:
//
//   a40.json:9:22: error: $.memory.bandwidth_gbps: expected a positive
//   number, got "fast"
//
// Target files, plans and configs are read through it so that a user always
// learns where the problem is. The parser is strict: no comments, no
// trailing commas, no NaN/Infinity, no leading zeros, valid UTF-8 only,
// numbers that overflow a double are refused, and a duplicate key in one
// object is an error.
//
// Positions are 1-based; columns count bytes from the start of the line (as
// LLVM and MLIR diagnostics do), so a tab or a multi-byte UTF-8 character
// counts as its number of bytes. A UTF-8 byte order mark at the start of the
// text is skipped and not counted.
//
// The library uses no LLVM/MLIR and no exceptions: the GPU runtime, which is
// built without LLVM, reuses it.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_JSON_JSONREADER_H
#define TFUSE_JSON_JSONREADER_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::tfuse {

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

enum class JsonSeverity { Error, Warning };

/// One problem found in a JSON document.
struct JsonDiagnostic {
  JsonSeverity severity = JsonSeverity::Error;
  /// 1-based position of the offending value or key; 0 when the problem has
  /// no position (e.g. the file could not be read).
  unsigned line = 0;
  unsigned column = 0;
  /// JSON path of the offending value ("$.steps[3].grid[0]"); empty when
  /// there is none.
  std::string jsonPath;
  std::string message;

  bool isError() const { return severity == JsonSeverity::Error; }

  /// Formats as `FILE:LINE:COL: error: PATH: MESSAGE`. Parts that are absent
  /// are left out: no position gives `FILE: error: ...`, an empty `fileName`
  /// gives `LINE:COL: error: ...`, no path gives `...: error: MESSAGE`.
  std::string format(std::string_view fileName) const;
};

/// True when any diagnostic in `diags` is an error.
bool hasErrors(const std::vector<JsonDiagnostic> &diags);

/// Formats every diagnostic, one per line, each line ending in '\n'.
std::string formatDiagnostics(const std::vector<JsonDiagnostic> &diags,
                              std::string_view fileName);

/// Stably sorts diagnostics by position (those without a position first),
/// so that they read in file order.
void sortDiagnostics(std::vector<JsonDiagnostic> &diags);

//===----------------------------------------------------------------------===//
// JSON paths
//===----------------------------------------------------------------------===//

/// The JSON path of the document root.
inline constexpr std::string_view kJsonRootPath = "$";

/// `path` followed by member `key`: `$.memory` for identifier-like keys,
/// `$["odd key"]` (with JSON escapes) for the others.
std::string jsonPathAppendKey(std::string_view path, std::string_view key);

/// `path` followed by element `index`: `$.steps[3]`.
std::string jsonPathAppendIndex(std::string_view path, std::size_t index);

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

enum class JsonKind { Null, Bool, Number, String, Array, Object };

/// "null", "a boolean", "a number", "a string", "an array", "an object".
const char *describeJsonKind(JsonKind kind);

struct JsonMember;

/// A JSON value with the position (1-based line and column) where it starts.
/// Objects keep their members in document order.
class JsonValue {
public:
  /// A null value without a position.
  JsonValue() = default;

  static JsonValue makeNull(unsigned line = 0, unsigned column = 0);
  static JsonValue makeBool(bool value, unsigned line = 0, unsigned column = 0);
  /// A number; `integerLiteral` says whether it was written without a
  /// fraction or exponent.
  static JsonValue makeNumber(double value, bool integerLiteral = false,
                              unsigned line = 0, unsigned column = 0);
  /// An integer literal, kept exactly.
  static JsonValue makeInteger(int64_t value, unsigned line = 0,
                               unsigned column = 0);
  static JsonValue makeString(std::string value, unsigned line = 0,
                              unsigned column = 0);
  static JsonValue makeArray(std::vector<JsonValue> elements, unsigned line = 0,
                             unsigned column = 0);
  static JsonValue makeObject(std::vector<JsonMember> members,
                              unsigned line = 0, unsigned column = 0);

  JsonKind kind() const { return valueKind; }
  unsigned line() const { return valueLine; }
  unsigned column() const { return valueColumn; }

  bool isNull() const { return valueKind == JsonKind::Null; }
  bool isBool() const { return valueKind == JsonKind::Bool; }
  bool isNumber() const { return valueKind == JsonKind::Number; }
  bool isString() const { return valueKind == JsonKind::String; }
  bool isArray() const { return valueKind == JsonKind::Array; }
  bool isObject() const { return valueKind == JsonKind::Object; }

  /// The accessors below return a neutral value (false, 0, empty) when the
  /// value has another kind.
  bool getBool() const { return isBool() && boolValue; }
  double getNumber() const { return isNumber() ? numberValue : 0.0; }
  /// True for numbers written without fraction and exponent ("84", "-3").
  bool isIntegerLiteral() const { return isNumber() && integerLiteral; }
  /// The exact value of an integer literal that fits in int64_t.
  std::optional<int64_t> getInt64() const;
  const std::string &getString() const;
  const std::vector<JsonValue> &getArray() const;
  const std::vector<JsonMember> &getObject() const;

  /// The value of member `key` of an object; nullptr when absent or when this
  /// is not an object.
  const JsonValue *find(std::string_view key) const;

private:
  friend class JsonDomBuilder;

  JsonKind valueKind = JsonKind::Null;
  bool boolValue = false;
  bool integerLiteral = false;
  bool fitsInt64 = false;
  double numberValue = 0.0;
  int64_t intValue = 0;
  unsigned valueLine = 0;
  unsigned valueColumn = 0;
  std::string stringValue;
  std::vector<JsonValue> elements;
  std::vector<JsonMember> members;
};

/// One member of an object, with the position of its key.
struct JsonMember {
  std::string key;
  unsigned line = 0;
  unsigned column = 0;
  JsonValue value;
};

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

struct JsonParseOptions {
  /// Arrays and objects nested deeper than this are an error, so that
  /// hostile input cannot overflow the stack. The top-level container is at
  /// depth 1.
  unsigned maxDepth = 256;
};

struct JsonParseResult {
  /// The document; empty when the text is not valid JSON.
  std::optional<JsonValue> value;
  /// The first syntax error, with its position; meaningful only when `value`
  /// is empty.
  JsonDiagnostic error;

  explicit operator bool() const { return value.has_value(); }
};

/// Parses one JSON document (RFC 8259) from `text`. Stops at the first error.
JsonParseResult parseJson(std::string_view text,
                          const JsonParseOptions &options = {});

//===----------------------------------------------------------------------===//
// Checked access
//===----------------------------------------------------------------------===//

/// The numbers a field accepts, for checks and messages.
struct JsonNumberRange {
  std::optional<double> min;
  std::optional<double> max;
  bool minExclusive = false;
  bool maxExclusive = false;

  /// Any finite number.
  static JsonNumberRange any() { return {}; }
  /// x > 0.
  static JsonNumberRange positive() { return {0.0, std::nullopt, true, false}; }
  /// x >= 0.
  static JsonNumberRange nonNegative() {
    return {0.0, std::nullopt, false, false};
  }
  /// lo <= x <= hi.
  static JsonNumberRange closed(double lo, double hi) {
    return {lo, hi, false, false};
  }
  /// lo < x <= hi, e.g. a fraction in (0, 1].
  static JsonNumberRange openClosed(double lo, double hi) {
    return {lo, hi, true, false};
  }

  bool contains(double x) const;
  /// "a number", "a positive number", "a non-negative number",
  /// "a number in (0, 1]", "a number >= 2", ...
  std::string describe() const;
};

/// Short, quoted description of a value for messages: `"fast"`, `42`,
/// `true`, `null`, `an array`, `an object`. Long strings are shortened.
std::string describeJsonValue(const JsonValue &value);

/// Formats a number the way it reads best in a message: integers without a
/// fraction, others with the fewest digits that round-trip.
std::string formatJsonNumber(double value);

/// `s` as a JSON string literal, with quotes and escapes: "a\"b".
std::string quoteJsonString(std::string_view s);

/// The candidate closest to `word` by edit distance when it is close enough
/// to be a likely misspelling (at most one edit per three characters), for
/// "did you mean" hints. Exact matches are not returned.
std::optional<std::string>
findClosestSpelling(std::string_view word,
                    const std::vector<std::string> &candidates);

class JsonObjectReader;
class JsonArrayReader;

/// A value at a JSON path, read with checks. Every failed check appends one
/// error (with the value's position and path) to the diagnostics list and
/// returns an empty optional.
class JsonValueReader {
public:
  JsonValueReader(const JsonValue &value, std::string path,
                  std::vector<JsonDiagnostic> &diags)
      : jsonValue(&value), jsonPath(std::move(path)), diags(&diags) {}

  const JsonValue &value() const { return *jsonValue; }
  const std::string &path() const { return jsonPath; }
  std::vector<JsonDiagnostic> &diagnostics() const { return *diags; }

  std::optional<double> getNumber(const JsonNumberRange &range = {}) const;
  /// A number in `range` or null. The outer optional is empty on error; the
  /// inner one is empty for null.
  std::optional<std::optional<double>>
  getNumberOrNull(const JsonNumberRange &range = {}) const;
  /// An integer literal in [min, max].
  std::optional<int64_t>
  getInt(int64_t min = std::numeric_limits<int64_t>::min(),
         int64_t max = std::numeric_limits<int64_t>::max()) const;
  std::optional<bool> getBool() const;
  /// A string; with `nonEmpty`, the empty string is an error.
  std::optional<std::string> getString(bool nonEmpty = false) const;
  std::optional<JsonObjectReader> getObject() const;
  /// An array with between `minSize` and `maxSize` elements.
  std::optional<JsonArrayReader>
  getArray(std::size_t minSize = 0,
           std::size_t maxSize = std::numeric_limits<std::size_t>::max()) const;

  /// Reports a problem with this value.
  void error(std::string message) const;
  void warning(std::string message) const;

private:
  /// Reports "expected <what>, got <value>".
  void expected(const std::string &what) const;

  const JsonValue *jsonValue;
  std::string jsonPath;
  std::vector<JsonDiagnostic> *diags;
};

/// An object read key by key. It remembers which keys were asked for; keys
/// nobody asked for are reported as "unknown key" warnings by finish() (or,
/// failing that, by the destructor), with a "did you mean" hint when a known
/// key is close.
class JsonObjectReader {
public:
  /// `object` must be an object value.
  JsonObjectReader(const JsonValue &object, std::string path,
                   std::vector<JsonDiagnostic> &diags);
  JsonObjectReader(JsonObjectReader &&other) noexcept;
  JsonObjectReader(const JsonObjectReader &) = delete;
  JsonObjectReader &operator=(const JsonObjectReader &) = delete;
  JsonObjectReader &operator=(JsonObjectReader &&) = delete;
  ~JsonObjectReader();

  const JsonValue &value() const { return *object; }
  const std::string &path() const { return jsonPath; }
  std::vector<JsonDiagnostic> &diagnostics() const { return *diags; }

  /// Whether `key` is present; counts as asking for it.
  bool has(std::string_view key);
  /// Member `key` if present (no diagnostic when absent).
  std::optional<JsonValueReader> get(std::string_view key);
  /// Member `key`; reports "required key is missing" when absent.
  std::optional<JsonValueReader> require(std::string_view key);

  // Shorthands: require*/optional* = require/get + the JsonValueReader check.
  // optional* return an empty optional both when the key is absent and when
  // it is invalid (the latter with an error).
  std::optional<double> requireNumber(std::string_view key,
                                      const JsonNumberRange &range = {});
  std::optional<double> optionalNumber(std::string_view key,
                                       const JsonNumberRange &range = {});
  std::optional<std::optional<double>>
  requireNumberOrNull(std::string_view key, const JsonNumberRange &range = {});
  std::optional<int64_t>
  requireInt(std::string_view key,
             int64_t min = std::numeric_limits<int64_t>::min(),
             int64_t max = std::numeric_limits<int64_t>::max());
  std::optional<int64_t>
  optionalInt(std::string_view key,
              int64_t min = std::numeric_limits<int64_t>::min(),
              int64_t max = std::numeric_limits<int64_t>::max());
  std::optional<bool> requireBool(std::string_view key);
  std::optional<bool> optionalBool(std::string_view key);
  std::optional<std::string> requireString(std::string_view key,
                                           bool nonEmpty = false);
  std::optional<std::string> optionalString(std::string_view key,
                                            bool nonEmpty = false);
  std::optional<JsonObjectReader> requireObject(std::string_view key);
  std::optional<JsonObjectReader> optionalObject(std::string_view key);
  std::optional<JsonArrayReader>
  requireArray(std::string_view key, std::size_t minSize = 0,
               std::size_t maxSize = std::numeric_limits<std::size_t>::max());
  std::optional<JsonArrayReader>
  optionalArray(std::string_view key, std::size_t minSize = 0,
                std::size_t maxSize = std::numeric_limits<std::size_t>::max());

  /// Members in document order, for objects used as maps. memberAt() counts
  /// as asking for that member.
  std::size_t size() const;
  const std::string &keyAt(std::size_t index) const;
  JsonValueReader memberAt(std::size_t index);

  /// Reports a problem with the object itself (at its opening brace).
  void error(std::string message) const;
  void warning(std::string message) const;

  /// Reports every key nobody asked for as an "unknown key" warning, the
  /// first kMaxUnknownKeyWarnings of them one by one and the rest in one
  /// summary warning. Called once; later calls (and the destructor) do
  /// nothing.
  void finish();

  static constexpr std::size_t kMaxUnknownKeyWarnings = 20;

private:
  std::optional<std::size_t> lookup(std::string_view key);

  const JsonValue *object;
  std::string jsonPath;
  std::vector<JsonDiagnostic> *diags;
  std::vector<bool> used;
  std::vector<std::string> asked;
  bool finished = false;
};

/// An array read element by element.
class JsonArrayReader {
public:
  /// `array` must be an array value.
  JsonArrayReader(const JsonValue &array, std::string path,
                  std::vector<JsonDiagnostic> &diags)
      : array(&array), jsonPath(std::move(path)), diags(&diags) {}

  const JsonValue &value() const { return *array; }
  const std::string &path() const { return jsonPath; }
  std::size_t size() const { return array->getArray().size(); }
  /// Element `index` (< size()), at path `PATH[index]`.
  JsonValueReader at(std::size_t index) const;

private:
  const JsonValue *array;
  std::string jsonPath;
  std::vector<JsonDiagnostic> *diags;
};

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// Reads a whole file. On failure returns an empty optional and sets `error`
/// to a message such as "cannot open 'x.json': No such file or directory".
std::optional<std::string> readFile(const std::string &path,
                                    std::string &error);

} // namespace mlir::tfuse

#endif // TFUSE_JSON_JSONREADER_H
