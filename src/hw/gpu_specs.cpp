#include "hw/gpu_specs.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <sstream>

#include "core/data.h"
#include "core/process.h"
#include "core/text.h"
#include "hw/arch.h"
#include "hw/knowledge.h"

namespace goblin::hw {

namespace {

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

template <class V>
Status read_value(const YAML::Node& n, const std::string& where, const YAML::Node& docs, V& out) {
  if (!n.IsMap()) return make_error(ErrorKind::Malformed, where + ": expected a map", "data/gpus.yaml");
  auto v = n["value"];
  if (!v) return make_error(ErrorKind::Malformed, where + ": missing value", "data/gpus.yaml");
  if (!v.IsNull()) {
    try {
      out.value = v.as<double>();
    } catch (const YAML::Exception&) {
      out.text = v.as<std::string>();
    }
  }
  if (n["unit"]) out.unit = n["unit"].as<std::string>();
  if (!n["source"]) return make_error(ErrorKind::Malformed, where + ": has no source", "data/gpus.yaml");
  out.source_key = n["source"].as<std::string>();
  const YAML::Node d = docs[out.source_key];
  if (!d)
    return make_error(ErrorKind::Malformed, where + ": unknown source document '" + out.source_key + "'",
                      "data/gpus.yaml");
  out.source_url = d["url"].as<std::string>();
  out.source_title = d["title"].as<std::string>();
  if (n["section"]) out.section = n["section"].as<std::string>();
  if (!n["verified"]) return make_error(ErrorKind::Malformed, where + ": missing verified flag", "data/gpus.yaml");
  out.verified = n["verified"].as<bool>();
  if (n["checked_via"]) out.checked_via = n["checked_via"].as<std::string>();
  if (n["note"]) out.note = n["note"].as<std::string>();
  return Status::Ok();
}

}  // namespace

Result<std::vector<GpuSpec>> parse_gpu_db(const std::string& text) {
  std::vector<GpuSpec> out;
  try {
    YAML::Node root = YAML::Load(text);
    YAML::Node docs = root["documents"];
    YAML::Node gpus = root["gpus"];
    if (!docs || !gpus || !gpus.IsSequence())
      return make_error(ErrorKind::Malformed, "gpus.yaml needs 'documents' and a 'gpus' list", "data/gpus.yaml");
    for (const auto& g : gpus) {
      GpuSpec s;
      s.id = g["id"].as<std::string>();
      s.vendor = g["vendor"].as<std::string>();
      s.name = g["name"].as<std::string>();
      s.architecture = g["architecture"].as<std::string>();
      s.arch_id = g["arch_id"].as<std::string>();
      if (g["aliases"])
        for (const auto& a : g["aliases"]) s.aliases.push_back(a.as<std::string>());
      if (auto m = g["match"]) {
        if (m["sm_count"]) s.match_sm_count = m["sm_count"].as<int>();
        if (m["devices_per_module"]) s.match_devices_per_module = std::max(1, m["devices_per_module"].as<int>());
        if (m["memory_gb_min"]) s.match_mem_gb_min = m["memory_gb_min"].as<double>();
        if (m["memory_gb_max"]) s.match_mem_gb_max = m["memory_gb_max"].as<double>();
        if (m["ambiguous_with"]) s.ambiguous_with = m["ambiguous_with"].as<std::string>();
      }
      for (const auto& kv : g["specs"]) {
        SpecValue v;
        std::string key = kv.first.as<std::string>();
        RETURN_IF_ERROR(read_value(kv.second, s.id + ".specs." + key, docs, v));
        s.specs.emplace_back(key, std::move(v));
      }
      for (const auto& kv : g["peak_tflops"]) {
        PeakValue v;
        std::string key = kv.first.as<std::string>();
        RETURN_IF_ERROR(read_value(kv.second, s.id + ".peak_tflops." + key, docs, v));
        if (v.unit.empty()) v.unit = "TFLOPS";
        if (kv.second["sparse"]) v.sparse = kv.second["sparse"].as<double>();
        if (kv.second["engine"]) v.engine = kv.second["engine"].as<std::string>();
        if (kv.second["accumulate"]) v.accumulate = kv.second["accumulate"].as<std::string>();
        s.peaks.emplace_back(key, std::move(v));
      }
      out.push_back(std::move(s));
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("cannot parse the GPU database: ") + e.what(),
                      "data/gpus.yaml");
  }
  return out;
}

namespace {

std::string known_ids_text(const std::vector<GpuSpec>& db) {
  std::string s;
  for (const auto& g : db) s += (s.empty() ? "" : ", ") + g.id;
  return s;
}

bool generic_name(std::string_view name) {
  std::string n = normalize_gpu_name(name);
  if (n.empty()) return true;
  if (n.size() > 3 && n.substr(0, 3) == "gfx") return true;  // rocprofv3 / rocminfo agent name
  return n == "amd-radeon-graphics" || n == "amd-instinct";
}

}  // namespace

std::string SpecValue::citation() const {
  std::string s = source_url;
  if (!section.empty()) s += " § " + section;
  if (!verified) s += " [unverified]";
  return s;
}

const SpecValue* GpuSpec::spec(std::string_view key) const {
  for (const auto& [k, v] : specs)
    if (k == key) return &v;
  return nullptr;
}
const PeakValue* GpuSpec::peak(std::string_view dtype) const {
  for (const auto& [k, v] : peaks)
    if (k == dtype) return &v;
  return nullptr;
}
std::optional<double> GpuSpec::peak_tflops(std::string_view dtype) const {
  const auto* p = peak(dtype);
  if (!p) return std::nullopt;
  return p->value;
}
std::optional<double> GpuSpec::bandwidth_bytes_per_s() const {
  const auto* b = spec("memory_bandwidth");
  if (!b || !b->value) return std::nullopt;
  return *b->value * 1e9;  // GB/s
}
int GpuSpec::sm_count() const {
  const auto* s = spec("sm_count");
  return s && s->value ? static_cast<int>(*s->value) : -1;
}

Result<std::vector<GpuSpec>> load_gpu_db() { return hw::hw_knowledge()->gpu_db(); }

std::vector<std::string> known_gpu_ids(const hw::HwKnowledge& k) {
  std::vector<std::string> ids;
  for (const auto& g : k.gpus) ids.push_back(g.id);
  return ids;
}

std::string normalize_gpu_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : trim(name)) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      sep = !out.empty();
      continue;
    }
    if (sep) out.push_back('-');
    sep = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

