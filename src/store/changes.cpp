// A workload's change points with their runs and classification (changes.h).
#include "store/changes.h"

#include <fmt/format.h>

#include <cmath>

namespace goblin::store {
namespace {

// Shell-quotes a path only when it needs it.
std::string quoted(const std::string& s) {
  if (!s.empty() && s.find_first_of(" '\"$`\\!*?;&|<>()") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void classify(const RunRecord& a, const RunRecord& b, ChangeAlert& al) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> config = {
      {"benchmark_config_hash", {a.linkage.at("benchmark_config_hash"), b.linkage.at("benchmark_config_hash")}},
      {"server_flags", {a.linkage.at("server_flags"), b.linkage.at("server_flags")}},
      {"base_image", {a.linkage.at("base_image"), b.linkage.at("base_image")}},
      {"resource_class", {a.linkage.at("resource_class"), b.linkage.at("resource_class")}}};
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> hardware = {
      {"gpu", {a.gpu, b.gpu}},
      {"gpu_device_ids", {a.linkage.at("gpu_device_ids"), b.linkage.at("gpu_device_ids")}},
      {"driver", {a.driver, b.driver}},
      {"cuda", {a.cuda, b.cuda}},
      {"rocm", {a.rocm, b.rocm}},
      {"pytorch", {a.pytorch, b.pytorch}}};
  bool config_changed = false, hw_changed = false;
  auto check = [&](const auto& fields, bool& changed) {
    for (const auto& [name, v] : fields) {
      if (v.first == kUnknown || v.second == kUnknown) {
        al.unknown_fields.push_back(name);
      } else if (v.first != v.second) {
        al.changed_fields.push_back(name);
        changed = true;
      }
    }
  };
  check(config, config_changed);
  check(hardware, hw_changed);
  if (config_changed)
    al.classification = "config changed";
  else if (hw_changed)
    al.classification = "hardware or driver changed";
  else if (!al.unknown_fields.empty())
    al.classification = "not checked";  // a real change, unless an unrecorded field moved
  else
    al.classification = "real change";
}

}  // namespace

bool higher_is_better_metric(const std::string& m) {
  return m == "tokens_per_sec" || m == "mfu_pct" || m == "gpu_util_pct" || m == "speedup";
}

std::string reproduce_command(const RunRecord& r) {
  if (r.inputs.empty()) return "";
  std::string c = "goblin " + r.verb;
  for (const auto& in : r.inputs) c += " " + quoted(in.path);
  return c;
}

Result<std::vector<ChangeAlert>> workload_changes(const Store& s, const std::string& workload,
                                                  const std::string& metric, const ChangePointOptions& o) {
  ASSIGN_OR_RETURN(auto all, s.trend(workload, metric, kChangeSeriesLimit));
  std::vector<ChangeAlert> out;
  if (all.empty()) return out;
  // One clock per series, as the gate: the newest run's source.
  const std::string source = figure_source(all.back().verb);
  std::vector<TrendPoint> pts;
  for (const auto& p : all)
    if (figure_source(p.verb) == source && std::isfinite(p.value)) pts.push_back(p);
  std::vector<double> xs;
  for (const auto& p : pts) xs.push_back(p.value);
  const bool higher = higher_is_better_metric(metric);
  for (const ChangePoint& cp : change_points(xs, o)) {
    ChangeAlert al;
    al.point = cp;
    const TrendPoint& before = pts[cp.index - 1];
    const TrendPoint& after = pts[cp.index];
    al.before_run = before.run_id, al.after_run = after.run_id;
    al.before_created = before.created, al.after_created = after.created;
    al.regression = higher ? cp.after_mean < cp.before_mean : cp.after_mean > cp.before_mean;
    ASSIGN_OR_RETURN(RunRecord ra, s.get(before.run_id));
    ASSIGN_OR_RETURN(RunRecord rb, s.get(after.run_id));
    classify(ra, rb, al);
    al.reproduce_before = reproduce_command(ra);
    al.reproduce_after = reproduce_command(rb);
    al.compare = fmt::format("goblin store compare {} {}", before.run_id, after.run_id);
    out.push_back(std::move(al));
  }
  return out;
}

Json changes_to_json(const std::vector<ChangeAlert>& alerts) {
  Json a = Json::array();
  for (const auto& al : alerts)
    a.push_back({{"before_run", al.before_run},
                 {"after_run", al.after_run},
                 {"before_created", al.before_created},
                 {"after_created", al.after_created},
                 {"before_mean", al.point.before_mean},
                 {"after_mean", al.point.after_mean},
                 {"change_pct", std::round(al.point.change_pct * 1e4) / 1e4},
                 {"p_value", al.point.p_value},
                 {"confidence", 1 - al.point.p_value},
                 {"direction", al.regression ? "regression" : "improvement"},
                 {"classification", al.classification},
                 {"changed_fields", al.changed_fields},
                 {"unknown_fields", al.unknown_fields},
                 {"reproduce_before", al.reproduce_before},
                 {"reproduce_after", al.reproduce_after},
                 {"compare", al.compare}});
  return a;
}

}  // namespace goblin::store
