#include <fmt/format.h>

#include <ctime>
#include <filesystem>

#include "core/clock.h"
#include "core/io.h"
#include "core/text.h"
#include "kernel/integrity.h"
#include "kernel/loop.h"
#include "kernel/memory.h"
#include "kernel/proc.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

namespace {

Result<Json> read_json_file(const std::string& path, const std::string& what) {
  ASSIGN_OR_RETURN(auto t, read_all(path));
  return parse_json_text(t, path, what);
}

std::string lower(std::string s) { return ascii_lower(s); }

}  // namespace

Result<Json> record_iteration(const std::string& ws, const RecordOptions& o) {
  ASSIGN_OR_RETURN(auto k, knowledge());
  return record_iteration(*k, ws, o);
}

Result<Json> record_iteration(const Knowledge& kn, const std::string& ws, const RecordOptions& o) {
  if (o.summary.empty())
    return make_error(ErrorKind::Usage, "--summary TEXT is required: say what this iteration changed");
  ASSIGN_OR_RETURN(auto cfg, load_config(ws));
  RETURN_IF_ERROR(require_git_repo(ws));
  ASSIGN_OR_RETURN(auto its, load_iterations(kn, ws));
  ASSIGN_OR_RETURN(auto n, next_version(kn, ws));
  fs::path dir = fs::path(ws) / "profiles" / (fmt::format("v{}", n));
  std::error_code ec;
  std::string bench_path = o.bench_file.empty() ? (dir / "bench.json").string() : o.bench_file;
  if (!fs::is_regular_file(bench_path, ec))
    return make_error(ErrorKind::Usage,
                      fmt::format("no bench result for v{}: run `goblin kernel bench` first or pass --bench FILE", n),
                      bench_path);
  ASSIGN_OR_RETURN(auto bench, read_json_file(bench_path, "bench result is not valid JSON"));
  // The summary is recomputed from the raw samples (its integrity checks included), never taken
  // from the file's own "summary" unless the file holds nothing else (a workload's own bench).
  Json summary;
  if (bench.contains("correctness") || !bench.contains("summary")) {
    auto s = summarize_bench(kn, bench, cfg);
    if (!s.ok()) return make_error(s.error().kind, s.error().message, bench_path);
    summary = *s;
  } else {
    summary = bench["summary"];
  }
  auto notes = check_recordable(ws, bench, summary, o.bench_file.empty());
  if (!notes.ok()) return make_error(notes.error().kind, notes.error().message, bench_path);
  const Json& corr = summary["correctness"];
  if (!corr.value("passed", false))
    return make_error(ErrorKind::Workload,
                      "correctness failed (max rel err " + corr["max_rel_err"].dump() + " > threshold " +
                          corr["threshold"].dump() + fmt::format("): v{}", n) +
                          " is not recorded and nothing is committed (only correct iterations are kept)",
                      bench_path);
  if (!summary.contains("performance"))
    return make_error(ErrorKind::Malformed, "bench result has no timing samples", bench_path);
  fs::create_directories(dir, ec);
  Json full = bench;
  full["summary"] = summary;
  if (!o.bench_file.empty()) RETURN_IF_ERROR(write_file((dir / "bench.json").string(), full.dump(1) + "\n"));

  Json diag = nullptr;
  std::string profile_rel;
  if (!o.profile_file.empty()) {
    fs::copy_file(o.profile_file, dir / "ncu.csv", fs::copy_options::overwrite_existing, ec);
    if (ec) return make_error(ErrorKind::Io, "cannot copy the profile: " + ec.message(), o.profile_file);
    auto d = diagnose_profile(kn.hw(), (dir / "ncu.csv").string(), cfg);
    if (!d.ok()) return make_error(d.error().kind, d.error().message, o.profile_file);
    diag = *d;
    diag["profile"] = fs::relative(dir / "ncu.csv", ws, ec).string();
    RETURN_IF_ERROR(write_file((dir / "diagnosis.json").string(), diag.dump(1) + "\n"));
  } else if (fs::is_regular_file(dir / "diagnosis.json", ec)) {
    ASSIGN_OR_RETURN(auto d, read_json_file((dir / "diagnosis.json").string(), "diagnosis.json is not valid JSON"));
    diag = d;
  }
  Json bottlenecks = Json::array(), cls = nullptr;
  if (!diag.is_null()) {
    const Json& k = diag["kernels"][diag["primary"].get<size_t>()];
    bottlenecks = k.value("bottlenecks", Json::array());
    cls = k;
    cls.erase("bottlenecks");
    profile_rel = diag.value("profile", std::string());
  }
  std::string head;
  if (auto h = git(ws, {"rev-parse", "--short", "HEAD"}); h.ok() && h->code == 0)
    head = std::string(trim_blanks(h->out.substr(0, h->out.find('\n'))));
  IterationRecord rec;
  rec.version = n;
  if (!its.empty()) rec.parent = its.back().version;
  rec.change_summary = o.summary;
  rec.hypothesis = o.hypothesis;
  rec.tags = o.tags;
  rec.bottlenecks = bottlenecks;
  rec.classification = cls;
  rec.correctness = {true, corr["max_rel_err"], corr["threshold"]};
  rec.performance = summary["performance"];
  if (!profile_rel.empty()) rec.profile = profile_rel;
  if (!head.empty()) rec.commit = head;
  if (n == 0) rec.pitfalls_and_fixes = cfg.pitfalls;
  for (const auto& note : *notes) rec.pitfalls_and_fixes.push_back(note);
  if (diag.is_null())
    rec.pitfalls_and_fixes.emplace_back("no profile recorded for this iteration (run `goblin kernel profile`)");
  rec.recorded_at = now_iso8601();
  const Json& perf = rec.performance;
  const Json it = iteration_to_json(rec);
  auto errs = validate_iteration(kn, it);
  if (!errs.empty()) return make_error(ErrorKind::Internal, "the new record breaks the schema: " + errs.front());
  std::string mem = (fs::path(ws) / "memory" / (fmt::format("v{}.json", n))).string();
  RETURN_IF_ERROR(write_file(mem, it.dump(2) + "\n"));
  std::string metric = cfg.roof.target_metric;
  double achieved = perf[metric == "GB/s" ? "gbs" : "tflops"].get<double>();
  auto c = git_commit_all(ws, fmt::format("v{}: ", n) + o.summary + " (" + format_fixed(achieved, 1) + " " + metric +
                                  ", " + format_fixed(perf["pct_of_target"].get<double>(), 1) + " % of target)");
  if (!c.ok()) return c.error();
  Json out = {{"version", n}, {"memory_file", mem}, {"commit", *c}, {"record", it}};
  // Restore-best: a correct iteration slower than the best so far is kept in the history, and
  // the next one starts from the best version's kernel.py (KernelAgent's discipline).
  ASSIGN_OR_RETURN(auto now_its, load_iterations(kn, ws));
  const Iteration* best = best_iteration(now_its);
  out["restored_from"] = nullptr;
  if (best && best->version != n && metric_of(best->rec, metric) > metric_of(rec, metric)) {
    const std::string bc = iteration_commit(ws, best->version);
    if (o.keep) {
      out["kept_slower"] = true;
    } else if (!bc.empty()) {
      auto show = git(ws, {"show", bc + ":kernel.py"});
      if (!show.ok() || show->code != 0)
        return make_error(ErrorKind::Io,
                          fmt::format("v{} is recorded, but kernel.py of the best v{} ({}) cannot be read back: {}", n,
                                      best->version, bc, show.ok() ? show->err : show.error().message),
                          ws);
      RETURN_IF_ERROR(write_file((fs::path(ws) / "kernel.py").string(), show->out));
      auto rc = git_commit_all(
          ws, fmt::format("restore kernel.py from v{} (best, {} {}); v{} ({} {}) stays in the history", best->version,
                          format_fixed(metric_of(best->rec, metric), 1), metric, n, format_fixed(achieved, 1), metric));
      if (!rc.ok()) return rc.error();
      out["restored_from"] = best->version;
      out["restore_commit"] = *rc;
    }
  }
  return out;
}

