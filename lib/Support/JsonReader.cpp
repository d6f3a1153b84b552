//===- JsonReader.cpp - JSON with source positions --------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the strict JSON parser (a recursive-descent parser
// with a depth limit that stops at the first error) and the checked accessor
// layer declared in JsonReader.h. No LLVM/MLIR, no exceptions.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Support/JsonReader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#if defined(__has_include)
#if __has_include(<charconv>)
#include <charconv>
#endif
#endif

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

bool isDigit(char c) { return c >= '0' && c <= '9'; }

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
// Number conversion
//===----------------------------------------------------------------------===//

namespace {

enum class NumberStatus { Ok, Overflow };

/// Converts a lexically valid JSON number. Values too small for a double
/// become (signed) zero; values too large are an overflow.
NumberStatus convertNumber(std::string_view text, double &out) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  // Locale-independent and correctly rounded.
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  (void)ptr;
  if (ec == std::errc())
    return NumberStatus::Ok;
#else
  // strtod needs a terminated string; the literal is short.
  std::string copy(text);
  char *end = nullptr;
  errno = 0;
  out = std::strtod(copy.c_str(), &end);
  if (errno != ERANGE && end == copy.c_str() + copy.size())
    return NumberStatus::Ok;
#endif
  // Out of range: decide between overflow and underflow from the decimal
  // exponent of the first significant digit.
  long exponent = 0;
  std::size_t ePos = text.find_first_of("eE");
  std::string_view mantissa = text.substr(0, ePos);
  if (ePos != std::string_view::npos) {
    std::string expText(text.substr(ePos + 1));
    errno = 0;
    exponent = std::strtol(expText.c_str(), nullptr, 10);
    if (errno == ERANGE)
      exponent = expText[0] == '-' ? -100000 : 100000;
  }
  std::size_t pointPos = mantissa.find('.');
  std::string_view intPart = mantissa.substr(0, pointPos);
  if (!intPart.empty() && intPart[0] == '-')
    intPart.remove_prefix(1);
  long magnitude;
  if (intPart != "0") {
    magnitude = static_cast<long>(intPart.size()) - 1;
  } else {
    std::string_view frac = pointPos == std::string_view::npos
                                ? std::string_view()
                                : mantissa.substr(pointPos + 1);
    std::size_t firstNonZero = frac.find_first_not_of('0');
    magnitude = firstNonZero == std::string_view::npos
                    ? 0
                    : -static_cast<long>(firstNonZero) - 1;
  }
  if (magnitude + exponent > 0)
    return NumberStatus::Overflow;
  out = text[0] == '-' ? -0.0 : 0.0;
  return NumberStatus::Ok;
}

} // namespace

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
// Parser
//===----------------------------------------------------------------------===//

namespace mlir::tfuse {

/// Recursive-descent parser. Every parse* function returns false after
/// recording the first error; callers then unwind without further checks.
class JsonParser {
public:
  JsonParser(std::string_view text, const JsonParseOptions &options)
      : text(text), options(options) {}

  JsonParseResult run();

private:
  struct PathSegment {
    bool isKey;
    std::string key;
    std::size_t index;
  };

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  char peekAt(std::size_t offset) const {
    return pos + offset < text.size() ? text[pos + offset] : '\0';
  }
  unsigned column() const { return static_cast<unsigned>(pos - lineStart + 1); }
  unsigned columnAt(std::size_t offset) const {
    return static_cast<unsigned>(offset - lineStart + 1);
  }

  std::string currentPath() const;
  bool fail(unsigned line, unsigned col, std::string message);
  bool failHere(std::string message) { return fail(line, column(), message); }
  /// Describes the character at the current position for messages.
  std::string describeCurrent() const;

  bool skipWhitespace();
  bool parseValue(JsonValue &out, unsigned depth);
  bool parseObject(JsonValue &out, unsigned depth);
  bool parseArray(JsonValue &out, unsigned depth);
  bool parseString(std::string &out);
  bool parseNumber(JsonValue &out);
  bool parseWord(JsonValue &out);
  bool parseHex4(std::size_t at, unsigned &value) const;

  std::string_view text;
  JsonParseOptions options;
  std::size_t pos = 0;
  std::size_t lineStart = 0;
  unsigned line = 1;
  std::vector<PathSegment> path;
  JsonDiagnostic error;
  bool failed = false;
};

} // namespace mlir::tfuse