Result<GpuSpec> lookup_gpu(std::string_view name) { return hw::hw_knowledge()->gpu(name); }

Result<GpuSpec> lookup_gpu_in(const std::vector<GpuSpec>& db, std::string_view name) {
  std::string n = normalize_gpu_name(name);
  if (!n.empty()) {
    for (const auto& g : db) {
      if (normalize_gpu_name(g.id) == n) return g;
      for (const auto& a : g.aliases)
        if (normalize_gpu_name(a) == n) return g;
    }
  }
  return make_error(ErrorKind::NotFound, "unknown GPU '" + std::string(name) +
                                             "'. Known GPU ids: " + known_ids_text(db) +
                                             " (names are matched exactly, case-insensitively; "
                                             "`goblin specs --list` shows the aliases)");
}

namespace {
// A module of several dies (gpus.yaml match.devices_per_module; an MI250X is two GCDs) shows each
// die as a device with its share of the CUs; the database holds per-module values, which would
// overstate such a device that many times.
std::optional<Error> mi250x_gcd(const GpuSpec& g, const DeviceInfo& dev) {
  const int n = g.match_devices_per_module;
  if (n > 1 && dev.num_sms > 0 && dev.num_sms * n == g.match_sm_count)
    return make_error(ErrorKind::NotFound,
                      fmt::format("device '{}' has {} CUs: one GCD of an {} module, whose database values are per "
                                  "module ({} GCDs, {} CUs) and would overstate this device {}x. Pass --gpu {} to use "
                                  "module values knowingly.",
                                  dev.name, dev.num_sms, g.id, n, g.match_sm_count, n, g.id));
  return std::nullopt;
}
}  // namespace

