#include "kernel/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <regex>

#include "core/io.h"
#include "core/text.h"
#include "hw/knowledge.h"
#include "kernel/knowledge.h"
#include "kernel/proc.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

namespace {

bool type_ok(const Json& v, const std::string& t) {
  if (t == "null") return v.is_null();
  if (t == "boolean") return v.is_boolean();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  if (t == "string") return v.is_string();
  if (t == "array") return v.is_array();
  if (t == "object") return v.is_object();
  return true;
}

// The subset of JSON Schema the iteration schema uses: type (one or a list), required, properties.
void check(const Json& v, const Json& schema, const std::string& path, std::vector<std::string>& errs) {
  if (schema.contains("type")) {
    std::vector<std::string> types;
    if (schema["type"].is_array())
      for (auto& t : schema["type"]) types.push_back(t);
    else
      types.push_back(schema["type"]);
    bool ok = false;
    for (auto& t : types) ok |= type_ok(v, t);
    if (!ok) {
      std::string want;
      for (auto& t : types) want += (want.empty() ? "" : "|") + t;
      errs.push_back((path.empty() ? "(root)" : path) + ": want " + want);
      return;
    }
  }
  if (!v.is_object()) return;
  if (schema.contains("required"))
    for (auto& r : schema["required"])
      if (!v.contains(r.get<std::string>()))
        errs.push_back((path.empty() ? "" : path + ".") + r.get<std::string>() + ": missing");
  if (schema.contains("properties"))
    for (auto& [k, sub] : schema["properties"].items())
      if (v.contains(k)) check(v[k], sub, path.empty() ? k : path + "." + k, errs);
}

std::string pad(std::string s, size_t w) {
  if (s.size() > w) s = s.substr(0, w - 1) + "~";
  return s + std::string(w - s.size() + 1, ' ');
}

}  // namespace

std::vector<std::string> validate_iteration(const Knowledge& k, const Json& j) {
  std::vector<std::string> errs;
  check(j, k.iteration_schema, "", errs);
  return errs;
}

Result<std::vector<Iteration>> load_iterations(const Knowledge& k, const std::string& ws, bool include_masked) {
  std::vector<Iteration> out;
  fs::path dir = fs::path(ws) / "memory";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return make_error(ErrorKind::Io, "no memory/ folder: not a kernel workspace", ws);
  static const std::regex name_re("v([0-9]+)\\.json");
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    std::string name = e.path().filename().string();
    if (!std::regex_match(name, m, name_re)) continue;
    ASSIGN_OR_RETURN(auto text, read_all(e.path().string()));
    ASSIGN_OR_RETURN(auto j, parse_json_text(text, e.path().string(), "memory file is not valid JSON"));
    auto errs = validate_iteration(k, j);
    if (!errs.empty())
      return make_error(ErrorKind::Malformed,
                        "memory file does not match data/kernel/iteration.schema.json: " + errs.front() +
                            (errs.size() > 1 ? fmt::format(" (and {} more)", errs.size() - 1) : ""),
                        e.path().string());
    ASSIGN_OR_RETURN(auto rec, iteration_from_json(j, e.path().string()));
    Iteration it{std::stoi(m[1].str()), e.path().string(), std::move(rec), j};
    if (it.rec.version != it.version)
      return make_error(ErrorKind::Malformed,
                        fmt::format("version field {} does not match the file name", it.rec.version), it.path);
    if (include_masked || !it.masked()) out.push_back(std::move(it));
  }
  std::sort(out.begin(), out.end(), [](const Iteration& a, const Iteration& b) { return a.version < b.version; });
  return out;
}

Result<int> next_version(const Knowledge& k, const std::string& ws) {
  ASSIGN_OR_RETURN(auto all, load_iterations(k, ws, true));
  return all.empty() ? 0 : all.back().version + 1;
}

double metric_of(const IterationRecord& it, const std::string& metric) {
  const Json& p = it.performance;
  const char* key = metric == "GB/s" ? "gbs" : "tflops";
  return p.contains(key) && p[key].is_number() ? p[key].get<double>() : 0.0;
}