std::string JsonParser::currentPath() const {
  // Errors at the top level need no path.
  if (path.empty())
    return std::string();
  std::string out(kJsonRootPath);
  for (const PathSegment &s : path)
    out = s.isKey ? jsonPathAppendKey(out, s.key)
                  : jsonPathAppendIndex(out, s.index);
  return out;
}

bool JsonParser::fail(unsigned errorLine, unsigned col, std::string message) {
  if (!failed) {
    failed = true;
    error.severity = JsonSeverity::Error;
    error.line = errorLine;
    error.column = col;
    error.jsonPath = currentPath();
    error.message = std::move(message);
  }
  return false;
}

std::string JsonParser::describeCurrent() const {
  if (atEnd())
    return "the end of the input";
  unsigned char c = static_cast<unsigned char>(peek());
  char buffer[32];
  if (c >= 0x21 && c < 0x7f) {
    std::snprintf(buffer, sizeof(buffer), "'%c'", c);
    return buffer;
  }
  std::snprintf(buffer, sizeof(buffer), "byte 0x%02X", c);
  return buffer;
}

bool JsonParser::skipWhitespace() {
  while (!atEnd()) {
    char c = text[pos];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos;
    } else if (c == '\n') {
      ++pos;
      ++line;
      lineStart = pos;
    } else if (c == '/' && (peekAt(1) == '/' || peekAt(1) == '*')) {
      return failHere("comments are not allowed in JSON");
    } else {
      break;
    }
  }
  return true;
}

JsonParseResult JsonParser::run() {
  // Skip a UTF-8 byte order mark; columns start after it.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    pos = 3;
    lineStart = 3;
  }
  JsonParseResult result;
  if (!skipWhitespace()) {
    result.error = error;
    return result;
  }
  if (atEnd()) {
    failHere("empty document: expected a JSON value");
    result.error = error;
    return result;
  }
  JsonValue value;
  if (parseValue(value, 0) && skipWhitespace()) {
    if (atEnd()) {
      result.value = std::move(value);
      return result;
    }
    failHere("unexpected " + describeCurrent() +
             " after the JSON document (a document holds exactly one value)");
  }
  result.error = error;
  return result;
}

bool JsonParser::parseValue(JsonValue &out, unsigned depth) {
  if (!skipWhitespace())
    return false;
  char c = peek();
  switch (c) {
  case '{':
    return parseObject(out, depth);
  case '[':
    return parseArray(out, depth);
  case '"': {
    unsigned l = line, col = column();
    std::string s;
    if (!parseString(s))
      return false;
    out = JsonValue::makeString(std::move(s), l, col);
    return true;
  }
  case '-':
  case '0':
  case '1':
  case '2':
  case '3':
  case '4':
  case '5':
  case '6':
  case '7':
  case '8':
  case '9':
    return parseNumber(out);
  case '\'':
    return failHere("strings must be enclosed in double quotes, not '");
  case '+':
    return failHere("numbers cannot start with '+'");
  case '.':
    return failHere("numbers must start with a digit (write 0.5, not .5)");
  default:
    break;
  }
  if (isIdentifierStart(c))
    return parseWord(out);
  if (atEnd())
    return failHere("unexpected end of input: expected a value");
  return failHere("unexpected " + describeCurrent() + ": expected a value");
}

