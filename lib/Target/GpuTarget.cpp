//===- GpuTarget.cpp - GPU target descriptions ------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the target file loader: schema checks through the
// checked JSON reader, the source checks, the file-stem naming rule, and
// lookup of targets by name in search directories.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Target/GpuTarget.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

using namespace mlir::tfuse;

namespace fs = std::filesystem;

//===----------------------------------------------------------------------===//
// Schema facts
//===----------------------------------------------------------------------===//

const std::vector<std::string> &mlir::tfuse::gpuTargetFigureKeys() {
  static const std::vector<std::string> keys = {
      "sm_count",
      "boost_clock_mhz",
      "memory.capacity_gb",
      "memory.bandwidth_gbps",
      "memory.achievable_fraction",
      "memory.l2_cache_mb",
      "shared_memory_per_sm_kb",
      "max_threads_per_sm",
      "peak_tflops.fp32",
      "peak_tflops.tf32_tensor",
      "peak_tflops.fp16_tensor",
      "peak_tflops.bf16_tensor",
      "peak_tflops.fp8_tensor",
      "kernel_launch_overhead_us",
      "gemm_efficiency",
      "gemm_unaligned_factor",
      "attention_efficiency",
      "interconnect.pcie.generation",
      "interconnect.pcie.lanes",
      "interconnect.pcie.achievable_fraction",
      "interconnect.pcie.latency_us",
      "interconnect.nvlink.version",
      "interconnect.nvlink.bandwidth_gbps",
      "interconnect.nvlink.gpus_per_domain",
      "interconnect.nvlink.achievable_fraction",
      "interconnect.nvlink.latency_us",
  };
  return keys;
}

namespace {

/// Keys that "sources" may name: the figures, plus the descriptive fields a
/// careful author may want to source too.
std::vector<std::string> sourceableKeys() {
  std::vector<std::string> keys = gpuTargetFigureKeys();
  keys.insert(keys.end(), {"architecture", "sm_arch", "memory.type",
                           "interconnect.nvlink.bridge"});
  return keys;
}

bool isValidTargetName(std::string_view name) {
  auto ok = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
           c == '-';
  };
  if (name.empty() || name[0] == '.' || name[0] == '-' || name[0] == '+')
    return false;
  if (name.size() >= 5 && name.substr(name.size() - 5) == ".json")
    return false;
  return std::all_of(name.begin(), name.end(), ok);
}

bool isValidSmArch(std::string_view arch) {
  if (arch.size() < 4 || arch.substr(0, 3) != "sm_")
    return false;
  return std::all_of(arch.begin() + 3, arch.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

/// "dir/a40.json" -> "a40"; empty when `fileName` is not a .json file.
std::string targetStem(std::string_view fileName) {
  if (!endsWith(fileName, ".json"))
    return {};
  std::size_t slash = fileName.find_last_of('/');
  std::string_view base =
      slash == std::string_view::npos ? fileName : fileName.substr(slash + 1);
  return std::string(base.substr(0, base.size() - 5));
}

/// The value at a dotted key path ("memory.bandwidth_gbps"), if present.
const JsonValue *findDotted(const JsonValue &root, std::string_view dotted) {
  const JsonValue *v = &root;
  while (v) {
    std::size_t dot = dotted.find('.');
    v = v->find(dotted.substr(0, dot));
    if (dot == std::string_view::npos)
      break;
    dotted.remove_prefix(dot + 1);
  }
  return v;
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names) {
    if (!out.empty())
      out += ", ";
    out += n;
  }
  return out;
}

std::string toLower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

/// A hint for an unknown target name: the same name in another case, or the
/// only target whose name starts with it ("h100" -> "h100-sxm"). Spelling
/// distance is not used: "b200" is not a misspelt "h200".
std::optional<std::string>
suggestTargetName(std::string_view name,
                  const std::vector<std::string> &names) {
  std::string lower = toLower(name);
  std::optional<std::string> prefixMatch;
  int prefixMatches = 0;
  for (const std::string &candidate : names) {
    std::string lowerCandidate = toLower(candidate);
    if (lowerCandidate == lower)
      return candidate;
    if (lowerCandidate.compare(0, lower.size(), lower) == 0) {
      prefixMatch = candidate;
      ++prefixMatches;
    }
  }
  if (prefixMatches == 1)
    return prefixMatch;
  return std::nullopt;
}

JsonDiagnostic fileError(std::string message) {
  JsonDiagnostic d;
  d.message = std::move(message);
  return d;
}

} // namespace