std::string iteration_commit(const std::string& ws, int version) {
  auto g = git(ws, {"log", "--diff-filter=A", "--format=%h", "--", fmt::format("memory/v{}.json", version)});
  if (!g.ok() || g->code != 0) return "";
  return std::string(trim_blanks(g->out.substr(0, g->out.find('\n'))));
}

Result<Json> write_plan(const std::string& ws) {
  ASSIGN_OR_RETURN(auto k, knowledge());
  return write_plan(*k, ws);
}

Result<Json> write_plan(const Knowledge& kn, const std::string& ws) {
  ASSIGN_OR_RETURN(auto cfg, load_config(ws));
  ASSIGN_OR_RETURN(auto its, load_iterations(kn, ws));
  ASSIGN_OR_RETURN(auto n, next_version(kn, ws));
  const std::string metric = cfg.roof.target_metric;
  const Iteration* last = its.empty() ? nullptr : &its.back();
  const Iteration* best = best_iteration(its);
  std::string bound = cfg.roof.bound;
  std::string diag = "no unmasked iteration yet: record v0 (bench + profile) first";
  if (last) {
    const Json& cls = last->rec.classification;
    if (cls.is_object() && cls.contains("bound") && cls["bound"] != "unknown") bound = cls["bound"];
    diag = "class: " +
           (cls.is_object() ? cls.value("bound", std::string("?")) + " — " + cls.value("reason", std::string())
                            : "no profile") +
           "\n";
    int i = 1;
    for (const auto& b : last->rec.bottlenecks) {
      diag += fmt::format("{}. [", i++) + b.value("category", std::string("?")) + "] " +
              b.value("summary", std::string()) + "\n";
      for (const auto& rc : b.value("root_causes", Json::array())) {
        for (const auto& e : rc.value("evidence", Json::array()))
          diag += "   - evidence: " + e.value("metric", std::string()) + " = " + e["value"].dump() + "\n";
        for (const auto& f : rc.value("fixes", Json::array()))
          diag += "   - fix: " + f.value("fix", std::string()) + "\n";
      }
    }
  }
  std::string gap =
      "target " + metric + " >= " + format_fixed(cfg.roof.target, 1) + " (" + cfg.roof.ceiling_source + ")";
  if (best) {
    double v = best->rec.performance[metric == "GB/s" ? "gbs" : "tflops"].get<double>();
    gap +=
        fmt::format("; best v{} = ", best->version) + format_fixed(v, 1) + " " + metric + " (" +
        format_fixed(100 * v / cfg.roof.target, 1) + " % of target): " +
        (v >= cfg.roof.target ? "Stop Condition met" : format_fixed(cfg.roof.target - v, 1) + " " + metric + " to go");
  }
  Json cands = Json::array();
  std::string list;
  for (const Candidate& c : kn.candidates) {
    // An absent filter matches every workspace.
    auto in = [&](const std::optional<std::vector<std::string>>& filter, const std::string& v) {
      if (!filter) return true;
      for (const auto& x : *filter)
        if (lower(x) == lower(v)) return true;
      return false;
    };
    if (!in(c.vendors, cfg.vendor) || !in(c.archs, cfg.arch) || !in(c.bound, bound)) continue;
    const std::string& id = c.id;
    std::vector<int> tried;
    for (const auto& it : its) {
      bool hit = false;
      for (const auto& t : it.rec.tags.value_or(std::vector<std::string>{})) hit |= t == id;
      std::string s = lower(it.rec.change_summary);
      for (const auto& k : c.keywords) hit |= s.find(lower(k)) != std::string::npos;
      if (hit) tried.push_back(it.version);
    }
    std::string mark;
    for (int v : tried) mark += (mark.empty() ? " [tried in v" : ", v") + fmt::format("{}", v);
    if (!mark.empty()) mark += "]";
    list += "- `" + id + "`" + mark + ": " + c.title + "\n  <- " + c.source + "\n";
    cands.push_back({{"id", id}, {"title", c.title}, {"tried_in", tried}});
  }
  std::string where = fmt::format("{} unmasked iteration(s); ", its.size()) + cfg.roof.bound + " by Step 0 (AI " +
                      format_fixed(cfg.roof.ai, 3) + " vs ridge " + format_fixed(cfg.roof.ridge, 1) + ")";
  std::string md = kn.plan_template;
  auto put = [&md](const std::string& k, const std::string& v) {
    for (size_t p = 0; (p = md.find("{{" + k + "}}", p)) != std::string::npos; p += v.size())
      md.replace(p, k.size() + 4, v);
  };
  put("next", fmt::format("{}", n));
  put("name", cfg.name);
  put("date", now_iso8601());
  put("where", where);
  put("last", last ? fmt::format("{}", last->version) : "-");
  put("diagnosis", diag);
  put("gap", gap);
  put("bound", bound);
  put("candidates", list.empty() ? "(none in the catalogue for this bound and platform)\n" : list);
  std::string path = (fs::path(ws) / "plans" / (fmt::format("v{}_plan.md", n))).string();
  RETURN_IF_ERROR(write_file(path, md));
  return Json{{"path", path}, {"next_version", n}, {"bound", bound}, {"candidates", cands}, {"markdown", md}};
}

}  // namespace goblin::kernel
