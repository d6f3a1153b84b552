//===- JsonParser.cpp - JSON text to a positioned DOM -----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements parseJson() on top of nlohmann::json's SAX parser,
// which does the lexing and validation (strict RFC 8259, iterative, so deep
// nesting cannot overflow the stack). nlohmann reports no positions, so the
// handler below follows the text with a cursor: on each callback it finds
// the start of the token just read, which nlohmann has already validated.
//
// When nlohmann rejects the text, the error is described from the cursor,
// the containers still open and the text itself, so that messages name the
// problem in the user's terms ("trailing comma before '}'", "the object
// opened at 9:13 is not closed") at the offending token.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Json/JsonReader.h"

// The library is built without exceptions; nlohmann then replaces a throw
// with abort(). Only non-throwing calls are used here: sax_parse() reports
// errors through the handler.
#ifndef JSON_NOEXCEPTION
#define JSON_NOEXCEPTION
#endif
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

using namespace mlir::tfuse;

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool isWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentifierChar(char c) { return isIdentifierStart(c) || isDigit(c); }

/// End of the (valid) JSON number starting at `i`.
std::size_t skipNumber(std::string_view text, std::size_t i) {
  auto digits = [&] {
    while (i < text.size() && isDigit(text[i]))
      ++i;
  };
  if (i < text.size() && text[i] == '-')
    ++i;
  if (i < text.size() && text[i] == '0')
    ++i;
  else
    digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    digits();
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-'))
      ++i;
    digits();
  }
  return i;
}

/// End of the (valid) JSON string whose opening quote is at `i`.
std::size_t skipString(std::string_view text, std::size_t i) {
  ++i;
  while (i < text.size() && text[i] != '"')
    i += text[i] == '\\' ? 2 : 1;
  return std::min(i + 1, text.size());
}

/// Length of the well-formed UTF-8 sequence at `s` (Unicode table 3-7), or 0.
std::size_t utf8SequenceLength(std::string_view s) {
  auto byte = [&](std::size_t i) -> unsigned {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0x100;
  };
  auto in = [](unsigned b, unsigned lo, unsigned hi) {
    return b >= lo && b <= hi;
  };
  unsigned b0 = byte(0), b1 = byte(1), b2 = byte(2), b3 = byte(3);
  if (b0 < 0x80)
    return 1;
  if (in(b0, 0xC2, 0xDF))
    return in(b1, 0x80, 0xBF) ? 2 : 0;
  bool tail2 = in(b2, 0x80, 0xBF), tail3 = tail2 && in(b3, 0x80, 0xBF);
  if (b0 == 0xE0)
    return in(b1, 0xA0, 0xBF) && tail2 ? 3 : 0;
  if (in(b0, 0xE1, 0xEC) || b0 == 0xEE || b0 == 0xEF)
    return in(b1, 0x80, 0xBF) && tail2 ? 3 : 0;
  if (b0 == 0xED) // no UTF-16 surrogates
    return in(b1, 0x80, 0x9F) && tail2 ? 3 : 0;
  if (b0 == 0xF0)
    return in(b1, 0x90, 0xBF) && tail3 ? 4 : 0;
  if (in(b0, 0xF1, 0xF3))
    return in(b1, 0x80, 0xBF) && tail3 ? 4 : 0;
  if (b0 == 0xF4)
    return in(b1, 0x80, 0x8F) && tail3 ? 4 : 0;
  return 0;
}

/// The four hexadecimal digits at `at`, if they are there.
std::optional<unsigned> hex4(std::string_view text, std::size_t at) {
  if (at + 4 > text.size())
    return std::nullopt;
  unsigned value = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    char c = text[i];
    unsigned digit;
    if (isDigit(c))
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return std::nullopt;
    value = value * 16 + digit;
  }
  return value;
}

std::string hexUnit(const char *format, unsigned unit) {
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer), format, unit);
  return buffer;
}

/// A problem found in the text: its byte offset and description.
struct Problem {
  std::size_t offset;
  std::string message;
};

