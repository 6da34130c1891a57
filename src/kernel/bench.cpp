#include <fmt/format.h>

#include <filesystem>

#include "core/io.h"
#include "core/text.h"
#include "kernel/integrity.h"
#include "kernel/loop.h"
#include "kernel/memory.h"
#include "kernel/proc.h"
#include "run/stats.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

Result<Json> summarize_bench(const Knowledge& k, const Json& raw, const Config& cfg) {
  if (!raw.is_object() || !raw.contains("correctness") || !raw["correctness"].is_object())
    return make_error(ErrorKind::Malformed, "bench result lacks \"correctness\" (not kernel_harness.py bench output)");
  const Json& c = raw["correctness"];
  Json s = {{"correctness",
             {{"passed", c.value("passed", false)},
              {"max_rel_err", c.contains("max_rel_err") ? c["max_rel_err"] : Json(nullptr)},
              {"threshold",
               c.contains("threshold") && c["threshold"].is_number() ? c["threshold"].get<double>() : cfg.rtol}}}};
  if (c.contains("message") && c["message"].is_string() && !c["message"].get<std::string>().empty())
    s["correctness"]["message"] = c["message"];
  const IntegrityLimits& lim = k.integrity;
  if (raw.contains("held_out")) s["held_out"] = raw["held_out"];
  std::vector<double> ms;
  if (raw.contains("samples_ms") && raw["samples_ms"].is_array())
    for (const auto& x : raw["samples_ms"])
      if (x.is_number()) ms.push_back(x.get<double>());
  if (ms.empty()) {  // correctness failed (or the timer was tampered with) before timing
    s["integrity"] = bench_integrity(raw, cfg, nullptr, lim);
    return s;
  }
  auto iv = bootstrap_median(ms);
  double sec = iv.point * 1e-3;
  double tflops = cfg.roof.flops / sec / 1e12, gbs = cfg.roof.bytes / sec / 1e9;
  double achieved = cfg.roof.target_metric == "GB/s" ? gbs : tflops;
  Json perf = {{"median_latency_ms", round_to(iv.point, 5)},
               {"latency_ci95_ms", {round_to(iv.low, 5), round_to(iv.high, 5)}},
               {"samples", static_cast<int>(ms.size())},
               {"timer", raw.value("timer", std::string("?"))},
               {"tflops", round_to(tflops, 2)},
               {"gbs", round_to(gbs, 1)},
               {"target_metric", cfg.roof.target_metric},
               {"target_value", round_to(cfg.roof.target, 2)},
               {"pct_of_target", round_to(100 * achieved / cfg.roof.target, 1)},
               {"pct_of_ceiling", round_to(100 * achieved / cfg.roof.ceiling, 1)},
               {"target_met", achieved >= cfg.roof.target}};
  // A result that fails an integrity check is never reported as meeting the target.
  s["integrity"] = bench_integrity(raw, cfg, &iv.point, lim);
  if (!s["integrity"]["passed"].get<bool>()) perf["target_met"] = false;
  if (raw.contains("baseline") && raw["baseline"].contains("samples_ms")) {
    std::vector<double> b;
    for (const auto& x : raw["baseline"]["samples_ms"])
      if (x.is_number()) b.push_back(x.get<double>());
    if (!b.empty()) {
      auto bi = bootstrap_median(b);
      auto ratio = bootstrap_ratio(b, ms);  // baseline time / kernel time: > 1 means faster
      double bs = bi.point * 1e-3;
      perf["baseline"] = {{"name", raw["baseline"].value("name", std::string("baseline"))},
                          {"median_latency_ms", round_to(bi.point, 5)},
                          {"latency_ci95_ms", {round_to(bi.low, 5), round_to(bi.high, 5)}},
                          {"tflops", round_to(cfg.roof.flops / bs / 1e12, 2)},
                          {"gbs", round_to(cfg.roof.bytes / bs / 1e9, 1)},
                          {"speedup_vs_baseline", run::interval_to_json(ratio, 4)}};
    }
  }
  s["performance"] = perf;
  if (raw.contains("device")) s["device"] = raw["device"];
  return s;
}