Result<GpuSpec> gpu_for_device(const DeviceInfo& dev) { return gpu_for_device(*hw::hw_knowledge(), dev); }

Result<GpuSpec> gpu_for_device(const hw::HwKnowledge& k, const DeviceInfo& dev) {
  if (k.gpus_error) return *k.gpus_error;
  const std::vector<GpuSpec>& db = k.gpus;
  if (!generic_name(dev.name)) {
    auto r = lookup_gpu_in(db, dev.name);
    if (r.ok()) {
      if (auto e = mi250x_gcd(*r, dev)) return *e;
      return r;
    }
    return make_error(ErrorKind::NotFound, "GPU '" + dev.name +
                                               "' is not in the spec database. Known GPU ids: " + known_ids_text(db) +
                                               ". Pass --gpu ID if it is one of them under another name.");
  }
  // Generic name: identify by architecture id + CU/SM count + memory size.
  std::string arch = dev.arch;
  if (arch.empty() && generic_name(dev.name) && normalize_gpu_name(dev.name).rfind("gfx", 0) == 0)
    arch = normalize_gpu_name(dev.name);
  if (arch.empty() && dev.compute_major >= 0 && dev.warp_size == 32)
    arch = fmt::format("sm_{}{}", dev.compute_major, dev.compute_minor);
  if (arch.empty() && dev.compute_major >= 0 && dev.warp_size == 64) arch = hw::arch_from_hip_compute(k, dev).arch;
  std::string desc = "device '" + dev.name + "'" + (arch.empty() ? "" : " (" + arch + ")") +
                     (dev.num_sms > 0 ? fmt::format(", {} CUs/SMs", dev.num_sms) : "") +
                     (dev.total_memory_bytes > 0 ? ", " + format_sig(dev.total_memory_bytes / 1e9, 10) + " GB" : "");
  if (arch.empty())
    return make_error(ErrorKind::NotFound,
                      "cannot identify " + desc +
                          ": no product name or architecture id. Pass --gpu ID (known: " + known_ids_text(db) + ")");
  std::vector<const GpuSpec*> cands;
  for (const auto& g : db) {
    if (ascii_lower(g.arch_id) != ascii_lower(arch)) continue;
    if (auto e = mi250x_gcd(g, dev)) return *e;
    if (dev.num_sms > 0 && g.match_sm_count > 0 && g.match_sm_count != dev.num_sms) continue;
    if (dev.total_memory_bytes > 0 && g.match_mem_gb_min > 0) {
      double gb = dev.total_memory_bytes / 1e9;
      if (gb < g.match_mem_gb_min || gb > g.match_mem_gb_max) continue;
    }
    cands.push_back(&g);
  }
  if (cands.size() == 1 && cands[0]->ambiguous_with.empty() && dev.num_sms > 0) return *cands[0];
  if (cands.empty())
    return make_error(ErrorKind::NotFound, "no GPU in the spec database matches " + desc +
                                               ". Known GPU ids: " + known_ids_text(db) + ". Pass --gpu ID.");
  std::string names;
  for (auto* c : cands) names += (names.empty() ? "" : ", ") + c->id;
  if (cands.size() == 1 && !cands[0]->ambiguous_with.empty()) names += " or " + cands[0]->ambiguous_with;
  return make_error(ErrorKind::NotFound,
                    "cannot tell which GPU " + desc + " is: it could be " + names + ". Pass --gpu ID.");
}

Result<GpuSpec> gpu_for_timeline(const Timeline& tl) { return gpu_for_timeline(*hw::hw_knowledge(), tl); }

