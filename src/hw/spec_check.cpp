#include "hw/spec_check.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "core/process.h"
#include "core/text.h"

namespace goblin::hw {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;

// How far a device value may sit from the database's and still agree.
double tolerance(std::string_view key) {
  if (key == "memory_size") return 0.05;  // "141 GB" on the datasheet, 140.4 GiB from the driver
  if (key == "tdp") return 0.02;
  return 0.005;  // counts, cache sizes and clocks: the same number
}

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= line.size()) {
    size_t c = line.find(',', start);
    out.emplace_back(trim_blanks(line.substr(start, c == std::string_view::npos ? std::string_view::npos : c - start)));
    if (c == std::string_view::npos) break;
    start = c + 1;
  }
  return out;
}

bool number(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end && end != s.c_str() && std::isfinite(*v);
}

// The distinct spec keys of a list of rows (a value two tools report is one value).
std::set<std::string> keys(const Json& rows) {
  std::set<std::string> s;
  for (const auto& r : rows) s.insert(r["key"].get<std::string>());
  return s;
}

}  // namespace

std::vector<DeviceValue> nvidia_smi_values(std::string_view csv, int index) {
  std::vector<DeviceValue> out;
  int i = 0;
  while (!csv.empty()) {
    const size_t nl = csv.find('\n');
    std::string_view line = csv.substr(0, nl);
    csv = nl == std::string_view::npos ? std::string_view() : csv.substr(nl + 1);
    if (trim_blanks(line).empty()) continue;
    if (i++ != index) continue;
    auto f = split_csv_line(line);
    // name, memory.total [MiB], clocks.max.sm [MHz], clocks.max.mem [MHz], power.max_limit [W]
    double v = 0;
    if (f.size() > 1 && number(f[1], &v))
      out.push_back({"memory_size", v * kMiB / kGiB, f[1] + " MiB", "nvidia-smi --query-gpu=memory.total"});
    if (f.size() > 2 && number(f[2], &v))
      out.push_back({"boost_clock", v, f[2] + " MHz", "nvidia-smi --query-gpu=clocks.max.sm"});
    if (f.size() > 4 && number(f[4], &v))
      out.push_back({"tdp", v, f[4] + " W", "nvidia-smi --query-gpu=power.max_limit"});
    break;
  }
  return out;
}

std::vector<DeviceValue> device_props_values(const Json& props, int index) {
  std::vector<DeviceValue> out;
  if (!props.is_object() || !props.contains("devices") || !props["devices"].is_array()) return out;
  const std::string api = props.value("runtime", std::string()).find('.') != std::string::npos &&
                                  props.value("tool", std::string()).find("torch") != std::string::npos
                              ? "cudaGetDeviceProperties"
                              : "device properties";
  for (const auto& d : props["devices"]) {
    if (!d.is_object() || d.value("index", -1) != index) continue;
    auto add = [&](const char* field, const char* key, double scale, const char* unit) {
      if (!d.contains(field) || !d[field].is_number()) return;
      const double raw = d[field].get<double>();
      out.push_back({key, raw * scale, fmt::format("{} {}", d[field].dump(), unit), api + std::string(".") + field});
    };
    add("multi_processor_count", "sm_count", 1, "SMs");
    add("L2_cache_size", "l2_cache", 1 / kMiB, "bytes");
    add("total_memory", "memory_size", 1 / kGiB, "bytes");
    add("warp_size", "warp_size", 1, "threads");
    add("shared_memory_per_multiprocessor", "shared_mem_per_sm", 1 / 1024.0, "bytes");
    add("regs_per_multiprocessor", "registers_per_sm", 4 / 1024.0, "32-bit registers");
  }
  return out;
}

namespace {

// The leading number of "64(0x40)", "201310208(0xbffc000) KB", "750 W", "196592 MB".
bool leading_number(std::string_view s, double* v) { return number(std::string(trim_blanks(s)), v); }

// "KEY: value" at any indentation: the key (upper case kept), the value and the indentation.
struct KeyLine {
  size_t indent = 0;
  std::string key, value;
};

bool key_line(std::string_view line, KeyLine* out) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  out->indent = line.find_first_not_of(' ');
  if (out->indent == std::string_view::npos || out->indent > colon) return false;
  out->key = std::string(trim_blanks(line.substr(0, colon)));
  out->value = std::string(trim_blanks(line.substr(colon + 1)));
  return true;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  return out;
}

}  // namespace