bool JsonParser::parseObject(JsonValue &out, unsigned depth) {
  unsigned openLine = line, openColumn = column();
  if (depth + 1 > options.maxDepth)
    return failHere("nesting too deep: arrays and objects may be nested at "
                    "most " +
                    std::to_string(options.maxDepth) + " levels");
  ++pos; // '{'
  out = JsonValue::makeObject({}, openLine, openColumn);
  std::vector<JsonMember> &members = out.members;
  // Index of keys for large objects; small ones are searched linearly.
  std::map<std::string, std::size_t, std::less<>> index;
  if (!skipWhitespace())
    return false;
  if (peek() == '}') {
    ++pos;
    return true;
  }
  while (true) {
    if (peek() != '"') {
      if (atEnd())
        return failHere("unexpected end of input: the object opened at " +
                        std::to_string(openLine) + ":" +
                        std::to_string(openColumn) + " is not closed");
      if (isIdentifierStart(peek()) || peek() == '\'')
        return failHere("object keys must be strings in double quotes");
      return failHere("expected a string key, got " + describeCurrent());
    }
    JsonMember member;
    member.line = line;
    member.column = column();
    if (!parseString(member.key))
      return false;
    // Duplicate keys: report the second one and point at the first.
    std::optional<std::size_t> previous;
    if (members.size() < 16) {
      for (std::size_t i = 0; i < members.size(); ++i)
        if (members[i].key == member.key)
          previous = i;
    } else {
      if (index.empty())
        for (std::size_t i = 0; i < members.size(); ++i)
          index.emplace(members[i].key, i);
      auto it = index.find(member.key);
      if (it != index.end())
        previous = it->second;
    }
    path.push_back({true, member.key, 0});
    if (previous) {
      const JsonMember &first = members[*previous];
      return fail(member.line, member.column,
                  "duplicate key " + quoted(member.key) +
                      " (first defined at " + std::to_string(first.line) + ":" +
                      std::to_string(first.column) + ")");
    }
    if (!skipWhitespace())
      return false;
    if (peek() != ':')
      return failHere("expected ':' after the key " + quoted(member.key) +
                      ", got " + describeCurrent());
    ++pos;
    if (!parseValue(member.value, depth + 1))
      return false;
    path.pop_back();
    if (!index.empty())
      index.emplace(member.key, members.size());
    members.push_back(std::move(member));
    if (!skipWhitespace())
      return false;
    if (peek() == ',') {
      unsigned commaLine = line, commaColumn = column();
      ++pos;
      if (!skipWhitespace())
        return false;
      if (peek() == '}')
        return fail(commaLine, commaColumn,
                    "trailing comma before '}' is not allowed in JSON");
      continue;
    }
    if (peek() == '}') {
      ++pos;
      return true;
    }
    if (atEnd())
      return failHere("unexpected end of input: the object opened at " +
                      std::to_string(openLine) + ":" +
                      std::to_string(openColumn) + " is not closed");
    return failHere("expected ',' or '}' after an object member, got " +
                    describeCurrent());
  }
}

bool JsonParser::parseArray(JsonValue &out, unsigned depth) {
  unsigned openLine = line, openColumn = column();
  if (depth + 1 > options.maxDepth)
    return failHere("nesting too deep: arrays and objects may be nested at "
                    "most " +
                    std::to_string(options.maxDepth) + " levels");
  ++pos; // '['
  out = JsonValue::makeArray({}, openLine, openColumn);
  std::vector<JsonValue> &elements = out.elements;
  if (!skipWhitespace())
    return false;
  if (peek() == ']') {
    ++pos;
    return true;
  }
  while (true) {
    if (atEnd())
      return failHere("unexpected end of input: the array opened at " +
                      std::to_string(openLine) + ":" +
                      std::to_string(openColumn) + " is not closed");
    path.push_back({false, std::string(), elements.size()});
    JsonValue element;
    if (!parseValue(element, depth + 1))
      return false;
    path.pop_back();
    elements.push_back(std::move(element));
    if (!skipWhitespace())
      return false;
    if (peek() == ',') {
      unsigned commaLine = line, commaColumn = column();
      ++pos;
      if (!skipWhitespace())
        return false;
      if (peek() == ']')
        return fail(commaLine, commaColumn,
                    "trailing comma before ']' is not allowed in JSON");
      continue;
    }
    if (peek() == ']') {
      ++pos;
      return true;
    }
    if (atEnd())
      return failHere("unexpected end of input: the array opened at " +
                      std::to_string(openLine) + ":" +
                      std::to_string(openColumn) + " is not closed");
    return failHere("expected ',' or ']' after an array element, got " +
                    describeCurrent());
  }
}

bool JsonParser::parseHex4(std::size_t at, unsigned &value) const {
  if (at + 4 > text.size())
    return false;
  value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    char c = text[i];
    unsigned digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return false;
    value = value * 16 + digit;
  }
  return true;
}