Json next_step(const Config& cfg, int recorded, bool target_met, const std::string& best_text) {
  double hours = -1;
  if (!cfg.created_at.empty()) {
    std::tm tm{};
    if (strptime(cfg.created_at.c_str(), "%Y-%m-%dT%H:%M:%S", &tm))
      hours = std::difftime(std::time(nullptr), timegm(&tm)) / 3600;
  }
  Json j = {{"iterations_used", recorded},
            {"max_iterations", cfg.max_iterations},
            {"hours_used", hours < 0 ? Json(nullptr) : Json(round_to(hours, 2))},
            {"max_hours", cfg.max_hours}};
  if (target_met) {
    j["action"] = "stop";
    j["reason"] = "the Stop Condition is met (" + best_text + ")";
  } else if (cfg.max_iterations > 0 && recorded >= cfg.max_iterations) {
    j["action"] = "stop";
    j["reason"] = fmt::format("the iteration budget is spent ({} of {} recorded); best: {}", recorded,
                              cfg.max_iterations, best_text);
  } else if (cfg.max_hours > 0 && hours >= cfg.max_hours) {
    j["action"] = "stop";
    j["reason"] =
        fmt::format("the time budget is spent ({:.1f} of {:g} hours); best: {}", hours, cfg.max_hours, best_text);
  } else {
    j["action"] = "continue";
    j["reason"] = (cfg.max_iterations > 0
                       ? fmt::format("{} of {} iterations left", cfg.max_iterations - recorded, cfg.max_iterations)
                       : std::string("no iteration budget")) +
                  "; kernel.py holds the best recorded version (" + best_text + ")";
  }
  return j;
}

const Iteration* best_iteration(const std::vector<Iteration>& its) {
  const Iteration* best = nullptr;
  for (const auto& it : its) {
    if (it.masked() || !it.rec.correctness.passed) continue;
    std::string metric = it.rec.performance.value("target_metric", std::string("GB/s"));
    if (!best || metric_of(it.rec, metric) > metric_of(best->rec, metric)) best = &it;
  }
  return best;
}

Result<Json> set_masked(const std::string& ws, int version, bool masked) {
  ASSIGN_OR_RETURN(auto k, knowledge());
  return set_masked(*k, ws, version, masked);
}

Result<Json> set_masked(const Knowledge& k, const std::string& ws, int version, bool masked) {
  RETURN_IF_ERROR(require_git_repo(ws));
  ASSIGN_OR_RETURN(auto all, load_iterations(k, ws, true));
  for (auto& it : all) {
    if (it.version != version) continue;
    if (it.masked() == masked) return Json{{"version", version}, {"masked", masked}, {"changed", false}};
    it.j["masked"] = masked;
    RETURN_IF_ERROR(write_file(it.path, it.j.dump(2) + "\n"));
    ASSIGN_OR_RETURN(auto c,
                     git_commit_all(ws, std::string(masked ? "mask" : "unmask") + fmt::format(" v{}", version)));
    return Json{{"version", version}, {"masked", masked}, {"changed", true}, {"commit", c}};
  }
  std::string have;
  for (auto& it : all) have += (have.empty() ? "" : ", ") + std::string("v") + fmt::format("{}", it.version);
  return make_error(ErrorKind::NotFound,
                    fmt::format("no memory/v{}.json (have: ", version) + (have.empty() ? "none" : have) + ")", ws);
}

Result<StatusReport> workspace_status(const std::string& ws) {
  ASSIGN_OR_RETURN(auto k, knowledge());
  return workspace_status(*k, ws);
}

namespace {

// The datasheet limit of the workspace's target metric on its platform: DRAM bandwidth in GB/s or
// the dense peak of the workspace's dtype in TFLOP/s (data/gpus.yaml); nullopt when unknown.
std::optional<double> physical_limit(const Knowledge& k, const Config& cfg) {
  auto g = k.hw().gpu(cfg.platform);
  if (!g.ok()) return std::nullopt;
  if (cfg.roof.target_metric == "GB/s") {
    auto bw = g->bandwidth_bytes_per_s();
    return bw ? std::optional<double>(*bw / 1e9) : std::nullopt;
  }
  return g->peak_tflops(cfg.roof.peak_key);
}

}  // namespace

