//===- PlanReader.cpp - plan.json, loaded and validated ---------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the plan.json loader: the schema (docs/bundle.md)
// read through the checked JSON reader, then the cross-references that make
// a plan executable: buffer ids, arena bounds and alignment, alias chains,
// the function's inputs and outputs, each step's buffers, the extents of
// every GEMM, the `ops` graph of each step against the step's buffers, and,
// when the bundle directory is known, the module files and kernel names.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Bundle/Plan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

using namespace mlir::tfuse;
using namespace mlir::tfuse::bundle;

//===----------------------------------------------------------------------===//
// Small public helpers
//===----------------------------------------------------------------------===//

const char *mlir::tfuse::bundle::bufferKindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Output:
    return "output";
  case BufferKind::Temp:
    return "temp";
  case BufferKind::Alias:
    return "alias";
  case BufferKind::Constant:
    return "constant";
  }
  return "?";
}

const char *mlir::tfuse::bundle::epilogueName(Epilogue epilogue) {
  switch (epilogue) {
  case Epilogue::None:
    return "none";
  case Epilogue::Bias:
    return "bias";
  case Epilogue::Gelu:
    return "gelu";
  case Epilogue::BiasGelu:
    return "bias_gelu";
  case Epilogue::Relu:
    return "relu";
  case Epilogue::BiasRelu:
    return "bias_relu";
  }
  return "?";
}

bool mlir::tfuse::bundle::epilogueHasBias(Epilogue epilogue) {
  return epilogue == Epilogue::Bias || epilogue == Epilogue::BiasGelu ||
         epilogue == Epilogue::BiasRelu;
}

double Plan::predictedTotalUs() const {
  double total = 0;
  for (const PlanStep &step : steps)
    total += step.predictedUs;
  return total;
}

std::string Plan::describeStep(size_t index) const {
  return "step " + std::to_string(index) + " ('" + steps[index].name + "')";
}

std::string Plan::describeBuffer(size_t index) const {
  return "buffer " + std::to_string(buffers[index].id) + " ('" +
         buffers[index].name + "')";
}

const char *mlir::tfuse::bundle::paramAccessName(ParamAccess access) {
  switch (access) {
  case ParamAccess::Read:
    return "read";
  case ParamAccess::Write:
    return "write";
  case ParamAccess::ReadWrite:
    return "read_write";
  }
  return "?";
}

std::string mlir::tfuse::bundle::contentHash(std::string_view bytes) {
  // FNV-1a, 64-bit: offset basis and prime from the FNV specification.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  static const char kDigits[] = "0123456789abcdef";
  std::string out = "fnv1a64:";
  for (int shift = 60; shift >= 0; shift -= 4)
    out += kDigits[(hash >> shift) & 0xf];
  return out;
}

/// Which of the parameters `names` a PTX function body stores through:
/// each register's parameters (those its value is computed from, through
/// ld.param, moves and arithmetic, to a fixed point since loops assign
/// registers after their uses) and the address registers of global or
/// generic st, atom and red instructions.
static std::vector<bool>
findStoredParams(std::string_view body,
                 const std::vector<std::string_view> &names) {
  std::vector<bool> stored(names.size(), false);
  if (names.empty())
    return stored;
  auto isReg = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '%' || c == '$';
  };
  // The statements, split at ';', with labels and guards dropped.
  struct Statement {
    std::string_view opcode;
    std::vector<std::string_view> regs; // in order; regs[0] a destination
    std::string_view address;           // the register inside [...], if any
    std::string_view addressName;       // a name inside [...]
  };
  std::vector<Statement> statements;
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find(';', start);
    std::string_view text = body.substr(start, end == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : end - start);
    start = end == std::string_view::npos ? body.size() : end + 1;
    // Drop comments, labels ("$L__BB0_2:") and guards ("@%p1", "@!%p1").
    size_t i = 0;
    auto skipBlanks = [&] {
      while (i < text.size() &&
             (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
              text[i] == '\r' || text[i] == '{' || text[i] == '}'))
        ++i;
    };
    Statement st;
    while (true) {
      skipBlanks();
      if (text.substr(i, 2) == "//") {
        size_t nl = text.find('\n', i);
        i = nl == std::string_view::npos ? text.size() : nl;
        continue;
      }
      size_t e = i;
      while (e < text.size() && !std::isspace((unsigned char)text[e]))
        ++e;
      std::string_view word = text.substr(i, e - i);
      if (word.empty())
        break;
      if (word[0] == '@' || word.back() == ':') {
        i = e;
        continue;
      }
      st.opcode = word;
      i = e;
      break;
    }
    if (st.opcode.empty() || st.opcode[0] == '.')
      continue;
    bool inBrackets = false;
    while (i < text.size()) {
      char c = text[i];
      if (c == '[') {
        inBrackets = true;
        ++i;
        continue;
      }
      if (c == ']') {
        inBrackets = false;
        ++i;
        continue;
      }
      if (!isReg(c)) {
        ++i;
        continue;
      }
      size_t e = i;
      while (e < text.size() && isReg(text[e]))
        ++e;
      std::string_view word = text.substr(i, e - i);
      i = e;
      if (word[0] == '%') {
        if (inBrackets && st.address.empty())
          st.address = word;
        else if (!inBrackets)
          st.regs.push_back(word);
      } else if (inBrackets && st.addressName.empty()) {
        st.addressName = word;
      }
    }
    statements.push_back(std::move(st));
  }
  auto paramIndex = [&](std::string_view name) -> int {
    for (size_t k = 0; k < names.size(); ++k)
      if (!names[k].empty() && names[k] == name)
        return static_cast<int>(k);
    return -1;
  };
  auto startsWith = [](std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
  };
  auto writesMemory = [&](std::string_view op) {
    if (!startsWith(op, "st.") && !startsWith(op, "atom.") &&
        !startsWith(op, "red."))
      return false;
    return op.find(".shared") == std::string_view::npos &&
           op.find(".local") == std::string_view::npos &&
           op.find(".param") == std::string_view::npos;
  };
  // Parameters per register, as bit sets over at most 64 parameters; more
  // are beyond what the analysis follows (none are marked).
  if (names.size() > 64)
    return stored;
  std::map<std::string_view, uint64_t> from;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Statement &st : statements) {
      if (writesMemory(st.opcode) || st.regs.empty() ||
          startsWith(st.opcode, "setp") || startsWith(st.opcode, "bra"))
        continue;
      uint64_t bits = 0;
      if (startsWith(st.opcode, "ld.param")) {
        int k = paramIndex(st.addressName);
        if (k >= 0)
          bits = uint64_t(1) << k;
      } else if (startsWith(st.opcode, "ld.") ||
                 startsWith(st.opcode, "atom.")) {
        continue; // a value read from memory: no parameter's address
      } else {
        for (size_t r = 1; r < st.regs.size(); ++r)
          if (auto it = from.find(st.regs[r]); it != from.end())
            bits |= it->second;
      }
      uint64_t &dst = from[st.regs[0]];
      if ((dst | bits) != dst) {
        dst |= bits;
        changed = true;
      }
    }
  }
  for (const Statement &st : statements) {
    if (!writesMemory(st.opcode) || st.address.empty())
      continue;
    auto it = from.find(st.address);
    if (it == from.end())
      continue;
    for (size_t k = 0; k < names.size(); ++k)
      if (it->second >> k & 1)
        stored[k] = true;
  }
  return stored;
}