namespace {

void appendUtf8(std::string &out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// Length of the well-formed UTF-8 sequence at `s` (Unicode table 3-7), or 0.
std::size_t utf8SequenceLength(std::string_view s) {
  auto byte = [&](std::size_t i) -> unsigned {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0x100;
  };
  auto inRange = [](unsigned b, unsigned lo, unsigned hi) {
    return b >= lo && b <= hi;
  };
  unsigned b0 = byte(0);
  if (b0 < 0x80)
    return 1;
  if (inRange(b0, 0xC2, 0xDF))
    return inRange(byte(1), 0x80, 0xBF) ? 2 : 0;
  if (b0 == 0xE0)
    return inRange(byte(1), 0xA0, 0xBF) && inRange(byte(2), 0x80, 0xBF) ? 3 : 0;
  if (inRange(b0, 0xE1, 0xEC) || b0 == 0xEE || b0 == 0xEF)
    return inRange(byte(1), 0x80, 0xBF) && inRange(byte(2), 0x80, 0xBF) ? 3 : 0;
  if (b0 == 0xED) // no UTF-16 surrogates
    return inRange(byte(1), 0x80, 0x9F) && inRange(byte(2), 0x80, 0xBF) ? 3 : 0;
  if (b0 == 0xF0)
    return inRange(byte(1), 0x90, 0xBF) && inRange(byte(2), 0x80, 0xBF) &&
                   inRange(byte(3), 0x80, 0xBF)
               ? 4
               : 0;
  if (inRange(b0, 0xF1, 0xF3))
    return inRange(byte(1), 0x80, 0xBF) && inRange(byte(2), 0x80, 0xBF) &&
                   inRange(byte(3), 0x80, 0xBF)
               ? 4
               : 0;
  if (b0 == 0xF4)
    return inRange(byte(1), 0x80, 0x8F) && inRange(byte(2), 0x80, 0xBF) &&
                   inRange(byte(3), 0x80, 0xBF)
               ? 4
               : 0;
  return 0;
}

} // namespace

bool JsonParser::parseString(std::string &out) {
  unsigned openLine = line, openColumn = column();
  ++pos; // '"'
  while (true) {
    if (atEnd())
      return fail(openLine, openColumn,
                  "unterminated string: missing closing '\"'");
    unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c == '"') {
      ++pos;
      return true;
    }
    if (c == '\n' || c == '\r')
      return fail(openLine, openColumn,
                  "unterminated string: missing closing '\"' before the end "
                  "of the line (write a line break in a string as \\n)");
    if (c < 0x20) {
      char buffer[96];
      std::snprintf(buffer, sizeof(buffer),
                    "control character U+%04X must be escaped in a string%s", c,
                    c == '\t' ? " (as \\t)" : "");
      return failHere(buffer);
    }
    if (c >= 0x80) {
      std::size_t n = utf8SequenceLength(text.substr(pos));
      if (n == 0)
        return failHere("invalid UTF-8 in string");
      out.append(text.data() + pos, n);
      pos += n;
      continue;
    }
    if (c != '\\') {
      out += static_cast<char>(c);
      ++pos;
      continue;
    }
    // Escape sequence.
    std::size_t escapeStart = pos;
    char e = peekAt(1);
    switch (e) {
    case '"':
    case '\\':
    case '/':
      out += e;
      pos += 2;
      continue;
    case 'b':
      out += '\b';
      pos += 2;
      continue;
    case 'f':
      out += '\f';
      pos += 2;
      continue;
    case 'n':
      out += '\n';
      pos += 2;
      continue;
    case 'r':
      out += '\r';
      pos += 2;
      continue;
    case 't':
      out += '\t';
      pos += 2;
      continue;
    case 'u':
      break;
    default:
      if (pos + 1 >= text.size())
        return fail(openLine, openColumn,
                    "unterminated string: missing closing '\"'");
      if (e == '\n' || e == '\r' || static_cast<unsigned char>(e) < 0x20 ||
          static_cast<unsigned char>(e) >= 0x80)
        return failHere("invalid escape sequence in string");
      return failHere(std::string("invalid escape sequence '\\") + e +
                      "' in string (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
                      "\\uXXXX)");
    }
    unsigned unit;
    if (!parseHex4(pos + 2, unit))
      return failHere("invalid \\u escape: expected 4 hexadecimal digits");
    pos += 6;
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      char buffer[96];
      std::snprintf(buffer, sizeof(buffer),
                    "unpaired low surrogate \\u%04X in string", unit);
      return fail(line, columnAt(escapeStart), buffer);
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      unsigned low;
      if (peek() != '\\' || peekAt(1) != 'u' || !parseHex4(pos + 2, low) ||
          low < 0xDC00 || low > 0xDFFF) {
        char buffer[128];
        std::snprintf(buffer, sizeof(buffer),
                      "unpaired high surrogate \\u%04X in string: it must be "
                      "followed by a low surrogate \\uDC00-\\uDFFF",
                      unit);
        return fail(line, columnAt(escapeStart), buffer);
      }
      pos += 6;
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(out, unit);
  }
}

