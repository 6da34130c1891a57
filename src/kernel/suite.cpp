#include "kernel/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "core/io.h"
#include "core/stats.h"
#include "core/text.h"
#include "hw/knowledge.h"
#include "kernel/integrity.h"
#include "kernel/proc.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

namespace {

std::vector<double> samples(const Json& j) {
  std::vector<double> out;
  if (j.is_object() && j.contains("samples_ms") && j["samples_ms"].is_array())
    for (const auto& x : j["samples_ms"])
      if (x.is_number()) out.push_back(x.get<double>());
  return out;
}

// One reference (eager or compiled) against the kernel's samples: its median and the speedup
// median(reference) / median(kernel) with its bootstrap interval.
Json versus(const Json& raw, const char* key, const std::vector<double>& kernel_ms) {
  if (!raw.contains(key)) return nullptr;
  const Json& r = raw[key];
  Json j = {{"name", r.value("name", std::string(key))}};
  if (r.contains("error")) {
    j["error"] = r["error"];
    return j;
  }
  auto ms = samples(r);
  if (ms.empty() || kernel_ms.empty()) return j;
  auto ratio = bootstrap_ratio(ms, kernel_ms);
  j["median_latency_ms"] = round_to(median(ms), 5);
  j["speedup"] = round_to(ratio.point, 4);
  j["speedup_ci95"] = {round_to(ratio.low, 4), round_to(ratio.high, 4)};
  return j;
}

Result<Json> read_json(const std::string& path) {
  ASSIGN_OR_RETURN(auto t, read_all(path));
  return parse_json_text(t, path, "bench result is not valid JSON");
}

Result<Json> raw_result(const SuiteOptions& o, const Config& cfg, const std::string& file, const std::string& stem) {
  if (!o.results.empty()) {
    const std::string p = (fs::path(o.results) / (stem + ".json")).string();
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      return make_error(ErrorKind::NotFound, "no recorded result " + stem + ".json in the results directory", p);
    return read_json(p);
  }
  const std::string harness = find_harness(o.run.harness);  // absolute
  if (harness.empty())
    return make_error(ErrorKind::Environment, "tools/kernel_harness.py not found (set GOBLIN_TOOLS_DIR or --harness)");
  // Absolute paths: the harness runs in the output directory.
  const std::string out = fs::absolute(fs::path(o.out) / (stem + ".json")).string();
  std::error_code ec;
  fs::create_directories(fs::path(out).parent_path(), ec);
  ASSIGN_OR_RETURN(
      auto p, run_capture({o.run.python, harness, "bench", "--suite", "--kernel", fs::absolute(file).string(),
                           "--shape", cfg.shape.dump(), "--rtol", format_sig(cfg.rtol, 6), "--rep-ms",
                           format_sig(o.run.rep_ms, 6), "--warmup-ms", format_sig(o.run.warmup_ms, 6), "--out", out},
                          o.out, o.run.timeout_s));
  if (p.code != 0)
    return make_error(ErrorKind::Workload,
                      fmt::format("the harness failed (exit {}); stderr tail: {}", p.code,
                                  p.err.substr(p.err.size() > 1500 ? p.err.size() - 1500 : 0)),
                      file);
  return read_json(out);
}

// `task` is the file's path under DIR without .py ("matmul/v2"): its raw result is <task>.json.
Json score(const Knowledge& k, const SuiteOptions& o, const std::string& file, const std::string& task) {
  Json row = {{"task", task}, {"correct", false}};
  InitOptions io;
  io.name = fs::path(file).stem().string();
  io.kernel_file = file;
  io.platform = o.platform;
  io.dtype = o.dtype;
  io.rtol = o.rtol;
  io.python = o.run.python;
  io.harness = o.run.harness;
  auto cfg = describe_kernel(k, io);
  if (!cfg.ok()) {
    row["error"] = cfg.error().message;
    return row;
  }
  row["op"] = cfg->problem_op.empty() ? Json(nullptr) : Json(cfg->problem_op);
  row["shape"] = cfg->shape;
  row["bound"] = cfg->roof.bound;
  row["metric"] = cfg->roof.target_metric;
  auto raw = raw_result(o, *cfg, file, task);
  if (!raw.ok()) {
    row["error"] = raw.error().message;
    return row;
  }
  auto s = summarize_bench(k, *raw, *cfg);
  if (!s.ok()) {
    row["error"] = s.error().message;
    return row;
  }
  const Json& sm = *s;
  const bool passed = sm["correctness"].value("passed", false);
  const bool held = !sm.contains("held_out") || sm["held_out"].value("passed", false);
  const bool honest = sm["integrity"].value("passed", false);
  row["checks"] = {{"correctness", passed}, {"held_out", held}, {"integrity", honest}};
  if (sm["correctness"].contains("message")) row["message"] = sm["correctness"]["message"];
  if (!held)
    for (const auto& c : sm["held_out"].value("cases", Json::array()))
      if (!c.value("passed", false)) {
        row["message"] =
            "held-out shape " + c.value("shape", Json()).dump() + ": " + c.value("message", Json("")).dump();
        break;
      }
  if (!honest) row["message"] = integrity_error(sm["integrity"]);
  if (!sm.contains("performance")) return row;
  const Json& p = sm["performance"];
  row["correct"] = passed && held && honest;
  row["median_latency_ms"] = p["median_latency_ms"];
  row["achieved"] = p[cfg->roof.target_metric == "GB/s" ? "gbs" : "tflops"];
  row["pct_of_roofline"] = p["pct_of_ceiling"];
  // Beside fast_p: the fraction of the speed of light (the measured ceiling of data/measured/ when
  // there is one, else the datasheet's), and any speedup above kReverifySpeedup flagged: kernel
  // engineers and compilers are good, so such a win is re-verified before it is believed.
  if (p["pct_of_ceiling"].is_number())
    row.update(Json{{"fraction_of_sol", round_to(p["pct_of_ceiling"].get<double>() / 100, 4)}});
  row.update(Json{
      {"sol_ceiling",
       {{"value", cfg->roof.ceiling}, {"metric", cfg->roof.target_metric}, {"measured", cfg->roof.ceiling_measured}}}});
  const auto ms = samples(*raw);
  row["eager"] = versus(*raw, "eager", ms);
  row["compiled"] = versus(*raw, "compiled", ms);
  Json flags = Json::array();
  for (const char* ref : {"eager", "compiled"})
    if (row[ref].is_object() && row[ref].contains("speedup") && row[ref]["speedup"].get<double>() > kReverifySpeedup)
      flags.push_back(
          fmt::format("{:.1f}x over {}: above {:.0f}x, re-verify before believing it (KernelBench: a >2x "
                      "speedup is unlikely; results this large have come from benchmark exploits)",
                      row[ref]["speedup"].get<double>(), ref, kReverifySpeedup));
  if (!flags.empty()) row.update(Json{{"reverify", flags}});
  return row;
}

double speedup_of(const Json& row, const std::string& key) {
  if (!row.contains(key) || !row[key].is_object() || !row[key].contains("speedup")) return -1;
  return row[key]["speedup"].get<double>();
}

std::string cell(const Json& v, int digits, const char* suffix = "") {
  return v.is_number() ? format_fixed(v.get<double>(), digits) + suffix : std::string("-");
}

std::string task_name(const std::string& dir, const std::string& file) {
  return fs::path(file).lexically_relative(dir).replace_extension().generic_string();
}

// "matmul/v2" -> "matmul"; a file directly in DIR is its own problem.
std::string problem_of(const std::string& task) {
  const auto slash = task.find('/');
  return slash == std::string::npos ? task : task.substr(0, slash);
}

}  // namespace