std::string bench_human(const Json& s, const Config& cfg) {
  std::string h;
  const Json& c = s["correctness"];
  h += std::string("correctness: ") + (c["passed"].get<bool>() ? "passed" : "FAILED") + " (max rel err " +
       (c["max_rel_err"].is_number() ? format_sig(c["max_rel_err"].get<double>(), 3) : "non-finite") + ", threshold " +
       format_sig(c["threshold"].get<double>(), 3) + ")\n";
  h += integrity_human(s);
  if (!s.contains("performance") || (s.contains("integrity") && !s["integrity"].value("passed", true))) return h;
  const Json& p = s["performance"];
  h += "latency: " + format_sig(p["median_latency_ms"].get<double>(), 4) + " ms median (95% CI " +
       format_sig(p["latency_ci95_ms"][0].get<double>(), 4) + "-" +
       format_sig(p["latency_ci95_ms"][1].get<double>(), 4) + ", " + fmt::format("{}", p["samples"].get<int>()) +
       " samples, " + p["timer"].get<std::string>() + ")\n";
  h += "throughput: " + format_fixed(p["tflops"].get<double>(), 1) + " TFLOP/s, " +
       format_fixed(p["gbs"].get<double>(), 1) + " GB/s\n";
  double achieved = cfg.roof.target_metric == "GB/s" ? p["gbs"].get<double>() : p["tflops"].get<double>();
  h += "Stop Condition (" + cfg.roof.target_metric + " >= " + format_fixed(cfg.roof.target, 1) +
       "): " + format_fixed(p["pct_of_target"].get<double>(), 1) + " % of target — ";
  h += p["target_met"].get<bool>()
           ? "target met\n"
           : format_fixed(cfg.roof.target - achieved, 1) + " " + cfg.roof.target_metric + " to go\n";
  if (p.contains("baseline")) {
    const Json& b = p["baseline"];
    h += "baseline " + b["name"].get<std::string>() + ": " + format_sig(b["median_latency_ms"].get<double>(), 4) +
         " ms, " + format_fixed(b["tflops"].get<double>(), 1) + " TFLOP/s, " + format_fixed(b["gbs"].get<double>(), 1) +
         " GB/s; kernel speedup vs baseline " + format_fixed(b["speedup_vs_baseline"]["point"].get<double>(), 3) +
         "x\n";
  }
  return h;
}

Result<RunSetup> prepare_run(const Knowledge& k, const std::string& ws, const RunOptions& o) {
  RunSetup r;
  ASSIGN_OR_RETURN(auto cfg, load_config(ws));
  r.cfg = std::move(cfg);
  ASSIGN_OR_RETURN(auto n, next_version(k, ws));
  r.version = n;
  r.harness = find_harness(o.harness);
  if (r.harness.empty())
    return make_error(ErrorKind::Environment, "tools/kernel_harness.py not found (set GOBLIN_TOOLS_DIR or --harness)");
  r.dir = (fs::path(ws) / "profiles" / (fmt::format("v{}", r.version))).string();
  std::error_code ec;
  fs::create_directories(r.dir, ec);
  return r;
}

namespace {

// The harness died (a signal, an exit without a verdict) or ran past the deadline: its last
// checkpoint (the stage it reached, what it had found) plus a named finding with the evidence, so
// the bench still ends in a verdict and nothing is recorded.
Json harness_failure_verdict(const std::string& raw_path, const ProcOut& p, double timeout_s) {
  Json raw = Json::object();
  if (auto t = read_all(raw_path); t.ok())
    if (auto j = parse_json_text(*t, raw_path, "checkpoint"); j.ok() && j->is_object()) raw = *j;
  const std::string stage = raw.value("stage", std::string("start (before the harness's first checkpoint)"));
  const std::string tail = p.err.substr(p.err.size() > 1500 ? p.err.size() - 1500 : 0);
  std::string check = "crash", message;
  if (p.timed_out) {
    check = "deadline";
    message = fmt::format(
        "the bench ran past goblin's {:.0f} s deadline during {} and was killed (a hang, or a kernel far slower "
        "than its budget)",
        timeout_s, stage);
  } else if (p.term_signal) {
    message = fmt::format(
        "the harness was killed by signal {} during {} (the kernel crashed the process: an illegal address, a "
        "segfault, an abort)",
        p.term_signal, stage);
  } else {
    message = fmt::format("the harness exited {} without a verdict during {}", p.code, stage);
  }
  const Json finding = {
      {"check", check},
      {"message", message},
      {"evidence", {{"stage", stage}, {"exit", p.code}, {"signal", p.term_signal}, {"stderr_tail", tail}}}};
  Json integrity = raw.contains("integrity") && raw["integrity"].is_object() ? raw["integrity"] : Json::object();
  Json problems =
      integrity.contains("problems") && integrity["problems"].is_array() ? integrity["problems"] : Json::array();
  problems.push_back(finding);
  integrity.update(Json{{"problems", problems}, {"passed", false}});
  Json correctness =
      raw.contains("correctness") && raw["correctness"].is_object() ? raw["correctness"] : Json::object();
  correctness.update(Json{{"passed", false}});
  if (!correctness.contains("message")) correctness.update(Json{{"message", "no verdict on correctness: " + check}});
  raw.update(Json{{"integrity", integrity}, {"correctness", correctness}});
  raw.erase("samples_ms");  // nothing timed is reported from a run that did not finish
  return raw;
}

}  // namespace