/// The first problem in the string token whose quote is at `start`.
std::optional<Problem> findStringProblem(std::string_view text,
                                         std::size_t start) {
  const Problem unterminated{start,
                             "unterminated string: missing closing '\"'"};
  for (std::size_t i = start + 1;;) {
    if (i >= text.size())
      return unterminated;
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"')
      return std::nullopt;
    if (c == '\n' || c == '\r')
      return Problem{start, "unterminated string: missing closing '\"' before "
                            "the end of the line (write a line break in a "
                            "string as \\n)"};
    if (c < 0x20)
      return Problem{i, hexUnit("control character U+%04X must be escaped in "
                                "a string",
                                c) +
                            (c == '\t' ? " (as \\t)" : "")};
    if (c >= 0x80) {
      std::size_t n = utf8SequenceLength(text.substr(i));
      if (n == 0)
        return Problem{i, "invalid UTF-8 in string"};
      i += n;
      continue;
    }
    if (c != '\\') {
      ++i;
      continue;
    }
    if (i + 1 >= text.size())
      return unterminated;
    char e = text[i + 1];
    if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
      i += 2;
      continue;
    }
    if (e != 'u') {
      unsigned char u = static_cast<unsigned char>(e);
      if (u < 0x20 || u >= 0x80)
        return Problem{i, "invalid escape sequence in string"};
      return Problem{i, std::string("invalid escape sequence '\\") + e +
                            "' in string (valid: \\\" \\\\ \\/ \\b \\f \\n "
                            "\\r \\t \\uXXXX)"};
    }
    std::optional<unsigned> unit = hex4(text, i + 2);
    if (!unit)
      return Problem{i, "invalid \\u escape: expected 4 hexadecimal digits"};
    if (*unit >= 0xDC00 && *unit <= 0xDFFF)
      return Problem{
          i, hexUnit("unpaired low surrogate \\u%04X in string", *unit)};
    if (*unit >= 0xD800 && *unit <= 0xDBFF) {
      std::optional<unsigned> low;
      if (text.substr(i + 6, 2) == "\\u")
        low = hex4(text, i + 8);
      if (!low || *low < 0xDC00 || *low > 0xDFFF)
        return Problem{i, hexUnit("unpaired high surrogate \\u%04X in string: "
                                  "it must be followed by a low surrogate "
                                  "\\uDC00-\\uDFFF",
                                  *unit)};
      i += 6;
    }
    i += 6;
  }
}

/// The first problem in the number token at `start`; `overflow` says that
/// nlohmann found it out of range for a double.
std::optional<Problem> findNumberProblem(std::string_view text,
                                         std::size_t start, bool overflow) {
  auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
  std::size_t i = start;
  if (at(i) == '-') {
    ++i;
    if (text.substr(i, 8) == "Infinity")
      return Problem{start, "'-Infinity' is not allowed in JSON: numbers must "
                            "be finite"};
    if (!isDigit(at(i)))
      return Problem{i, "expected a digit after '-'"};
  }
  if (at(i) == '0' && isDigit(at(i + 1)))
    return Problem{start, "leading zeros are not allowed in numbers"};
  while (isDigit(at(i)))
    ++i;
  if (at(i) == '.') {
    ++i;
    if (!isDigit(at(i)))
      return Problem{i, "expected a digit after the decimal point"};
    while (isDigit(at(i)))
      ++i;
  }
  if (at(i) == 'e' || at(i) == 'E') {
    ++i;
    if (at(i) == '+' || at(i) == '-')
      ++i;
    if (!isDigit(at(i)))
      return Problem{i, "expected a digit in the exponent"};
    while (isDigit(at(i)))
      ++i;
  }
  // "0x1F", "12abc", "1.2.3": report the whole malformed token.
  if (isIdentifierChar(at(i)) || at(i) == '.') {
    std::size_t end = i;
    while (isIdentifierChar(at(end)) || at(end) == '.' || at(end) == '+' ||
           at(end) == '-')
      ++end;
    return Problem{start, "invalid number '" +
                              std::string(text.substr(start, end - start)) +
                              "'"};
  }
  if (overflow)
    return Problem{start, "number " +
                              std::string(text.substr(start, i - start)) +
                              " is out of range for a double"};
  return std::nullopt;
}

/// Describes a bare word where a value belongs ("tru", "NaN", "True").
std::string describeWord(std::string_view word) {
  std::string quotedWord = "'" + std::string(word) + "'";
  if (word == "NaN" || word == "Infinity" || word == "nan" || word == "inf")
    return quotedWord + " is not allowed in JSON: numbers must be finite";
  if (word == "True" || word == "TRUE" || word == "False" || word == "FALSE" ||
      word == "Null" || word == "NULL" || word == "None" || word == "nil")
    return "invalid literal " + quotedWord +
           " (JSON literals are true, false and null, in lowercase)";
  return "unexpected word " + quotedWord +
         ": expected a value (strings must be enclosed in double quotes)";
}