std::vector<PtxEntry>
mlir::tfuse::bundle::listPtxEntries(std::string_view ptx) {
  std::vector<PtxEntry> entries;
  std::vector<std::string_view> paramNames;
  auto isIdent = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
  };
  auto isBlank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string_view::npos) {
    size_t start = pos + 6;
    pos = start;
    // ".entry" must be a whole directive, followed by blanks and a name.
    if (start >= ptx.size() || (ptx[start] != ' ' && ptx[start] != '\t'))
      continue;
    while (start < ptx.size() && (ptx[start] == ' ' || ptx[start] == '\t'))
      ++start;
    size_t end = start;
    while (end < ptx.size() && isIdent(ptx[end]))
      ++end;
    if (end == start)
      continue;
    PtxEntry entry;
    entry.name = std::string(ptx.substr(start, end - start));
    pos = end;
    // The parameter list: "( .param .u64 name, .param .u64 name )"; each
    // parameter's type is the first directive after ".param" that is not an
    // alignment or state space.
    while (pos < ptx.size() && isBlank(ptx[pos]))
      ++pos;
    if (pos < ptx.size() && ptx[pos] == '(') {
      size_t close = ptx.find(')', pos);
      std::string_view list = ptx.substr(
          pos + 1, close == std::string_view::npos ? std::string_view::npos
                                                   : close - pos - 1);
      size_t p = 0;
      while ((p = list.find(".param", p)) != std::string_view::npos) {
        p += 6;
        std::string type;
        while (p < list.size()) {
          while (p < list.size() && isBlank(list[p]))
            ++p;
          size_t e = p;
          while (e < list.size() && isIdent(list[e]))
            ++e;
          std::string_view word = list.substr(p, e - p);
          p = e;
          if (word == ".align") {
            while (p < list.size() && isBlank(list[p]))
              ++p;
            while (p < list.size() && list[p] >= '0' && list[p] <= '9')
              ++p;
            continue;
          }
          if (word == ".ptr" || word == ".global" || word == ".const" ||
              word == ".local" || word == ".shared")
            continue;
          type = std::string(word);
          break;
        }
        while (p < list.size() && isBlank(list[p]))
          ++p;
        size_t e = p;
        while (e < list.size() && isIdent(list[e]))
          ++e;
        entry.paramTypes.push_back(type);
        paramNames.emplace_back(list.substr(p, e - p));
        p = e;
      }
      if (close != std::string_view::npos)
        pos = close + 1;
    }
    size_t next = ptx.find(".entry", pos);
    entry.paramStored = findStoredParams(
        ptx.substr(pos, next == std::string_view::npos ? std::string_view::npos
                                                       : next - pos),
        paramNames);
    paramNames.clear();
    entries.push_back(std::move(entry));
  }
  return entries;
}

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

constexpr int64_t kMaxElements = int64_t(1) << 48;
constexpr int64_t kMaxInt32 = 2147483647;

/// a + b and a * b, or nothing when the result does not fit: sizes and
/// offsets come from the file and may be anything up to INT64_MAX.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}
std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