Result<GpuSpec> gpu_for_timeline(const hw::HwKnowledge& k, const Timeline& tl) {
  if (tl.meta.devices.empty())
    return make_error(ErrorKind::NotFound, "the trace records no GPU device properties; pass --gpu ID (known: " +
                                               known_ids_text(k.gpus) + ")");
  std::optional<GpuSpec> found;
  for (const auto& d : tl.meta.devices) {
    ASSIGN_OR_RETURN(auto r, gpu_for_device(k, d));
    if (found && found->id != r.id)
      return make_error(ErrorKind::NotFound,
                        "the trace has different GPUs (" + found->id + ", " + r.id + "); pass --gpu ID to choose one");
    found = r;
  }
  return *found;
}

Result<GpuChoice> choose_gpu(const std::string& name, const Timeline& tl) {
  return choose_gpu(*hw::hw_knowledge(), name, tl);
}

Result<GpuChoice> choose_gpu(const hw::HwKnowledge& k, const std::string& name, const Timeline& tl) {
  GpuChoice c;
  if (!name.empty()) {
    ASSIGN_OR_RETURN(auto g, k.gpu(name));
    c.gpu = g;
    return c;
  }
  auto g = gpu_for_timeline(k, tl);
  if (g.ok())
    c.gpu = *g;
  else
    c.why_none = g.error();
  return c;
}

// ---- detection ----------------------------------------------------------------------------

std::vector<DeviceInfo> parse_nvidia_smi_names(std::string_view csv) {
  // `nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader,nounits`
  std::vector<DeviceInfo> out;
  std::istringstream in{std::string(csv)};
  std::string line;
  int idx = 0;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::istringstream ss(line);
    std::string tok;
    while (std::getline(ss, tok, ',')) f.push_back(trim(tok));
    DeviceInfo d;
    d.id = idx++;
    d.name = f.empty() ? "" : f[0];
    if (f.size() > 1) {
      try {
        d.total_memory_bytes = static_cast<int64_t>(std::stod(f[1]) * 1024 * 1024);  // MiB
      } catch (...) {
      }
    }
    if (f.size() > 2) {
      auto dot = f[2].find('.');
      try {
        if (dot != std::string::npos) {
          d.compute_major = std::stoi(f[2].substr(0, dot));
          d.compute_minor = std::stoi(f[2].substr(dot + 1));
          d.arch = fmt::format("sm_{}{}", d.compute_major, d.compute_minor);
        }
      } catch (...) {
      }
    }
    d.warp_size = 32;
    out.push_back(d);
  }
  return out;
}

std::vector<DeviceInfo> parse_amd_smi_static(std::string_view text) {
  // `amd-smi static --asic` text: "GPU: 0" blocks with "MARKET_NAME: AMD Instinct MI300X",
  // "TARGET_GRAPHICS_VERSION: gfx942", "NUM_COMPUTE_UNITS: 304".
  std::vector<DeviceInfo> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    std::string key = ascii_lower(trim(t.substr(0, colon)));
    std::string val = trim(t.substr(colon + 1));
    if (key == "gpu") {
      DeviceInfo d;
      try {
        d.id = std::stoi(val);
      } catch (...) {
        d.id = static_cast<int32_t>(out.size());
      }
      d.warp_size = 64;
      out.push_back(d);
      continue;
    }
    if (out.empty()) continue;
    if (key == "market_name") out.back().name = val;
    if (key == "target_graphics_version") out.back().arch = val;
    if (key == "num_compute_units") {
      try {
        out.back().num_sms = std::stoi(val);
      } catch (...) {
      }
    }
  }
  return out;
}

