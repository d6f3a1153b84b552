//===- JsonReaderTest.cpp - Tests of the positioned JSON reader -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Unit tests of mlir::tfuse's JSON parser (nlohmann's SAX parser with
// positions tracked on top) and checked reader. Every syntax error is checked
// with its exact line:col and message; positions were counted by hand
// (columns are 1-based byte offsets within the line).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Json/JsonReader.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <unistd.h>

using namespace mlir::tfuse;

namespace {

/// Parses `text`, which must be valid.
JsonValue parseOk(std::string_view text) {
  JsonParseResult r = parseJson(text);
  EXPECT_TRUE(r.value.has_value()) << r.error.format("<input>");
  return r.value ? *r.value : JsonValue();
}

/// Parses `text`, which must be invalid, and formats the error as
/// "LINE:COL: error: [PATH: ]MESSAGE".
std::string parseError(std::string_view text,
                       const JsonParseOptions &options = {}) {
  JsonParseResult r = parseJson(text, options);
  EXPECT_FALSE(r.value.has_value()) << "parsed: " << text;
  return r.error.format("");
}

//===----------------------------------------------------------------------===//
// Valid documents
//===----------------------------------------------------------------------===//

TEST(JsonParse, Scalars) {
  EXPECT_TRUE(parseOk("null").isNull());
  EXPECT_TRUE(parseOk("true").getBool());
  JsonValue f = parseOk("false");
  EXPECT_TRUE(f.isBool());
  EXPECT_FALSE(f.getBool());
  EXPECT_EQ(parseOk("\"abc\"").getString(), "abc");
  EXPECT_EQ(parseOk("\"\"").getString(), "");
  EXPECT_TRUE(parseOk("[]").isArray());
  EXPECT_TRUE(parseOk("{}").isObject());
  EXPECT_EQ(parseOk(" \t\r\n 42 \n").getNumber(), 42.0);
}

TEST(JsonParse, Numbers) {
  EXPECT_EQ(parseOk("0").getNumber(), 0.0);
  EXPECT_TRUE(std::signbit(parseOk("-0").getNumber()));
  EXPECT_EQ(parseOk("-12").getNumber(), -12.0);
  EXPECT_EQ(parseOk("3.25").getNumber(), 3.25);
  EXPECT_EQ(parseOk("0.94").getNumber(), 0.94);
  EXPECT_EQ(parseOk("0.1").getNumber(), 0.1);
  EXPECT_EQ(parseOk("1e3").getNumber(), 1000.0);
  EXPECT_EQ(parseOk("1E-2").getNumber(), 0.01);
  EXPECT_EQ(parseOk("-1.5e+2").getNumber(), -150.0);
  EXPECT_EQ(parseOk("2.2250738585072014e-308").getNumber(),
            2.2250738585072014e-308);
  EXPECT_EQ(parseOk("1.7976931348623157e308").getNumber(),
            1.7976931348623157e308);
  // Too small for a double: rounds to zero, keeping the sign.
  EXPECT_EQ(parseOk("1e-400").getNumber(), 0.0);
  EXPECT_TRUE(std::signbit(parseOk("-1e-400").getNumber()));
  EXPECT_EQ(parseOk("0.000000000000000000000000000000000001e-400").getNumber(),
            0.0);
}

TEST(JsonParse, IntegerLiterals) {
  JsonValue v = parseOk("84");
  EXPECT_TRUE(v.isIntegerLiteral());
  EXPECT_EQ(v.getInt64(), 84);
  EXPECT_FALSE(parseOk("84.0").isIntegerLiteral());
  EXPECT_FALSE(parseOk("84.0").getInt64().has_value());
  EXPECT_FALSE(parseOk("1e2").isIntegerLiteral());
  EXPECT_EQ(parseOk("-7").getInt64(), -7);
  // Exact beyond 2^53.
  EXPECT_EQ(parseOk("9007199254740993").getInt64(), 9007199254740993LL);
  EXPECT_EQ(parseOk("9223372036854775807").getInt64(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parseOk("-9223372036854775808").getInt64(),
            std::numeric_limits<int64_t>::min());
  JsonValue big = parseOk("9223372036854775808");
  EXPECT_TRUE(big.isIntegerLiteral());
  EXPECT_FALSE(big.getInt64().has_value());
  EXPECT_EQ(big.getNumber(), 9223372036854775808.0);
  EXPECT_FALSE(parseOk("123456789012345678901234567890").getInt64());
}

TEST(JsonParse, StringEscapes) {
  EXPECT_EQ(parseOk(R"("\"\\\/\b\f\n\r\t")").getString(), "\"\\/\b\f\n\r\t");
  EXPECT_EQ(parseOk(R"("\u0041\u00e9\u20AC")").getString(),
            "A\xC3\xA9\xE2\x82\xAC");
  // A surrogate pair: U+1F600.
  EXPECT_EQ(parseOk(R"("\uD83D\uDE00")").getString(), "\xF0\x9F\x98\x80");
  EXPECT_EQ(parseOk(R"("\udbff\udfff")").getString(), "\xF4\x8F\xBF\xBF");
  // An escaped NUL is kept.
  EXPECT_EQ(parseOk(R"("a\u0000b")").getString(), std::string("a\0b", 3));
  // Raw UTF-8 passes through.
  EXPECT_EQ(parseOk("\"\xC3\xA9 \xF0\x9F\x98\x80 \xE2\x82\xAC\"").getString(),
            "\xC3\xA9 \xF0\x9F\x98\x80 \xE2\x82\xAC");
}

TEST(JsonParse, ArraysAndObjectsKeepOrder) {
  JsonValue v = parseOk(R"({"z": [1, "two", [3], {}], "a": {"b": null}})");
  ASSERT_TRUE(v.isObject());
  const std::vector<JsonMember> &members = v.getObject();
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].key, "z");
  EXPECT_EQ(members[1].key, "a");
  const std::vector<JsonValue> &z = members[0].value.getArray();
  ASSERT_EQ(z.size(), 4u);
  EXPECT_EQ(z[0].getNumber(), 1.0);
  EXPECT_EQ(z[1].getString(), "two");
  EXPECT_EQ(z[2].getArray().size(), 1u);
  EXPECT_TRUE(z[3].isObject());
  ASSERT_NE(v.find("a"), nullptr);
  EXPECT_TRUE(v.find("a")->find("b")->isNull());
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(z[0].find("x"), nullptr);
}