// KernelBench's rates and geometric means over rows (files or problems): the counts are the
// caller's, since a problem row counts as correct when any of its versions is.
Json aggregate(const Json& rows) {
  size_t correct = 0;
  for (const auto& r : rows) correct += r.value("correct", false) ? 1 : 0;
  const double n = rows.empty() ? 1.0 : static_cast<double>(rows.size());
  return Json{{"correctness_rate", round_to(static_cast<double>(correct) / n, 4)},
              {"fast_1_eager", round_to(fast_p(rows, "eager", 1.0), 4)},
              {"fast_1.5_eager", round_to(fast_p(rows, "eager", 1.5), 4)},
              {"fast_1_compiled", round_to(fast_p(rows, "compiled", 1.0), 4)},
              {"fast_1.5_compiled", round_to(fast_p(rows, "compiled", 1.5), 4)},
              {"geomean_speedup_eager", geomean_speedup(rows, "eager")},
              {"geomean_speedup_compiled", geomean_speedup(rows, "compiled")}};
}

Json best_per_problem(const Json& rows) {
  std::vector<std::string> order;
  std::map<std::string, Json> best;
  std::map<std::string, Json> versions;
  for (const auto& r : rows) {
    const std::string task = r["task"].get<std::string>(), p = problem_of(task);
    if (!versions.count(p)) {
      order.push_back(p);
      versions[p] = Json::array();
      best[p] = Json{{"problem", p}, {"op", r.value("op", Json())}, {"correct", false}, {"best", nullptr}};
    }
    versions[p].push_back(task);
    if (!r.value("correct", false) || !r.value("median_latency_ms", Json()).is_number()) continue;
    const Json& cur = best[p];
    if (cur.value("correct", false) && cur["median_latency_ms"].get<double>() <= r["median_latency_ms"].get<double>())
      continue;
    Json b = r;
    b["problem"] = p;
    b["best"] = task;
    b.erase("task");
    best[p] = std::move(b);
  }
  Json out = Json::array();
  for (const auto& p : order) {
    Json b = best[p];
    b["versions"] = versions[p];
    out.push_back(std::move(b));
  }
  return out;
}