Result<Json> run_bench(const std::string& ws, const RunOptions& o) {
  ASSIGN_OR_RETURN(auto k, knowledge());
  return run_bench(*k, ws, o);
}

Result<Json> run_bench(const Knowledge& k, const std::string& ws, const RunOptions& o) {
  ASSIGN_OR_RETURN(auto setup, prepare_run(k, ws, o));
  const Config& cfg = setup.cfg;
  const int n = setup.version;
  const std::string& harness = setup.harness;
  const fs::path dir = setup.dir;
  std::error_code ec;
  // The harness runs in the workspace: every path it is given is absolute, so a workspace named
  // relative to the caller's directory still resolves.
  std::string raw_path = fs::absolute(dir / "bench_raw.json").lexically_normal().string();
  // The harness stops itself (a `deadline` finding) a little before goblin would kill it.
  const double deadline = o.timeout_s > 20 ? o.timeout_s - 10 : 0;
  ASSIGN_OR_RETURN(auto p, run_capture({o.python, harness, "bench", "--kernel",
                                        fs::absolute(fs::path(ws) / "kernel.py").lexically_normal().string(), "--shape",
                                        cfg.shape.dump(), "--rtol", format_sig(cfg.rtol, 6), "--rep-ms",
                                        format_sig(o.rep_ms, 6), "--warmup-ms", format_sig(o.warmup_ms, 6),
                                        "--deadline-s", format_sig(deadline, 6), "--out", raw_path},
                                       ws, o.timeout_s, "", true));
  Json raw;
  if (p.code == 7 && !p.timed_out)  // the harness's "no torch here": the machine's fault, not the kernel's
    return make_error(ErrorKind::Environment, "the kernel harness cannot run here: " + p.err.substr(0, 500),
                      (fs::path(ws) / "kernel.py").string());
  if (p.code != 0 || p.timed_out) {
    raw = harness_failure_verdict(raw_path, p, o.timeout_s);
  } else {
    ASSIGN_OR_RETURN(auto text, read_all(raw_path));
    ASSIGN_OR_RETURN(auto parsed, parse_json_text(text, raw_path, "harness output is not valid JSON"));
    raw = std::move(parsed);
    // Harness 3 marks a finished bench: a checkpoint left by a kernel that ended the process with
    // exit status 0 is not a result.
    if (raw.is_object() && raw.value("harness", std::string()) == "goblin kernel_harness 3" &&
        !raw.value("complete", false))
      raw = harness_failure_verdict(raw_path, p, o.timeout_s);
  }
  auto s = summarize_bench(k, raw, cfg);
  if (!s.ok()) return make_error(s.error().kind, s.error().message, raw_path);
  Json full = raw;
  full["summary"] = *s;
  RETURN_IF_ERROR(write_file((dir / "bench.json").string(), full.dump(1) + "\n"));
  fs::remove(raw_path, ec);
  if (!(*s)["integrity"].value("passed", true))
    return make_error(ErrorKind::Workload, integrity_error((*s)["integrity"]), (dir / "bench.json").string());
  Json out = *s;
  out["bench_file"] = (dir / "bench.json").string();
  out["version"] = n;
  return out;
}

}  // namespace goblin::kernel