bool JsonParser::parseNumber(JsonValue &out) {
  std::size_t start = pos;
  unsigned startColumn = column();
  bool integer = true;
  if (peek() == '-') {
    ++pos;
    if (!isDigit(peek())) {
      if (text.substr(pos, 8) == "Infinity")
        return fail(line, startColumn,
                    "'-Infinity' is not allowed in JSON: numbers must be "
                    "finite");
      return failHere("expected a digit after '-'");
    }
  }
  if (peek() == '0') {
    ++pos;
    if (isDigit(peek()))
      return fail(line, startColumn,
                  "leading zeros are not allowed in numbers");
  } else {
    while (isDigit(peek()))
      ++pos;
  }
  if (peek() == '.') {
    integer = false;
    ++pos;
    if (!isDigit(peek()))
      return failHere("expected a digit after the decimal point");
    while (isDigit(peek()))
      ++pos;
  }
  if (peek() == 'e' || peek() == 'E') {
    integer = false;
    ++pos;
    if (peek() == '+' || peek() == '-')
      ++pos;
    if (!isDigit(peek()))
      return failHere("expected a digit in the exponent");
    while (isDigit(peek()))
      ++pos;
  }
  std::string_view literal = text.substr(start, pos - start);
  // "0x1F", "12abc", "1.2.3": report the whole malformed token.
  if (isIdentifierChar(peek()) || peek() == '.') {
    std::size_t end = pos;
    while (end < text.size() &&
           (isIdentifierChar(text[end]) || text[end] == '.' ||
            text[end] == '+' || text[end] == '-'))
      ++end;
    return fail(line, startColumn,
                "invalid number '" +
                    std::string(text.substr(start, end - start)) + "'");
  }
  double value = 0.0;
  if (convertNumber(literal, value) == NumberStatus::Overflow)
    return fail(line, startColumn,
                "number " + std::string(literal) +
                    " is out of range for a double");
  out = JsonValue::makeNumber(value, integer, line, startColumn);
  if (integer) {
    // Keep integer literals exact where they fit in int64_t.
    out.fitsInt64 = false;
    bool negative = literal[0] == '-';
    std::string_view digits = negative ? literal.substr(1) : literal;
    uint64_t magnitude = 0;
    bool overflow = false;
    for (char d : digits) {
      unsigned digit = static_cast<unsigned>(d - '0');
      if (magnitude > (UINT64_MAX - digit) / 10) {
        overflow = true;
        break;
      }
      magnitude = magnitude * 10 + digit;
    }
    if (!overflow &&
        magnitude <= (negative ? UINT64_C(1) << 63 : (UINT64_C(1) << 63) - 1)) {
      out.fitsInt64 = true;
      out.intValue = negative ? static_cast<int64_t>(0 - magnitude)
                              : static_cast<int64_t>(magnitude);
    }
  }
  return true;
}

bool JsonParser::parseWord(JsonValue &out) {
  std::size_t start = pos;
  unsigned startColumn = column();
  while (isIdentifierChar(peek()))
    ++pos;
  std::string_view word = text.substr(start, pos - start);
  if (word == "true" || word == "false") {
    out = JsonValue::makeBool(word == "true", line, startColumn);
    return true;
  }
  if (word == "null") {
    out = JsonValue::makeNull(line, startColumn);
    return true;
  }
  std::string quotedWord = "'" + std::string(word) + "'";
  if (word == "NaN" || word == "Infinity" || word == "nan" || word == "inf")
    return fail(line, startColumn,
                quotedWord + " is not allowed in JSON: numbers must be finite");
  if (word == "True" || word == "TRUE" || word == "False" || word == "FALSE" ||
      word == "Null" || word == "NULL" || word == "None" || word == "nil")
    return fail(line, startColumn,
                "invalid literal " + quotedWord +
                    " (JSON literals are true, false and null, in lowercase)");
  return fail(line, startColumn,
              "unexpected word " + quotedWord +
                  ": expected a value (strings must be enclosed in double "
                  "quotes)");
}

JsonParseResult mlir::tfuse::parseJson(std::string_view text,
                                       const JsonParseOptions &options) {
  return JsonParser(text, options).run();
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
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (used[i])
      continue;
    const JsonMember &m = members[i];
    std::string message = "unknown key " + quoted(m.key) + " (ignored)";
    if (std::optional<std::string> hint = findClosestSpelling(m.key, asked))
      message += "; did you mean " + quoted(*hint) + "?";
    diags->push_back({JsonSeverity::Warning, m.line, m.column,
                      jsonPathAppendKey(jsonPath, m.key), std::move(message)});
  }
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