double fast_p(const Json& rows, const std::string& key, double p) {
  if (rows.empty()) return 0;
  size_t n = 0;
  for (const auto& r : rows)
    if (r.value("correct", false) && speedup_of(r, key) > p) ++n;
  return static_cast<double>(n) / static_cast<double>(rows.size());
}

Json geomean_speedup(const Json& rows, const std::string& key) {
  std::vector<double> logs;
  for (const auto& r : rows) {
    const double s = speedup_of(r, key);
    if (r.value("correct", false) && s > 0) logs.push_back(std::log(s));
  }
  if (logs.empty()) return nullptr;
  auto gm = [](const std::vector<double>& x) {
    double t = 0;
    for (double v : x) t += v;
    return std::exp(t / static_cast<double>(x.size()));
  };
  std::mt19937_64 rng(kBootstrapSeed);
  std::uniform_int_distribution<size_t> pick(0, logs.size() - 1);
  std::vector<double> boot, draw(logs.size());
  for (int b = 0; b < 2000; ++b) {
    for (auto& d : draw) d = logs[pick(rng)];
    boot.push_back(gm(draw));
  }
  std::sort(boot.begin(), boot.end());
  auto q = [&](double f) { return boot[static_cast<size_t>(f * static_cast<double>(boot.size() - 1))]; };
  return Json{{"point", round_to(gm(logs), 4)},
              {"low", round_to(q(0.025), 4)},
              {"high", round_to(q(0.975), 4)},
              {"n", logs.size()}};
}