double PcieLink::bandwidthGBps() const {
  // GT/s per lane and the line code's efficiency: 8b/10b up to generation 2,
  // 128b/130b for 3 to 5; generation 6 carries 242 of every 256 bytes (FLIT
  // mode with FEC and CRC).
  double transfers = 0, coding = 128.0 / 130.0;
  switch (generation) {
  case 1:
    transfers = 2.5, coding = 0.8;
    break;
  case 2:
    transfers = 5, coding = 0.8;
    break;
  case 3:
    transfers = 8;
    break;
  case 4:
    transfers = 16;
    break;
  case 5:
    transfers = 32;
    break;
  case 6:
    transfers = 64, coding = 242.0 / 256.0;
    break;
  default:
    return 0;
  }
  return transfers * coding * lanes / 8;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

/// "interconnect": the PCIe link (required) and NVLink (required, null where
/// the GPU has none). Ranges as in docs/targets.md.
std::optional<Interconnect> parseInterconnect(JsonObjectReader &object) {
  using Range = JsonNumberRange;
  const Range fraction = Range::closed(0.05, 1.0);
  const Range latency = Range::openClosed(0, 1000);
  Interconnect ic;
  bool ok = true;
  if (std::optional<JsonObjectReader> pcie = object.requireObject("pcie")) {
    std::optional<int64_t> gen = pcie->requireInt("generation", 1, 6);
    std::optional<int64_t> lanes = pcie->requireInt("lanes", 1, 16);
    const int64_t laneCount = lanes.value_or(0);
    const bool lanesOk = lanes && (laneCount & (laneCount - 1)) == 0;
    if (lanes && !lanesOk)
      pcie->get("lanes")->error("expected 1, 2, 4, 8 or 16 lanes, got " +
                                std::to_string(laneCount));
    std::optional<double> frac =
        pcie->requireNumber("achievable_fraction", fraction);
    std::optional<double> lat = pcie->requireNumber("latency_us", latency);
    pcie->finish();
    if (gen && lanesOk && frac && lat)
      ic.pcie = {static_cast<int>(*gen), static_cast<int>(laneCount), *frac,
                 *lat};
    else
      ok = false;
  } else {
    ok = false;
  }
  if (std::optional<JsonValueReader> nvlink = object.require("nvlink")) {
    if (!nvlink->value().isNull()) {
      if (std::optional<JsonObjectReader> link = nvlink->getObject()) {
        std::optional<int64_t> version = link->requireInt("version", 1, 10);
        std::optional<double> bw = link->requireNumber(
            "bandwidth_gbps", Range::closed(1, kMaxBandwidthGBps));
        std::optional<int64_t> gpus =
            link->requireInt("gpus_per_domain", 2, 1024);
        std::optional<bool> bridge = link->requireBool("bridge");
        std::optional<double> frac =
            link->requireNumber("achievable_fraction", fraction);
        std::optional<double> lat = link->requireNumber("latency_us", latency);
        link->finish();
        if (version && bw && gpus && bridge && frac && lat)
          ic.nvlink = NvlinkLink{static_cast<int>(*version),
                                 *bw,
                                 static_cast<int>(*gpus),
                                 *bridge,
                                 *frac,
                                 *lat};
        else
          ok = false;
      } else {
        ok = false;
      }
    }
  } else {
    ok = false;
  }
  object.finish();
  if (!ok)
    return std::nullopt;
  return ic;
}

} // namespace

