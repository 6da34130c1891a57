#include "run/live_runner.h"

#include <fmt/format.h>

#include <filesystem>
#include <iterator>

#include "analysis/metrics_io.h"
#include "config/config_editor.h"
#include "config/workload_config.h"
#include "core/io.h"
#include "run/runners.h"

namespace fs = std::filesystem;

namespace goblin::run {

Result<std::string> LiveRunner::materialise(const config::WorkloadConfig& config, const std::string& tag) {
  const std::string& src = config.source_file;
  if (src.empty()) return make_error(ErrorKind::Usage, "the config has no source file to run");
  ASSIGN_OR_RETURN(auto orig, config::parse_config_file(src));
  std::map<std::string, Json> edits;
  for (const auto& [k, v] : config.values) {
    Json old = orig.get(k);
    if (old != v) edits[k] = v;
  }
  for (const auto& [k, v] : config.env_vars) {
    auto it = orig.env_vars.find(k);
    if (it == orig.env_vars.end() || it->second != v) edits["env." + k] = v;
  }
  if (edits.empty()) return src;
  ASSIGN_OR_RETURN(auto text, read_all(src));
  std::vector<std::string> unplaced;
  ASSIGN_OR_RETURN(auto edited, config::edit_config_text(text, orig, edits, &unplaced));
  if (!unplaced.empty()) {
    std::string u;
    for (auto& f : unplaced) u += (u.empty() ? "" : ", ") + f;
    return make_error(ErrorKind::Usage, "the patched config sets fields that have no place in " + src + ": " + u);
  }
  std::string dir = opt_.out_dir + "/live";
  RETURN_IF_ERROR(make_dirs(dir));
  std::string path = dir + "/" + tag + fs::path(src).extension().string();
  RETURN_IF_ERROR(write_file(path, edited));
  return path;
}

Result<LiveRunner::Prepared> LiveRunner::prepare(const config::WorkloadConfig& config, const std::string& tag) {
  ASSIGN_OR_RETURN(auto file, materialise(config, tag));
  files_.push_back(file);
  if (given_config_.empty()) given_config_ = config.source_file;
  ASSIGN_OR_RETURN(auto w, opt_.script.empty() ? resolve_workload(file, opt_.workload_flag)
                                               : script_workload(file, given_config_, opt_.script, opt_.script_args));
  return Prepared{file, w};
}

void LiveRunner::apply_bench_options(WorkloadSpec& side) const {
  side.steps = opt_.bench_steps;
  side.warmup = opt_.bench_warmup;
  side.timeout_s = opt_.timeout_s;
}

BenchRequest LiveRunner::bench_request(const std::string& work_dir) const {
  BenchRequest req;
  req.repeats = opt_.repeats;
  req.use_cache = opt_.use_cache;
  req.require_gpu = opt_.require_gpu;
  req.work_dir = work_dir;
  return req;
}

Result<analysis::RunMetrics> LiveRunner::profile(const config::WorkloadConfig& config) {
  ASSIGN_OR_RETURN(auto p, prepare(config, "profiled_config"));
  ProfileRequest req;
  req.workload = p.workload;
  req.workload.steps = opt_.profile_steps;
  req.workload.warmup = opt_.profile_warmup;
  req.tracer = opt_.tracer;
  req.workload.timeout_s = opt_.timeout_s;
  req.run_dir = fmt::format("{}/live/profile-{}", opt_.out_dir, ++n_);
  req.require_gpu = opt_.require_gpu;
  last_trace_.clear();
  auto po = profile_workload(req);
  log_.push_back(Json{{"call", "profile"}, {"config_file", p.file}, {"run", po.value}});
  if (po.error) return *po.error;
  last_trace_ = req.run_dir;
  ASSIGN_OR_RETURN(auto m, analysis::load_metrics_file(req.run_dir + "/metrics.json"));
  m.runner_kind = "live";
  if (const Json* pw = po.value.contains("profiled") ? &po.value["profiled"] : nullptr;
      pw && pw->contains("data_prefetch") && !(*pw)["data_prefetch"].value("note", "").empty())
    m.warnings.push_back(make_warning(W::window_on_prefetched_batches, (*pw)["data_prefetch"].value("note", "")));
  return m;
}

analysis::RunMetrics bench_to_run_metrics(const Json& b) {
  analysis::RunMetrics m;
  m.runner_kind = "live";
  m.step_time_s = b.value("step_time_s", 0.0);
  // A workload counted in images or samples that wrote no tokens: tokens/s is not observed (its
  // throughput, in its own unit, goes into the bench warning below), never "0 tokens/s".
  const bool other_unit = b.value("throughput_unit", std::string("tokens")) != "tokens";
  if (b.contains("tokens_per_sec") && b["tokens_per_sec"].is_number() &&
      !(other_unit && b["tokens_per_sec"].get<double>() <= 0))
    m.tokens_per_sec = b["tokens_per_sec"].get<double>();
  m.gpu_name = b.contains("gpu") ? b["gpu"].value("name", "") : "";
  if (b.contains("versions") && b["versions"].is_object())
    for (auto& [k, v] : b["versions"].items())
      if (v.is_string()) m.versions[k] = v.get<std::string>();
  m.window = fmt::format("bench: median of {} unprofiled runs x {} steps (first {} steps of each run excluded)",
                         b.value("repeats", 0), b.value("steps", 0), b.value("warmup", 0));
  if (b.contains("a") && b["a"].contains("step_time_s")) {
    const Json& ci = b["a"]["step_time_s"];
    std::string w = fmt::format("bench median step time {:g} s, 95% bootstrap interval [{:g}, {:g}]",
                                ci.value("point", 0.0), ci.value("low", 0.0), ci.value("high", 0.0));
    if (b["a"].contains("aa_noise_floor_pct") && b["a"]["aa_noise_floor_pct"].is_number())
      fmt::format_to(std::back_inserter(w), ", A/A noise floor {:g}%", b["a"]["aa_noise_floor_pct"].get<double>());
    // A workload counted in images or samples: its throughput in that unit (tokens/s stays 0).
    if (const std::string u = b["a"].value("throughput_unit", std::string("tokens")); u != "tokens")
      fmt::format_to(std::back_inserter(w), ", {:g} {}/s", b["a"].value("throughput_median", 0.0), u);
    m.warnings.push_back(make_warning(W::bench_step_time_interval, std::move(w)));
  }
  if (b.contains("gpu_util_pct") && b["gpu_util_pct"].is_number()) {
    m.gpu_util_pct = b["gpu_util_pct"].get<double>();
    m.warnings.push_back(make_warning(W::gpu_util_from_telemetry,
                                      "gpu_util_pct: " + b.value("gpu_util_basis", std::string("telemetry-based"))));
  } else {
    m.warnings.push_back(make_warning(
        W::gpu_util_unobserved,
        "gpu_util_pct: " + b.value("gpu_util_note", std::string("unobserved: no GPU telemetry in these runs")) +
            " (0 here means not observed)"));
  }
  if (b.contains("data_prefetch") && b["data_prefetch"].contains("a") &&
      !b["data_prefetch"]["a"].value("note", "").empty())
    m.warnings.push_back(make_warning(W::window_on_prefetched_batches, b["data_prefetch"]["a"].value("note", "")));
  m.waste_budget.mark_all_unobserved();
  return m;
}

Result<analysis::RunMetrics> LiveRunner::bench(const config::WorkloadConfig& config) {
  last_trace_.clear();
  ASSIGN_OR_RETURN(auto p, prepare(config, fmt::format("bench_config_{}", n_ + 1)));
  BenchRequest req = bench_request(fmt::format("{}/live/bench-{}", opt_.out_dir, ++n_));
  req.a = p.workload;
  apply_bench_options(req.a);
  auto bo = bench_workloads(req);
  log_.push_back(Json{{"call", "bench"}, {"config_file", p.file}, {"bench", bo.value}});
  if (bo.error) return *bo.error;
  return bench_to_run_metrics(bo.value);
}

audit::SideSamples bench_side_samples(const Json& bench, const std::string& side) {
  audit::SideSamples out;
  if (!bench.contains(side) || !bench[side].is_object() || !bench[side].contains("runs")) return out;
  // A workload counted in images or samples: its throughput per run and the side's median, which
  // the report states and takes the speedup from (docs/metrics.md § Throughput unit).
  const std::string unit = bench[side].value("throughput_unit", std::string("tokens"));
  if (unit != "tokens") {
    out.throughput_unit = unit;
    if (bench[side].contains("throughput_median") && bench[side]["throughput_median"].is_number() &&
        bench[side]["throughput_median"].get<double>() > 0)
      out.throughput_median = bench[side]["throughput_median"].get<double>();
  }
  for (const auto& r : bench[side]["runs"]) {
    if (!r.is_object() || r.contains("error")) continue;
    if (r.contains("step_time_s") && r["step_time_s"].is_number())
      out.step_time_s.push_back(r["step_time_s"].get<double>());
    if (r.contains("tokens_per_sec") && r["tokens_per_sec"].is_number() && r["tokens_per_sec"].get<double>() > 0)
      out.tokens_per_sec.push_back(r["tokens_per_sec"].get<double>());
    if (!out.throughput_unit.empty() && r.contains("throughput") && r["throughput"].is_number() &&
        r["throughput"].get<double>() > 0)
      out.throughput.push_back(r["throughput"].get<double>());
  }
  return out;
}

Result<audit::PairBench> LiveRunner::bench_pair(const config::WorkloadConfig& before,
                                                const config::WorkloadConfig& after) {
  last_trace_.clear();
  int n = ++n_;
  ASSIGN_OR_RETURN(auto pa, prepare(before, fmt::format("bench_before_{}", n)));
  ASSIGN_OR_RETURN(auto pb, prepare(after, fmt::format("bench_after_{}", n)));
  BenchRequest req = bench_request(fmt::format("{}/live/bench-pair-{}", opt_.out_dir, n));
  req.a = pa.workload;
  req.b = pb.workload;
  apply_bench_options(req.a);
  apply_bench_options(*req.b);
  auto bo = bench_workloads(req);
  log_.push_back(Json{{"call", "bench_pair"}, {"config_files", Json::array({pa.file, pb.file})}, {"bench", bo.value}});
  if (bo.error) return *bo.error;
  const Json& r = bo.value;
  audit::PairBench p;
  p.before = bench_to_run_metrics(bench_side_result(r, "a"));
  p.after = bench_to_run_metrics(bench_side_result(r, "b"));
  p.before_samples = bench_side_samples(r, "a");
  p.after_samples = bench_side_samples(r, "b");
  p.order = r.value("order", std::string());
  // Interleaved only when the recorded order really alternates (a cached result keeps its order).
  bool alternates = p.order.size() >= 2;
  for (size_t i = 0; i < p.order.size(); ++i)
    if (p.order[i] != (i % 2 ? 'B' : 'A')) alternates = false;
  p.interleaved = alternates;
  p.note = fmt::format(
      "live bench_pair: before (A) and after (B) in one goblin bench --against, {} runs per side x {} steps (first {} "
      "of each run excluded), run order {}{}",
      opt_.repeats, opt_.bench_steps, opt_.bench_warmup, p.order.empty() ? std::string("not recorded") : p.order,
      alternates ? " (interleaved)" : " (NOT interleaved)");
  if (r.contains("cache") && r["cache"].value("hit", false)) p.note += "; result from the bench cache";
  if (const std::string u = r.contains("a") ? r["a"].value("throughput_unit", std::string("tokens")) : "tokens";
      u != "tokens" && r.contains("b"))
    fmt::format_to(std::back_inserter(p.note), "; throughput {:g} -> {:g} {}/s (median per side)",
                   r["a"].value("throughput_median", 0.0), r["b"].value("throughput_median", 0.0), u);
  if (r.contains("comparison") && r["comparison"].contains("aa_noise_floor") &&
      r["comparison"]["aa_noise_floor"].is_object())
    fmt::format_to(std::back_inserter(p.note), "; A/A noise floor of the before runs {}%",
                   r["comparison"]["aa_noise_floor"]["floor_pct"].dump());

  return p;
}

}  // namespace goblin::run
