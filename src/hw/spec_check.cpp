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