TEST(JsonParse, Positions) {
  const char *text = "{\n"
                     "  \"a\": 1,\n"
                     "  \"b\": [true, null],\n"
                     "  \"c\": {\"d\": \"x\"}\n"
                     "}";
  JsonValue v = parseOk(text);
  EXPECT_EQ(v.line(), 1u);
  EXPECT_EQ(v.column(), 1u);
  const std::vector<JsonMember> &m = v.getObject();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].line, 2u); // key "a"
  EXPECT_EQ(m[0].column, 3u);
  EXPECT_EQ(m[0].value.line(), 2u);
  EXPECT_EQ(m[0].value.column(), 8u);
  EXPECT_EQ(m[1].value.column(), 8u); // '['
  const std::vector<JsonValue> &b = m[1].value.getArray();
  EXPECT_EQ(b[0].line(), 3u);
  EXPECT_EQ(b[0].column(), 9u);
  EXPECT_EQ(b[1].column(), 15u);
  const JsonMember &d = m[2].value.getObject()[0];
  EXPECT_EQ(d.line, 4u);
  EXPECT_EQ(d.column, 9u);
  EXPECT_EQ(d.value.line(), 4u);
  EXPECT_EQ(d.value.column(), 14u);
}

TEST(JsonParse, PositionsWithCrLfBomAndUtf8) {
  // CRLF counts as one line break; the BOM is not counted; columns are
  // bytes, so "é" (2 bytes) moves the next value by 2.
  JsonValue v =
      parseOk("\xEF\xBB\xBF{\r\n  \"\xC3\xA9\": [\"\xC3\xA9\", 7]\r\n}");
  EXPECT_EQ(v.column(), 1u);
  const JsonMember &m = v.getObject()[0];
  EXPECT_EQ(m.line, 2u);
  EXPECT_EQ(m.column, 3u);
  const std::vector<JsonValue> &a = m.value.getArray();
  EXPECT_EQ(a[0].column(), 10u);
  EXPECT_EQ(a[1].column(), 16u);
}

TEST(JsonParse, PositionsAfterEscapesAndMultiLineStrings) {
  // Escapes take more bytes in the text than in the value: positions follow
  // the text. "\n" in a string is an escape, not a line break.
  const char *text = "{\"a\": \"l1\\nl2\\\"q\\\\\", \"b\": 1,\n"
                     " \"\\u00e9\\uD83D\\uDE00\": [\"\\u0041\", 2],\n"
                     "\t\"c\":\"x\\\\\"  ,  \"d\" :\r\n true}";
  JsonValue v = parseOk(text);
  const std::vector<JsonMember> &m = v.getObject();
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].value.getString(), "l1\nl2\"q\\");
  EXPECT_EQ(m[1].line, 1u); // "b"
  EXPECT_EQ(m[1].column, 22u);
  EXPECT_EQ(m[1].value.column(), 27u);
  EXPECT_EQ(m[2].key, "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(m[2].line, 2u);
  EXPECT_EQ(m[2].column, 2u);
  const std::vector<JsonValue> &a = m[2].value.getArray();
  EXPECT_EQ(m[2].value.column(), 24u);
  EXPECT_EQ(a[0].column(), 25u);
  EXPECT_EQ(a[1].line(), 2u);
  EXPECT_EQ(a[1].column(), 35u);
  EXPECT_EQ(m[3].line, 3u); // after a tab, which is one byte
  EXPECT_EQ(m[3].column, 2u);
  EXPECT_EQ(m[3].value.getString(), "x\\");
  EXPECT_EQ(m[4].key, "d");
  EXPECT_EQ(m[4].line, 3u); // after an escaped '\'
  EXPECT_EQ(m[4].column, 16u);
  EXPECT_EQ(m[4].value.line(), 4u); // after CRLF
  EXPECT_EQ(m[4].value.column(), 2u);
}

TEST(JsonParse, PositionsInNestedContainers) {
  const char *text = "[[[]], {\"k\": [{}, [1, [2]]]},\n"
                     "  [{\"x\": {\"y\": [null, false]}}]]";
  JsonValue v = parseOk(text);
  const std::vector<JsonValue> &top = v.getArray();
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].column(), 2u);
  EXPECT_EQ(top[0].getArray()[0].column(), 3u);
  const JsonValue &k = *top[1].find("k");
  EXPECT_EQ(top[1].column(), 8u);
  EXPECT_EQ(k.column(), 14u);
  EXPECT_EQ(k.getArray()[0].column(), 15u);
  EXPECT_EQ(k.getArray()[1].column(), 19u);
  EXPECT_EQ(k.getArray()[1].getArray()[1].column(), 23u);
  EXPECT_EQ(k.getArray()[1].getArray()[1].getArray()[0].column(), 24u);
  const JsonValue &y = *top[2].getArray()[0].find("x")->find("y");
  EXPECT_EQ(top[2].line(), 2u);
  EXPECT_EQ(top[2].column(), 3u);
  EXPECT_EQ(y.line(), 2u);
  EXPECT_EQ(y.column(), 16u);
  EXPECT_EQ(y.getArray()[1].column(), 23u);
  EXPECT_FALSE(y.getArray()[1].getBool());
}