TargetLoadResult mlir::tfuse::parseGpuTarget(std::string_view text,
                                             std::string_view fileName,
                                             const SmArchCheck &checkSmArch) {
  TargetLoadResult result;
  result.path = std::string(fileName);
  std::vector<JsonDiagnostic> &diags = result.diagnostics;

  JsonParseResult parsed = parseJson(text);
  if (!parsed) {
    diags.push_back(parsed.error);
    return result;
  }
  const JsonValue &doc = *parsed.value;
  if (!doc.isObject()) {
    JsonValueReader(doc, std::string(kJsonRootPath), diags).getObject();
    return result;
  }

  // The version decides how to read everything else: check it first, and
  // stop at a version this library does not know.
  const std::string supported = "this version of tfuse reads schema version " +
                                std::to_string(kGpuTargetSchemaVersion);
  if (const JsonValue *version = doc.find("schema_version")) {
    std::optional<int64_t> v = version->getInt64();
    if (v && *v != kGpuTargetSchemaVersion) {
      diags.push_back({JsonSeverity::Error, version->line(), version->column(),
                       "$.schema_version",
                       "unsupported schema version " + std::to_string(*v) +
                           "; " + supported});
      return result;
    }
  }

  GpuTarget t;
  JsonObjectReader root(doc, std::string(kJsonRootPath), diags);
  if (std::optional<JsonValueReader> version = root.get("schema_version")) {
    // Integers other than the supported version were rejected above.
    if (!version->value().getInt64())
      version->error("expected an integer schema version, got " +
                     describeJsonValue(version->value()) + " (" + supported +
                     ")");
  } else
    diags.push_back({JsonSeverity::Error, doc.line(), doc.column(),
                     "$.schema_version",
                     "required key is missing (" + supported + ")"});

  // Identity.
  if (std::optional<JsonValueReader> name = root.require("name")) {
    if (std::optional<std::string> v = name->getString(/*nonEmpty=*/true)) {
      if (isValidTargetName(*v))
        t.name = *v;
      else
        name->error("expected a target name of letters, digits, '.', '_', "
                    "'+' and '-' such as \"a40\", got " +
                    quoteJsonString(*v));
    }
  }
  if (std::optional<std::string> v =
          root.requireString("display_name", /*nonEmpty=*/true))
    t.displayName = *v;
  if (std::optional<std::string> v =
          root.optionalString("architecture", /*nonEmpty=*/true))
    t.architecture = *v;
  if (std::optional<JsonValueReader> arch = root.require("sm_arch")) {
    if (std::optional<std::string> v = arch->getString()) {
      if (!isValidSmArch(*v))
        arch->error("expected an SM architecture such as \"sm_86\", got " +
                    quoteJsonString(*v));
      else if (std::string problem = checkSmArch ? checkSmArch(*v) : "";
               !problem.empty())
        arch->error(problem);
      else
        t.smArch = *v;
    }
  }

  // Compute resources. Every figure is bounded to what a GPU plausibly has
  // (docs/targets.md lists the ranges), so that no predicted time can be
  // infinite: the smallest rates still give finite times for 2^63 bytes or
  // FLOPs.
  using Range = JsonNumberRange;
  const Range peakRange = Range::closed(0.01, 100000);
  if (std::optional<int64_t> v = root.requireInt("sm_count", 1, 1024))
    t.smCount = static_cast<int>(*v);
  if (std::optional<double> v =
          root.requireNumber("boost_clock_mhz", Range::closed(100, 10000)))
    t.boostClockMhz = *v;

  if (std::optional<JsonObjectReader> memory = root.requireObject("memory")) {
    if (std::optional<std::string> v =
            memory->optionalString("type", /*nonEmpty=*/true))
      t.memoryType = *v;
    if (std::optional<double> v =
            memory->requireNumber("capacity_gb", Range::closed(0.5, 65536)))
      t.memoryCapacityGB = *v;
    if (std::optional<double> v = memory->requireNumber(
            "bandwidth_gbps",
            Range::closed(kMinBandwidthGBps, kMaxBandwidthGBps)))
      t.memoryBandwidthGBps = *v;
    if (std::optional<double> v = memory->requireNumber(
            "achievable_fraction", Range::closed(0.05, 1.0)))
      t.achievableBandwidthFraction = *v;
    if (std::optional<double> v =
            memory->requireNumber("l2_cache_mb", Range::closed(0.125, 4096)))
      t.l2CacheMB = *v;
    memory->finish();
  }

  if (std::optional<double> v = root.requireNumber("shared_memory_per_sm_kb",
                                                   Range::closed(16, 4096)))
    t.sharedMemoryPerSmKB = *v;
  if (std::optional<int64_t> v =
          root.requireInt("max_threads_per_sm", 32, 8192))
    t.maxThreadsPerSm = static_cast<int>(*v);

  if (std::optional<JsonObjectReader> peak =
          root.requireObject("peak_tflops")) {
    if (std::optional<double> v = peak->requireNumber("fp32", peakRange))
      t.fp32Tflops = *v;
    if (std::optional<double> v = peak->requireNumber("tf32_tensor", peakRange))
      t.tf32TensorTflops = *v;
    if (std::optional<double> v = peak->requireNumber("fp16_tensor", peakRange))
      t.fp16TensorTflops = *v;
    if (std::optional<double> v = peak->requireNumber("bf16_tensor", peakRange))
      t.bf16TensorTflops = *v;
    // fp8_tensor is required but may be null, so that a file states whether
    // the GPU has FP8 tensor cores rather than leaving it out by accident.
    if (peak->has("fp8_tensor")) {
      if (std::optional<std::optional<double>> v =
              peak->requireNumberOrNull("fp8_tensor", peakRange))
        t.fp8TensorTflops = *v;
    } else {
      diags.push_back({JsonSeverity::Error, peak->value().line(),
                       peak->value().column(), "$.peak_tflops.fp8_tensor",
                       "required key is missing (write null if the GPU has "
                       "no FP8 tensor cores)"});
    }
    peak->finish();
  }

  if (std::optional<double> v = root.requireNumber("kernel_launch_overhead_us",
                                                   Range::openClosed(0, 1000)))
    t.kernelLaunchOverheadUs = *v;
  // Optional: the fraction of the dense tensor-core peak library GEMMs reach.
  if (root.has("gemm_efficiency"))
    if (std::optional<double> v =
            root.optionalNumber("gemm_efficiency", Range::closed(0.05, 1.0)))
      t.gemmEfficiency = *v;
  // Optional: what GEMMs with rows off 16-byte alignment keep of it.
  if (root.has("gemm_unaligned_factor"))
    if (std::optional<double> v = root.optionalNumber("gemm_unaligned_factor",
                                                      Range::closed(0.05, 1.0)))
      t.gemmUnalignedFactor = *v;
  // Optional: the fraction the flash-attention kernels reach.
  if (root.has("attention_efficiency"))
    if (std::optional<double> v = root.optionalNumber("attention_efficiency",
                                                      Range::closed(0.05, 1.0)))
      t.attentionEfficiency = *v;

  if (std::optional<JsonObjectReader> ic = root.optionalObject("interconnect"))
    t.interconnect = parseInterconnect(*ic);

  // Sources: a map from dotted key path to a description of the source.
  const std::vector<std::string> sourceable = sourceableKeys();
  bool haveSources = false;
  if (std::optional<JsonObjectReader> sources =
          root.optionalObject("sources")) {
    haveSources = true;
    const std::vector<JsonMember> &members = sources->value().getObject();
    for (std::size_t i = 0; i < sources->size(); ++i) {
      const JsonMember &member = members[i];
      JsonValueReader entry = sources->memberAt(i);
      std::optional<std::string> source = entry.getString();
      if (!source)
        continue;
      if (std::find(sourceable.begin(), sourceable.end(), member.key) ==
          sourceable.end()) {
        std::string message = "no figure is named " +
                              quoteJsonString(member.key) + " (source ignored)";
        if (std::optional<std::string> hint =
                findClosestSpelling(member.key, sourceable))
          message += "; did you mean " + quoteJsonString(*hint) + "?";
        diags.push_back({JsonSeverity::Warning, member.line, member.column,
                         entry.path(), std::move(message)});
        continue;
      }
      if (source->empty()) {
        entry.warning("empty source");
        continue;
      }
      t.sources[member.key] = *source;
    }
    sources->finish();
  } else if (!doc.find("sources")) {
    diags.push_back({JsonSeverity::Warning, doc.line(), doc.column(),
                     "$.sources",
                     "no sources given; every figure should name where it "
                     "comes from (datasheet, whitepaper or measurement)"});
  }
  if (haveSources) {
    for (const std::string &key : gpuTargetFigureKeys()) {
      const JsonValue *figure = findDotted(doc, key);
      if (!figure || t.sources.count(key))
        continue;
      // A figure that is itself in error needs fixing first.
      std::string path = "$." + key;
      if (std::any_of(diags.begin(), diags.end(), [&](const JsonDiagnostic &d) {
            return d.isError() && d.jsonPath == path;
          }))
        continue;
      diags.push_back({JsonSeverity::Warning, figure->line(), figure->column(),
                       path,
                       "figure has no source; add " + quoteJsonString(key) +
                           ": \"...\" to \"sources\""});
    }
  }

  root.finish();

  // A target loaded from a file is named after the file: that is the name
  // users type (--target=a40 finds a40.json), and copies of a file edited
  // under a new file name stay distinct in reports.
  std::string stem = targetStem(fileName);
  if (!stem.empty()) {
    if (!t.name.empty() && t.name != stem) {
      const JsonValue *name = doc.find("name");
      std::size_t slash = fileName.find_last_of('/');
      std::string base(slash == std::string_view::npos
                           ? fileName
                           : fileName.substr(slash + 1));
      diags.push_back(
          {JsonSeverity::Warning, name->line(), name->column(), "$.name",
           "name " + quoteJsonString(t.name) + " differs from the file name " +
               quoteJsonString(base) + "; the target is called " +
               quoteJsonString(stem) + " (the file name wins)"});
    }
    if (!t.name.empty())
      t.name = stem;
  }

  sortDiagnostics(diags);
  if (!hasErrors(diags))
    result.target = std::move(t);
  return result;
}

