// goblin diff's outputs: the JSON result, the readable report and the audit's short story.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/diff.h"

namespace goblin::analysis {

namespace {

double us(double s) { return round_to(s * 1e6, 3); }

Json side_json(const DiffProfile& p) {
  Json j;
  j["source"] = p.source;
  j["vendor"] = p.vendor;
  j["gpu"] = p.gpu;
  j["steps"] = p.steps;
  j["step_names"] = p.step_names;
  j["step_time_s"] = round_to(p.per_step(p.wall_ns) / 1e9, 9);
  j["step_time_source"] = "trace_steps";
  if (p.workload_step_s) j["workload_step_time_s"] = round_to(*p.workload_step_s, 9);
  j["busy_s"] = round_to(p.per_step(p.busy_ns) / 1e9, 9);
  j["idle_s"] = round_to(p.per_step(p.wall_ns - p.busy_ns) / 1e9, 9);
  j["gpu_op_time_s"] = round_to(p.per_step(p.op_ns) / 1e9, 9);
  j["overlap_s"] = round_to(p.per_step(p.op_ns - p.busy_ns) / 1e9, 9);
  j["kernel_groups"] = p.groups.size();
  j["step_method"] = p.step_method;
  return j;
}

Json figures_json(const std::optional<DiffSideFigures>& f) {
  if (!f) return nullptr;
  Json j;
  j["time_s"] = round_to(f->time_s, 9);
  j["launches_per_step"] = round_to(f->launches, 3);
  j["mean_us"] = f->launches > 0 ? us(f->time_s / f->launches) : 0.0;
  j["full_name"] = f->full_name;
  return j;
}

double share(double change, double total) { return total != 0 ? round_to(100.0 * change / total, 2) : 0.0; }

std::string ms(double s) { return fmt::format("{:+.3f} ms", s * 1e3); }
std::string ms_abs(double s) { return fmt::format("{:.3f} ms", s * 1e3); }

std::string short_name(const std::string& n, size_t max = 70) {
  return n.size() <= max ? n : n.substr(0, max - 3) + "...";
}

}  // namespace

Json diff_to_json(const DiffResult& d) {
  Json j;
  j["before"] = side_json(d.before);
  j["after"] = side_json(d.after);
  j["step_time_change_s"] = round_to(d.step_change_s, 9);
  j["speedup"] = d.after_step_s > 0 ? round_to(d.before_step_s / d.after_step_s, 4) : 0.0;
  Json dec;
  dec["formula"] =
      "step_time_change_s = kernels_s + idle_s + overlap_s, where kernels_s = sum of every kernel row's change_s "
      "(GPU time per step, clipped to complete steps), idle_s = change of (step wall - busy union), overlap_s = "
      "-(change of (summed GPU-op time - busy union))";
  dec["kernels_s"] = round_to(d.kernels_change_s, 9);
  dec["idle_s"] = round_to(d.idle_change_s, 9);
  dec["overlap_s"] = round_to(d.overlap_term_s, 9);
  dec["sum_s"] = round_to(d.sum_s, 9);
  dec["residual_s"] = round_to(d.step_change_s - d.sum_s, 9);
  j["decomposition"] = dec;
  Json cats = Json::array();
  for (const auto& c : d.categories) {
    Json r;
    r["category"] = c.category;
    r["before_s"] = round_to(c.before_s, 9);
    r["after_s"] = round_to(c.after_s, 9);
    r["change_s"] = round_to(c.change_s, 9);
    r["share_of_change_pct"] = share(c.change_s, d.step_change_s);
    cats.push_back(r);
  }
  j["categories"] = cats;
  j["kernel_level"] = d.kernel_level;
  Json counts = {{"faster", 0}, {"slower", 0}, {"unchanged", 0}, {"new", 0}, {"gone", 0}};
  Json rows = Json::array();
  for (const auto& r : d.rows) {
    counts[r.status] = counts[r.status].get<int>() + 1;
    Json x;
    x["status"] = r.status;
    x["match"] = r.match.empty() ? Json(nullptr) : Json(r.match);
    x["name"] = r.name;
    x["op"] = r.op;
    x["scope"] = r.scope;
    x["category"] = r.category;
    x["family"] = r.family;
    x["kind"] = r.kind;
    x["before"] = figures_json(r.before);
    x["after"] = figures_json(r.after);
    x["change_s"] = round_to(r.change_s, 9);
    x["share_of_change_pct"] = share(r.change_s, d.step_change_s);
    rows.push_back(x);
  }
  j["counts"] = counts;
  j["kernels"] = rows;
  j["notes"] = d.notes;
  return j;
}

std::string diff_human(const DiffResult& d, int top) {
  std::string s;
  auto out = std::back_inserter(s);
  fmt::format_to(out, "step time   {:.3f} ms -> {:.3f} ms  ({}, {:.2f}x)  over {} / {} complete steps\n",
                 d.before_step_s * 1e3, d.after_step_s * 1e3, ms(d.step_change_s),
                 d.after_step_s > 0 ? d.before_step_s / d.after_step_s : 0.0, static_cast<long long>(d.before.steps),
                 static_cast<long long>(d.after.steps));
  if (d.before.workload_step_s && d.after.workload_step_s)
    fmt::format_to(out, "            (trace steps; the workloads' own timers: {:.3f} ms -> {:.3f} ms)\n",
                   *d.before.workload_step_s * 1e3, *d.after.workload_step_s * 1e3);
  fmt::format_to(out, "busy        {:.3f} ms -> {:.3f} ms;  idle {:.3f} ms -> {:.3f} ms\n",
                 d.before.per_step(d.before.busy_ns) / 1e6, d.after.per_step(d.after.busy_ns) / 1e6,
                 d.before.per_step(d.before.wall_ns - d.before.busy_ns) / 1e6,
                 d.after.per_step(d.after.wall_ns - d.after.busy_ns) / 1e6);
  s += "change = kernels " + ms(d.kernels_change_s) + " + idle " + ms(d.idle_change_s) + " + overlap " +
       ms(d.overlap_term_s) + " = " + ms(d.sum_s) + "\n\n";
  s += "by category (GPU time per step):\n";
  for (const auto& c : d.categories) {
    fmt::format_to(out, "  {:<14} {:>10.3f} -> {:>10.3f} ms  {}\n", c.category, c.before_s * 1e3, c.after_s * 1e3,
                   ms(c.change_s));
  }
  if (!d.kernel_level) {
    for (const auto& n : d.notes) s += "note: " + n + "\n";
    return s;
  }
  for (const char* status : {"faster", "slower", "gone", "new"}) {
    int shown = 0, total = 0;
    for (const auto& r : d.rows) total += r.status == status;
    if (total == 0) continue;
    fmt::format_to(out, "\n{} ({}):\n", status, total);
    for (const auto& r : d.rows) {
      if (r.status != status) continue;
      if (shown++ >= top) break;
      std::string where = r.op.empty() ? "" : "  [" + r.op + "]";
      if (!r.scope.empty()) where += " in " + r.scope;
      const double bt = r.before ? r.before->time_s : 0, at = r.after ? r.after->time_s : 0;
      fmt::format_to(out, "  {}  {:>9} -> {:>9}  {:<12} {}{}\n", ms(r.change_s), ms_abs(bt), ms_abs(at), r.category,
                     short_name(r.name), where);
    }
    if (total > top) fmt::format_to(out, "  ... {} more (--json lists all)\n", total - top);
  }
  for (const auto& n : d.notes) s += "note: " + n + "\n";
  return s;
}

std::vector<std::string> diff_story(const DiffResult& d, int top) {
  std::vector<std::string> out;
  out.push_back(
      fmt::format("Step time {:.3f} ms -> {:.3f} ms ({}): kernels {}, idle {}, overlap {} (these sum to "
                  "the change).",
                  d.before_step_s * 1e3, d.after_step_s * 1e3, ms(d.step_change_s), ms(d.kernels_change_s),
                  ms(d.idle_change_s), ms(d.overlap_term_s)));
  std::string cats;
  int n = 0;
  for (const auto& c : d.categories) {
    if (n++ >= top) break;
    cats += (cats.empty() ? "" : ", ") + c.category + " " + ms(c.change_s);
  }
  if (!cats.empty()) out.push_back("By category: " + cats + ".");
  if (!d.kernel_level) return out;
  // What the change removed, grouped by where it ran (the CPU annotation around the launches,
  // e.g. Optimizer.step) or else by category and launching ops.
  {
    struct G {
      double s = 0;
      int n = 0;
      std::vector<std::string> ops;
    };
    std::map<std::string, G> gone;
    for (const auto& r : d.rows) {
      if (r.status != "gone") continue;
      G& g = gone[r.scope.empty() ? r.category + " kernels" : "kernels in " + r.scope];
      g.s += r.change_s;
      ++g.n;
      if (!r.op.empty() && g.ops.size() < 3 && std::find(g.ops.begin(), g.ops.end(), r.op) == g.ops.end())
        g.ops.push_back(r.op);
    }
    std::vector<std::pair<std::string, G>> v(gone.begin(), gone.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.s < b.second.s; });
    std::string line;
    for (size_t i = 0; i < v.size() && i < static_cast<size_t>(top); ++i) {
      std::string ops;
      for (const auto& o : v[i].second.ops) ops += (ops.empty() ? "" : ", ") + o;
      line += (line.empty() ? "" : "; ") + fmt::format("{} {}", v[i].second.n, v[i].first) +
              (ops.empty() ? "" : " [" + ops + "]") + " " + ms(v[i].second.s);
    }
    if (!line.empty()) out.push_back("Removed (gone, by where they ran): " + line + ".");
  }
  for (const char* status : {"faster", "gone", "new", "slower"}) {
    int shown = 0;
    std::string line;
    for (const auto& r : d.rows) {
      if (r.status != status) continue;
      if (shown++ >= top) break;
      line += (line.empty() ? "" : "; ") + short_name(r.name, 60) + (r.op.empty() ? "" : " [" + r.op + "]") +
              (r.scope.empty() ? "" : " in " + r.scope) + " " + ms(r.change_s);
    }
    if (!line.empty()) out.push_back(std::string(status) + ": " + line + ".");
  }
  return out;
}

}  // namespace goblin::analysis