/// nlohmann's own message, without its "[json.exception...] parse error at
/// line L, column C: " prefix (its positions do not skip the BOM).
std::string nlohmannMessage(const nlohmann::detail::exception &e) {
  std::string_view what = e.what();
  if (std::size_t close = what.find("] "); close != std::string_view::npos)
    what.remove_prefix(close + 2);
  if (what.substr(0, 11) == "parse error")
    if (std::size_t colon = what.find(": "); colon != std::string_view::npos)
      what.remove_prefix(colon + 2);
  constexpr std::size_t kMaxLength = 200;
  std::string out(what.substr(0, kMaxLength));
  // Keep the message printable: "last read" may quote raw bytes.
  for (char &c : out)
    if (static_cast<unsigned char>(c) >= 0x80)
      c = '?';
  return out;
}

} // namespace

namespace mlir::tfuse {

/// The SAX handler: builds the JsonValue DOM with positions and, when the
/// text is invalid, the first error.
class JsonDomBuilder {
public:
  using json = nlohmann::json;

  JsonDomBuilder(std::string_view text, const JsonParseOptions &options)
      : text(text), options(options) {
    if (text.substr(0, kBom.size()) == kBom)
      cursor = lineStart = kBom.size();
  }

  JsonParseResult run();

  // nlohmann's SAX interface.
  bool null() { return scalar(JsonValue::makeNull(), 4, Token::Literal); }
  bool boolean(bool v) {
    return scalar(JsonValue::makeBool(v), v ? 4 : 5, Token::Literal);
  }
  bool number_integer(json::number_integer_t v);
  bool number_unsigned(json::number_unsigned_t v);
  bool number_float(json::number_float_t v, const std::string &literal);
  bool string(std::string &v);
  bool binary(json::binary_t &) { return false; }
  bool key(std::string &k);
  bool start_object(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(false); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string &lastRead,
                   const nlohmann::detail::exception &e);

private:
  enum class Token { None, Number, Literal, Other };

  /// An array or object still open.
  struct Frame {
    bool isObject;
    unsigned line, column;
    std::vector<JsonValue> elements;
    std::vector<JsonMember> members;
    /// The member whose key was read and whose value is not yet complete.
    std::optional<JsonMember> pending;
    /// Index of keys for large objects; small ones are searched linearly.
    std::map<std::string, std::size_t, std::less<>> index;
  };

  char at(std::size_t i) const { return i < text.size() ? text[i] : '\0'; }
  void skipWhitespace(std::size_t &i) const {
    while (i < text.size() && isWhitespace(text[i]))
      ++i;
  }
  /// Moves the cursor to the next token (over whitespace and one ',' or
  /// ':', which valid JSON has there) and returns its offset; `line` and
  /// `column` then give its position.
  std::size_t locateToken();
  unsigned column() const {
    return static_cast<unsigned>(cursor - lineStart + 1);
  }
  /// 1-based line and column of `offset`.
  std::pair<unsigned, unsigned> positionOf(std::size_t offset) const;

  bool scalar(JsonValue value, std::size_t length, Token token);
  bool add(JsonValue value);
  bool open(bool isObject);
  bool close();

  std::string pathTo(std::size_t frames) const;
  /// The path of the innermost container (empty at the top level).
  std::string containerPath() const;
  /// The path of the value being read.
  std::string valuePath() const;
  /// The path of the value read last.
  std::string lastValuePath() const;
  bool fail(std::size_t offset, std::string path, std::string message);
  /// Describes why nlohmann stopped at `errorOffset`.
  void describeSyntaxError(std::size_t errorOffset,
                           const nlohmann::detail::exception &e);
  /// Describes a bad token at `start` where a value belongs.
  std::optional<Problem> describeBadValue(std::size_t start, bool overflow);
  std::string describeAt(std::size_t offset) const;

  std::string_view text;
  JsonParseOptions options;
  /// End of the last token read, and the line it is on.
  std::size_t cursor = 0;
  std::size_t lineStart = 0;
  unsigned line = 1;
  /// The last token read, for errors in tokens that run on ("truex").
  std::size_t lastTokenStart = 0;
  Token lastToken = Token::None;
  std::vector<Frame> stack;
  std::optional<JsonValue> root;
  std::optional<JsonDiagnostic> error;
};

} // namespace mlir::tfuse