//===----------------------------------------------------------------------===//
// Files and lookup
//===----------------------------------------------------------------------===//

TargetLoadResult mlir::tfuse::loadGpuTarget(const std::string &path,
                                            const SmArchCheck &checkSmArch) {
  std::string error;
  std::optional<std::string> text = readFile(path, error);
  if (!text) {
    TargetLoadResult result;
    result.path = path;
    result.diagnostics.push_back(fileError(error));
    return result;
  }
  return parseGpuTarget(*text, path, checkSmArch);
}

std::vector<std::string>
mlir::tfuse::listTargetNames(const std::vector<std::string> &searchDirs) {
  std::set<std::string> names;
  for (const std::string &dir : searchDirs) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const fs::path &p = it->path();
      std::error_code statEc;
      if (p.extension() != ".json" || !fs::is_regular_file(p, statEc))
        continue;
      names.insert(p.stem().string());
    }
  }
  return {names.begin(), names.end()};
}

TargetLoadResult
mlir::tfuse::resolveGpuTarget(const std::string &nameOrPath,
                              const std::vector<std::string> &searchDirs,
                              const SmArchCheck &checkSmArch) {
  if (nameOrPath.find('/') != std::string::npos ||
      endsWith(nameOrPath, ".json"))
    return loadGpuTarget(nameOrPath, checkSmArch);

  TargetLoadResult result;
  if (nameOrPath.empty()) {
    result.diagnostics.push_back(fileError("empty target name"));
    return result;
  }
  for (const std::string &dir : searchDirs) {
    fs::path candidate = fs::path(dir) / (nameOrPath + ".json");
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec))
      return loadGpuTarget(candidate.string(), checkSmArch);
  }

  std::vector<std::string> names = listTargetNames(searchDirs);
  std::string message = "unknown target " + quoteJsonString(nameOrPath);
  if (std::optional<std::string> hint = suggestTargetName(nameOrPath, names))
    message += " (did you mean " + quoteJsonString(*hint) + "?)";
  if (names.empty())
    message += "; no target files were found";
  else
    message += "; available targets: " + joinNames(names);
  message += " (searched: " +
             (searchDirs.empty() ? std::string("no directories")
                                 : joinNames(searchDirs)) +
             "); a target file can also be given by its path";
  result.diagnostics.push_back(fileError(std::move(message)));
  return result;
}