Result<Json> run_suite(const Knowledge& k, const SuiteOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec)) return make_error(ErrorKind::Io, "not a directory of kernel files", o.dir);
  if (!o.results.empty() && !fs::is_directory(o.results, ec))
    return make_error(ErrorKind::Io, "--results is not a directory", o.results);
  if (auto g = k.hw().gpu(o.platform); !g.ok())
    return make_error(ErrorKind::NotFound, "unknown platform \"" + o.platform + "\" (goblin specs --list)");
  // DIR/*.py and DIR/*/*.py (one folder per problem, one file per solution: examples/kernel).
  std::vector<std::string> files;
  auto scan = [&](const fs::path& d, auto& self, int depth) -> void {
    for (const auto& e : fs::directory_iterator(d, ec)) {
      const std::string n = e.path().filename().string();
      if (n.empty() || n[0] == '_' || n[0] == '.') continue;
      if (e.is_regular_file(ec) && e.path().extension() == ".py")
        files.push_back(e.path().string());
      else if (depth == 0 && e.is_directory(ec) && !e.is_symlink(ec))
        self(e.path(), self, 1);
    }
  };
  scan(o.dir, scan, 0);
  std::sort(files.begin(), files.end());
  if (!o.tasks.empty()) {
    std::vector<std::string> kept;
    std::vector<bool> used(o.tasks.size(), false);
    for (const auto& f : files) {
      const std::string task = task_name(o.dir, f);
      bool keep = false;
      for (size_t i = 0; i < o.tasks.size(); ++i)
        if (o.tasks[i] == task || o.tasks[i] == problem_of(task)) keep = used[i] = true;
      if (keep) kept.push_back(f);
    }
    for (size_t i = 0; i < o.tasks.size(); ++i)
      if (!used[i])
        return make_error(ErrorKind::Usage,
                          fmt::format("task \"{}\" names no kernel file of the directory (a problem folder such as "
                                      "matmul, or one file such as matmul/v2)",
                                      o.tasks[i]),
                          o.dir);
    files = std::move(kept);
  }
  if (files.empty())
    return make_error(ErrorKind::Usage,
                      "no kernel files (*.py) in the directory: each defines make_inputs, kernel, "
                      "reference (docs/kernel.md)",
                      o.dir);
  if (o.results.empty()) {
    if (o.out.empty()) return make_error(ErrorKind::Usage, "a suite run needs --out DIR for its raw results");
    fs::create_directories(o.out, ec);
    if (ec) return make_error(ErrorKind::Io, "cannot create the output directory: " + ec.message(), o.out);
  }
  Json rows = Json::array();
  for (const auto& f : files) rows.push_back(score(k, o, f, task_name(o.dir, f)));
  size_t correct = 0;
  double roof = 0;
  size_t roof_n = 0;
  for (const auto& r : rows) {
    if (!r.value("correct", false)) continue;
    ++correct;
    if (r.contains("pct_of_roofline") && r["pct_of_roofline"].is_number()) {
      roof += r["pct_of_roofline"].get<double>();
      ++roof_n;
    }
  }
  Json metrics = {{"tasks", rows.size()}, {"correct", correct}};
  metrics.update(aggregate(rows));
  metrics["mean_pct_of_roofline"] = roof_n ? Json(round_to(roof / static_cast<double>(roof_n), 2)) : Json();
  metrics.update(
      Json{{"mean_fraction_of_sol", roof_n ? Json(round_to(roof / static_cast<double>(roof_n) / 100, 4)) : Json()}});
  Json reverify = Json::array();
  for (const auto& r : rows)
    if (r.contains("reverify")) reverify.push_back(r.value("task", std::string()));
  metrics.update(Json{{"reverify_tasks", reverify}});
  Json problems = best_per_problem(rows);
  size_t solved = 0;
  for (const auto& p : problems) solved += p.value("correct", false) ? 1 : 0;
  Json pm = {{"problems", problems.size()}, {"solved", solved}};
  pm.update(aggregate(problems));
  Json out = {
      {"dir", o.dir},        {"platform", o.platform}, {"source", o.results.empty() ? "run" : "recorded results"},
      {"metrics", metrics},  {"tasks", rows},          {"problem_metrics", pm},
      {"problems", problems}};
  if (!o.out.empty()) {
    fs::create_directories(o.out, ec);
    RETURN_IF_ERROR(write_file((fs::path(o.out) / "suite.json").string(), out.dump(2) + "\n"));
    RETURN_IF_ERROR(write_file((fs::path(o.out) / "suite.md").string(), suite_markdown(out)));
  }
  return out;
}

