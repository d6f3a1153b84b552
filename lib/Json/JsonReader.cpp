//===- JsonReader.cpp - JSON with source positions --------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the values, paths, diagnostics and the checked
// accessor layer declared in JsonReader.h; the parser is in JsonParser.cpp.
// No LLVM/MLIR, no exceptions.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Json/JsonReader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir::tfuse;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

std::string JsonDiagnostic::format(std::string_view fileName) const {
  std::string out(fileName);
  if (line != 0) {
    if (!out.empty())
      out += ':';
    out += std::to_string(line);
    out += ':';
    out += std::to_string(column);
  }
  if (!out.empty())
    out += ": ";
  out += severity == JsonSeverity::Error ? "error: " : "warning: ";
  if (!jsonPath.empty()) {
    out += jsonPath;
    out += ": ";
  }
  out += message;
  return out;
}

bool mlir::tfuse::hasErrors(const std::vector<JsonDiagnostic> &diags) {
  return std::any_of(diags.begin(), diags.end(),
                     [](const JsonDiagnostic &d) { return d.isError(); });
}

std::string
mlir::tfuse::formatDiagnostics(const std::vector<JsonDiagnostic> &diags,
                               std::string_view fileName) {
  std::string out;
  for (const JsonDiagnostic &d : diags) {
    out += d.format(fileName);
    out += '\n';
  }
  return out;
}

void mlir::tfuse::sortDiagnostics(std::vector<JsonDiagnostic> &diags) {
  std::stable_sort(diags.begin(), diags.end(),
                   [](const JsonDiagnostic &a, const JsonDiagnostic &b) {
                     if (a.line != b.line)
                       return a.line < b.line;
                     return a.column < b.column;
                   });
}

//===----------------------------------------------------------------------===//
// Strings and paths
//===----------------------------------------------------------------------===//