std::size_t JsonDomBuilder::locateToken() {
  auto skip = [&] {
    while (cursor < text.size() && isWhitespace(text[cursor])) {
      if (text[cursor] == '\n') {
        ++line;
        lineStart = cursor + 1;
      }
      ++cursor;
    }
  };
  skip();
  if (at(cursor) == ',' || at(cursor) == ':') {
    ++cursor;
    skip();
  }
  return cursor;
}

std::pair<unsigned, unsigned>
JsonDomBuilder::positionOf(std::size_t offset) const {
  offset = std::min(offset, text.size());
  unsigned l = 1;
  std::size_t start = text.substr(0, kBom.size()) == kBom ? kBom.size() : 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++l;
      start = i + 1;
    }
  }
  return {l, static_cast<unsigned>(offset - std::min(start, offset) + 1)};
}

bool JsonDomBuilder::scalar(JsonValue value, std::size_t length, Token token) {
  lastTokenStart = locateToken();
  JsonValue positioned = std::move(value);
  positioned.valueLine = line;
  positioned.valueColumn = column();
  cursor = std::min(cursor + length, text.size());
  lastToken = token;
  return add(std::move(positioned));
}

bool JsonDomBuilder::number_integer(json::number_integer_t v) {
  // nlohmann reads only negative literals as signed; "-0" keeps its sign.
  JsonValue value =
      v == 0 ? JsonValue::makeNumber(-0.0, true) : JsonValue::makeInteger(v);
  std::size_t start = locateToken();
  return scalar(std::move(value), skipNumber(text, start) - start,
                Token::Number);
}

bool JsonDomBuilder::number_unsigned(json::number_unsigned_t v) {
  JsonValue value;
  if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    value = JsonValue::makeInteger(static_cast<int64_t>(v));
  } else {
    value = JsonValue::makeNumber(static_cast<double>(v), true);
    value.fitsInt64 = false;
  }
  std::size_t start = locateToken();
  return scalar(std::move(value), skipNumber(text, start) - start,
                Token::Number);
}

bool JsonDomBuilder::number_float(json::number_float_t v,
                                  const std::string &literal) {
  // Integer literals beyond 64 bits arrive here; they do not fit int64_t.
  bool integer = literal.find_first_of(".eE") == std::string::npos;
  JsonValue value = JsonValue::makeNumber(v, integer);
  value.fitsInt64 = false;
  std::size_t start = locateToken();
  return scalar(std::move(value), skipNumber(text, start) - start,
                Token::Number);
}

bool JsonDomBuilder::string(std::string &v) {
  std::size_t start = locateToken();
  return scalar(JsonValue::makeString(std::move(v)),
                skipString(text, start) - start, Token::Other);
}

bool JsonDomBuilder::key(std::string &k) {
  Frame &frame = stack.back();
  std::size_t start = locateToken();
  JsonMember member;
  member.line = line;
  member.column = column();
  cursor = skipString(text, start);
  lastToken = Token::Other;
  // Duplicate keys: report the second one and point at the first.
  std::optional<std::size_t> previous;
  if (frame.members.size() < 16) {
    for (std::size_t i = 0; i < frame.members.size(); ++i)
      if (frame.members[i].key == k)
        previous = i;
  } else {
    if (frame.index.empty())
      for (std::size_t i = 0; i < frame.members.size(); ++i)
        frame.index.emplace(frame.members[i].key, i);
    if (auto it = frame.index.find(k); it != frame.index.end())
      previous = it->second;
  }
  member.key = std::move(k);
  frame.pending = std::move(member);
  if (previous) {
    const JsonMember &first = frame.members[*previous];
    return fail(start, valuePath(),
                "duplicate key " + quoteJsonString(frame.pending->key) +
                    " (first defined at " + std::to_string(first.line) + ":" +
                    std::to_string(first.column) + ")");
  }
  return true;
}

bool JsonDomBuilder::add(JsonValue value) {
  if (stack.empty()) {
    root = std::move(value);
    return true;
  }
  Frame &frame = stack.back();
  if (!frame.isObject) {
    frame.elements.push_back(std::move(value));
    return true;
  }
  JsonMember member = std::move(*frame.pending);
  frame.pending.reset();
  member.value = std::move(value);
  if (!frame.index.empty())
    frame.index.emplace(member.key, frame.members.size());
  frame.members.push_back(std::move(member));
  return true;
}