TEST(JsonParse, ExactNumbers) {
  // nlohmann reads integers beyond 64 bits as doubles; they are not int64.
  JsonValue below = parseOk("-9223372036854775809");
  EXPECT_TRUE(below.isIntegerLiteral());
  EXPECT_FALSE(below.getInt64().has_value());
  EXPECT_EQ(below.getNumber(), -9223372036854775808.0);
  EXPECT_EQ(parseOk("18446744073709551615").getInt64(), std::nullopt);
  EXPECT_EQ(parseOk("-0").getInt64(), 0);
  EXPECT_FALSE(std::signbit(parseOk("0").getNumber()));
  EXPECT_EQ(parseOk("-0.0").getInt64(), std::nullopt);
  EXPECT_EQ(parseOk("[1e2, 5]").getArray()[1].getInt64(), 5);
}

TEST(JsonParse, BomIsSkipped) {
  JsonValue v = parseOk("\xEF\xBB\xBF[1,\n 2]");
  EXPECT_EQ(v.column(), 1u);
  EXPECT_EQ(v.getArray()[0].column(), 2u);
  EXPECT_EQ(v.getArray()[1].line(), 2u);
  EXPECT_EQ(v.getArray()[1].column(), 2u);
  // Errors on the first line do not count the BOM either.
  EXPECT_EQ(parseError("\xEF\xBB\xBF[1 2]"),
            "1:4: error: expected ',' or ']' after an array element, got '2'");
  EXPECT_EQ(parseError("\xEF\xBB\xBF"),
            "1:1: error: empty document: expected a JSON value");
  // Only a BOM at the very start; a broken one is an error.
  EXPECT_EQ(parseError(" \xEF\xBB\xBF[]"),
            "1:2: error: unexpected byte 0xEF: expected a value");
  EXPECT_EQ(parseError("\xEF\xBB[]"),
            "1:1: error: unexpected byte 0xEF: expected a value");
}

TEST(JsonParse, DepthLimit) {
  std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_TRUE(parseJson(ok).value.has_value());
  std::string deep = std::string(257, '[') + std::string(257, ']');
  std::string message = "nesting too deep: arrays and objects may be nested "
                        "at most 256 levels";
  EXPECT_EQ(
      parseError(deep), "1:257: error: $" + [] {
        std::string p;
        for (int i = 0; i < 256; ++i)
          p += "[0]";
        return p;
      }() + ": " + message);
  // Far deeper input fails the same way instead of overflowing the stack.
  JsonParseResult r = parseJson(std::string(1000000, '['));
  ASSERT_FALSE(r.value.has_value());
  EXPECT_EQ(r.error.line, 1u);
  EXPECT_EQ(r.error.column, 257u);
  std::string objects;
  for (int i = 0; i < 300; ++i)
    objects += "{\"k\":";
  r = parseJson(objects);
  ASSERT_FALSE(r.value.has_value());
  EXPECT_EQ(r.error.column, 256u * 5 + 1);
  // A custom limit.
  JsonParseOptions options;
  options.maxDepth = 2;
  EXPECT_TRUE(parseJson("[[1]]", options).value.has_value());
  EXPECT_EQ(parseError("[[[1]]]", options),
            "1:3: error: $[0][0]: nesting too deep: arrays and objects may be "
            "nested at most 2 levels");
}

//===----------------------------------------------------------------------===//
// Syntax errors
//===----------------------------------------------------------------------===//

TEST(JsonParseError, EmptyInput) {
  EXPECT_EQ(parseError(""),
            "1:1: error: empty document: expected a JSON value");
  EXPECT_EQ(parseError("  \n  "),
            "2:3: error: empty document: expected a JSON value");
}

TEST(JsonParseError, UnterminatedString) {
  EXPECT_EQ(parseError("{\"a\": \"abc"),
            "1:7: error: $.a: unterminated string: missing closing '\"'");
  EXPECT_EQ(parseError("{\"a\": \"abc\n}"),
            "1:7: error: $.a: unterminated string: missing closing '\"' "
            "before the end of the line (write a line break in a string as "
            "\\n)");
  EXPECT_EQ(parseError("[\"abc\\"),
            "1:2: error: $[0]: unterminated string: missing closing '\"'");
  EXPECT_EQ(parseError("{\"ab"),
            "1:2: error: unterminated string: missing closing '\"'");
}

