// From result JSON to a run's summary tables (docs/store.md § What a run holds). One function
// reads every result shape goblin writes, by the keys it holds, so a verb's live result and the
// same result imported later from its folder give the same rows.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "core/confine.h"
#include "core/stats.h"
#include "store/record.h"

namespace goblin::store {
namespace {

std::optional<double> num(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}
std::string text(const Json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "true" : "false";
  return it->dump();  // numbers and lists (gpu_device_ids) as their JSON text
}
void set_if(std::string& field, const std::string& v) {
  if (!v.empty() && (field.empty() || field == kUnknown)) field = v;
}

void linkage_from(const Json& m, RunRecord& r) {
  if (!m.is_object()) return;
  for (const auto& f : linkage_fields()) set_if(r.linkage[f], text(m, f.c_str()));
  set_if(r.rocm, text(m, "rocm_version"));
  if (m.contains("devices") && m["devices"].is_array() && !m["devices"].empty())
    set_if(r.gpu, text(m["devices"][0], "name"));
  set_if(r.clocks, text(m, "gpu_clocks_mhz"));
  if (m.contains("versions")) {
    const Json& v = m["versions"];
    set_if(r.driver, text(v, "cuda_driver"));
    set_if(r.cuda, text(v, "cuda_runtime"));
    set_if(r.pytorch, text(v, "pytorch"));
  }
  set_if(r.workload, text(m, "model_name"));
}

void kernels_from(const Json& a, RunRecord& r) {
  if (!a.is_array() || !r.kernels.empty()) return;
  for (const Json& k : a) {
    if (!k.is_object()) continue;
    KernelRow row;
    row.name = text(k, "name").empty() ? text(k, "kernel") : text(k, "name");
    row.category = text(k, "category");
    row.time_s = num(k, "time_s");
    if (!row.time_s && num(k, "time_us")) row.time_s = *num(k, "time_us") * 1e-6;
    row.pct = num(k, "pct_time") ? num(k, "pct_time") : num(k, "share_pct");
    row.count = static_cast<int64_t>(num(k, "count").value_or(num(k, "launches").value_or(0)));
    if (!row.name.empty()) r.kernels.push_back(std::move(row));
  }
}

void waste_from(const Json& w, RunRecord& r) {
  if (!w.is_object() || !r.waste.empty()) return;
  for (auto it = w.begin(); it != w.end(); ++it) {
    if (it.key() == "unit" || it.key() == "unobserved" || it.key() == "step_time_s") continue;
    if (!it->is_number() && !it->is_null()) continue;
    WasteRow row{it.key(), it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt};
    r.waste.push_back(std::move(row));
  }
}

void rounds_from(const Json& a, const std::string& gpu, RunRecord& r) {
  for (const Json& x : a) {
    if (!x.is_object()) continue;
    AuditRoundRow row;
    row.round = static_cast<int>(num(x, "round").value_or(1));
    if (x.contains("rules") && x["rules"].is_array())
      for (const Json& id : x["rules"]) {
        if (id.is_string())
          row.rules.push_back(id.get<std::string>());
        else if (id.is_object())
          row.rules.push_back(text(id, "rule_id"));
      }
    const Json p = x.value("predicted", Json::object());
    row.predicted_low = num(p, "low");
    row.predicted_high = num(p, "high");
    row.method = text(p, "method");
    const Json m = x.value("measured", Json::object());
    row.measured = num(m, "speedup");
    row.ci_low = num(m, "ci_low");
    row.ci_high = num(m, "ci_high");
    if (m.is_object() && m.contains("significant") && m["significant"].is_boolean())
      row.significant = m["significant"].get<bool>();
    row.held = text(x, "prediction_held");
    row.gpu = gpu;
    r.audit_rounds.push_back(std::move(row));
  }
}

// goblin ranks: the job's step time is its slowest rank's, so step_time_s is the median over
// complete steps of the max over ranks; max_rank_step_time_s and rank_skew_pct are the skew
// section's, gpu_util_pct the ranks' mean busy share of the step. A distributed job then trends
// and gates like a single-GPU one.
void rank_metrics_from(const Json& j, RunRecord& r) {
  std::vector<double> max_walls, busy_share;
  for (const Json& s : j["steps"]) {
    if (!s.is_object() || !s.value("complete", false) || !s.contains("ranks") || !s["ranks"].is_array()) continue;
    double mx = 0, busy = 0, wall = 0;
    for (const Json& k : s["ranks"]) {
      const auto w = num(k, "wall_s");
      if (!w) continue;
      mx = std::max(mx, *w);
      wall += *w;
      busy += num(k, "busy_s").value_or(0);
    }
    if (mx > 0) max_walls.push_back(mx);
    if (wall > 0) busy_share.push_back(busy / wall * 100);
  }
  if (!max_walls.empty() && !r.metrics.count("step_time_s")) r.metrics.emplace("step_time_s", median(max_walls));
  if (!busy_share.empty() && !r.metrics.count("gpu_util_pct")) r.metrics.emplace("gpu_util_pct", median(busy_share));
  if (j.contains("skew") && j["skew"].is_object() && j["skew"].contains("step_time")) {
    const Json& st = j["skew"]["step_time"];
    if (auto v = num(st, "max_s"); v && *v > 0) r.metrics.insert_or_assign("max_rank_step_time_s", *v);
    if (auto v = num(st, "imbalance_pct")) r.metrics.insert_or_assign("rank_skew_pct", *v);
  }
}

// Each step's wall and busy time (a metrics result's steps, a triage run's profile_metadata.json
// steps) and, when the result names no step_time_s, the median wall of its complete steps.
void steps_from(const Json& j, RunRecord& r) {
  if (!j.contains("steps") || !j["steps"].is_array() || !r.steps.empty()) return;
  std::vector<double> walls;
  for (const Json& s : j["steps"]) {
    if (!s.is_object() || !num(s, "wall_s")) continue;
    r.steps.push_back({text(s, "name"), num(s, "wall_s"), num(s, "busy_s")});
    if (!s.value("partial", false)) walls.push_back(*num(s, "wall_s"));
  }
  if (!r.metrics.count("step_time_s") && !walls.empty()) r.metrics["step_time_s"] = median(walls);
}

// A triage run: the GPU's busy share of the traced window (profile_metadata.json's gpu_window,
// summed over devices), and its step time and steps (the live result holds them under metadata).
void window_metrics_from(const Json& m, RunRecord& r) {
  if (m.is_object() && !r.metrics.count("step_time_s"))
    if (auto v = num(m, "step_time_s"); v && *v > 0) r.metrics.emplace("step_time_s", *v);
  if (m.is_object() && m.contains("gpu_window")) steps_from(m, r);
  if (!m.is_object() || !m.contains("gpu_window") || !m["gpu_window"].is_array() || r.metrics.count("gpu_util_pct"))
    return;
  double window = 0, busy = 0;
  for (const Json& d : m["gpu_window"]) {
    window += num(d, "window_us").value_or(0);
    busy += num(d, "busy_us").value_or(0);
  }
  if (window > 0) r.metrics.emplace("gpu_util_pct", busy / window * 100);
}

}  // namespace

const std::vector<std::string>& linkage_fields() {
  static const std::vector<std::string> f = {
      "experiment_id",    "trial_id",     "observed_arch",         "arch_match",     "hardware_relevance_reason",
      "rocm_version",     "base_image",   "resource_class",        "gpu_device_ids", "gpu_clocks_mhz",
      "preflight_passed", "server_flags", "benchmark_config_hash", "model_name",     "profile_stage",
      "source_trace_path"};
  return f;
}

void summarize_json(const Json& j, RunRecord& r) {
  if (!j.is_object()) return;
  if (j.contains("goblin")) {
    set_if(r.goblin_version, text(j["goblin"], "version"));
    set_if(r.goblin_commit, text(j["goblin"], "commit"));
  }
  // Linkage and environment: triage's metadata, profile_metadata.json itself, an audit's footer.
  if (j.contains("metadata")) linkage_from(j["metadata"], r), window_metrics_from(j["metadata"], r);
  if (j.contains("observed_arch") || j.contains("source_trace_path")) linkage_from(j, r), window_metrics_from(j, r);
  if (j.contains("versions")) linkage_from(Json{{"versions", j["versions"]}}, r);
  set_if(r.gpu, text(j, "gpu_name"));
  if (j.contains("versions")) set_if(r.gpu, text(j["versions"], "gpu"));
  if (j.contains("validity_footer")) {
    const Json& v = j["validity_footer"];
    set_if(r.gpu, text(v, "gpu"));
    set_if(r.driver, text(v, "driver"));
    set_if(r.cuda, text(v, "cuda"));
    set_if(r.rocm, text(v, "rocm"));
    set_if(r.pytorch, text(v, "pytorch"));
    set_if(r.workload, text(v, "workload"));
  }
  set_if(r.workload, text(j, "workload_name"));

  // Scalar metrics a trend or the gate reads.
  for (const char* k : {"step_time_s", "tokens_per_sec", "mfu_pct", "gpu_util_pct", "hbm_peak_gb", "speedup"})
    if (auto v = num(j, k)) r.metrics[k] = *v;
  if (j.contains("total_speedup"))
    if (auto v = num(j["total_speedup"], "point")) r.metrics["speedup"] = *v;

  steps_from(j, r);
  if (j.contains("categories") && j["categories"].is_array() && r.categories.empty())
    for (const Json& c : j["categories"])
      if (c.is_object() && c.contains("category") && num(c, "time_s"))
        r.categories.push_back({text(c, "category"), num(c, "time_s"), num(c, "pct")});
  if (j.contains("top_kernels")) kernels_from(j["top_kernels"], r);
  if (j.contains("waste_budget")) waste_from(j["waste_budget"], r);
  if (j.contains("waste_budget_before")) waste_from(j["waste_budget_before"], r);
  if (j.contains("rounds") && j["rounds"].is_array())
    rounds_from(j["rounds"], j.contains("validity_footer") ? text(j["validity_footer"], "gpu") : r.gpu, r);

  // A kernel workspace's status: iterations against the Stop Condition's target.
  if (j.contains("iterations") && j["iterations"].is_array() && j.contains("target")) {
    const std::string metric = text(j["target"], "metric");
    for (const Json& it : j["iterations"]) {
      IterationRow row;
      row.version = static_cast<int>(num(it, "version").value_or(0));
      row.change = text(it, "change");
      row.metric = metric;
      row.value = metric == "TFLOP/s" ? num(it, "tflops") : num(it, "gbs");
      row.pct_of_target = num(it, "pct_of_target");
      row.masked = it.value("masked", false);
      row.correct = it.value("correct", true);
      r.iterations.push_back(std::move(row));
    }
    set_if(r.gpu, text(j, "platform"));
    if (!text(j, "name").empty()) set_if(r.workload, "kernel:" + text(j, "name"));
  }
  // goblin ranks: one row per rank.
  if (j.contains("ranks") && j["ranks"].is_array() && j.contains("world_size") && j.contains("steps") &&
      j["steps"].is_array())
    rank_metrics_from(j, r);
  if (j.contains("ranks") && j["ranks"].is_array() && j.contains("world_size"))
    for (const Json& k : j["ranks"]) {
      if (!k.is_object()) continue;
      RankRow row;
      row.rank = static_cast<int>(num(k, "rank").value_or(-1));
      row.gpu = text(k, "gpu");
      row.steps = static_cast<int64_t>(num(k, "steps").value_or(0));
      row.collectives = static_cast<int64_t>(num(k, "collectives").value_or(0));
      row.step_time_s = num(k, "step_time_s");
      // Results of older goblins name each rank's step time only in the skew section.
      if (!row.step_time_s && j.contains("skew") && j["skew"].is_object() && j["skew"].contains("step_time"))
        for (const Json& p : j["skew"]["step_time"].value("per_rank", Json::array()))
          if (num(p, "rank") == num(k, "rank")) row.step_time_s = num(p, "step_time_s");
      set_if(r.gpu, row.gpu);
      r.ranks.push_back(std::move(row));
    }
}

void finish_record(RunRecord& r) {
  for (const auto& f : linkage_fields()) {
    auto& v = r.linkage[f];
    if (v.empty() || v == "null") v = kUnknown;
  }
  for (std::string* s :
       {&r.workload, &r.goblin_version, &r.goblin_commit, &r.gpu, &r.driver, &r.cuda, &r.rocm, &r.pytorch, &r.clocks})
    if (s->empty() || *s == "null") *s = kUnknown;
  if (r.rocm == kUnknown) set_if(r.rocm, r.linkage["rocm_version"] == kUnknown ? "" : r.linkage["rocm_version"]);
  std::sort(r.tags.begin(), r.tags.end());
  r.tags.erase(std::unique(r.tags.begin(), r.tags.end()), r.tags.end());
}

Result<InputFile> hash_file(const std::string& path) {
  ASSIGN_OR_RETURN(int fd, open_for_read(path));
  Sha256 h;
  std::string buf(1 << 20, '\0');
  InputFile f{path, {}, 0};
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      ::close(fd);
      return make_error(ErrorKind::Io, "store: cannot read input to hash it", path);
    }
    if (n == 0) break;
    h.update(std::string_view(buf.data(), static_cast<size_t>(n)));
    f.bytes += n;
  }
  ::close(fd);
  f.sha256 = h.hex();
  return f;
}

}  // namespace goblin::store