/// "fnv1a64:" and 16 lowercase hex digits, as contentHash writes them.
bool isContentHash(const std::string &text) {
  const std::string prefix = "fnv1a64:";
  return text.size() == prefix.size() + 16 && text.rfind(prefix, 0) == 0 &&
         std::all_of(text.begin() + prefix.size(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string quoteList(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : "") + quoteJsonString(names[i]);
  return out;
}

std::string didYouMean(const std::string &word,
                       const std::vector<std::string> &candidates) {
  if (std::optional<std::string> close = findClosestSpelling(word, candidates))
    return " (did you mean " + quoteJsonString(*close) + "?)";
  return "";
}

bool isValidSmArch(std::string_view arch) {
  if (arch.size() < 4 || arch.substr(0, 3) != "sm_")
    return false;
  std::string_view digits = arch.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f'))
    digits.remove_suffix(1);
  return !digits.empty() &&
         std::all_of(digits.begin(), digits.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

/// Reads the plan; one instance per document.
class PlanParser {
public:
  PlanParser(std::vector<JsonDiagnostic> &diags) : diags(diags) {}

  std::optional<Plan> parse(const JsonValue &doc,
                            const PlanParseOptions &options);

private:
  // Field readers.
  /// A string among `choices`; a misspelling gets a "did you mean" hint
  /// when `hint` is set.
  std::optional<std::string> readEnum(const JsonValueReader &value,
                                      const std::vector<std::string> &choices,
                                      bool hint = true);
  std::optional<ref::DType> readDType(const JsonValueReader &value,
                                      bool floatOnly = false);
  std::optional<std::vector<int64_t>> readShape(const JsonValueReader &value);
  std::optional<ref::TensorType> readTensorType(const JsonValueReader &value);
  std::optional<size_t> readBufferRef(const JsonValueReader &value);
  /// The buffers a list names; `repeats` lets one be named more than once.
  std::optional<std::vector<size_t>> readBufferList(JsonObjectReader &object,
                                                    std::string_view key,
                                                    size_t minSize = 0,
                                                    bool repeats = false);
  std::optional<std::string>
  readModuleFile(JsonObjectReader &object, std::string_view key, bool required);
  std::optional<std::string> readHash(JsonObjectReader &object,
                                      std::string_view key);

  // Sections.
  void readTarget(JsonObjectReader &root);
  void readModule(JsonObjectReader &root);
  void readBuffers(JsonObjectReader &root);
  void readBuffer(JsonValueReader value);
  void resolveAliases();
  void readFunctionInputsOutputs(JsonObjectReader &root);
  void readSteps(JsonObjectReader &root);
  void readStep(const JsonValueReader &value);
  void readKernel(JsonObjectReader &object, PlanStep &step, bool buffersKnown);
  void readParams(JsonObjectReader &object, KernelLaunch &launch);
  void checkArguments(JsonObjectReader &object, const PlanStep &step);
  void readGemm(JsonObjectReader &object, PlanStep &step);
  bool readGraph(const JsonValueReader &value, PlanStep &step);
  std::optional<ref::RefAttribute> readAttribute(const JsonValueReader &value);
  void checkFiles(const std::string &bundleDir);

  void errorAt(const JsonValue &value, const std::string &path,
               std::string message) {
    diags.push_back({JsonSeverity::Error, value.line(), value.column(), path,
                     std::move(message)});
  }
  void warningAt(const JsonValue &value, const std::string &path,
                 std::string message) {
    diags.push_back({JsonSeverity::Warning, value.line(), value.column(), path,
                     std::move(message)});
  }

  std::vector<JsonDiagnostic> &diags;
  Plan plan;
  /// Buffer id -> index in plan.buffers.
  std::map<int64_t, size_t> idToIndex;
  /// Where each buffer, step and module file was read from, for messages
  /// about cross-references found after the first pass.
  struct Where {
    const JsonValue *value = nullptr;
    std::string path;
  };
  std::vector<Where> bufferWhere, aliasWhere;
  std::vector<Where> kernelWhere, paramsWhere;
  Where ptxWhere, cubinWhere, ptxHashWhere, cubinHashWhere;
  bool buffersOk = true;
};

//===----------------------------------------------------------------------===//
// Field readers
//===----------------------------------------------------------------------===//

std::optional<std::string>
PlanParser::readEnum(const JsonValueReader &value,
                     const std::vector<std::string> &choices, bool hint) {
  std::optional<std::string> s = value.getString();
  if (!s)
    return std::nullopt;
  if (std::find(choices.begin(), choices.end(), *s) != choices.end())
    return s;
  value.error("expected one of " + quoteList(choices) + ", got " +
              quoteJsonString(*s) + (hint ? didYouMean(*s, choices) : ""));
  return std::nullopt;
}

std::optional<ref::DType> PlanParser::readDType(const JsonValueReader &value,
                                                bool floatOnly) {
  std::vector<std::string> names = {"f32", "f16", "bf16"};
  if (!floatOnly)
    names.insert(names.end(), {"i32", "i64"});
  // No spelling hints: "f64" is not a misspelt "i64".
  std::optional<std::string> s = readEnum(value, names, /*hint=*/false);
  ref::DType dtype;
  if (!s || !ref::parseDType(*s, dtype))
    return std::nullopt;
  return dtype;
}

std::optional<std::vector<int64_t>>
PlanParser::readShape(const JsonValueReader &value) {
  std::optional<JsonArrayReader> array = value.getArray();
  if (!array)
    return std::nullopt;
  std::vector<int64_t> shape;
  bool ok = true;
  double elements = 1;
  for (size_t i = 0; i < array->size(); ++i) {
    std::optional<int64_t> d = array->at(i).getInt(1, kMaxElements);
    if (!d) {
      ok = false;
      continue;
    }
    shape.push_back(*d);
    elements *= static_cast<double>(*d);
  }
  if (ok && elements > static_cast<double>(kMaxElements)) {
    value.error("the shape has " + formatJsonNumber(elements) +
                " elements, more than the runtime supports (2^48)");
    ok = false;
  }
  return ok ? std::optional<std::vector<int64_t>>(shape) : std::nullopt;
}

std::optional<ref::TensorType>
PlanParser::readTensorType(const JsonValueReader &value) {
  std::optional<JsonObjectReader> object = value.getObject();
  if (!object)
    return std::nullopt;
  std::optional<std::vector<int64_t>> shape;
  std::optional<ref::DType> dtype;
  if (std::optional<JsonValueReader> v = object->require("shape"))
    shape = readShape(*v);
  if (std::optional<JsonValueReader> v = object->require("dtype"))
    dtype = readDType(*v);
  if (!shape || !dtype)
    return std::nullopt;
  return ref::TensorType{*dtype, *shape};
}

std::optional<size_t> PlanParser::readBufferRef(const JsonValueReader &value) {
  std::optional<int64_t> id = value.getInt(0);
  if (!id)
    return std::nullopt;
  auto it = idToIndex.find(*id);
  if (it == idToIndex.end()) {
    // Buffers that failed to parse are not in the map: say nothing more.
    if (buffersOk)
      value.error("no buffer has id " + std::to_string(*id));
    return std::nullopt;
  }
  return it->second;
}

std::optional<std::vector<size_t>>
PlanParser::readBufferList(JsonObjectReader &object, std::string_view key,
                           size_t minSize, bool repeats) {
  std::optional<JsonArrayReader> array = object.requireArray(key, minSize);
  if (!array)
    return std::nullopt;
  std::vector<size_t> list;
  bool ok = true;
  for (size_t i = 0; i < array->size(); ++i) {
    JsonValueReader element = array->at(i);
    std::optional<size_t> index = readBufferRef(element);
    if (!index) {
      ok = false;
      continue;
    }
    if (!repeats && std::find(list.begin(), list.end(), *index) != list.end()) {
      element.error("buffer " + std::to_string(plan.buffers[*index].id) +
                    " is listed twice");
      ok = false;
      continue;
    }
    list.push_back(*index);
  }
  return ok ? std::optional<std::vector<size_t>>(list) : std::nullopt;
}

std::optional<std::string> PlanParser::readModuleFile(JsonObjectReader &object,
                                                      std::string_view key,
                                                      bool required) {
  std::optional<JsonValueReader> value =
      required ? object.require(key) : object.get(key);
  if (!value)
    return std::nullopt;
  std::optional<std::string> name = value->getString(/*nonEmpty=*/true);
  if (!name)
    return std::nullopt;
  bool escapes =
      (*name)[0] == '/' || *name == ".." || name->rfind("../", 0) == 0 ||
      name->find("/../") != std::string::npos ||
      (name->size() >= 3 && name->compare(name->size() - 3, 3, "/..") == 0);
  if (escapes) {
    value->error("expected a file name inside the bundle directory, got " +
                 quoteJsonString(*name));
    return std::nullopt;
  }
  Where &where = key == "ptx" ? ptxWhere : cubinWhere;
  where = {&value->value(), value->path()};
  return name;
}

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

std::optional<Plan> PlanParser::parse(const JsonValue &doc,
                                      const PlanParseOptions &options) {
  if (!doc.isObject()) {
    JsonValueReader(doc, std::string(kJsonRootPath), diags).getObject();
    return std::nullopt;
  }
  // The version decides how to read the rest: check it first and stop at a
  // version this runtime does not know.
  const std::string supported = "this version of tfuse-run reads schema "
                                "version " +
                                std::to_string(kPlanSchemaVersion);
  const JsonValue *version = doc.find("schema_version");
  if (!version) {
    errorAt(doc, "$.schema_version",
            "required key is missing (" + supported + ")");
    return std::nullopt;
  }
  std::optional<int64_t> v = version->getInt64();
  if (!v || *v != kPlanSchemaVersion) {
    errorAt(*version, "$.schema_version",
            (v ? "unsupported schema version " + std::to_string(*v)
               : "expected an integer schema version, got " +
                     describeJsonValue(*version)) +
                "; " + supported);
    return std::nullopt;
  }

  JsonObjectReader root(doc, std::string(kJsonRootPath), diags);
  root.has("schema_version");
  if (std::optional<std::string> f = root.requireString("function", true))
    plan.function = *f;
  readTarget(root);
  readModule(root);
  if (std::optional<int64_t> a =
          root.requireInt("arena_bytes", 0, int64_t(1) << 50))
    plan.arenaBytes = *a;
  readBuffers(root);
  readFunctionInputsOutputs(root);
  readSteps(root);
  root.finish();

  if (hasErrors(diags))
    return std::nullopt;
  if (options.bundleDir) {
    plan.bundleDir = *options.bundleDir;
    checkFiles(*options.bundleDir);
    if (hasErrors(diags))
      return std::nullopt;
  }
  return std::move(plan);
}

void PlanParser::readTarget(JsonObjectReader &root) {
  std::optional<JsonObjectReader> target = root.requireObject("target");
  if (!target)
    return;
  if (std::optional<std::string> s = target->requireString("name", true))
    plan.target.name = *s;
  if (std::optional<JsonValueReader> arch = target->require("sm_arch")) {
    if (std::optional<std::string> s = arch->getString()) {
      if (isValidSmArch(*s))
        plan.target.smArch = *s;
      else
        arch->error("expected an SM architecture such as \"sm_90\", got " +
                    quoteJsonString(*s));
    }
  }
  if (std::optional<double> bw =
          target->requireNumber("bandwidth_gbps", JsonNumberRange::positive()))
    plan.target.bandwidthGBps = *bw;
  if (std::optional<JsonValueReader> ach =
          target->require("achievable_bandwidth_gbps")) {
    if (std::optional<double> a = ach->getNumber(JsonNumberRange::positive())) {
      plan.target.achievableBandwidthGBps = *a;
      if (plan.target.bandwidthGBps > 0 && *a > plan.target.bandwidthGBps)
        ach->error("the achievable bandwidth (" + formatJsonNumber(*a) +
                   ") exceeds bandwidth_gbps (" +
                   formatJsonNumber(plan.target.bandwidthGBps) + ")");
    }
  }
}

void PlanParser::readModule(JsonObjectReader &root) {
  std::optional<JsonObjectReader> module = root.requireObject("module");
  if (!module)
    return;
  if (std::optional<std::string> ptx = readModuleFile(*module, "ptx", true))
    plan.ptxFile = *ptx;
  if (std::optional<std::string> hash = readHash(*module, "ptx_hash"))
    plan.ptxHash = *hash;
  plan.cubinFile = readModuleFile(*module, "cubin", false);
  if (module->has("cubin")) {
    if (std::optional<std::string> hash = readHash(*module, "cubin_hash"))
      plan.cubinHash = *hash;
  } else if (std::optional<JsonValueReader> hash = module->get("cubin_hash")) {
    hash->error("a hash of a cubin the module does not name");
  }
}

std::optional<std::string> PlanParser::readHash(JsonObjectReader &object,
                                                std::string_view key) {
  std::optional<JsonValueReader> value = object.require(key);
  if (!value)
    return std::nullopt;
  std::optional<std::string> hash = value->getString();
  if (!hash)
    return std::nullopt;
  if (!isContentHash(*hash)) {
    value->error("expected \"fnv1a64:\" and 16 hex digits, got " +
                 quoteJsonString(*hash));
    return std::nullopt;
  }
  Where &where = key == "ptx_hash" ? ptxHashWhere : cubinHashWhere;
  where.value = &value->value();
  where.path = value->path();
  return hash;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

void PlanParser::readBuffers(JsonObjectReader &root) {
  std::optional<JsonArrayReader> buffers = root.requireArray("buffers");
  if (!buffers) {
    buffersOk = false;
    return;
  }
  size_t errorsBefore = diags.size();
  for (size_t i = 0; i < buffers->size(); ++i)
    readBuffer(buffers->at(i));
  if (hasErrors({diags.begin() + errorsBefore, diags.end()})) {
    buffersOk = false;
    return;
  }
  resolveAliases();
}

void PlanParser::readBuffer(JsonValueReader value) {
  std::optional<JsonObjectReader> object = value.getObject();
  if (!object) {
    buffersOk = false;
    return;
  }
  PlanBuffer buffer;
  bool ok = true;
  if (std::optional<JsonValueReader> id = object->require("id")) {
    if (std::optional<int64_t> v = id->getInt(0)) {
      buffer.id = *v;
      auto [it, inserted] = idToIndex.emplace(*v, plan.buffers.size());
      if (!inserted) {
        id->error("duplicate buffer id " + std::to_string(*v) +
                  " (also $.buffers[" + std::to_string(it->second) + "])");
        ok = false;
      }
    } else {
      ok = false;
    }
  } else {
    ok = false;
  }
  if (std::optional<std::string> name = object->requireString("name"))
    buffer.name = *name;
  else
    ok = false;
  if (std::optional<JsonValueReader> v = object->get("checkpoint_transposed")) {
    if (std::optional<bool> transposed = v->getBool())
      buffer.checkpointTransposed = *transposed;
    else
      ok = false;
  }
  std::optional<std::vector<int64_t>> shape;
  if (std::optional<JsonValueReader> v = object->require("shape"))
    shape = readShape(*v);
  std::optional<ref::DType> dtype;
  if (std::optional<JsonValueReader> v = object->require("dtype"))
    dtype = readDType(*v);
  if (shape && dtype) {
    buffer.shape = *shape;
    buffer.dtype = *dtype;
  } else {
    ok = false;
  }
  if (std::optional<JsonValueReader> bytes = object->require("bytes")) {
    if (std::optional<int64_t> b = bytes->getInt(0)) {
      buffer.bytes = *b;
      if (shape && dtype) {
        // readShape bounds the elements by 2^48, so this cannot overflow;
        // checked all the same, as every size read from the file is.
        int64_t expected =
            checkedMul(buffer.numElements(), ref::elementSize(*dtype))
                .value_or(-1);
        if (*b != expected) {
          bytes->error("expected " + std::to_string(expected) + " (" +
                       std::to_string(buffer.numElements()) + " elements of " +
                       ref::dtypeName(*dtype) + "), got " + std::to_string(*b));
          ok = false;
        }
      }
    } else {
      ok = false;
    }
  } else {
    ok = false;
  }

  std::optional<std::string> kind;
  if (std::optional<JsonValueReader> k = object->require("kind"))
    kind = readEnum(*k, {"input", "output", "temp", "alias", "constant"});
  if (!kind) {
    ok = false;
  } else if (*kind == "input") {
    buffer.kind = BufferKind::Input;
  } else if (*kind == "output") {
    buffer.kind = BufferKind::Output;
  } else if (*kind == "temp") {
    buffer.kind = BufferKind::Temp;
    if (std::optional<JsonValueReader> offset = object->require("offset")) {
      if (std::optional<int64_t> o = offset->getInt(0)) {
        buffer.offset = *o;
        if (*o % kBufferAlignment != 0) {
          offset->error("the arena offset " + std::to_string(*o) +
                        " is not a multiple of " +
                        std::to_string(kBufferAlignment));
          ok = false;
        } else if (std::optional<int64_t> end = checkedAdd(*o, buffer.bytes);
                   !end || *end > plan.arenaBytes) {
          offset->error("the temp's bytes [" + std::to_string(*o) + ", " +
                        (end ? std::to_string(*end)
                             : std::to_string(*o) + " + " +
                                   std::to_string(buffer.bytes)) +
                        ") exceed the arena (arena_bytes = " +
                        std::to_string(plan.arenaBytes) + ")");
          ok = false;
        }
      } else {
        ok = false;
      }
    } else {
      ok = false;
    }
  } else if (*kind == "alias") {
    buffer.kind = BufferKind::Alias;
    if (std::optional<JsonValueReader> of = object->require("alias_of")) {
      if (std::optional<int64_t> target = of->getInt(0)) {
        // Resolved once every id is known.
        buffer.aliasOf = *target;
        aliasWhere.resize(plan.buffers.size() + 1);
        aliasWhere[plan.buffers.size()] = {&of->value(), of->path()};
      } else {
        ok = false;
      }
    } else {
      ok = false;
    }
  } else if (*kind == "constant") {
    buffer.kind = BufferKind::Constant;
    if (std::optional<JsonValueReader> vals = object->require("values")) {
      if (std::optional<JsonArrayReader> array = vals->getArray()) {
        if (shape && dtype &&
            static_cast<int64_t>(array->size()) != buffer.numElements()) {
          vals->error("expected " + std::to_string(buffer.numElements()) +
                      " values (the shape's elements), got " +
                      std::to_string(array->size()));
          ok = false;
        } else if (dtype) {
          buffer.values.reserve(array->size());
          for (size_t i = 0; i < array->size(); ++i) {
            JsonValueReader element = array->at(i);
            std::optional<ref::RefAttribute> attr = readAttribute(element);
            std::optional<double> x;
            if (attr) {
              if (const int64_t *n = std::get_if<int64_t>(&*attr))
                x = static_cast<double>(*n);
              else if (const double *d = std::get_if<double>(&*attr))
                x = *d;
              else if (const std::string *s = std::get_if<std::string>(&*attr))
                x = *s == "inf"    ? HUGE_VAL
                    : *s == "-inf" ? -HUGE_VAL
                    : *s == "nan"  ? std::nan("")
                                   : std::optional<double>();
            }
            if (!x) {
              element.error("expected a number (or \"inf\", \"-inf\", "
                            "\"nan\"), got " +
                            describeJsonValue(element.value()));
              ok = false;
              break;
            }
            double rounded = ref::roundTo(*dtype, *x);
            if (rounded != *x && !(std::isnan(*x) && ref::isFloat(*dtype))) {
              element.error(formatJsonNumber(*x) +
                            " is not exactly representable in " +
                            ref::dtypeName(*dtype) +
                            " (nearest: " + formatJsonNumber(rounded) + ")");
              ok = false;
              break;
            }
            buffer.values.push_back(*x);
          }
        }
      } else {
        ok = false;
      }
    } else {
      ok = false;
    }
  }
  object->finish();
  if (!ok)
    buffersOk = false;
  bufferWhere.push_back({&value.value(), value.path()});
  plan.buffers.push_back(std::move(buffer));
}

void PlanParser::resolveAliases() {
  aliasWhere.resize(plan.buffers.size());
  // First map alias_of ids to indices.
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    PlanBuffer &b = plan.buffers[i];
    b.storage = static_cast<int64_t>(i);
    if (b.kind != BufferKind::Alias)
      continue;
    const Where &where = aliasWhere[i];
    auto it = idToIndex.find(b.aliasOf);
    if (it == idToIndex.end()) {
      errorAt(*where.value, where.path,
              "no buffer has id " + std::to_string(b.aliasOf));
      buffersOk = false;
      continue;
    }
    if (it->second == i) {
      errorAt(*where.value, where.path, "a buffer cannot alias itself");
      buffersOk = false;
      continue;
    }
    b.aliasOf = static_cast<int64_t>(it->second);
  }
  if (!buffersOk)
    return;
  // Then follow the chains to their storage, rejecting cycles.
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    PlanBuffer &b = plan.buffers[i];
    if (b.kind != BufferKind::Alias)
      continue;
    size_t current = i;
    size_t hops = 0;
    while (plan.buffers[current].kind == BufferKind::Alias &&
           hops <= plan.buffers.size()) {
      current = static_cast<size_t>(plan.buffers[current].aliasOf);
      ++hops;
    }
    const Where &where = aliasWhere[i];
    if (plan.buffers[current].kind == BufferKind::Alias) {
      errorAt(*where.value, where.path, "the aliases form a cycle");
      buffersOk = false;
      continue;
    }
    b.storage = static_cast<int64_t>(current);
    const PlanBuffer &storage = plan.buffers[current];
    if (b.bytes > storage.bytes) {
      errorAt(*where.value, where.path,
              "the alias has " + std::to_string(b.bytes) +
                  " bytes but the buffer it shares, " +
                  plan.describeBuffer(current) + ", has only " +
                  std::to_string(storage.bytes));
      buffersOk = false;
    }
  }
}

void PlanParser::readFunctionInputsOutputs(JsonObjectReader &root) {
  std::optional<JsonArrayReader> inputs = root.requireArray("inputs");
  std::optional<JsonArrayReader> outputs = root.requireArray("outputs", 1);
  if (!buffersOk)
    return;
  auto readList = [&](std::optional<JsonArrayReader> &array, bool isInput,
                      std::vector<size_t> &list) {
    if (!array)
      return;
    for (size_t i = 0; i < array->size(); ++i) {
      JsonValueReader element = array->at(i);
      std::optional<size_t> index = readBufferRef(element);
      if (!index)
        continue;
      const PlanBuffer &b = plan.buffers[*index];
      if (std::find(list.begin(), list.end(), *index) != list.end()) {
        element.error("buffer " + std::to_string(b.id) + " is listed twice");
        continue;
      }
      bool kindOk = isInput ? b.kind == BufferKind::Input
                            : (b.kind == BufferKind::Output ||
                               b.kind == BufferKind::Alias);
      if (!kindOk) {
        element.error(plan.describeBuffer(*index) + " has kind \"" +
                      bufferKindName(b.kind) + "\"; " +
                      (isInput ? "a function input must have kind \"input\""
                               : "a function output must have kind "
                                 "\"output\" or \"alias\""));
        continue;
      }
      // --input NAME=FILE, --inputs DIR and --save-outputs pick by name.
      for (size_t other : list)
        if (plan.buffers[other].name == b.name) {
          element.error(
              plan.describeBuffer(*index) + " is named \"" + b.name + "\" as " +
              plan.describeBuffer(other) + " is; the function's " +
              (isInput ? "inputs" : "outputs") + " need distinct names");
          break;
        }
      list.push_back(*index);
    }
  };
  readList(inputs, true, plan.inputs);
  readList(outputs, false, plan.outputs);
  // Every input/output buffer must be listed, so that it is filled/checked.
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlanBuffer &b = plan.buffers[i];
    const std::vector<size_t> *list = b.kind == BufferKind::Input ? &plan.inputs
                                      : b.kind == BufferKind::Output
                                          ? &plan.outputs
                                          : nullptr;
    // An output may be listed through an alias of it (a returned reshape).
    if (list && inputs && outputs &&
        std::none_of(list->begin(), list->end(), [&](size_t listed) {
          return plan.buffers[listed].storage == static_cast<int64_t>(i);
        }))
      errorAt(*bufferWhere[i].value, bufferWhere[i].path,
              plan.describeBuffer(i) + " has kind \"" + bufferKindName(b.kind) +
                  "\" but is not in $." +
                  (b.kind == BufferKind::Input ? "inputs" : "outputs"));
  }
}

//===----------------------------------------------------------------------===//
// Steps
//===----------------------------------------------------------------------===//

void PlanParser::readSteps(JsonObjectReader &root) {
  std::optional<JsonArrayReader> steps = root.requireArray("steps", 1);
  if (!steps || !buffersOk)
    return;
  for (size_t i = 0; i < steps->size(); ++i)
    readStep(steps->at(i));
}

void PlanParser::readStep(const JsonValueReader &value) {
  std::optional<JsonObjectReader> object = value.getObject();
  if (!object)
    return;
  PlanStep step;
  size_t errorsBefore = diags.size();
  std::optional<std::string> kind;
  if (std::optional<JsonValueReader> k = object->require("kind"))
    kind = readEnum(*k, {"kernel", "gemm"});
  if (std::optional<std::string> name = object->requireString("name", true))
    step.name = *name;
  // A step may read one buffer as several operands (attention of %x, %x,
  // %x): its inputs follow the graph's arguments.
  std::optional<std::vector<size_t>> inputs =
      readBufferList(*object, "inputs", 0, /*repeats=*/true);
  std::optional<std::vector<size_t>> outputs =
      readBufferList(*object, "outputs", 1);
  if (inputs)
    step.inputs = *inputs;
  if (outputs) {
    step.outputs = *outputs;
    std::optional<JsonValueReader> list = object->get("outputs");
    for (size_t i = 0; i < outputs->size(); ++i) {
      const PlanBuffer &b = plan.buffers[(*outputs)[i]];
      const PlanBuffer &storage = plan.buffers[b.storage];
      if (storage.kind == BufferKind::Input ||
          storage.kind == BufferKind::Constant)
        JsonArrayReader(list->value(), list->path(), diags)
            .at(i)
            .error("a step cannot write " + plan.describeBuffer((*outputs)[i]) +
                   ", whose bytes are those of a function " +
                   (storage.kind == BufferKind::Input ? "input" : "constant"));
    }
  }
  if (std::optional<double> us =
          object->requireNumber("predicted_us", JsonNumberRange::nonNegative()))
    step.predictedUs = *us;
  if (std::optional<int64_t> b = object->requireInt("bytes", 0))
    step.bytes = *b;
  if (std::optional<int64_t> f = object->requireInt("flops", 0))
    step.flops = *f;

  if (kind == std::optional<std::string>("kernel")) {
    step.kind = StepKind::Kernel;
    // The arguments are checked against the step's buffers: only once
    // those are known and sound.
    readKernel(*object, step,
               inputs && outputs &&
                   !hasErrors({diags.begin() + errorsBefore, diags.end()}));
  } else if (kind == std::optional<std::string>("gemm")) {
    step.kind = StepKind::Gemm;
    if (inputs && outputs)
      readGemm(*object, step);
  }
  // The graph is checked against the step's buffers, so only once those are
  // known.
  if (std::optional<JsonValueReader> ops = object->require("ops"))
    if (inputs && outputs)
      readGraph(*ops, step);
  object->finish();
  if (!hasErrors({diags.begin() + errorsBefore, diags.end()}))
    plan.steps.push_back(std::move(step));
}

void PlanParser::readKernel(JsonObjectReader &object, PlanStep &step,
                            bool buffersKnown) {
  KernelLaunch &launch = step.launch;
  if (std::optional<JsonValueReader> k = object.require("kernel")) {
    if (std::optional<std::string> name = k->getString(true)) {
      launch.kernel = *name;
      kernelWhere.push_back({&k->value(), k->path()});
    }
  }
  if (std::optional<std::string> t = object.requireString("template", true))
    launch.templateName = *t;
  auto readDims = [&](std::string_view key, std::array<unsigned, 3> &dims,
                      const std::array<int64_t, 3> &max) {
    std::optional<JsonArrayReader> array = object.requireArray(key, 3, 3);
    if (!array)
      return false;
    bool ok = true;
    for (size_t i = 0; i < 3; ++i) {
      std::optional<int64_t> d = array->at(i).getInt(1, max[i]);
      if (d)
        dims[i] = static_cast<unsigned>(*d);
      else
        ok = false;
    }
    return ok;
  };
  readDims("grid", launch.grid, {kMaxInt32, 65535, 65535});
  if (readDims("block", launch.block, {1024, 1024, 64})) {
    int64_t threads =
        int64_t(launch.block[0]) * launch.block[1] * launch.block[2];
    if (threads > 1024) {
      std::optional<JsonValueReader> block = object.get("block");
      block->error("a block of " + std::to_string(threads) +
                   " threads exceeds the limit of 1024");
    }
  }
  // Hopper's opt-in maximum; the device's own limit is checked at load.
  if (std::optional<int64_t> s =
          object.requireInt("shared_bytes", 0, 227 * 1024))
    launch.sharedBytes = static_cast<unsigned>(*s);
  size_t errorsBefore = diags.size();
  // A buffer may be passed to several parameters that read it.
  std::optional<std::vector<size_t>> args =
      readBufferList(object, "args", 0, /*repeats=*/true);
  if (args)
    launch.args = *args;
  readParams(object, launch);
  if (args && buffersKnown &&
      !hasErrors({diags.begin() + errorsBefore, diags.end()}))
    checkArguments(object, step);
}

void PlanParser::readParams(JsonObjectReader &object, KernelLaunch &launch) {
  std::optional<JsonValueReader> value = object.require("params");
  if (!value)
    return;
  std::optional<JsonArrayReader> params = value->getArray();
  if (!params)
    return;
  paramsWhere.push_back({&value->value(), value->path()});
  for (size_t i = 0; i < params->size(); ++i) {
    std::optional<JsonObjectReader> param = params->at(i).getObject();
    if (!param)
      continue;
    KernelParam p;
    std::optional<std::string> access;
    if (std::optional<JsonValueReader> a = param->require("access"))
      access = readEnum(*a, {"read", "write", "read_write"});
    std::optional<int64_t> bytes = param->requireInt("bytes", 0);
    param->finish();
    if (!access || !bytes)
      continue;
    p.access = *access == "read"    ? ParamAccess::Read
               : *access == "write" ? ParamAccess::Write
                                    : ParamAccess::ReadWrite;
    p.bytes = *bytes;
    launch.params.push_back(p);
  }
}

void PlanParser::checkArguments(JsonObjectReader &object,
                                const PlanStep &step) {
  const KernelLaunch &launch = step.launch;
  std::optional<JsonValueReader> argsValue = object.get("args");
  JsonArrayReader args(argsValue->value(), argsValue->path(), diags);
  if (launch.args.size() != launch.params.size()) {
    argsValue->error("the step passes " + std::to_string(launch.args.size()) +
                     " arguments but its kernel has " +
                     std::to_string(launch.params.size()) +
                     " parameters ($.params)");
    return;
  }
  auto contains = [](const std::vector<size_t> &list, size_t index) {
    return std::find(list.begin(), list.end(), index) != list.end();
  };
  for (size_t i = 0; i < launch.args.size(); ++i) {
    size_t index = launch.args[i];
    const KernelParam &param = launch.params[i];
    const PlanBuffer &b = plan.buffers[index];
    const PlanBuffer &storage = plan.buffers[b.storage];
    std::string what = "argument " + std::to_string(i) + ", " +
                       plan.describeBuffer(index) + ",";
    JsonValueReader arg = args.at(i);
    if (b.bytes != param.bytes)
      arg.error(what + " has " + std::to_string(b.bytes) +
                " bytes but the kernel's parameter " + std::to_string(i) +
                " is " + std::to_string(param.bytes));
    if (paramWrites(param.access)) {
      if (std::count(launch.args.begin(), launch.args.end(), index) > 1)
        arg.error(what + " is written by the kernel (" +
                  paramAccessName(param.access) +
                  ") and passed to another of its parameters too");
      else if (storage.kind == BufferKind::Input ||
               storage.kind == BufferKind::Constant)
        arg.error(what + " has the bytes of a function " +
                  (storage.kind == BufferKind::Input ? "input" : "constant") +
                  ", but the kernel writes its parameter " + std::to_string(i));
      else if (!contains(step.outputs, index))
        arg.error(what + " is written by the kernel (" +
                  paramAccessName(param.access) +
                  ") but is not among the step's outputs");
    } else if (!contains(step.inputs, index)) {
      arg.error(what + " is only read by the kernel but is not among the "
                       "step's inputs");
    }
  }
  // Every input is read and every output written by some parameter.
  for (size_t index : step.inputs)
    if (!contains(launch.args, index))
      argsValue->error("the step's input " + plan.describeBuffer(index) +
                       " is not among the kernel's arguments");
  for (size_t index : step.outputs) {
    bool written = false;
    for (size_t i = 0; i < launch.args.size(); ++i)
      written = written || (launch.args[i] == index &&
                            paramWrites(launch.params[i].access));
    if (!written)
      argsValue->error("the step's output " + plan.describeBuffer(index) +
                       " is not written by any kernel parameter");
  }
}

void PlanParser::readGemm(JsonObjectReader &object, PlanStep &step) {
  GemmCall &g = step.gemm;
  size_t errorsBefore = diags.size();
  std::optional<JsonValueReader> lhs = object.require("lhs");
  std::optional<JsonValueReader> rhs = object.require("rhs");
  std::optional<JsonValueReader> out = object.require("out");
  std::optional<JsonValueReader> bias = object.get("bias");
  std::optional<size_t> lhsIndex, rhsIndex, outIndex, biasIndex;
  if (lhs)
    lhsIndex = readBufferRef(*lhs);
  if (rhs)
    rhsIndex = readBufferRef(*rhs);
  if (out)
    outIndex = readBufferRef(*out);
  if (bias && !bias->value().isNull())
    biasIndex = readBufferRef(*bias);
  std::optional<std::string> epilogue;
  std::optional<JsonValueReader> epilogueValue = object.require("epilogue");
  if (epilogueValue)
    epilogue = readEnum(*epilogueValue, {"none", "bias", "gelu", "bias_gelu",
                                         "relu", "bias_relu"});
  std::optional<bool> tl = object.requireBool("transpose_lhs");
  std::optional<bool> tr = object.requireBool("transpose_rhs");
  std::optional<int64_t> batch = object.requireInt("batch", 1, kMaxInt32);
  std::optional<int64_t> m = object.requireInt("m", 1, kMaxInt32);
  std::optional<int64_t> n = object.requireInt("n", 1, kMaxInt32);
  std::optional<int64_t> k = object.requireInt("k", 1, kMaxInt32);
  std::optional<int64_t> ls =
      object.requireInt("lhs_batch_stride", 0, kMaxElements);
  std::optional<int64_t> rs =
      object.requireInt("rhs_batch_stride", 0, kMaxElements);
  std::optional<int64_t> os =
      object.requireInt("out_batch_stride", 0, kMaxElements);
  std::optional<ref::DType> dtype;
  if (std::optional<JsonValueReader> d = object.require("dtype"))
    dtype = readDType(*d, /*floatOnly=*/true);
  std::optional<bool> tf32 = object.optionalBool("tf32");
  if (tf32 && *tf32 && dtype && *dtype != ref::DType::F32)
    object.get("tf32")->error("a TF32 GEMM needs f32 operands, not " +
                              std::string(ref::dtypeName(*dtype)));
  if (hasErrors({diags.begin() + errorsBefore, diags.end()}))
    return;

  g.lhs = *lhsIndex;
  g.rhs = *rhsIndex;
  g.out = *outIndex;
  g.bias = biasIndex;
  g.transposeLhs = *tl;
  g.transposeRhs = *tr;
  g.batch = *batch;
  g.m = *m;
  g.n = *n;
  g.k = *k;
  g.lhsBatchStride = *ls;
  g.rhsBatchStride = *rs;
  g.outBatchStride = *os;
  g.dtype = *dtype;
  g.tf32 = tf32.value_or(false);
  const std::vector<std::string> names = {"none",      "bias", "gelu",
                                          "bias_gelu", "relu", "bias_relu"};
  g.epilogue = static_cast<Epilogue>(
      std::find(names.begin(), names.end(), *epilogue) - names.begin());

  if (epilogueHasBias(g.epilogue) && !g.bias)
    epilogueValue->error("the epilogue \"" + *epilogue +
                         "\" adds a bias but the step has no \"bias\"");
  if (!epilogueHasBias(g.epilogue) && g.bias)
    bias->error("the step has a bias but its epilogue \"" + *epilogue +
                "\" adds none");

  // Each operand: its dtype, its extent, and its place among the step's
  // inputs or outputs.
  auto checkOperand = [&](const JsonValueReader &where, size_t index,
                          double rows, double cols, double stride,
                          bool isOutput) {
    const PlanBuffer &b = plan.buffers[index];
    if (b.dtype != g.dtype)
      where.error(plan.describeBuffer(index) + " is " +
                  ref::dtypeName(b.dtype) + " but the GEMM's dtype is " +
                  ref::dtypeName(g.dtype));
    double needed = (static_cast<double>(g.batch) - 1) * stride + rows * cols;
    if (needed > static_cast<double>(b.numElements()))
      where.error(plan.describeBuffer(index) + " has " +
                  std::to_string(b.numElements()) +
                  " elements but the GEMM "
                  "reads or writes up to element " +
                  formatJsonNumber(needed) + " (batch " +
                  std::to_string(g.batch) + ", " + formatJsonNumber(rows) +
                  " x " + formatJsonNumber(cols) + ", stride " +
                  formatJsonNumber(stride) + ")");
    const std::vector<size_t> &list = isOutput ? step.outputs : step.inputs;
    if (std::find(list.begin(), list.end(), index) == list.end())
      where.error(plan.describeBuffer(index) + " is not among the step's " +
                  (isOutput ? "outputs" : "inputs"));
  };
  double M = static_cast<double>(g.m), N = static_cast<double>(g.n),
         K = static_cast<double>(g.k);
  checkOperand(*lhs, g.lhs, M, K, static_cast<double>(g.lhsBatchStride), false);
  checkOperand(*rhs, g.rhs, K, N, static_cast<double>(g.rhsBatchStride), false);
  checkOperand(*out, g.out, M, N, static_cast<double>(g.outBatchStride), true);
  // m and n are below 2^31, so m * n fits.
  if (g.batch > 1 && g.outBatchStride < g.m * g.n) {
    std::optional<JsonValueReader> s = object.get("out_batch_stride");
    s->error("batches of the output overlap: the stride must be at least "
             "m * n = " +
             std::to_string(g.m * g.n) + " when batch > 1");
  }
  if (g.bias) {
    const PlanBuffer &b = plan.buffers[*g.bias];
    if (b.dtype != g.dtype && b.dtype != ref::DType::F32)
      bias->error(plan.describeBuffer(*g.bias) + " is " +
                  ref::dtypeName(b.dtype) + "; a bias must be " +
                  ref::dtypeName(g.dtype) + " (the GEMM's dtype) or f32");
    if (b.numElements() != g.n)
      bias->error(plan.describeBuffer(*g.bias) + " has " +
                  std::to_string(b.numElements()) +
                  " elements; a bias has n = " + std::to_string(g.n));
    if (std::find(step.inputs.begin(), step.inputs.end(), *g.bias) ==
        step.inputs.end())
      bias->error(plan.describeBuffer(*g.bias) +
                  " is not among the step's inputs");
  }
}

std::optional<ref::RefAttribute>
PlanParser::readAttribute(const JsonValueReader &value) {
  const JsonValue &v = value.value();
  switch (v.kind()) {
  case JsonKind::Bool:
    return ref::RefAttribute(v.getBool());
  case JsonKind::Number:
    if (std::optional<int64_t> i = v.getInt64())
      return ref::RefAttribute(*i);
    return ref::RefAttribute(v.getNumber());
  case JsonKind::String:
    return ref::RefAttribute(v.getString());
  case JsonKind::Array: {
    bool allIntegers = true;
    for (const JsonValue &e : v.getArray())
      allIntegers = allIntegers && e.getInt64().has_value();
    if (allIntegers) {
      std::vector<int64_t> ints;
      for (const JsonValue &e : v.getArray())
        ints.push_back(*e.getInt64());
      return ref::RefAttribute(std::move(ints));
    }
    std::vector<double> numbers;
    for (size_t i = 0; i < v.getArray().size(); ++i) {
      const JsonValue &e = v.getArray()[i];
      if (e.isNumber()) {
        numbers.push_back(e.getNumber());
        continue;
      }
      const std::string &s = e.getString();
      if (e.isString() && (s == "inf" || s == "+inf")) {
        numbers.push_back(HUGE_VAL);
      } else if (e.isString() && s == "-inf") {
        numbers.push_back(-HUGE_VAL);
      } else if (e.isString() && s == "nan") {
        numbers.push_back(std::nan(""));
      } else {
        JsonValueReader(e, jsonPathAppendIndex(value.path(), i), diags)
            .error("expected a number (or \"inf\", \"-inf\", \"nan\"), got " +
                   describeJsonValue(e));
        return std::nullopt;
      }
    }
    return ref::RefAttribute(std::move(numbers));
  }
  default:
    value.error("expected a boolean, a number, a string or an array of "
                "numbers, got " +
                describeJsonValue(v));
    return std::nullopt;
  }
}

bool PlanParser::readGraph(const JsonValueReader &value, PlanStep &step) {
  std::optional<JsonObjectReader> object = value.getObject();
  if (!object)
    return false;
  size_t errorsBefore = diags.size();
  auto failedSince = [&] {
    return hasErrors({diags.begin() + errorsBefore, diags.end()});
  };
  ref::RefGraph &graph = step.ops;

  std::optional<JsonArrayReader> arguments = object->requireArray("arguments");
  std::optional<JsonArrayReader> ops = object->requireArray("ops");
  std::optional<JsonArrayReader> yields = object->requireArray("yields");
  if (!arguments || !ops || !yields)
    return false;

  // Arguments: the step's inputs, in order, with their types.
  if (arguments->size() != step.inputs.size()) {
    object->get("arguments")
        ->error("the graph has " + std::to_string(arguments->size()) +
                " arguments but the step has " +
                std::to_string(step.inputs.size()) + " inputs");
  } else {
    for (size_t i = 0; i < arguments->size(); ++i) {
      JsonValueReader arg = arguments->at(i);
      std::optional<ref::TensorType> type = readTensorType(arg);
      if (!type)
        continue;
      const PlanBuffer &b = plan.buffers[step.inputs[i]];
      if (*type != b.type())
        arg.error("argument " + std::to_string(i) + " is " +
                  ref::formatTensorType(*type) + " but the step's input " +
                  std::to_string(i) + ", " +
                  plan.describeBuffer(step.inputs[i]) + ", is " +
                  ref::formatTensorType(b.type()));
      graph.arguments.push_back(*type);
    }
  }

  // Ops, with the types of all values for the yields.
  std::vector<ref::TensorType> valueTypes = graph.arguments;
  int defined = static_cast<int>(step.inputs.size());
  for (size_t i = 0; i < ops->size(); ++i) {
    JsonValueReader opValue = ops->at(i);
    std::optional<JsonObjectReader> opObject = opValue.getObject();
    if (!opObject)
      continue;
    ref::RefOp op;
    bool ok = true;
    if (std::optional<JsonValueReader> name = opObject->require("op")) {
      if (std::optional<std::string> s = name->getString(true)) {
        op.name = *s;
        const std::vector<std::string> &known = ref::getRefOpNames();
        if (std::find(known.begin(), known.end(), *s) == known.end()) {
          name->error("unknown op " + quoteJsonString(*s) +
                      didYouMean(*s, known));
          ok = false;
        }
      } else {
        ok = false;
      }
    } else {
      ok = false;
    }
    if (std::optional<JsonArrayReader> operands =
            opObject->requireArray("operands")) {
      for (size_t j = 0; j < operands->size(); ++j) {
        JsonValueReader operand = operands->at(j);
        std::optional<int64_t> v = operand.getInt(0, kMaxInt32);
        if (!v) {
          ok = false;
          continue;
        }
        if (*v >= defined) {
          operand.error("value " + std::to_string(*v) +
                        " is not defined before this op (values 0.." +
                        std::to_string(defined - 1) + " are)");
          ok = false;
          continue;
        }
        op.operands.push_back(static_cast<int>(*v));
      }
    } else {
      ok = false;
    }
    if (std::optional<JsonArrayReader> results =
            opObject->requireArray("results", 1)) {
      for (size_t j = 0; j < results->size(); ++j) {
        if (std::optional<ref::TensorType> t = readTensorType(results->at(j)))
          op.results.push_back(*t);
        else
          ok = false;
      }
    } else {
      ok = false;
    }
    if (std::optional<JsonValueReader> attrs = opObject->get("attributes")) {
      if (std::optional<JsonObjectReader> attrObject = attrs->getObject()) {
        for (size_t j = 0; j < attrObject->size(); ++j) {
          std::string key = attrObject->keyAt(j);
          if (std::optional<ref::RefAttribute> a =
                  readAttribute(attrObject->memberAt(j)))
            op.attributes.emplace(key, std::move(*a));
          else
            ok = false;
        }
      } else {
        ok = false;
      }
    }
    opObject->finish();
    if (ok) {
      std::string message;
      if (!ref::verifyRefOp(op, message)) {
        opValue.error(message);
        ok = false;
      }
    }
    // Keep numbering values even past a bad op, so that later messages
    // still count right.
    defined += static_cast<int>(op.results.size());
    for (const ref::TensorType &t : op.results)
      valueTypes.push_back(t);
    if (ok)
      graph.ops.push_back(std::move(op));
  }

  // Yields: the step's outputs, in order, with their types.
  if (yields->size() != step.outputs.size()) {
    object->get("yields")->error(
        "the graph yields " + std::to_string(yields->size()) +
        " values but the step has " + std::to_string(step.outputs.size()) +
        " outputs");
  } else {
    for (size_t i = 0; i < yields->size(); ++i) {
      JsonValueReader y = yields->at(i);
      std::optional<int64_t> v = y.getInt(0, kMaxInt32);
      if (!v)
        continue;
      if (*v >= defined) {
        y.error("value " + std::to_string(*v) +
                " is not defined (the graph defines values 0.." +
                std::to_string(defined - 1) + ")");
        continue;
      }
      const PlanBuffer &b = plan.buffers[step.outputs[i]];
      if (static_cast<size_t>(*v) < valueTypes.size() &&
          valueTypes[*v] != b.type())
        y.error("value " + std::to_string(*v) + " is " +
                ref::formatTensorType(valueTypes[*v]) +
                " but the step's output " + std::to_string(i) + ", " +
                plan.describeBuffer(step.outputs[i]) + ", is " +
                ref::formatTensorType(b.type()));
      graph.yields.push_back(static_cast<int>(*v));
    }
  }
  object->finish();
  if (failedSince())
    return false;

  if (step.kind == StepKind::Gemm &&
      std::none_of(
          graph.ops.begin(), graph.ops.end(),
          [](const ref::RefOp &op) { return op.name == "tfuse.matmul"; }))
    warningAt(value.value(), value.path(),
              "the ops of a gemm step contain no tfuse.matmul");
  return true;
}

//===----------------------------------------------------------------------===//
// Bundle files
//===----------------------------------------------------------------------===//

void PlanParser::checkFiles(const std::string &bundleDir) {
  // Each file is read once: the bytes whose hash is checked here are the
  // bytes the runtime loads (Plan::ptxText, Plan::cubinImage).
  auto readChecked = [&](const std::string &name, const Where &fileWhere,
                         const std::string &expected, const Where &hashWhere,
                         std::string &bytes) {
    std::string error;
    std::optional<std::string> text = readFile(bundleDir + "/" + name, error);
    if (!text) {
      errorAt(*fileWhere.value, fileWhere.path, error);
      return false;
    }
    std::string actual = contentHash(*text);
    if (actual != expected) {
      errorAt(*hashWhere.value, hashWhere.path,
              name +
                  " is not the file this plan was written with (its hash "
                  "is " +
                  actual + ", the plan records " + expected +
                  "): the bundle is torn or mixed from two compiles; "
                  "compile it again");
      return false;
    }
    bytes = std::move(*text);
    return true;
  };
  if (!readChecked(plan.ptxFile, ptxWhere, plan.ptxHash, ptxHashWhere,
                   plan.ptxText))
    return;
  if (plan.cubinFile)
    readChecked(*plan.cubinFile, cubinWhere, plan.cubinHash, cubinHashWhere,
                plan.cubinImage);

  std::vector<PtxEntry> entries = listPtxEntries(plan.ptxText);
  std::vector<std::string> names;
  for (const PtxEntry &entry : entries)
    names.push_back(entry.name);
  for (size_t i = 0, k = 0; i < plan.steps.size(); ++i) {
    const PlanStep &step = plan.steps[i];
    if (step.kind != StepKind::Kernel)
      continue;
    const Where &where = kernelWhere[k];
    const Where &params = paramsWhere[k++];
    auto entry =
        std::find_if(entries.begin(), entries.end(), [&](const PtxEntry &e) {
          return e.name == step.launch.kernel;
        });
    if (entry == entries.end()) {
      errorAt(*where.value, where.path,
              "kernel " + quoteJsonString(step.launch.kernel) +
                  " is not an entry of " + plan.ptxFile +
                  (names.empty() ? " (it has none)"
                                 : " (entries: " + quoteList(names) + ")") +
                  didYouMean(step.launch.kernel, names));
      continue;
    }
    // Bare pointers: one 64-bit parameter per argument, nothing else.
    if (entry->paramTypes.size() != step.launch.params.size()) {
      errorAt(*params.value, params.path,
              "kernel " + quoteJsonString(step.launch.kernel) + " has " +
                  std::to_string(entry->paramTypes.size()) + " parameters in " +
                  plan.ptxFile + " but the plan lists " +
                  std::to_string(step.launch.params.size()));
      continue;
    }
    for (size_t p = 0; p < entry->paramTypes.size(); ++p) {
      const std::string &type = entry->paramTypes[p];
      if (type != ".u64" && type != ".b64" && type != ".s64")
        errorAt(*params.value, params.path,
                "parameter " + std::to_string(p) + " of kernel " +
                    quoteJsonString(step.launch.kernel) + " in " +
                    plan.ptxFile + " is " +
                    (type.empty() ? std::string("of no type") : type) +
                    ", not a 64-bit pointer");
    }
    // What the PTX tells of the accesses: a parameter it stores through is
    // not one the kernel only reads (which tfuse-run would pass a function
    // input for).
    for (size_t p = 0; p < entry->paramStored.size(); ++p)
      if (entry->paramStored[p] &&
          step.launch.params[p].access == ParamAccess::Read)
        errorAt(*params.value, params.path,
                "parameter " + std::to_string(p) + " of kernel " +
                    quoteJsonString(step.launch.kernel) +
                    " has access \"read\", but " + plan.ptxFile +
                    " stores through it");
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

PlanLoadResult mlir::tfuse::bundle::parsePlan(std::string_view text,
                                              std::string_view fileName,
                                              const PlanParseOptions &options) {
  PlanLoadResult result;
  result.path = std::string(fileName);
  JsonParseResult parsed = parseJson(text);
  if (!parsed) {
    result.diagnostics.push_back(parsed.error);
    return result;
  }
  PlanParser parser(result.diagnostics);
  std::optional<Plan> plan = parser.parse(*parsed.value, options);
  sortDiagnostics(result.diagnostics);
  if (!result.hasErrors())
    result.plan = std::move(plan);
  return result;
}

PlanLoadResult mlir::tfuse::bundle::loadPlan(const std::string &bundleDir) {
  std::string path = bundleDir + "/plan.json";
  std::string error;
  std::optional<std::string> text = readFile(path, error);
  if (!text) {
    PlanLoadResult result;
    result.path = path;
    JsonDiagnostic d;
    d.message = error;
    result.diagnostics.push_back(d);
    return result;
  }
  PlanParseOptions options;
  options.bundleDir = bundleDir;
  return parsePlan(*text, path, options);
}