bool JsonDomBuilder::open(bool isObject) {
  std::size_t start = locateToken();
  if (stack.size() + 1 > options.maxDepth)
    return fail(start, valuePath(),
                "nesting too deep: arrays and objects may be nested at most " +
                    std::to_string(options.maxDepth) + " levels");
  Frame frame;
  frame.isObject = isObject;
  frame.line = line;
  frame.column = column();
  stack.push_back(std::move(frame));
  cursor = start + 1;
  lastToken = Token::Other;
  return true;
}

bool JsonDomBuilder::close() {
  cursor = locateToken() + 1;
  lastToken = Token::Other;
  Frame frame = std::move(stack.back());
  stack.pop_back();
  JsonValue value = frame.isObject
                        ? JsonValue::makeObject(std::move(frame.members),
                                                frame.line, frame.column)
                        : JsonValue::makeArray(std::move(frame.elements),
                                               frame.line, frame.column);
  return add(std::move(value));
}

std::string JsonDomBuilder::pathTo(std::size_t frames) const {
  std::string out(kJsonRootPath);
  for (std::size_t i = 0; i < frames; ++i) {
    const Frame &f = stack[i];
    if (f.isObject)
      out = jsonPathAppendKey(out, f.pending ? f.pending->key : "");
    else
      out = jsonPathAppendIndex(out, f.elements.size());
  }
  return out;
}

std::string JsonDomBuilder::containerPath() const {
  if (stack.empty())
    return std::string();
  return pathTo(stack.size() - 1);
}

std::string JsonDomBuilder::valuePath() const {
  if (stack.empty())
    return std::string();
  const Frame &top = stack.back();
  if (top.isObject && !top.pending)
    return containerPath();
  return pathTo(stack.size());
}

std::string JsonDomBuilder::lastValuePath() const {
  if (stack.empty())
    return std::string();
  const Frame &top = stack.back();
  std::string path = pathTo(stack.size() - 1);
  if (top.isObject)
    return top.members.empty()
               ? path
               : jsonPathAppendKey(path, top.members.back().key);
  return top.elements.empty()
             ? path
             : jsonPathAppendIndex(path, top.elements.size() - 1);
}

bool JsonDomBuilder::fail(std::size_t offset, std::string path,
                          std::string message) {
  if (!error) {
    JsonDiagnostic d;
    std::tie(d.line, d.column) = positionOf(offset);
    // Errors at the top level need no path.
    d.jsonPath = path == kJsonRootPath ? std::string() : std::move(path);
    d.message = std::move(message);
    error = std::move(d);
  }
  return false;
}

std::string JsonDomBuilder::describeAt(std::size_t offset) const {
  if (offset >= text.size())
    return "the end of the input";
  unsigned char c = static_cast<unsigned char>(text[offset]);
  char buffer[32];
  if (c >= 0x21 && c < 0x7f)
    std::snprintf(buffer, sizeof(buffer), "'%c'", c);
  else
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02X", c);
  return buffer;
}

std::optional<Problem> JsonDomBuilder::describeBadValue(std::size_t start,
                                                        bool overflow) {
  char c = at(start);
  if (start >= text.size())
    return Problem{start, "unexpected end of input: expected a value"};
  if (c == '"')
    return findStringProblem(text, start);
  if (c == '-' || isDigit(c))
    return findNumberProblem(text, start, overflow);
  if (isIdentifierStart(c)) {
    std::size_t end = start;
    while (isIdentifierChar(at(end)))
      ++end;
    return Problem{start, describeWord(text.substr(start, end - start))};
  }
  if (c == '\'')
    return Problem{start, "strings must be enclosed in double quotes, not '"};
  if (c == '+')
    return Problem{start, "numbers cannot start with '+'"};
  if (c == '.')
    return Problem{start,
                   "numbers must start with a digit (write 0.5, not .5)"};
  return Problem{start,
                 "unexpected " + describeAt(start) + ": expected a value"};
}