namespace {

/// Appends `s` as a JSON string literal (with quotes and escapes).
void appendQuoted(std::string &out, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default:
      if (c < 0x20) {
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}

std::string quoted(std::string_view s) {
  std::string out;
  appendQuoted(out, s);
  return out;
}

bool isIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdentifierChar(char c) {
  return isIdentifierStart(c) || (c >= '0' && c <= '9');
}

/// Levenshtein distance, for "did you mean" hints.
std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

} // namespace

std::optional<std::string>
mlir::tfuse::findClosestSpelling(std::string_view word,
                                 const std::vector<std::string> &candidates) {
  std::optional<std::string> best;
  std::size_t bestDistance = std::numeric_limits<std::size_t>::max();
  for (const std::string &candidate : candidates) {
    std::size_t d = editDistance(word, candidate);
    std::size_t longest = std::max(word.size(), candidate.size());
    if (d == 0 || d * 3 > longest || d >= bestDistance)
      continue;
    best = candidate;
    bestDistance = d;
  }
  return best;
}

std::string mlir::tfuse::quoteJsonString(std::string_view s) {
  return quoted(s);
}

std::string mlir::tfuse::jsonPathAppendKey(std::string_view path,
                                           std::string_view key) {
  std::string out(path);
  bool identifier = !key.empty() && isIdentifierStart(key[0]) &&
                    std::all_of(key.begin(), key.end(), isIdentifierChar);
  if (identifier) {
    out += '.';
    out += key;
  } else {
    out += '[';
    appendQuoted(out, key);
    out += ']';
  }
  return out;
}

std::string mlir::tfuse::jsonPathAppendIndex(std::string_view path,
                                             std::size_t index) {
  std::string out(path);
  out += '[';
  out += std::to_string(index);
  out += ']';
  return out;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

const char *mlir::tfuse::describeJsonKind(JsonKind kind) {
  switch (kind) {
  case JsonKind::Null:
    return "null";
  case JsonKind::Bool:
    return "a boolean";
  case JsonKind::Number:
    return "a number";
  case JsonKind::String:
    return "a string";
  case JsonKind::Array:
    return "an array";
  case JsonKind::Object:
    return "an object";
  }
  return "a value";
}

JsonValue JsonValue::makeNull(unsigned line, unsigned column) {
  JsonValue v;
  v.valueLine = line;
  v.valueColumn = column;
  return v;
}

JsonValue JsonValue::makeBool(bool value, unsigned line, unsigned column) {
  JsonValue v = makeNull(line, column);
  v.valueKind = JsonKind::Bool;
  v.boolValue = value;
  return v;
}

JsonValue JsonValue::makeNumber(double value, bool integerLiteral,
                                unsigned line, unsigned column) {
  JsonValue v = makeNull(line, column);
  v.valueKind = JsonKind::Number;
  v.numberValue = value;
  v.integerLiteral = integerLiteral;
  // An integral double in int64_t range is kept exactly too.
  if (integerLiteral && std::nearbyint(value) == value && value >= -0x1p63 &&
      value < 0x1p63) {
    v.fitsInt64 = true;
    v.intValue = static_cast<int64_t>(value);
  }
  return v;
}

JsonValue JsonValue::makeInteger(int64_t value, unsigned line,
                                 unsigned column) {
  JsonValue v = makeNull(line, column);
  v.valueKind = JsonKind::Number;
  v.numberValue = static_cast<double>(value);
  v.integerLiteral = true;
  v.fitsInt64 = true;
  v.intValue = value;
  return v;
}

JsonValue JsonValue::makeString(std::string value, unsigned line,
                                unsigned column) {
  JsonValue v = makeNull(line, column);
  v.valueKind = JsonKind::String;
  v.stringValue = std::move(value);
  return v;
}

JsonValue JsonValue::makeArray(std::vector<JsonValue> elements, unsigned line,
                               unsigned column) {
  JsonValue v = makeNull(line, column);
  v.valueKind = JsonKind::Array;
  v.elements = std::move(elements);
  return v;
}

JsonValue JsonValue::makeObject(std::vector<JsonMember> members, unsigned line,
                                unsigned column) {
  JsonValue v = makeNull(line, column);
  v.valueKind = JsonKind::Object;
  v.members = std::move(members);
  return v;
}

std::optional<int64_t> JsonValue::getInt64() const {
  if (!isNumber() || !integerLiteral || !fitsInt64)
    return std::nullopt;
  return intValue;
}

const std::string &JsonValue::getString() const {
  static const std::string empty;
  return isString() ? stringValue : empty;
}

const std::vector<JsonValue> &JsonValue::getArray() const {
  static const std::vector<JsonValue> empty;
  return isArray() ? elements : empty;
}

const std::vector<JsonMember> &JsonValue::getObject() const {
  static const std::vector<JsonMember> empty;
  return isObject() ? members : empty;
}

const JsonValue *JsonValue::find(std::string_view key) const {
  if (!isObject())
    return nullptr;
  for (const JsonMember &m : members)
    if (m.key == key)
      return &m.value;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

std::string mlir::tfuse::formatJsonNumber(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value < 0 ? "-Infinity" : "Infinity";
  char buffer[64];
  if (std::nearbyint(value) == value && std::fabs(value) < 1e16) {
    std::snprintf(buffer, sizeof(buffer), "%.0f", value);
    return buffer;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

//===----------------------------------------------------------------------===//
// Checked access
//===----------------------------------------------------------------------===//

bool JsonNumberRange::contains(double x) const {
  if (!std::isfinite(x))
    return false;
  if (min && (minExclusive ? x <= *min : x < *min))
    return false;
  if (max && (maxExclusive ? x >= *max : x > *max))
    return false;
  return true;
}

std::string JsonNumberRange::describe() const {
  if (!min && !max)
    return "a number";
  if (min && !max && *min == 0.0)
    return minExclusive ? "a positive number" : "a non-negative number";
  if (min && max)
    return std::string("a number in ") + (minExclusive ? "(" : "[") +
           formatJsonNumber(*min) + ", " + formatJsonNumber(*max) +
           (maxExclusive ? ")" : "]");
  if (min)
    return std::string("a number ") + (minExclusive ? "> " : ">= ") +
           formatJsonNumber(*min);
  return std::string("a number ") + (maxExclusive ? "< " : "<= ") +
         formatJsonNumber(*max);
}

std::string mlir::tfuse::describeJsonValue(const JsonValue &value) {
  switch (value.kind()) {
  case JsonKind::Null:
    return "null";
  case JsonKind::Bool:
    return value.getBool() ? "true" : "false";
  case JsonKind::Number: {
    std::string text = formatJsonNumber(value.getNumber());
    // Show "84.0" or "1e2" as a non-integer: "expected an integer, got 84"
    // would be confusing.
    if (!value.isIntegerLiteral() &&
        text.find_first_of(".eEnN") == std::string::npos)
      text += ".0";
    return text;
  }
  case JsonKind::String: {
    const std::string &s = value.getString();
    constexpr std::size_t kMaxShown = 40;
    if (s.size() <= kMaxShown)
      return quoted(s);
    // Cut at a character boundary.
    std::size_t cut = kMaxShown;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
      --cut;
    std::string out = quoted(s.substr(0, cut));
    out.insert(out.size() - 1, "...");
    return out;
  }
  case JsonKind::Array:
    return "an array";
  case JsonKind::Object:
    return "an object";
  }
  return "a value";
}

void JsonValueReader::error(std::string message) const {
  diags->push_back({JsonSeverity::Error, jsonValue->line(), jsonValue->column(),
                    jsonPath, std::move(message)});
}

void JsonValueReader::warning(std::string message) const {
  diags->push_back({JsonSeverity::Warning, jsonValue->line(),
                    jsonValue->column(), jsonPath, std::move(message)});
}

void JsonValueReader::expected(const std::string &what) const {
  error("expected " + what + ", got " + describeJsonValue(*jsonValue));
}

std::optional<double>
JsonValueReader::getNumber(const JsonNumberRange &range) const {
  if (!jsonValue->isNumber() || !range.contains(jsonValue->getNumber())) {
    expected(range.describe());
    return std::nullopt;
  }
  return jsonValue->getNumber();
}

std::optional<std::optional<double>>
JsonValueReader::getNumberOrNull(const JsonNumberRange &range) const {
  if (jsonValue->isNull())
    return std::optional<double>();
  if (!jsonValue->isNumber() || !range.contains(jsonValue->getNumber())) {
    expected(range.describe() + " or null");
    return std::nullopt;
  }
  return std::optional<double>(jsonValue->getNumber());
}

std::optional<int64_t> JsonValueReader::getInt(int64_t min, int64_t max) const {
  std::optional<int64_t> v = jsonValue->getInt64();
  if (v && *v >= min && *v <= max)
    return v;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::string what = "an integer";
  if (min != kMin && max != kMax)
    what += " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  else if (min != kMin)
    what += " >= " + std::to_string(min);
  else if (max != kMax)
    what += " <= " + std::to_string(max);
  expected(what);
  return std::nullopt;
}

std::optional<bool> JsonValueReader::getBool() const {
  if (!jsonValue->isBool()) {
    expected("true or false");
    return std::nullopt;
  }
  return jsonValue->getBool();
}

std::optional<std::string> JsonValueReader::getString(bool nonEmpty) const {
  if (!jsonValue->isString() || (nonEmpty && jsonValue->getString().empty())) {
    expected(nonEmpty ? "a non-empty string" : "a string");
    return std::nullopt;
  }
  return jsonValue->getString();
}

std::optional<JsonObjectReader> JsonValueReader::getObject() const {
  if (!jsonValue->isObject()) {
    expected("an object");
    return std::nullopt;
  }
  return JsonObjectReader(*jsonValue, jsonPath, *diags);
}

std::optional<JsonArrayReader>
JsonValueReader::getArray(std::size_t minSize, std::size_t maxSize) const {
  if (!jsonValue->isArray()) {
    expected("an array");
    return std::nullopt;
  }
  std::size_t n = jsonValue->getArray().size();
  if (n < minSize || n > maxSize) {
    auto elements = [](std::size_t k) {
      return std::to_string(k) + (k == 1 ? " element" : " elements");
    };
    std::string what;
    if (minSize == maxSize)
      what = "exactly " + elements(minSize);
    else if (maxSize == std::numeric_limits<std::size_t>::max())
      what = "at least " + elements(minSize);
    else if (minSize == 0)
      what = "at most " + elements(maxSize);
    else
      what = std::to_string(minSize) + " to " + elements(maxSize);
    error("expected an array of " + what + ", got " + elements(n));
    return std::nullopt;
  }
  return JsonArrayReader(*jsonValue, jsonPath, *diags);
}

JsonObjectReader::JsonObjectReader(const JsonValue &object, std::string path,
                                   std::vector<JsonDiagnostic> &diags)
    : object(&object), jsonPath(std::move(path)), diags(&diags),
      used(object.getObject().size(), false) {}

JsonObjectReader::JsonObjectReader(JsonObjectReader &&other) noexcept
    : object(other.object), jsonPath(std::move(other.jsonPath)),
      diags(other.diags), used(std::move(other.used)),
      asked(std::move(other.asked)), finished(other.finished) {
  other.finished = true;
}

JsonObjectReader::~JsonObjectReader() { finish(); }

std::optional<std::size_t> JsonObjectReader::lookup(std::string_view key) {
  if (std::find(asked.begin(), asked.end(), key) == asked.end())
    asked.emplace_back(key);
  const std::vector<JsonMember> &members = object->getObject();
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i].key == key) {
      used[i] = true;
      return i;
    }
  }
  return std::nullopt;
}

bool JsonObjectReader::has(std::string_view key) {
  return lookup(key).has_value();
}

std::optional<JsonValueReader> JsonObjectReader::get(std::string_view key) {
  std::optional<std::size_t> i = lookup(key);
  if (!i)
    return std::nullopt;
  return JsonValueReader(object->getObject()[*i].value,
                         jsonPathAppendKey(jsonPath, key), *diags);
}

std::optional<JsonValueReader> JsonObjectReader::require(std::string_view key) {
  std::optional<JsonValueReader> member = get(key);
  if (!member)
    diags->push_back({JsonSeverity::Error, object->line(), object->column(),
                      jsonPathAppendKey(jsonPath, key),
                      "required key is missing"});
  return member;
}

std::optional<double>
JsonObjectReader::requireNumber(std::string_view key,
                                const JsonNumberRange &range) {
  std::optional<JsonValueReader> member = require(key);
  return member ? member->getNumber(range) : std::nullopt;
}

std::optional<double>
JsonObjectReader::optionalNumber(std::string_view key,
                                 const JsonNumberRange &range) {
  std::optional<JsonValueReader> member = get(key);
  return member ? member->getNumber(range) : std::nullopt;
}

std::optional<std::optional<double>>
JsonObjectReader::requireNumberOrNull(std::string_view key,
                                      const JsonNumberRange &range) {
  std::optional<JsonValueReader> member = require(key);
  if (!member)
    return std::nullopt;
  return member->getNumberOrNull(range);
}

std::optional<int64_t> JsonObjectReader::requireInt(std::string_view key,
                                                    int64_t min, int64_t max) {
  std::optional<JsonValueReader> member = require(key);
  return member ? member->getInt(min, max) : std::nullopt;
}

std::optional<int64_t> JsonObjectReader::optionalInt(std::string_view key,
                                                     int64_t min, int64_t max) {
  std::optional<JsonValueReader> member = get(key);
  return member ? member->getInt(min, max) : std::nullopt;
}

std::optional<bool> JsonObjectReader::requireBool(std::string_view key) {
  std::optional<JsonValueReader> member = require(key);
  return member ? member->getBool() : std::nullopt;
}

std::optional<bool> JsonObjectReader::optionalBool(std::string_view key) {
  std::optional<JsonValueReader> member = get(key);
  return member ? member->getBool() : std::nullopt;
}

std::optional<std::string> JsonObjectReader::requireString(std::string_view key,
                                                           bool nonEmpty) {
  std::optional<JsonValueReader> member = require(key);
  return member ? member->getString(nonEmpty) : std::nullopt;
}

std::optional<std::string>
JsonObjectReader::optionalString(std::string_view key, bool nonEmpty) {
  std::optional<JsonValueReader> member = get(key);
  return member ? member->getString(nonEmpty) : std::nullopt;
}

std::optional<JsonObjectReader>
JsonObjectReader::requireObject(std::string_view key) {
  std::optional<JsonValueReader> member = require(key);
  if (!member)
    return std::nullopt;
  return member->getObject();
}

std::optional<JsonObjectReader>
JsonObjectReader::optionalObject(std::string_view key) {
  std::optional<JsonValueReader> member = get(key);
  if (!member)
    return std::nullopt;
  return member->getObject();
}

std::optional<JsonArrayReader>
JsonObjectReader::requireArray(std::string_view key, std::size_t minSize,
                               std::size_t maxSize) {
  std::optional<JsonValueReader> member = require(key);
  if (!member)
    return std::nullopt;
  return member->getArray(minSize, maxSize);
}

std::optional<JsonArrayReader>
JsonObjectReader::optionalArray(std::string_view key, std::size_t minSize,
                                std::size_t maxSize) {
  std::optional<JsonValueReader> member = get(key);
  if (!member)
    return std::nullopt;
  return member->getArray(minSize, maxSize);
}

std::size_t JsonObjectReader::size() const {
  return object->getObject().size();
}

const std::string &JsonObjectReader::keyAt(std::size_t index) const {
  return object->getObject()[index].key;
}

JsonValueReader JsonObjectReader::memberAt(std::size_t index) {
  const JsonMember &member = object->getObject()[index];
  used[index] = true;
  return JsonValueReader(member.value, jsonPathAppendKey(jsonPath, member.key),
                         *diags);
}

void JsonObjectReader::error(std::string message) const {
  diags->push_back({JsonSeverity::Error, object->line(), object->column(),
                    jsonPath, std::move(message)});
}

void JsonObjectReader::warning(std::string message) const {
  diags->push_back({JsonSeverity::Warning, object->line(), object->column(),
                    jsonPath, std::move(message)});
}

void JsonObjectReader::finish() {
  if (finished)
    return;
  finished = true;
  const std::vector<JsonMember> &members = object->getObject();
  std::size_t unknown = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (used[i] || ++unknown > kMaxUnknownKeyWarnings)
      continue;
    const JsonMember &m = members[i];
    std::string message = "unknown key " + quoted(m.key) + " (ignored)";
    if (std::optional<std::string> hint = findClosestSpelling(m.key, asked))
      message += "; did you mean " + quoted(*hint) + "?";
    diags->push_back({JsonSeverity::Warning, m.line, m.column,
                      jsonPathAppendKey(jsonPath, m.key), std::move(message)});
  }
  // A file full of unknown keys (the wrong kind of file?) gets a summary,
  // not thousands of lines.
  if (unknown > kMaxUnknownKeyWarnings)
    warning("and " + std::to_string(unknown - kMaxUnknownKeyWarnings) +
            " more unknown keys (ignored)");
}

JsonValueReader JsonArrayReader::at(std::size_t index) const {
  return JsonValueReader(array->getArray()[index],
                         jsonPathAppendIndex(jsonPath, index), *diags);
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

std::optional<std::string> mlir::tfuse::readFile(const std::string &path,
                                                 std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  std::string contents;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    contents.append(buffer, n);
  // Reading a directory opens fine and fails here with EISDIR.
  int readErrno = errno;
  bool readFailed = std::ferror(file) != 0;
  std::fclose(file);
  if (readFailed) {
    error = "cannot read '" + path + "': " + std::strerror(readErrno);
    return std::nullopt;
  }
  return contents;
}