std::vector<DeviceInfo> parse_rocminfo(std::string_view text) {
  // Agents with "Device Type: GPU"; "Name: gfx942", "Marketing Name: AMD Instinct MI300X",
  // "Compute Unit: 304".
  std::vector<DeviceInfo> out;
  std::istringstream in{std::string(text)};
  std::string line;
  DeviceInfo cur;
  bool in_agent = false, is_gpu = false;
  auto flush = [&] {
    if (in_agent && is_gpu) {
      cur.id = static_cast<int32_t>(out.size());
      cur.warp_size = 64;
      out.push_back(cur);
    }
    cur = DeviceInfo{};
    is_gpu = false;
  };
  while (std::getline(in, line)) {
    std::string t = trim(line);
    if (t.rfind("Agent ", 0) == 0 || t.rfind("*******", 0) == 0) {
      if (t.rfind("Agent ", 0) == 0) {
        flush();
        in_agent = true;
      }
      continue;
    }
    auto colon = t.find(':');
    if (colon == std::string::npos || !in_agent) continue;
    std::string key = ascii_lower(trim(t.substr(0, colon)));
    std::string val = trim(t.substr(colon + 1));
    if (key == "name" && cur.arch.empty() && val.rfind("gfx", 0) == 0) cur.arch = val;
    if (key == "marketing name") cur.name = val;
    if (key == "device type") is_gpu = (val == "GPU");
    if (key == "compute unit") {
      try {
        cur.num_sms = std::stoi(val);
      } catch (...) {
      }
    }
  }
  flush();
  return out;
}

Result<DetectedGpu> detect_local_gpus() {
  if (const char* f = std::getenv("GOBLIN_ASSUME_NO_GPU"); f && std::string(f) == "1")
    return make_error(ErrorKind::Environment, "no GPU detected on this machine: GOBLIN_ASSUME_NO_GPU=1");
  // Each tool gets 20 s: a hung driver must not hang goblin (core/process.h capture).
  constexpr double kToolTimeoutS = 20;
  std::string tried;
  auto probe = [&](const std::vector<std::string>& argv) -> std::optional<std::string> {
    if (!tried.empty()) tried += ", ";
    if (!on_path(argv[0])) {
      tried += argv[0] + " (not installed)";
      return std::nullopt;
    }
    auto out = capture(argv, kToolTimeoutS);
    tried += argv[0] + (out ? " (no GPU listed)" : " (failed or timed out)");
    return out;
  };
  if (auto nv = probe({"nvidia-smi", "--query-gpu=name,memory.total,compute_cap,driver_version",
                       "--format=csv,noheader,nounits"})) {
    auto devs = parse_nvidia_smi_names(*nv);
    if (!devs.empty()) {
      DetectedGpu d{"nvidia-smi", devs, "nvidia", ""};
      // The fourth column: the driver version (one driver serves every device).
      std::string first = nv->substr(0, nv->find('\n'));
      auto comma = first.rfind(',');
      if (comma != std::string::npos) d.driver = trim(first.substr(comma + 1));
      return d;
    }
  }
  if (auto amd = probe({"amd-smi", "static", "--asic"})) {
    auto devs = parse_amd_smi_static(*amd);
    if (!devs.empty()) return DetectedGpu{"amd-smi", devs, "amd", ""};
  }
  if (auto ri = probe({"rocminfo"})) {
    auto devs = parse_rocminfo(*ri);
    if (!devs.empty()) return DetectedGpu{"rocminfo", devs, "amd", ""};
  }
  return make_error(ErrorKind::Environment, "no GPU detected on this machine: tried " + tried +
                                                ". Name the GPU instead: goblin specs ID (see goblin specs --list)");
}

// ---- output --------------------------------------------------------------------------------