TEST(JsonParseError, BadEscapes) {
  EXPECT_EQ(parseError(R"(["a\x"])"),
            "1:4: error: $[0]: invalid escape sequence '\\x' in string "
            "(valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
  EXPECT_EQ(parseError(R"("\u12G4")"),
            "1:2: error: invalid \\u escape: expected 4 hexadecimal digits");
  EXPECT_EQ(parseError(R"("\u12")"),
            "1:2: error: invalid \\u escape: expected 4 hexadecimal digits");
  EXPECT_EQ(parseError(R"("\U0041")"),
            "1:2: error: invalid escape sequence '\\U' in string (valid: "
            "\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
}

TEST(JsonParseError, Surrogates) {
  const std::string high = "unpaired high surrogate \\uD83D in string: it "
                           "must be followed by a low surrogate "
                           "\\uDC00-\\uDFFF";
  EXPECT_EQ(parseError(R"("\uD83D")"), "1:2: error: " + high);
  EXPECT_EQ(parseError(R"("\uD83Dx")"), "1:2: error: " + high);
  EXPECT_EQ(parseError(R"("ab\uD83D\u0041")"), "1:4: error: " + high);
  EXPECT_EQ(parseError(R"("\uD83D\uD83D")"), "1:2: error: " + high);
  EXPECT_EQ(parseError(R"({"k": "x\uDE00"})"),
            "1:9: error: $.k: unpaired low surrogate \\uDE00 in string");
}

TEST(JsonParseError, ControlCharactersAndUtf8) {
  EXPECT_EQ(parseError("\"a\tb\""),
            "1:3: error: control character U+0009 must be escaped in a "
            "string (as \\t)");
  EXPECT_EQ(parseError(std::string("\"a\x01\"")),
            "1:3: error: control character U+0001 must be escaped in a string");
  EXPECT_EQ(parseError("\"\xC3\x28\""), "1:2: error: invalid UTF-8 in string");
  // Overlong '/', an encoded surrogate, a stray continuation byte, > U+10FFFF.
  EXPECT_EQ(parseError("\"\xC0\xAF\""), "1:2: error: invalid UTF-8 in string");
  EXPECT_EQ(parseError("\"ab\xED\xA0\x80\""),
            "1:4: error: invalid UTF-8 in string");
  EXPECT_EQ(parseError("\"\x80\""), "1:2: error: invalid UTF-8 in string");
  EXPECT_EQ(parseError("\"\xF4\x90\x80\x80\""),
            "1:2: error: invalid UTF-8 in string");
  EXPECT_EQ(parseError("\"\xE2\x82\""), "1:2: error: invalid UTF-8 in string");
  EXPECT_EQ(parseError("[\xC3\xA9]"),
            "1:2: error: $[0]: unexpected byte 0xC3: expected a value");
}

TEST(JsonParseError, TrailingCommas) {
  EXPECT_EQ(parseError("[1, 2,]"),
            "1:6: error: trailing comma before ']' is not allowed in JSON");
  EXPECT_EQ(parseError("{\"a\": 1,\n}"),
            "1:8: error: trailing comma before '}' is not allowed in JSON");
  EXPECT_EQ(parseError("{\"a\": {\"b\": [1,\n  ]}}"),
            "1:15: error: $.a.b: trailing comma before ']' is not allowed in "
            "JSON");
  EXPECT_EQ(parseError("[,]"), "1:2: error: $[0]: unexpected ',': expected a "
                               "value");
}

TEST(JsonParseError, Numbers) {
  EXPECT_EQ(parseError("[01]"),
            "1:2: error: $[0]: leading zeros are not allowed in numbers");
  EXPECT_EQ(parseError("-012"),
            "1:1: error: leading zeros are not allowed in numbers");
  EXPECT_EQ(parseError("-"), "1:2: error: expected a digit after '-'");
  EXPECT_EQ(parseError("-x"), "1:2: error: expected a digit after '-'");
  EXPECT_EQ(parseError("1."),
            "1:3: error: expected a digit after the decimal point");
  EXPECT_EQ(parseError("1e"), "1:3: error: expected a digit in the exponent");
  EXPECT_EQ(parseError("1e+"), "1:4: error: expected a digit in the exponent");
  EXPECT_EQ(parseError(".5"),
            "1:1: error: numbers must start with a digit (write 0.5, not .5)");
  EXPECT_EQ(parseError("+1"), "1:1: error: numbers cannot start with '+'");
  EXPECT_EQ(parseError("[0x1F]"), "1:2: error: $[0]: invalid number '0x1F'");
  EXPECT_EQ(parseError("1.2.3"), "1:1: error: invalid number '1.2.3'");
  EXPECT_EQ(parseError("{\"a\": 12abc}"),
            "1:7: error: $.a: invalid number '12abc'");
  EXPECT_EQ(parseError("1e400"),
            "1:1: error: number 1e400 is out of range for a double");
  EXPECT_EQ(parseError("[-2e99999999999999999999]"),
            "1:2: error: $[0]: number -2e99999999999999999999 is out of range "
            "for a double");
}

TEST(JsonParseError, NonFiniteNumbers) {
  EXPECT_EQ(parseError("[NaN]"), "1:2: error: $[0]: 'NaN' is not allowed in "
                                 "JSON: numbers must be finite");
  EXPECT_EQ(parseError("Infinity"), "1:1: error: 'Infinity' is not allowed in "
                                    "JSON: numbers must be finite");
  EXPECT_EQ(parseError("{\"x\": -Infinity}"),
            "1:7: error: $.x: '-Infinity' is not allowed in JSON: numbers "
            "must be finite");
}

TEST(JsonParseError, Literals) {
  EXPECT_EQ(parseError("tru"), "1:1: error: unexpected word 'tru': expected a "
                               "value (strings must be enclosed in double "
                               "quotes)");
  EXPECT_EQ(parseError("[truex]"),
            "1:2: error: $[0]: unexpected word 'truex': expected a value "
            "(strings must be enclosed in double quotes)");
  EXPECT_EQ(parseError("True"), "1:1: error: invalid literal 'True' (JSON "
                                "literals are true, false and null, in "
                                "lowercase)");
  EXPECT_EQ(parseError("{\"fast\": fast}"),
            "1:10: error: $.fast: unexpected word 'fast': expected a value "
            "(strings must be enclosed in double quotes)");
  EXPECT_EQ(parseError("['a']"), "1:2: error: $[0]: strings must be enclosed "
                                 "in double quotes, not '");
}

TEST(JsonParseError, Structure) {
  EXPECT_EQ(parseError("{\"a\" 1}"),
            "1:6: error: $.a: expected ':' after the key \"a\", got '1'");
  EXPECT_EQ(parseError("[1 2]"), "1:4: error: expected ',' or ']' after an "
                                 "array element, got '2'");
  EXPECT_EQ(parseError("{\"a\": 1 \"b\": 2}"),
            "1:9: error: expected ',' or '}' after an object member, got '\"'");
  EXPECT_EQ(parseError("{a: 1}"),
            "1:2: error: object keys must be strings in double quotes");
  EXPECT_EQ(parseError("{1: 1}"), "1:2: error: expected a string key, got '1'");
  EXPECT_EQ(parseError("[1, 2"),
            "1:6: error: unexpected end of input: the array opened at 1:1 is "
            "not closed");
  EXPECT_EQ(parseError("[1, 2,"),
            "1:7: error: unexpected end of input: the array opened at 1:1 is "
            "not closed");
  EXPECT_EQ(parseError("{\n  \"a\": {\"b\": 1"),
            "2:15: error: $.a: unexpected end of input: the object opened at "
            "2:8 is not closed");
  EXPECT_EQ(parseError("{\"a\": "),
            "1:7: error: $.a: unexpected end of input: expected a value");
  EXPECT_EQ(parseError("{\"a\":1,"),
            "1:8: error: unexpected end of input: the object opened at 1:1 "
            "is not closed");
  EXPECT_EQ(parseError("}"), "1:1: error: unexpected '}': expected a value");
}

TEST(JsonParseError, TrailingGarbage) {
  EXPECT_EQ(parseError("{} x"), "1:4: error: unexpected 'x' after the JSON "
                                "document (a document holds exactly one "
                                "value)");
  EXPECT_EQ(parseError("1 2"), "1:3: error: unexpected '2' after the JSON "
                               "document (a document holds exactly one "
                               "value)");
  EXPECT_EQ(parseError("[]\n\n]"),
            "3:1: error: unexpected ']' after the JSON document (a document "
            "holds exactly one value)");
  EXPECT_EQ(parseError(std::string("{}\0", 3)),
            "1:3: error: unexpected byte 0x00 after the JSON document (a "
            "document holds exactly one value)");
}

TEST(JsonParseError, AtTheEndOfTheText) {
  EXPECT_EQ(parseError("{\n  \"a\": [1,\n    {\"b\": tr"),
            "3:11: error: $.a[1].b: unexpected word 'tr': expected a value "
            "(strings must be enclosed in double quotes)");
  EXPECT_EQ(parseError("[\n\n"),
            "3:1: error: unexpected end of input: the array opened at 1:1 is "
            "not closed");
  EXPECT_EQ(parseError("{\"a\": [{\"b\": \"x\"}\n   "),
            "2:4: error: $.a: unexpected end of input: the array opened at "
            "1:7 is not closed");
  EXPECT_EQ(parseError("{\"a\""),
            "1:5: error: $.a: expected ':' after the key \"a\", got the end "
            "of the input");
  EXPECT_EQ(parseError("[1e"), "1:4: error: $[0]: expected a digit in the "
                               "exponent");
  EXPECT_EQ(parseError("[\"\\u00"),
            "1:3: error: $[0]: invalid \\u escape: expected 4 hexadecimal "
            "digits");
}

TEST(JsonParseError, NulBytes) {
  // nlohmann stops at a NUL as if the text ended; the error says what is
  // there.
  EXPECT_EQ(parseError(std::string("[1\0]", 4)),
            "1:3: error: expected ',' or ']' after an array element, got byte "
            "0x00");
  EXPECT_EQ(parseError(std::string("\0", 1)),
            "1:1: error: unexpected byte 0x00: expected a value");
  EXPECT_EQ(parseError(std::string("\"a\0\"", 4)),
            "1:3: error: control character U+0000 must be escaped in a "
            "string");
}

TEST(JsonParseError, Comments) {
  EXPECT_EQ(parseError("// x\n{}"),
            "1:1: error: comments are not allowed in JSON");
  EXPECT_EQ(parseError("{} /* c */"),
            "1:4: error: comments are not allowed in JSON");
  EXPECT_EQ(parseError("{\"a\": 1, // c\n}"),
            "1:10: error: comments are not allowed in JSON");
}

TEST(JsonParseError, DuplicateKeys) {
  EXPECT_EQ(parseError("{\n  \"a\": 1,\n  \"a\": 2\n}"),
            "3:3: error: $.a: duplicate key \"a\" (first defined at 2:3)");
  EXPECT_EQ(parseError(R"({"m": {"x": 1, "y": 2, "x": 3}})"),
            "1:24: error: $.m.x: duplicate key \"x\" (first defined at 1:8)");
  // Keys are compared exactly, after unescaping.
  EXPECT_TRUE(parseJson(R"({"a": 1, "A": 2, "a ": 3})").value.has_value());
  EXPECT_EQ(parseError(R"({"a": 1, "\u0061": 2})"),
            "1:10: error: $.a: duplicate key \"a\" (first defined at 1:2)");
  // Large objects are indexed: check that path too.
  std::string big = "{";
  for (int i = 0; i < 40; ++i)
    big += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  std::size_t firstK7 = big.find("\"k7\"") + 1;
  big += "\"k7\": 0}";
  std::size_t secondK7 = big.rfind("\"k7\"") + 1;
  EXPECT_EQ(parseError(big), "1:" + std::to_string(secondK7) +
                                 ": error: $.k7: duplicate key \"k7\" (first "
                                 "defined at 1:" +
                                 std::to_string(firstK7) + ")");
  // Same key names in different objects are fine.
  EXPECT_TRUE(parseJson(R"([{"a": 1}, {"a": 2}])").value.has_value());
}

TEST(JsonParseError, PathsQuoteOddKeys) {
  EXPECT_EQ(parseError(R"({"odd key": {"a.b": [nul]}})"),
            "1:22: error: $[\"odd key\"][\"a.b\"][0]: unexpected word 'nul': "
            "expected a value (strings must be enclosed in double quotes)");
}

//===----------------------------------------------------------------------===//
// Diagnostics, paths, formatting
//===----------------------------------------------------------------------===//

TEST(JsonDiagnostic, Format) {
  JsonDiagnostic d{JsonSeverity::Error, 9, 22, "$.memory.bandwidth_gbps",
                   "expected a positive number, got \"fast\""};
  EXPECT_EQ(d.format("a40.json"),
            "a40.json:9:22: error: $.memory.bandwidth_gbps: expected a "
            "positive number, got \"fast\"");
  EXPECT_EQ(d.format(""), "9:22: error: $.memory.bandwidth_gbps: expected a "
                          "positive number, got \"fast\"");
  JsonDiagnostic w{JsonSeverity::Warning, 0, 0, "", "no position"};
  EXPECT_EQ(w.format("a40.json"), "a40.json: warning: no position");
  EXPECT_EQ(w.format(""), "warning: no position");
  EXPECT_FALSE(hasErrors({w}));
  EXPECT_TRUE(hasErrors({w, d}));
  EXPECT_EQ(formatDiagnostics({w, d}, "f"),
            "f: warning: no position\nf:9:22: error: $.memory.bandwidth_gbps: "
            "expected a positive number, got \"fast\"\n");
}

TEST(JsonDiagnostic, SortIsStableByPosition) {
  std::vector<JsonDiagnostic> diags = {
      {JsonSeverity::Error, 3, 1, "", "c"},
      {JsonSeverity::Error, 1, 5, "", "b"},
      {JsonSeverity::Warning, 1, 5, "", "b2"},
      {JsonSeverity::Error, 0, 0, "", "a"},
      {JsonSeverity::Error, 1, 2, "", "a2"},
  };
  sortDiagnostics(diags);
  std::string order;
  for (const JsonDiagnostic &d : diags)
    order += d.message + " ";
  EXPECT_EQ(order, "a a2 b b2 c ");
}

TEST(JsonPath, Append) {
  EXPECT_EQ(jsonPathAppendKey("$", "memory"), "$.memory");
  EXPECT_EQ(jsonPathAppendKey("$.memory", "bandwidth_gbps"),
            "$.memory.bandwidth_gbps");
  EXPECT_EQ(jsonPathAppendIndex(jsonPathAppendKey("$", "steps"), 3),
            "$.steps[3]");
  EXPECT_EQ(jsonPathAppendKey("$", "a.b"), "$[\"a.b\"]");
  EXPECT_EQ(jsonPathAppendKey("$", "1x"), "$[\"1x\"]");
  EXPECT_EQ(jsonPathAppendKey("$", ""), "$[\"\"]");
  EXPECT_EQ(jsonPathAppendKey("$", "q\"\n"), "$[\"q\\\"\\n\"]");
}

TEST(JsonFormat, Numbers) {
  EXPECT_EQ(formatJsonNumber(696), "696");
  EXPECT_EQ(formatJsonNumber(-5), "-5");
  EXPECT_EQ(formatJsonNumber(0.94), "0.94");
  EXPECT_EQ(formatJsonNumber(149.7), "149.7");
  EXPECT_EQ(formatJsonNumber(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(formatJsonNumber(1e300), "1e+300");
  EXPECT_EQ(formatJsonNumber(2.5e-7), "2.5e-07");
}

TEST(JsonFormat, DescribeValues) {
  EXPECT_EQ(describeJsonValue(JsonValue()), "null");
  EXPECT_EQ(describeJsonValue(JsonValue::makeBool(true)), "true");
  EXPECT_EQ(describeJsonValue(JsonValue::makeInteger(42)), "42");
  EXPECT_EQ(describeJsonValue(JsonValue::makeNumber(84.0)), "84.0");
  EXPECT_EQ(describeJsonValue(JsonValue::makeNumber(0.5)), "0.5");
  EXPECT_EQ(describeJsonValue(JsonValue::makeString("fa\"st")), "\"fa\\\"st\"");
  EXPECT_EQ(describeJsonValue(JsonValue::makeString(std::string(50, 'x'))),
            "\"" + std::string(40, 'x') + "...\"");
  EXPECT_EQ(describeJsonValue(JsonValue::makeArray({})), "an array");
  EXPECT_EQ(describeJsonValue(JsonValue::makeObject({})), "an object");
  EXPECT_EQ(quoteJsonString("a\tb"), "\"a\\tb\"");
}

TEST(JsonFormat, ClosestSpelling) {
  std::vector<std::string> keys = {"bandwidth_gbps", "capacity_gb", "fp32",
                                   "fp16_tensor"};
  EXPECT_EQ(findClosestSpelling("bandwith_gbps", keys), "bandwidth_gbps");
  EXPECT_EQ(findClosestSpelling("capacity_GB", keys), "capacity_gb");
  EXPECT_FALSE(findClosestSpelling("fp64", keys)); // 2 edits in 4 chars
  EXPECT_FALSE(findClosestSpelling("fp32", keys)); // exact
  EXPECT_FALSE(findClosestSpelling("colour", keys));
}

//===----------------------------------------------------------------------===//
// Checked reader
//===----------------------------------------------------------------------===//

const char *const kDoc = "{\n"
                         "  \"memory\": {\"bandwidth_gbps\": \"fast\"},\n"
                         "  \"steps\": [{\"grid\": [1, -2]}],\n"
                         "  \"count\": 84.0,\n"
                         "  \"name\": \"\",\n"
                         "  \"flag\": 1\n"
                         "}";

TEST(JsonReader, ErrorsCarryPathAndPosition) {
  JsonValue doc = parseOk(kDoc);
  std::vector<JsonDiagnostic> diags;
  {
    JsonObjectReader root(doc, "$", diags);
    std::optional<JsonObjectReader> memory = root.requireObject("memory");
    ASSERT_TRUE(memory.has_value());
    EXPECT_FALSE(
        memory->requireNumber("bandwidth_gbps", JsonNumberRange::positive()));
    std::optional<JsonArrayReader> steps = root.requireArray("steps", 1);
    ASSERT_TRUE(steps.has_value());
    ASSERT_EQ(steps->size(), 1u);
    std::optional<JsonObjectReader> step = steps->at(0).getObject();
    ASSERT_TRUE(step.has_value());
    std::optional<JsonArrayReader> grid = step->requireArray("grid", 1, 3);
    ASSERT_TRUE(grid.has_value());
    EXPECT_EQ(grid->at(0).getInt(0, 100), 1);
    EXPECT_FALSE(grid->at(1).getInt(0, 100));
    EXPECT_FALSE(root.requireInt("count", 1));
    EXPECT_FALSE(root.requireString("name", /*nonEmpty=*/true));
    EXPECT_FALSE(root.requireBool("flag"));
  }
  ASSERT_EQ(diags.size(), 5u);
  EXPECT_EQ(formatDiagnostics(diags, "f.json"),
            "f.json:2:32: error: $.memory.bandwidth_gbps: expected a positive "
            "number, got \"fast\"\n"
            "f.json:3:26: error: $.steps[0].grid[1]: expected an integer in "
            "[0, 100], got -2\n"
            "f.json:4:12: error: $.count: expected an integer >= 1, got "
            "84.0\n"
            "f.json:5:11: error: $.name: expected a non-empty string, got "
            "\"\"\n"
            "f.json:6:11: error: $.flag: expected true or false, got 1\n");
}

TEST(JsonReader, MissingKeysAndWrongKinds) {
  JsonValue doc = parseOk("{\"a\": [1], \"o\": {\n  \"x\": null}}");
  std::vector<JsonDiagnostic> diags;
  {
    JsonObjectReader root(doc, "$", diags);
    EXPECT_FALSE(root.requireNumber("absent"));
    EXPECT_FALSE(root.optionalNumber("absent2")); // no diagnostic
    EXPECT_FALSE(root.requireObject("a"));
    std::optional<JsonObjectReader> o = root.requireObject("o");
    ASSERT_TRUE(o.has_value());
    EXPECT_FALSE(o->requireString("y"));
    EXPECT_FALSE(o->requireArray("x"));
  }
  EXPECT_EQ(formatDiagnostics(diags, ""),
            "1:1: error: $.absent: required key is missing\n"
            "1:7: error: $.a: expected an object, got an array\n"
            "1:17: error: $.o.y: required key is missing\n"
            "2:8: error: $.o.x: expected an array, got null\n");
}

TEST(JsonReader, NumberRanges) {
  JsonValue doc = parseOk(R"({"f": 1.2, "z": 0, "n": -1, "c": 5, "ok": 0.5})");
  std::vector<JsonDiagnostic> diags;
  JsonObjectReader root(doc, "$", diags);
  EXPECT_FALSE(root.requireNumber("f", JsonNumberRange::openClosed(0, 1)));
  EXPECT_FALSE(root.requireNumber("z", JsonNumberRange::positive()));
  EXPECT_EQ(root.requireNumber("z", JsonNumberRange::nonNegative()), 0.0);
  EXPECT_FALSE(root.requireNumber("n", JsonNumberRange::nonNegative()));
  EXPECT_FALSE(root.requireNumber("c", JsonNumberRange::closed(1, 4)));
  EXPECT_EQ(root.requireNumber("ok", JsonNumberRange::openClosed(0, 1)), 0.5);
  EXPECT_FALSE(root.requireNumber(
      "c", JsonNumberRange{10.0, std::nullopt, false, false}));
  root.finish();
  ASSERT_EQ(diags.size(), 5u);
  EXPECT_EQ(diags[0].message, "expected a number in (0, 1], got 1.2");
  EXPECT_EQ(diags[1].message, "expected a positive number, got 0");
  EXPECT_EQ(diags[2].message, "expected a non-negative number, got -1");
  EXPECT_EQ(diags[3].message, "expected a number in [1, 4], got 5");
  EXPECT_EQ(diags[4].message, "expected a number >= 10, got 5");
  EXPECT_EQ(JsonNumberRange{}.describe(), "a number");
  EXPECT_EQ((JsonNumberRange{std::nullopt, 3.0, false, true}).describe(),
            "a number < 3");
}

TEST(JsonReader, IntegerMessages) {
  JsonValue doc = parseOk(R"({"a": "1", "b": 1e2, "c": 99999999999999999999})");
  std::vector<JsonDiagnostic> diags;
  JsonObjectReader root(doc, "$", diags);
  EXPECT_FALSE(root.requireInt("a"));
  EXPECT_FALSE(root.requireInt("b", std::numeric_limits<int64_t>::min(), 10));
  EXPECT_FALSE(root.requireInt("c", 0, 5));
  root.finish();
  ASSERT_EQ(diags.size(), 3u);
  EXPECT_EQ(diags[0].message, "expected an integer, got \"1\"");
  EXPECT_EQ(diags[1].message, "expected an integer <= 10, got 100.0");
  EXPECT_EQ(diags[2].message, "expected an integer in [0, 5], got 1e+20");
}

TEST(JsonReader, NullableNumbers) {
  JsonValue doc = parseOk(R"({"a": null, "b": 733, "c": "x", "d": -1})");
  std::vector<JsonDiagnostic> diags;
  JsonObjectReader root(doc, "$", diags);
  std::optional<std::optional<double>> a =
      root.requireNumberOrNull("a", JsonNumberRange::positive());
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->has_value());
  std::optional<std::optional<double>> b =
      root.requireNumberOrNull("b", JsonNumberRange::positive());
  ASSERT_TRUE(b && *b);
  EXPECT_EQ(**b, 733.0);
  EXPECT_FALSE(root.requireNumberOrNull("c", JsonNumberRange::positive()));
  EXPECT_FALSE(root.requireNumberOrNull("d", JsonNumberRange::positive()));
  EXPECT_FALSE(root.requireNumberOrNull("e"));
  root.finish();
  ASSERT_EQ(diags.size(), 3u);
  EXPECT_EQ(diags[0].message, "expected a positive number or null, got \"x\"");
  EXPECT_EQ(diags[1].message, "expected a positive number or null, got -1");
  EXPECT_EQ(diags[2].message, "required key is missing");
}

TEST(JsonReader, ArraySizes) {
  JsonValue doc = parseOk(R"({"a": [], "b": [1, 2], "c": [1, 2, 3, 4]})");
  std::vector<JsonDiagnostic> diags;
  JsonObjectReader root(doc, "$", diags);
  EXPECT_FALSE(root.requireArray("a", 1));
  EXPECT_FALSE(root.requireArray("b", 3, 3));
  EXPECT_FALSE(root.requireArray("c", 0, 3));
  EXPECT_FALSE(root.requireArray("c", 1, 2));
  EXPECT_TRUE(root.requireArray("b", 2, 2));
  root.finish();
  ASSERT_EQ(diags.size(), 4u);
  EXPECT_EQ(diags[0].message,
            "expected an array of at least 1 element, got 0 elements");
  EXPECT_EQ(diags[1].message,
            "expected an array of exactly 3 elements, got 2 elements");
  EXPECT_EQ(diags[2].message,
            "expected an array of at most 3 elements, got 4 elements");
  EXPECT_EQ(diags[3].message,
            "expected an array of 1 to 2 elements, got 4 elements");
}

TEST(JsonReader, UnknownKeysAreWarnings) {
  JsonValue doc = parseOk("{\n"
                          "  \"bandwidth_gbps\": 1,\n"
                          "  \"bandwith_gbps\": 2,\n"
                          "  \"colour\": 3,\n"
                          "  \"odd key\": 4\n"
                          "}");
  std::vector<JsonDiagnostic> diags;
  JsonObjectReader root(doc, "$.memory", diags);
  EXPECT_EQ(root.requireNumber("bandwidth_gbps"), 1.0);
  EXPECT_FALSE(root.has("capacity_gb"));
  root.finish();
  root.finish(); // only once
  EXPECT_EQ(formatDiagnostics(diags, "t.json"),
            "t.json:3:3: warning: $.memory.bandwith_gbps: unknown key "
            "\"bandwith_gbps\" (ignored); did you mean \"bandwidth_gbps\"?\n"
            "t.json:4:3: warning: $.memory.colour: unknown key \"colour\" "
            "(ignored)\n"
            "t.json:5:3: warning: $.memory[\"odd key\"]: unknown key \"odd "
            "key\" (ignored)\n");
  EXPECT_FALSE(hasErrors(diags));
}

TEST(JsonReader, ManyUnknownKeysAreSummarized) {
  // 2,000 unknown keys on one line: 20 warnings and a summary, quickly.
  std::string text = "{\"known\": 1";
  for (int i = 0; i < 2000; ++i)
    text += ", \"unknown_" + std::to_string(i) + "\": " + std::to_string(i);
  text += "}";
  JsonValue doc = parseOk(text);
  std::vector<JsonDiagnostic> diags;
  {
    JsonObjectReader root(doc, "$.x", diags);
    EXPECT_EQ(root.requireInt("known"), 1);
  }
  ASSERT_EQ(diags.size(), JsonObjectReader::kMaxUnknownKeyWarnings + 1);
  EXPECT_EQ(diags[0].format(""),
            "1:14: warning: $.x.unknown_0: unknown key \"unknown_0\" "
            "(ignored)");
  EXPECT_EQ(diags[19].jsonPath, "$.x.unknown_19");
  EXPECT_EQ(diags[20].format(""),
            "1:1: warning: $.x: and 1980 more unknown keys (ignored)");
  EXPECT_FALSE(hasErrors(diags));
}

TEST(JsonReader, DestructorReportsUnknownKeysOnce) {
  JsonValue doc = parseOk(R"({"o": {"known": 1, "extra": 2}})");
  std::vector<JsonDiagnostic> diags;
  {
    JsonObjectReader root(doc, "$", diags);
    // requireObject moves the reader out of an optional; only the final
    // reader reports.
    std::optional<JsonObjectReader> o = root.requireObject("o");
    ASSERT_TRUE(o.has_value());
    JsonObjectReader moved(std::move(*o));
    EXPECT_EQ(moved.requireNumber("known"), 1.0);
  }
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].format(""),
            "1:20: warning: $.o.extra: unknown key \"extra\" (ignored)");
}

TEST(JsonReader, MapLikeObjects) {
  JsonValue doc = parseOk(R"({"sources": {"a": "x", "b": 2}})");
  std::vector<JsonDiagnostic> diags;
  {
    JsonObjectReader root(doc, "$", diags);
    std::optional<JsonObjectReader> sources = root.requireObject("sources");
    ASSERT_TRUE(sources.has_value());
    ASSERT_EQ(sources->size(), 2u);
    EXPECT_EQ(sources->keyAt(0), "a");
    EXPECT_EQ(sources->memberAt(0).getString(), "x");
    EXPECT_FALSE(sources->memberAt(1).getString());
  }
  ASSERT_EQ(diags.size(), 1u); // no unknown-key warnings
  EXPECT_EQ(diags[0].format(""),
            "1:29: error: $.sources.b: expected a string, got 2");
}

TEST(JsonReader, CustomMessages) {
  JsonValue doc = parseOk(R"({"arch": "sm86"})");
  std::vector<JsonDiagnostic> diags;
  JsonObjectReader root(doc, "$", diags);
  std::optional<JsonValueReader> arch = root.require("arch");
  ASSERT_TRUE(arch.has_value());
  arch->error("expected an SM architecture such as \"sm_86\"");
  arch->warning("just saying");
  root.warning("object-level");
  root.finish();
  EXPECT_EQ(formatDiagnostics(diags, ""),
            "1:10: error: $.arch: expected an SM architecture such as "
            "\"sm_86\"\n"
            "1:10: warning: $.arch: just saying\n"
            "1:1: warning: $: object-level\n");
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

TEST(JsonReadFile, ReadsAndReportsErrors) {
  std::string error;
  EXPECT_FALSE(readFile("/nonexistent/dir/x.json", error));
  EXPECT_EQ(error,
            "cannot open '/nonexistent/dir/x.json': No such file or directory");
  EXPECT_FALSE(readFile("/", error));
  EXPECT_EQ(error, "cannot read '/': Is a directory");

  std::string path = ::testing::TempDir() + "tfuse-json-reader-test-" +
                     std::to_string(::getpid()) + ".json";
  std::FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string contents("{\"a\": 1}\n\0tail", 15);
  std::fwrite(contents.data(), 1, contents.size(), f);
  std::fclose(f);
  std::optional<std::string> read = readFile(path, error);
  std::remove(path.c_str());
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, contents);
}

} // namespace
