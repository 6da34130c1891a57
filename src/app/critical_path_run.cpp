#include "app/critical_path_run.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "analysis/critical_path.h"
#include "analysis/knowledge.h"
#include "analysis/step_time.h"
#include "model/warning_json.h"
#include "trace/load.h"

namespace goblin::app {

namespace {

double sec(int64_t ns) { return round_to(static_cast<double>(ns) / 1e9, 9); }
double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// "gemm=2", "attention=1.5,flash_fwd=3": each term a taxonomy category when its left side names
// one, else a kernel-name substring; k in (0, 1e6]. At most 64 terms.
Result<analysis::WhatIf> parse_what_if(const std::string& s, const analysis::Taxonomy& tax) {
  analysis::WhatIf w;
  auto bad = [&](std::string_view term) {
    return make_error(ErrorKind::Usage,
                      fmt::format("--what-if wants CATEGORY=k or KERNEL=k (k > 0: k times faster), several joined "
                                  "by commas; got '{}'",
                                  term));
  };
  size_t from = 0;
  while (from <= s.size()) {
    const size_t comma = std::min(s.find(',', from), s.size());
    const std::string term = s.substr(from, comma - from);
    from = comma + 1;
    const size_t eq = term.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == term.size() || w.terms.size() >= 64) return bad(term);
    const std::string lhs = term.substr(0, eq), rhs = term.substr(eq + 1);
    double k = 0;
    auto [p, ec] = std::from_chars(rhs.data(), rhs.data() + rhs.size(), k);
    if (ec != std::errc() || p != rhs.data() + rhs.size() || !std::isfinite(k) || k <= 0 || k > 1e6) return bad(term);
    analysis::WhatIfTerm t;
    t.speedup = k;
    bool is_cat = lhs == "memcpy" || lhs == "memset";
    for (const std::string& c : tax.categories()) is_cat = is_cat || c == lhs;
    (is_cat ? t.category : t.kernel) = lhs;
    w.terms.push_back(std::move(t));
  }
  return w;
}

Json attribution_json(const analysis::StepPath& p) {
  Json a = Json::object();
  for (size_t b = 0; b < analysis::kPathBuckets; ++b)
    a[analysis::path_bucket_name(static_cast<analysis::PathBucket>(b))] = sec(p.bucket_ns[b]);
  return a;
}

std::string render(const analysis::CriticalPathResult& r, const std::string& what_if_text) {
  std::string h = fmt::format("critical path per step ({})\n", r.steps.method);
  fmt::format_to(
      std::back_inserter(h),
      "graph: {} events, {} launch, {} stream, {} thread, {} cross-stream, {} cross-thread, {} sync edges ({} of them "
      "launches blocked on a full queue); "
      "median launch latency {:.3f} us\n",
      r.nodes, r.launch_edges, r.stream_edges, r.thread_edges, r.cross_stream_edges, r.thread_waits, r.sync_edges,
      r.blocked_launches, static_cast<double>(r.launch_latency_ns) / 1e3);
  for (const analysis::StepPath& p : r.paths) {
    fmt::format_to(std::back_inserter(h), "  {:<24} step {:.3f} ms  path {:.3f} ms  {} events{}\n", p.step.name,
                   ms(p.step_ns), ms(p.length_ns), p.events, p.step.partial ? " (partial)" : "");
    std::string parts;
    for (size_t b = 0; b < analysis::kPathBuckets; ++b) {
      if (p.bucket_ns[b] == 0) continue;
      fmt::format_to(std::back_inserter(parts), "{}{} {:.3f} ms ({:.1f}%)", parts.empty() ? "" : ", ",
                     analysis::path_bucket_name(static_cast<analysis::PathBucket>(b)), ms(p.bucket_ns[b]),
                     p.step_ns ? 100.0 * static_cast<double>(p.bucket_ns[b]) / static_cast<double>(p.step_ns) : 0.0);
    }
    fmt::format_to(std::back_inserter(h), "    {}\n", parts);
    if (!p.gpu_by_category_ns.empty()) {
      std::string cats;
      for (const auto& [c, ns] : p.gpu_by_category_ns)
        fmt::format_to(std::back_inserter(cats), "{}{} {:.3f}", cats.empty() ? "" : ", ", c, ms(ns));
      fmt::format_to(std::back_inserter(h), "    GPU on the path by category (ms): {}\n", cats);
    }
    if (p.what_if_ns != kNone)
      fmt::format_to(
          std::back_inserter(h),
          "    what-if {}: the step would be {:.3f} ms ({:+.1f}%; subtracting along the path: {:.3f} ms)\n",
          what_if_text, ms(p.what_if_ns),
          p.step_ns ? 100.0 * static_cast<double>(p.what_if_ns - p.step_ns) / static_cast<double>(p.step_ns) : 0.0,
          ms(p.subtract_ns));
    for (const analysis::PathSegment& s : p.top) {
      std::string what(s.what.substr(0, 100));
      fmt::format_to(std::back_inserter(h), "      {:>10.3f} ms  {:<16} {}\n", ms(s.end_ns - s.start_ns),
                     analysis::path_bucket_name(s.bucket), what);
    }
  }
  for (const std::string& n : r.notes) fmt::format_to(std::back_inserter(h), "note: {}\n", n);
  for (const std::string& n : r.steps.notes) fmt::format_to(std::back_inserter(h), "note: {}\n", n);
  return h;
}

}  // namespace