Json gpu_spec_to_json(const GpuSpec& g) {
  Json j;
  j["id"] = g.id;
  j["vendor"] = g.vendor;
  j["name"] = g.name;
  j["architecture"] = g.architecture;
  j["arch_id"] = g.arch_id;
  j["aliases"] = g.aliases;
  Json peaks = Json::object(), sparse = Json::object(), detail = Json::object();
  Json specs = Json::object(), units = Json::object(), verified = Json::object(), sources = Json::object();
  for (const auto& [k, v] : g.peaks) {
    peaks[k] = v.value ? Json(*v.value) : Json(nullptr);
    if (v.sparse) sparse[k] = *v.sparse;
    detail[k] = {{"dense", true}, {"engine", v.engine}, {"accumulate", v.accumulate}, {"unit", v.unit}};
    if (!v.note.empty()) detail[k]["note"] = v.note;
    sources["peak_tflops." + k] = v.citation();
    verified["peak_tflops." + k] = v.verified;
  }
  for (const auto& [k, v] : g.specs) {
    specs[k] = v.value ? Json(*v.value) : (v.text.empty() ? Json(nullptr) : Json(v.text));
    units[k] = v.unit;
    sources[k] = v.citation();
    verified[k] = v.verified;
  }
  j["peak_tflops"] = peaks;
  j["peak_tflops_sparse"] = sparse;
  j["peak_detail"] = detail;
  j["specs"] = specs;
  j["units"] = units;
  j["verified"] = verified;
  j["sources"] = sources;
  return j;
}

namespace {
std::string value_text(const SpecValue& v) {
  if (v.value) return format_sig(*v.value, 10) + (v.unit.empty() ? "" : " " + v.unit);
  if (!v.text.empty()) return v.text;
  return "UNKNOWN (not found in a source)";
}
}  // namespace

std::string gpu_spec_cite(const GpuSpec& g) {
  std::string out;
  for (const auto& [k, v] : g.specs) out += g.id + " " + k + ": " + value_text(v) + " <- " + v.citation() + "\n";
  for (const auto& [k, v] : g.peaks) {
    std::string what = g.id + " peak " + k + " (dense, " + v.engine + ", " + v.accumulate + " accumulate)";
    out += what + ": " + value_text(v) + " <- " + v.citation() + "\n";
    if (v.sparse)
      out +=
          g.id + " peak " + k + " (sparse): " + format_sig(*v.sparse, 10) + " " + v.unit + " <- " + v.citation() + "\n";
  }
  return out;
}

std::string gpu_spec_human(const GpuSpec& g) {
  std::string o = fmt::format("{}  [{}]  {} ({})\n", g.name, g.id, g.architecture, g.arch_id);
  auto out = std::back_inserter(o);
  int unverified = 0;
  for (const auto& [k, v] : g.specs) {
    fmt::format_to(out, "  {:<20} {:<24}{}\n", k, value_text(v), v.verified ? "" : "  (unverified)");
    unverified += !v.verified;
  }
  o += "  peak (dense; sparse in brackets)\n";
  for (const auto& [k, v] : g.peaks) {
    std::string val = value_text(v);
    if (v.sparse) val += " [" + format_sig(*v.sparse, 10) + "]";
    fmt::format_to(out, "  {:<20} {:<24} {:<7} {:<6} acc{}\n", k, val, v.engine, v.accumulate,
                   v.verified ? "" : "  (unverified)");
    unverified += !v.verified;
  }
  if (unverified)
    fmt::format_to(out, "  {} value(s) not verified against their source; --cite shows every source\n", unverified);
  else
    o += "  --cite shows the source of every value\n";
  return o;
}

std::string peak_key_for(std::string_view dtype, bool tensor_engine) {
  std::string d = ascii_lower(dtype);
  if (d == "fp32" || d == "float" || d == "float32") return tensor_engine ? "tf32" : "fp32";
  if (d == "tf32") return "tf32";
  if (d == "fp64" || d == "double" || d == "float64") return tensor_engine ? "fp64_matrix" : "fp64";
  if (d == "bf16" || d == "bfloat16" || d == "c10::bfloat16") return "bf16";
  if (d == "fp16" || d == "half" || d == "float16" || d == "c10::half") return "fp16";
  if (d.find("float8") != std::string::npos || d == "fp8") return "fp8";
  if (d == "int8" || d == "signed char" || d == "char") return "int8";
  return "";
}

}  // namespace goblin::hw