std::vector<DeviceValue> amd_smi_values(std::string_view text, int index) {
  // GPU blocks start at column 0 ("GPU: 0"); sections at 4 spaces ("    VRAM:"); their fields
  // and the CACHE_n sub-blocks at 8; a cache's fields at 12 (amdsmi_cli/amdsmi_commands.py).
  std::vector<DeviceValue> out;
  bool mine = false;
  std::string section;
  double cache_kb = -1;
  const std::string src = "amd-smi static";
  for (std::string_view line : lines_of(text)) {
    KeyLine k;
    if (!key_line(line, &k)) continue;
    double v = 0;
    if (k.indent == 0) {
      mine = k.key == "GPU" && leading_number(k.value, &v) && static_cast<int>(v) == index;
      section.clear();
      continue;
    }
    if (!mine) continue;
    if (k.indent == 4) {
      section = k.key;
      continue;
    }
    if (section == "ASIC" && (k.key == "NUM_COMPUTE_UNITS" || k.key == "NUM_OF_COMPUTE_UNITS") &&
        leading_number(k.value, &v))
      out.push_back({"sm_count", v, k.value + " CUs", src + " (ASIC " + k.key + ")"});
    if (section == "VRAM" && k.key == "SIZE" && leading_number(k.value, &v))  // MB: MiB, vram_size
      out.push_back({"memory_size", v * kMiB / kGiB, k.value, src + " (VRAM SIZE)"});
    if (section == "LIMIT" && k.key == "MAX_POWER" && leading_number(k.value, &v))
      out.push_back({"tdp", v, k.value, src + " (LIMIT MAX_POWER)"});
    // The level-2 size is one XCD's L2 on multi-XCD parts (4096 KB on an MI300X, whose database
    // value is the 32 MB of all eight): not compared. Level 3 is the Infinity Cache.
    if (section == "CACHE_INFO" && k.key == "CACHE_SIZE") cache_kb = leading_number(k.value, &v) ? v : -1;
    if (section == "CACHE_INFO" && k.key == "CACHE_LEVEL" && k.value == "3" && cache_kb > 0)
      out.push_back({"infinity_cache", cache_kb / 1024, fmt::format("{:g} KB", cache_kb),
                     src + " (CACHE_INFO level 3 CACHE_SIZE)"});
  }
  return out;
}

std::vector<DeviceValue> rocminfo_values(std::string_view text, int index) {
  // Agents open with "Agent N"; "Device Type: GPU" says which are GPUs (rocminfo.cc prints it
  // before the caches, clocks and pools). Pools: "Segment:" then "Size: N(0x..) KB".
  std::vector<DeviceValue> out, cur;
  bool gpu = false;
  int gpus = 0;
  std::string segment;
  bool have_global = false, have_group = false;
  auto flush = [&] {
    if (gpu && gpus++ == index) out = cur;
    cur.clear();
    gpu = have_global = have_group = false;
    segment.clear();
  };
  const std::string src = "rocminfo";
  for (std::string_view line : lines_of(text)) {
    const std::string_view t = trim_blanks(line);
    if (t.rfind("Agent ", 0) == 0 && t.find(':') == std::string_view::npos) {
      flush();
      continue;
    }
    KeyLine k;
    if (!key_line(line, &k)) continue;
    double v = 0;
    if (k.key == "Device Type") gpu = k.value == "GPU";
    if (k.key == "Compute Unit" && leading_number(k.value, &v))
      cur.push_back({"sm_count", v, k.value + " CUs", src + " (Compute Unit)"});
    if (k.key == "Wavefront Size" && leading_number(k.value, &v))
      cur.push_back({"warp_size", v, k.value, src + " (Wavefront Size)"});
    if (k.key == "Max Clock Freq. (MHz)" && leading_number(k.value, &v))
      cur.push_back({"boost_clock", v, k.value + " MHz", src + " (Max Clock Freq.)"});
    if (k.key == "L3" && leading_number(k.value, &v))  // L2 is one XCD's (see amd_smi_values)
      cur.push_back({"infinity_cache", v / 1024, k.value, src + " (Cache Info L3)"});
    if (k.key == "Segment") segment = k.value;
    if (k.key == "Size" && leading_number(k.value, &v)) {
      if (!have_global && segment.rfind("GLOBAL", 0) == 0 && segment.find("COARSE GRAINED") != std::string::npos) {
        have_global = true;
        cur.push_back({"memory_size", v * 1024 / kGiB, k.value, src + " (coarse-grained GLOBAL pool Size)"});
      }
      if (!have_group && segment == "GROUP") {
        have_group = true;
        cur.push_back({"shared_mem_per_sm", v, k.value, src + " (GROUP pool Size: LDS)"});
      }
    }
  }
  flush();
  return out;
}