std::vector<int64_t> rank_collective_floors(const analysis::AnalysisKnowledge& k,
                                            const std::vector<std::string>& traces, std::string* why) {
  std::vector<std::vector<int64_t>> per_rank;
  for (const std::string& t : traces) {
    auto in = trace::load_trace(t, trace::kNeedGpuOps);
    if (!in) {
      if (why) *why = fmt::format("{}: {}", t, in.error().describe());
      return {};
    }
    per_rank.push_back(analysis::collective_durations(in->timeline, k.taxonomy));
  }
  return analysis::collective_floors(per_rank, why);
}

VerbResult run_critical_path(const analysis::AnalysisKnowledge& k, const CriticalPathRequest& rq) {
  VerbResult vr;
  analysis::CriticalPathOptions opt;
  opt.top = static_cast<size_t>(std::max(0, rq.top));
  opt.annotation = rq.annotation;
  opt.comm_floor_ns = rq.comm_floor_ns;
  if (!rq.what_if.empty()) {
    auto w = parse_what_if(rq.what_if, k.taxonomy);
    if (!w) {
      vr.error = w.error();
      return vr;
    }
    opt.what_if = *w;
  }
  auto in = trace::load_trace(rq.trace, trace::kNeedGpuOps);
  if (!in) {
    vr.error = in.error();
    return vr;
  }
  const analysis::CriticalPathResult r = analysis::critical_path(in->timeline, k.taxonomy, opt);
  Json res;
  res["method"] = r.steps.method;
  // The one step time (docs/metrics.md § Step time) over the steps found; an --annotation's
  // windows are not steps.
  const double step_time_s = analysis::step_time(r.steps).seconds();
  res["step_time_s"] = rq.annotation.empty() && step_time_s > 0 ? Json(round_to(step_time_s, 9)) : Json(nullptr);
  res["graph"] = {{"events", r.nodes},
                  {"launch_edges", r.launch_edges},
                  {"stream_edges", r.stream_edges},
                  {"thread_edges", r.thread_edges},
                  {"cross_stream_edges", r.cross_stream_edges},
                  {"cross_stream_edges_from_args", r.cross_stream_from_args},
                  {"sync_edges", r.sync_edges},
                  {"thread_waits", r.thread_waits},
                  {"blocked_launches", r.blocked_launches},
                  {"graph_replay_kernels", r.graph_replay_kernels},
                  {"launch_latency_s", sec(r.launch_latency_ns)}};
  std::string what_if_text;
  if (opt.what_if.active()) {
    Json terms = Json::array();
    for (const analysis::WhatIfTerm& t : opt.what_if.terms) {
      const bool cat = !t.category.empty();
      fmt::format_to(std::back_inserter(what_if_text), "{}{} '{}' {:g}x faster", what_if_text.empty() ? "" : ", ",
                     cat ? "category" : "kernels matching", cat ? t.category : t.kernel, t.speedup);
      terms.push_back({{cat ? "category" : "kernel", cat ? t.category : t.kernel}, {"speedup", t.speedup}});
    }
    res["what_if"] = {{"terms", terms}, {"ops", r.what_if_ops}};
  } else {
    res["what_if"] = nullptr;
  }
  Json steps = Json::array();
  for (const analysis::StepPath& p : r.paths) {
    Json s;
    s["name"] = p.step.name;
    s["partial"] = p.step.partial;
    s["step_s"] = sec(p.step_ns);
    s["length_s"] = sec(p.length_ns);
    s["attribution"] = attribution_json(p);
    Json cats = Json::object();
    for (const auto& [c, ns] : p.gpu_by_category_ns) cats[c] = sec(ns);
    s["gpu_by_category"] = cats;
    s["events"] = p.events;
    Json top = Json::array();
    for (const analysis::PathSegment& seg : p.top)
      top.push_back({{"dur_s", sec(seg.end_ns - seg.start_ns)},
                     {"bucket", analysis::path_bucket_name(seg.bucket)},
                     {"what", seg.what}});
    s["longest"] = top;
    s["what_if_s"] = p.what_if_ns == kNone ? Json(nullptr) : Json(sec(p.what_if_ns));
    s["subtract_s"] = p.subtract_ns == kNone ? Json(nullptr) : Json(sec(p.subtract_ns));
    steps.push_back(std::move(s));
  }
  res["steps"] = std::move(steps);
  Json notes = Json::array();
  for (const std::string& n : r.notes) notes.push_back(n);
  for (const std::string& n : r.steps.notes) notes.push_back(n);
  res["notes"] = std::move(notes);
  res["warnings"] = warnings_to_json(in->timeline.warnings);
  vr.result = std::move(res);
  vr.human = render(r, what_if_text);
  for (const auto& w : in->timeline.warnings) vr.human += fmt::format("warning: {}\n", warning_text(w));
  if (in->damage) vr.error = in->damage;
  return vr;
}

}  // namespace goblin::app