Result<StatusReport> workspace_status(const Knowledge& k, const std::string& ws) {
  ASSIGN_OR_RETURN(auto cfg, load_config(ws));
  RETURN_IF_ERROR(require_git_repo(ws));
  ASSIGN_OR_RETURN(auto its, load_iterations(k, ws));
  ASSIGN_OR_RETURN(auto all, load_iterations(k, ws, true));
  const std::string metric = cfg.roof.target_metric;
  StatusReport r;
  Json rows = Json::array();
  std::string h = "workspace " + ws + " (" + cfg.name + ", " + cfg.platform + ", " + cfg.roof.bound + ")\n";
  h += "target: " + metric + " >= " + format_fixed(cfg.roof.target, 1) + " (90 % of " +
       format_sig(cfg.roof.ceiling, 6) + ", " + cfg.roof.ceiling_source + ")\n\n";
  h += pad("ver", 4) + pad("change", 44) + pad("latency ms (95% CI)", 26) + pad(metric, 9) + pad("% target", 9) +
       "correct\n";
  for (const auto& it : its) {
    const Json& p = it.rec.performance;
    const bool passed = it.rec.correctness.passed;
    // The iteration's own commit is the one that added its file.
    std::string commit = iteration_commit(ws, it.version);
    rows.push_back({{"version", it.version},
                    {"change", it.rec.change_summary},
                    {"median_latency_ms", p["median_latency_ms"]},
                    {"latency_ci95_ms", p["latency_ci95_ms"]},
                    {"tflops", p["tflops"]},
                    {"gbs", p["gbs"]},
                    {"pct_of_target", p["pct_of_target"]},
                    {"correct", passed},
                    {"commit", commit}});
    const Json& ci = p["latency_ci95_ms"];
    std::string lat = format_sig(p["median_latency_ms"].get<double>(), 4) + " (" + format_sig(ci[0].get<double>(), 4) +
                      "-" + format_sig(ci[1].get<double>(), 4) + ")";
    double m = metric_of(it.rec, metric);
    std::string pct = p["pct_of_target"].is_number() ? format_fixed(p["pct_of_target"].get<double>(), 1) : "-";
    h += pad(fmt::format("v{}", it.version), 4) + pad(it.rec.change_summary, 44) + pad(lat, 26) +
         pad(format_fixed(m, 1), 9) + pad(pct, 9) + (passed ? "yes" : "NO") + "\n";
  }
  std::vector<int> masked;
  for (auto& it : all)
    if (it.masked()) masked.push_back(it.version);
  // A recorded iteration is a file anyone can edit: before status trusts one, its throughput is
  // checked again against the platform's physical limit (data/gpus.yaml's datasheet peak and DRAM
  // bandwidth, with data/kernel/integrity.yaml's tolerance). One above it is left out of `best`
  // and the Stop Condition, and listed as implausible.
  Json implausible = Json::array();
  std::vector<Iteration> trusted;
  const auto limit = physical_limit(k, cfg);
  for (const auto& it : its) {
    const double m = metric_of(it.rec, metric);
    if (limit && m > *limit * (1 + k.integrity.tolerance)) {
      implausible.push_back({{"version", it.version}, {"value", m}, {"physical_limit", *limit}, {"metric", metric}});
      continue;
    }
    trusted.push_back(it);
  }
  const Iteration* best = best_iteration(trusted);
  // The Stop Condition from the value and the target, not from the file's own target_met flag.
  bool met =
      best && best->rec.performance.value("target_met", false) && metric_of(best->rec, metric) >= cfg.roof.target;
  const std::string best_text =
      best ? fmt::format("v{} at {} {}", best->version, format_fixed(metric_of(best->rec, metric), 1), metric)
           : std::string("no correct iteration yet");
  const Json next = next_step(cfg, static_cast<int>(all.size()), met, best_text);
  r.json = {{"workspace", ws},
            {"name", cfg.name},
            {"platform", cfg.platform},
            {"bound", cfg.roof.bound},
            {"target", {{"metric", metric}, {"value", cfg.roof.target}, {"ceiling_source", cfg.roof.ceiling_source}}},
            {"iterations", rows},
            {"masked", masked},
            {"best", best ? Json(best->version) : Json(nullptr)},
            {"stop_condition_met", met},
            {"implausible", implausible},
            {"next", next}};
  for (const auto& x : implausible)
    h += fmt::format(
        "\nv{}: {:.1f} {} is above the physical limit of {} ({:.1f} {}, data/gpus.yaml): not trusted, "
        "left out of best and the Stop Condition\n",
        x["version"].get<int>(), x["value"].get<double>(), metric, cfg.platform, x["physical_limit"].get<double>(),
        metric);
  if (!masked.empty()) {
    h += "\nmasked (skipped):";
    for (int v : masked) h += fmt::format(" v{}", v);
    h += "\n";
  }
  if (best) {
    double bm = metric_of(best->rec, metric);
    h += fmt::format("\nbest: v{} at ", best->version) + format_fixed(bm, 1) + " " + metric + " — ";
    h += met ? "Stop Condition met\n"
             : "Stop Condition not met: " + format_fixed(cfg.roof.target - bm, 1) + " " + metric + " to go\n";
  } else {
    h += "\nno correct unmasked iteration yet\n";
  }
  h += "next: " + next["action"].get<std::string>() + " — " + next["reason"].get<std::string>() + "\n";
  r.human = h;
  return r;
}

}  // namespace goblin::kernel