Json check_specs_against_device(const GpuSpec& g, const std::vector<DeviceValue>& dev) {
  Json agree = Json::array(), contra = Json::array(), missing = Json::array(), docs = Json::array();
  std::set<std::string> seen, sources;
  for (const auto& d : dev) sources.insert(d.source.substr(0, d.source.find_first_of(".= ")));
  for (const auto& d : dev) {
    const SpecValue* s = g.spec(d.key);
    seen.insert(d.key);
    Json row = {{"key", d.key},
                {"device", round_to(d.value, 2)},
                {"device_raw", d.raw},
                {"device_source", d.source},
                {"unit", s ? s->unit : std::string()}};
    if (!s || !s->value) {
      row.update(Json{{"database", nullptr}});
      missing.push_back(row);
      continue;
    }
    row.update(Json{{"database", *s->value}, {"verified", s->verified}, {"database_source", s->citation()}});
    const double tol = tolerance(d.key);
    (std::abs(d.value - *s->value) <= tol * std::abs(*s->value) + 1e-9 ? agree : contra).push_back(row);
  }
  for (const auto& [key, s] : g.specs)
    if (!seen.count(key) && s.known())
      docs.push_back({{"key", key},
                      {"database", s.value ? Json(*s.value) : Json(s.text)},
                      {"unit", s.unit},
                      {"verified", s.verified},
                      {"database_source", s.citation()}});
  return {{"gpu_id", g.id},
          {"sources", Json(std::vector<std::string>(sources.begin(), sources.end()))},
          {"agree", agree},
          {"contradicted", contra},
          {"missing", missing},
          {"documents_only", docs},
          {"unresolved", static_cast<int>(keys(contra).size() + keys(missing).size())}};
}

std::string spec_check_human(const Json& c) {
  std::string h = fmt::format("checked against the device ({}):\n", c["sources"].dump());
  auto rows = [&](const char* field, const char* label) {
    for (const auto& r : c[field]) {
      const std::string db = r["database"].is_number() ? fmt::format("{:g}", r["database"].get<double>()) : "UNKNOWN";
      fmt::format_to(std::back_inserter(h), "  {:<13} {:<16} database {} {}, device {} ({})\n", label,
                     r["key"].get<std::string>(), db, r.value("unit", std::string()),
                     r["device_raw"].get<std::string>(), r["device_source"].get<std::string>());
    }
  };
  rows("contradicted", "CONTRADICTED");
  rows("missing", "MISSING");
  rows("agree", "agrees");
  std::string docs;
  for (const auto& r : c["documents_only"]) docs += (docs.empty() ? "" : ", ") + r["key"].get<std::string>();
  if (!docs.empty()) h += "  documents only (the device does not report them): " + docs + "\n";
  return h;
}

std::vector<DeviceValue> read_device_values(const std::string& vendor, int index, const std::string& python,
                                            const std::string& props_script) {
  std::vector<DeviceValue> out;
  if (vendor == "nvidia" && on_path("nvidia-smi"))
    if (auto csv = capture({"nvidia-smi", "--query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,power.max_limit",
                            "--format=csv,noheader,nounits"},
                           20))
      out = nvidia_smi_values(*csv, index);
  if (vendor == "amd") {
    if (on_path("amd-smi"))
      if (auto txt = capture({"amd-smi", "static"}, 20)) out = amd_smi_values(*txt, index);
    if (on_path("rocminfo"))
      if (auto txt = capture({"rocminfo"}, 20)) {
        auto more = rocminfo_values(*txt, index);
        out.insert(out.end(), more.begin(), more.end());
      }
  }
  // The runtime's own properties (SM count, L2, shared memory, registers) need torch: without it
  // only the management tool's values are compared.
  if (!props_script.empty() && on_path(python))
    if (auto js = capture({python, props_script}, 60)) {
      auto props = parse_json_text(*js, props_script, "device_props.py printed no JSON");
      if (props.ok()) {
        auto more = device_props_values(*props, index);
        out.insert(out.end(), more.begin(), more.end());
      }
    }
  return out;
}

}  // namespace goblin::hw