std::vector<std::string> mlir::tfuse::getDefaultTargetSearchDirs() {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("TFUSE_TARGET_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      std::size_t colon = rest.find(':');
      std::string_view entry = rest.substr(0, colon);
      if (!entry.empty())
        candidates.emplace_back(entry);
      if (colon == std::string_view::npos)
        break;
      rest.remove_prefix(colon + 1);
    }
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path())
    candidates.push_back(
        (exe.parent_path() / ".." / "share" / "tfuse" / "targets").string());
#ifdef TFUSE_INSTALL_TARGETS_DIR
  candidates.emplace_back(TFUSE_INSTALL_TARGETS_DIR);
#endif
#ifdef TFUSE_SOURCE_TARGETS_DIR
  candidates.emplace_back(TFUSE_SOURCE_TARGETS_DIR);
#endif

  std::vector<std::string> dirs;
  std::set<std::string> seen;
  for (const std::string &candidate : candidates) {
    std::error_code statEc;
    if (!fs::is_directory(candidate, statEc))
      continue;
    std::string normal = fs::path(candidate).lexically_normal().string();
    if (normal.size() > 1 && normal.back() == '/')
      normal.pop_back();
    if (seen.insert(normal).second)
      dirs.push_back(normal);
  }
  return dirs;
}