std::string suite_markdown(const Json& s) {
  std::string md = fmt::format("# Kernel suite on {}\n\n", s.value("platform", std::string("?")));
  md +=
      "| task | op | correct | kernel ms | eager ms | x eager | compiled ms | x compiled | % of roofline |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : s["tasks"]) {
    auto ref = [&](const char* key, const char* what) -> std::string {
      if (!r.contains(key) || !r[key].is_object()) return "-";
      const Json& x = r[key];
      if (x.contains("error")) return std::string("(failed)");
      return cell(x.value(what, Json()), std::string(what) == "speedup" ? 2 : 4,
                  std::string(what) == "speedup" ? "x" : "");
    };
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r["task"].get<std::string>(),
                      r.value("op", Json()).is_string() ? r["op"].get<std::string>() : "-",
                      r.value("correct", false) ? "yes" : (r.contains("error") ? "error" : "NO"),
                      cell(r.value("median_latency_ms", Json()), 4), ref("eager", "median_latency_ms"),
                      ref("eager", "speedup"), ref("compiled", "median_latency_ms"), ref("compiled", "speedup"),
                      cell(r.value("pct_of_roofline", Json()), 1, " %"));
  }
  const Json& m = s["metrics"];
  auto gm = [](const Json& g) {
    return g.is_null() ? std::string("-")
                       : fmt::format("{:.3f}x (95 % CI {:.3f}-{:.3f}, {} tasks)", g["point"].get<double>(),
                                     g["low"].get<double>(), g["high"].get<double>(), g["n"].get<int>());
  };
  md += fmt::format("\ncorrectness rate: {}/{} ({:.1f} %)\n", m["correct"].get<int>(), m["tasks"].get<int>(),
                    100 * m["correctness_rate"].get<double>());
  md += fmt::format("fast_1 / fast_1.5 vs eager: {:.1f} % / {:.1f} %\n", 100 * m["fast_1_eager"].get<double>(),
                    100 * m["fast_1.5_eager"].get<double>());
  md += fmt::format("fast_1 / fast_1.5 vs torch.compile: {:.1f} % / {:.1f} %\n",
                    100 * m["fast_1_compiled"].get<double>(), 100 * m["fast_1.5_compiled"].get<double>());
  md += "geometric-mean speedup vs eager: " + gm(m["geomean_speedup_eager"]) + "\n";
  md += "geometric-mean speedup vs torch.compile: " + gm(m["geomean_speedup_compiled"]) + "\n";
  md += "mean % of roofline (correct tasks): " + cell(m["mean_pct_of_roofline"], 1, " %") + "\n";
  if (s.contains("problems") && s["problems"].is_array() && !s["problems"].empty()) {
    // KernelBench scores a problem by its solution: here the fastest correct version of each.
    md +=
        "\n## By problem (its fastest correct version)\n\n"
        "| problem | best | x eager | x compiled | % of roofline |\n|---|---|---|---|---|\n";
    for (const auto& p : s["problems"]) {
      auto x = [&](const char* key) {
        return p.contains(key) && p[key].is_object() ? cell(p[key].value("speedup", Json()), 2, "x") : std::string("-");
      };
      md += fmt::format("| {} | {} | {} | {} | {} |\n", p["problem"].get<std::string>(),
                        p["best"].is_string() ? p["best"].get<std::string>() : "none correct", x("eager"),
                        x("compiled"), cell(p.value("pct_of_roofline", Json()), 1, " %"));
    }
    const Json& q = s["problem_metrics"];
    md += fmt::format("\nproblems solved: {}/{}\n", q["solved"].get<int>(), q["problems"].get<int>());
    md += fmt::format("fast_1 / fast_1.5 vs eager: {:.1f} % / {:.1f} %; vs torch.compile: {:.1f} % / {:.1f} %\n",
                      100 * q["fast_1_eager"].get<double>(), 100 * q["fast_1.5_eager"].get<double>(),
                      100 * q["fast_1_compiled"].get<double>(), 100 * q["fast_1.5_compiled"].get<double>());
    md += "geometric-mean speedup vs eager: " + gm(q["geomean_speedup_eager"]) + "\n";
    md += "geometric-mean speedup vs torch.compile: " + gm(q["geomean_speedup_compiled"]) + "\n\n";
  }
  for (const auto& r : s["tasks"])
    if (r.contains("error") || r.contains("message"))
      md += fmt::format("- {}: {}\n", r["task"].get<std::string>(),
                        r.contains("error") ? r["error"].get<std::string>() : r["message"].get<std::string>());
  return md;
}

}  // namespace goblin::kernel