void JsonDomBuilder::describeSyntaxError(std::size_t errorOffset,
                                         const nlohmann::detail::exception &e) {
  // The offending token starts after the cursor, past a separator that is
  // legal there.
  const Frame *top = stack.empty() ? nullptr : &stack.back();
  bool afterMember =
      top && (top->isObject ? !top->pending && !top->members.empty()
                            : !top->elements.empty());
  bool afterKey = top && top->isObject && top->pending;
  std::size_t start = cursor;
  skipWhitespace(start);
  std::optional<std::size_t> separator;
  if ((afterMember && at(start) == ',') || (afterKey && at(start) == ':')) {
    separator = start;
    ++start;
    skipWhitespace(start);
  }
  char c = at(start);
  bool atEnd = start >= text.size();
  bool overflow = e.id == 406;

  if (c == '/' && (at(start + 1) == '/' || at(start + 1) == '*')) {
    fail(start, valuePath(), "comments are not allowed in JSON");
    return;
  }
  // A token that runs on past what nlohmann read as a number or literal:
  // "01", "12abc", "1.2.3", "truex".
  if (start == cursor && !atEnd && (isIdentifierChar(c) || c == '.') &&
      (lastToken == Token::Number || lastToken == Token::Literal)) {
    std::optional<Problem> p =
        lastToken == Token::Number
            ? findNumberProblem(text, lastTokenStart, false)
            : describeBadValue(lastTokenStart, false);
    if (p) {
      fail(p->offset, lastValuePath(), p->message);
      return;
    }
  }
  if (!top) {
    if (!root) {
      if (atEnd)
        fail(start, "", "empty document: expected a JSON value");
      else if (std::optional<Problem> p = describeBadValue(start, overflow))
        fail(p->offset, "", p->message);
    } else {
      fail(start, "",
           "unexpected " + describeAt(start) +
               " after the JSON document (a document holds exactly one "
               "value)");
    }
  } else if (atEnd && !afterKey) {
    fail(start, containerPath(),
         std::string("unexpected end of input: the ") +
             (top->isObject ? "object" : "array") + " opened at " +
             std::to_string(top->line) + ":" + std::to_string(top->column) +
             " is not closed");
  } else if (separator && (c == '}' || c == ']')) {
    fail(*separator, containerPath(),
         std::string("trailing comma before '") + c +
             "' is not allowed in JSON");
  } else if (afterKey && !separator) {
    fail(start, valuePath(),
         "expected ':' after the key " + quoteJsonString(top->pending->key) +
             ", got " + describeAt(start));
  } else if (afterMember && !separator) {
    fail(start, containerPath(),
         top->isObject ? "expected ',' or '}' after an object member, got " +
                             describeAt(start)
                       : "expected ',' or ']' after an array element, got " +
                             describeAt(start));
  } else if (top->isObject && !afterKey) {
    // A key belongs here.
    if (c == '"') {
      if (std::optional<Problem> p = findStringProblem(text, start))
        fail(p->offset, containerPath(), p->message);
    } else if (isIdentifierStart(c) || c == '\'') {
      fail(start, containerPath(),
           "object keys must be strings in double quotes");
    } else {
      fail(start, containerPath(),
           "expected a string key, got " + describeAt(start));
    }
  } else if (std::optional<Problem> p = describeBadValue(start, overflow)) {
    fail(p->offset, valuePath(), p->message);
  }
  // What we could not explain, nlohmann does.
  if (!error)
    fail(errorOffset, valuePath(), nlohmannMessage(e));
}

bool JsonDomBuilder::parse_error(std::size_t position, const std::string &,
                                 const nlohmann::detail::exception &e) {
  // `position` counts the bytes read, the offending one included.
  describeSyntaxError(position > 0 ? position - 1 : 0, e);
  return false;
}

JsonParseResult JsonDomBuilder::run() {
  JsonParseResult result;
  bool ok = json::sax_parse(text.begin(), text.end(), this,
                            json::input_format_t::json,
                            /*strict=*/true, /*ignore_comments=*/false);
  if (ok && root) {
    // nlohmann stops at a NUL byte as if the text ended there.
    std::size_t rest = cursor;
    skipWhitespace(rest);
    if (rest == text.size()) {
      result.value = std::move(root);
      return result;
    }
    fail(rest, "",
         "unexpected " + describeAt(rest) +
             " after the JSON document (a document holds exactly one value)");
  }
  if (!error)
    fail(cursor, "", "invalid JSON");
  result.error = std::move(*error);
  return result;
}

JsonParseResult mlir::tfuse::parseJson(std::string_view text,
                                       const JsonParseOptions &options) {
  return JsonDomBuilder(text, options).run();
}
