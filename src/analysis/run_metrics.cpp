// RunMetrics: formulas in breakdown.h (busy/idle/waste) and docs/metrics.md.
#include "analysis/run_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <unordered_map>

#include "analysis/breakdown.h"
#include "analysis/knowledge.h"
#include "analysis/step_time.h"
#include "analysis/steps.h"
#include "analysis/taxonomy.h"
#include "core/text.h"
#include "hw/ceiling.h"
#include "hw/flop_count.h"
#include "hw/fp32_gemm_peak.h"
#include "hw/gpu_specs.h"

namespace goblin::analysis {

namespace {

// MFU over the steps the per-step figures use (see run_metrics.h and docs/metrics.md § MFU).
void compute_mfu(const Timeline& tl, const PreparedTrace& p, const StepDetection& sd, const MfuPeaks& peaks,
                 RunMetrics& m) {
  // A step counts the CPU ops of its CPU span when it has one: they are issued before the GPU runs
  // them, and its window (on the GPU's time) lags its CPU span when the CPU runs ahead.
  auto flop_window = [](const Step& s) {
    return s.cpu_start_ns != kNone ? std::pair<int64_t, int64_t>{s.cpu_start_ns, s.cpu_end_ns}
                                   : std::pair<int64_t, int64_t>{s.start_ns, s.end_ns};
  };
  std::vector<std::pair<int64_t, int64_t>> windows;
  for (const Step& s : sd.steps)
    if (!s.partial) windows.push_back(flop_window(s));
  if (windows.empty())
    for (const Step& s : sd.steps) windows.push_back(flop_window(s));
  if (windows.empty()) {
    m.warnings.push_back(make_warning(W::mfu_unobserved, "mfu_pct unobserved: no steps to count FLOPs over"));
    return;
  }
  std::vector<hw::FlopCount> per = hw::count_flops(tl, windows);
  hw::FlopCount all;
  for (const hw::FlopCount& f : per) {
    all.flops += f.flops;
    all.ops_counted += f.ops_counted;
    all.ops_composite += f.ops_composite;
    all.ops_unmodelled += f.ops_unmodelled;
    for (const auto& [k, v] : f.flops_by_dtype) all.flops_by_dtype[k] += v;
    for (const auto& [k, v] : f.unmodelled) all.unmodelled[k] += v;
  }
  for (const auto& [why, n] : all.unmodelled)
    m.warnings.push_back(make_warning(
        W::flops_not_counted,
        fmt::format("FLOPs: {} op instance(s) not counted ({}): flops_per_step and mfu_pct are lower bounds", n, why)));
  if (all.ops_counted == 0 || all.flops <= 0) {
    m.warnings.push_back(make_warning(
        W::mfu_unobserved,
        all.ops_unmodelled > 0
            ? "mfu_pct unobserved: GEMM/attention/conv ops were recorded without usable shapes (profile with "
              "record_shapes=True)"
            : "mfu_pct unobserved: no GEMM/attention/convolution CPU ops in the step windows (a trace with CPU "
              "ops and record_shapes=True is needed)"));
    return;
  }
  bool cpu_steps = !sd.steps.empty() && sd.steps.front().cpu_start_ns != kNone;
  if (!cpu_steps)
    m.warnings.push_back(
        make_warning(W::flops_windowed_by_cpu_start,
                     "FLOPs are windowed by CPU op start inside GPU-side step windows (no CPU ProfilerStep spans): ops "
                     "launched before their GPU work began may fall in the previous window"));
  double fps = all.flops / static_cast<double>(windows.size());
  m.flops_per_step = fps;
  std::string dtype = all.dominant_dtype();
  double dshare = all.flops_by_dtype[dtype] / all.flops;

  const Result<hw::GpuSpec>& gpu = p.gpu;
  if (!gpu.ok()) {
    m.warnings.push_back(make_warning(
        W::mfu_unobserved,
        fmt::format("mfu_pct unobserved: the trace's GPU is not in the spec database ({})", gpu.error().message)));
    return;
  }
  const hw::GpuSpec& g = gpu.value();
  if (m.step_time_s <= 0) {
    m.warnings.push_back(make_warning(W::mfu_unobserved, "mfu_pct unobserved: step time unknown"));
    return;
  }
  // Training peak: the dense tensor peak of a low-precision dtype the run used; fp32/tf32/fp64
  // runs are held against the GPU's dense mixed-precision peak (the ceiling they forgo). The
  // dtypes: data/mfu.yaml.
  const std::string train_key =
      peaks.training_peak(dtype, [&](const std::string& key) { return g.peak_tflops(key).has_value(); });
  // Dtype path: fp32 GEMMs on SIMT (taxonomy simt_fp32_gemm) vs tensor cores (TF32), by GEMM time.
  int64_t gemm_ns = total_length(p.gemm), simt_ns = total_length(p.simt);
  bool tensor = !peaks.may_run_on_simt(dtype) || (gemm_ns > 0 && simt_ns * 2 < gemm_ns);
  std::string path_key = hw::peak_key_for(dtype, tensor);
  // Plain fp32 GEMMs run at the GPU's fp32 GEMM rate: its FP32 matrix cores on AMD CDNA.
  if (dtype == "fp32" && !tensor) (void)hw::fp32_gemm_peak_tflops(g, &path_key);
  auto train_peak = g.peak_tflops(train_key);
  auto path_peak = path_key.empty() ? std::nullopt : g.peak_tflops(path_key);
  std::string flops_txt = fmt::format(
      "{} FLOP/step ({} GEMM/attention/conv op instances over {} step(s), forward and backward as executed; {}% {})",
      format_sig(fps, 6), all.ops_counted, windows.size(), format_sig(100 * dshare, 4), dtype);
  std::string step_txt = "step_time_s " + format_sig(m.step_time_s, 6) + " s";
  m.mfu_basis = "mfu_pct = flops_per_step / (step_time_s x dense peak); " + flops_txt + "; " + step_txt;
  if (train_peak && *train_peak > 0) {
    m.mfu_pct = 100.0 * fps / (m.step_time_s * *train_peak * 1e12);
    m.mfu_basis +=
        "; mfu_pct peak: " + g.id + " dense " + train_key + " tensor " + format_sig(*train_peak, 6) + " TFLOPS" +
        (train_key != dtype ? " (the GPU's mixed-precision training peak; this run computes in " + dtype + ")" : "");
  } else {
    m.warnings.push_back(make_warning(
        W::mfu_unobserved, fmt::format("mfu_pct unobserved: {} has no known dense {} peak", g.id, train_key)));
  }
  if (path_peak && *path_peak > 0) {
    m.mfu_dtype_path_pct = 100.0 * fps / (m.step_time_s * *path_peak * 1e12);
    m.mfu_basis +=
        "; mfu_dtype_path_pct peak: " + g.id + " dense " + path_key + " " + format_sig(*path_peak, 6) + " TFLOPS" +
        ((dtype == "fp32") ? (tensor                      ? " (fp32 GEMMs ran on tensor cores: TF32)"
                              : path_key == "fp32_matrix" ? " (fp32 GEMMs ran on the FP32 matrix cores)"
                                                          : " (fp32 GEMMs ran on the SIMT path: non-tensor fp32)")
                           : "");
  }
  // mfu_pct above 100 % has its own warning below; the dtype path's figure is held to its own peak
  // (hw/ceiling.h), most often exceeded when the fp32 GEMMs ran as TF32 on tensor cores.
  if (m.mfu_dtype_path_pct)
    if (auto a = hw::above_physical_peak(*m.mfu_dtype_path_pct, "mfu_dtype_path_pct",
                                         "the dense " + path_key + " peak of " + g.id))
      m.warnings.push_back(make_warning(W::above_physical_peak, a->message));
  if (m.mfu_pct && *m.mfu_pct > 100.0)
    m.warnings.push_back(make_warning(
        W::mfu_above_100,
        fmt::format("mfu_pct above 100%: FLOPs per step or step time are inconsistent ({})", m.mfu_basis)));
}

// How far a figure the trace asserts (step_time_seconds, tokens_per_sec) may lie from the one it
// measures before it is flagged: run-to-run noise of a training step is a few percent.
constexpr double kAssertedTolerance = 0.10;

std::optional<double> extra_number(const Timeline& tl, const char* key) {
  auto it = tl.meta.extra.find(key);
  if (it == tl.meta.extra.end()) return std::nullopt;
  std::string t = it->second;
  if (!t.empty() && t.front() == '"') t = t.substr(1, t.size() >= 2 ? t.size() - 2 : 0);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

Result<RunMetrics> compute_run_metrics(const Timeline& tl, const MetricsOptions& opt) {
  ASSIGN_OR_RETURN(auto k, analysis_knowledge());
  return compute_run_metrics(tl, *k, opt);
}

Result<RunMetrics> compute_run_metrics(const Timeline& tl, const AnalysisKnowledge& k, const MetricsOptions& opt) {
  const Taxonomy& tax = k.taxonomy;
  RunMetrics m;
  m.runner_kind = "trace";
  PreparedTrace p = prepare_trace(tl, tax);
  StepDetection sd = find_steps(tl);
  for (const std::string& n : sd.notes) m.warnings.push_back(make_warning(W::step_window_caveat, n));
  for (const std::string& n : p.notes) m.warnings.push_back(make_warning(W::waste_budget_note, n));

  // ---- steps and the per-step waste budget ----
  std::vector<WindowBreakdown> wins;
  for (const Step& s : sd.steps) wins.push_back(analyse_window(p, s.name, {s.start_ns, s.end_ns}, s.partial));
  // The steps averaged and their mean wall: the one step time (docs/metrics.md § Step time).
  const analysis::StepTime st = analysis::step_time(sd);
  std::vector<const WindowBreakdown*> use;
  for (size_t i : st.averaged) use.push_back(&wins[i]);
  if (st.every_step_partial)
    m.warnings.push_back(
        make_warning(W::every_step_partial, "every step is partial: per-step figures average partial steps"));
  int64_t wall = 0, busy = 0;
  WasteBudget avg;
  for (const WindowBreakdown* w : use) {
    wall += w->wall_ns;
    busy += w->busy_ns;
    const WasteBudget& b = w->waste;
    for (const auto& k : WasteBudget::kBuckets) avg.*k.field += b.*k.field;
    avg.step_time_s += b.step_time_s;
    avg.unobserved = b.unobserved;
  }
  if (!use.empty()) {
    double n = static_cast<double>(use.size());
    for (const auto& k : WasteBudget::kBuckets) avg.*k.field /= n;
    avg.step_time_s = st.seconds();
  } else {
    avg.mark_all_unobserved();
    m.warnings.push_back(make_warning(W::nothing_to_measure, "no GPU activity and no steps: nothing to measure"));
  }
  m.waste_budget = avg;
  m.cost = compute_cost_profile(tl, p, use);
  for (const auto& w : wins)
    m.steps.push_back(
        StepMetrics{w.name, static_cast<double>(w.wall_ns) / 1e9, static_cast<double>(w.busy_ns) / 1e9, w.partial});
  m.gpu_util_pct = wall > 0 ? 100.0 * static_cast<double>(busy) / static_cast<double>(wall) : 0.0;
  m.gpu_activity = tl.gpu_op_count() > 0;
  if (!m.gpu_activity)
    m.warnings.push_back(make_warning(
        W::no_gpu_activity,
        "no GPU activity: the input holds no kernel, memcpy or memset (a CPU-only profile, or GPU tracing was "
        "off); gpu_util_pct is null and the waste budget describes host time only"));
  // The step time is the measured one; the workload's own timer is reported beside it under its
  // own name and checked against it (docs/metrics.md § Step time).
  const double measured_step = st.seconds();
  const std::optional<double> written_step = analysis::workload_step_time(tl);
  m.step_time_s = measured_step;
  m.workload_step_time_s = written_step;
  if (!(m.step_time_s > 0))
    m.warnings.push_back(
        make_warning(W::step_time_unobserved,
                     "step_time_s unobserved: no complete step and no GPU activity to time (null in JSON)"));
  m.window = fmt::format(
      "{}; per-step figures are means over {} complete step(s); gpu_util_pct = sum(busy union over all streams) / "
      "sum(step wall)",
      sd.method, use.size());
  if (written_step)
    m.window +=
        "; workload_step_time_s is the step_time_seconds the workload wrote into the trace (its own timer, "
        "not a step of this trace)";
  // Figures the trace asserts about itself are checked against what it measures (docs/metrics.md,
  // RunMetrics): kept, since the workload saw them, but never without a word when they disagree.
  auto disagree = [](double asserted, double measured) {
    return measured > 0 && std::isfinite(measured) && std::fabs(asserted - measured) > kAssertedTolerance * measured;
  };
  if (written_step && disagree(*written_step, measured_step))
    m.warnings.push_back(make_warning(
        W::step_time_disagrees,
        fmt::format("workload_step_time_s: the trace asserts step_time_seconds = {} s but its steps measure {} s "
                    "(more than 10 % apart; step_time_s is the measured one): check which the workload timed",
                    format_sig(*written_step, 4), format_sig(measured_step, 4))));
  // Within 10 % but past run-to-run noise (2 %): kept, named, and said.
  const double kSourcesTolerance = 0.02;
  auto slightly_apart = [&](double a, double b) {
    return b > 0 && std::isfinite(a) && std::fabs(a - b) > kSourcesTolerance * b && !disagree(a, b);
  };
  if (written_step && slightly_apart(*written_step, measured_step))
    m.warnings.push_back(make_warning(
        W::throughput_sources_disagree,
        fmt::format("step time: the workload's timer says {} s, the trace's steps {} s ({} % apart); step_time_s is "
                    "the trace's",
                    format_sig(*written_step, 4), format_sig(measured_step, 4),
                    format_sig(100 * std::fabs(*written_step - measured_step) / measured_step, 3))));

  // ---- throughput: one source for tokens/s, named in `window` with the other beside it
  // (docs/metrics.md § Throughput sources) ----
  auto apart = [](double a, double b) { return b > 0 && std::isfinite(a) ? std::fabs(a - b) / b : 0.0; };
  // Tokens per step known apart from the tokens/s the trace asserts: given, or written by the
  // workload (tokens_per_step, else batch_size x seq_len).
  std::optional<double> per_step = opt.tokens_per_step ? opt.tokens_per_step : extra_number(tl, "tokens_per_step");
  std::string per_step_from = opt.tokens_per_step ? "--tokens-per-step" : "the trace's tokens_per_step";
  if (!per_step) {
    auto b = extra_number(tl, "batch_size"), q = extra_number(tl, "seq_len");
    if (b && q && *b > 0 && *q > 0) per_step = *b * *q, per_step_from = "the trace's batch_size x seq_len";
  }
  const bool independent = per_step.has_value();
  const std::optional<double> asserted = extra_number(tl, "tokens_per_sec");
  // Without them, the tokens per step the workload's own two figures imply.
  if (!per_step && asserted && written_step && *written_step > 0)
    per_step = *asserted * *written_step, per_step_from = "tokens_per_sec x step_time_seconds (the workload's figures)";
  std::optional<double> by_steps;
  if (per_step && *per_step > 0 && measured_step > 0) by_steps = *per_step / measured_step;
  std::string source;
  if (asserted) {
    m.tokens_per_sec = *asserted;
    source = "trace_metadata";
    const double off = by_steps ? apart(*asserted, *by_steps) : 0.0;
    if (by_steps && off > kAssertedTolerance && independent) {
      // Contradicted by the measured step x tokens per step: not evidence. The trace's own figure stands.
      m.tokens_per_sec = by_steps;
      source = "trace_steps";
      m.warnings.push_back(make_warning(
          W::tokens_per_sec_disagrees,
          fmt::format("tokens_per_sec: the trace asserts {} tokens/s but {} tokens per step ({}) over the measured "
                      "{} s step give {} tokens/s ({} % apart): the asserted figure is refused, tokens_per_sec is "
                      "the trace steps'",
                      format_sig(*asserted, 4), format_sig(*per_step, 4), per_step_from, format_sig(measured_step, 4),
                      format_sig(*by_steps, 4), format_sig(100 * off, 3))));
    } else if (by_steps && off > kAssertedTolerance) {
      m.warnings.push_back(make_warning(
          W::tokens_per_sec_disagrees,
          fmt::format("tokens_per_sec: the trace asserts {} tokens/s but {} tokens per step over the measured {} s "
                      "step give {} tokens/s (more than 10 % apart): the asserted figure is not what this trace "
                      "measures",
                      format_sig(*asserted, 4), format_sig(*per_step, 4), format_sig(measured_step, 4),
                      format_sig(*by_steps, 4))));
    }
    if (by_steps && slightly_apart(*asserted, *by_steps))
      m.warnings.push_back(make_warning(
          W::throughput_sources_disagree,
          fmt::format("tokens_per_sec: the trace asserts {} tokens/s, its steps give {} ({} % apart); "
                      "tokens_per_sec_source says which is shown",
                      format_sig(*asserted, 4), format_sig(*by_steps, 4), format_sig(100 * off, 3))));
  } else if (by_steps) {
    m.tokens_per_sec = by_steps;
    source = "trace_steps";
  } else {
    m.warnings.push_back(make_warning(
        W::tokens_per_sec_unobserved,
        "tokens_per_sec unobserved: the trace carries no tokens_per_sec and --tokens-per-step was not given"));
  }
  if (!source.empty()) {
    m.tokens_per_sec_source = source;
    fmt::format_to(std::back_inserter(m.window), "; tokens_per_sec source: {}", source);
    if (asserted && source != "trace_metadata")
      fmt::format_to(std::back_inserter(m.window), " (trace_metadata: {})", format_sig(*asserted, 6));
    if (by_steps && source != "trace_steps")
      fmt::format_to(std::back_inserter(m.window), " (trace_steps: {}, {} tokens per step from {})",
                     format_sig(*by_steps, 6), format_sig(*per_step, 6), per_step_from);
  }

  // ---- top kernels (whole trace; share of summed kernel time) ----
  struct Agg {
    int64_t ns = 0, count = 0;
    uint16_t cls = 0;
  };
  std::unordered_map<StrId, Agg> by_name;
  int64_t total_kernel = 0;
  std::unordered_map<std::string, int64_t> attention_ns;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    Agg& a = by_name[tl.gpu_ops.name[i]];
    a.ns += tl.gpu_ops.dur_ns[i];
    ++a.count;
    a.cls = p.kernel_class[i];
    total_kernel += tl.gpu_ops.dur_ns[i];
    const KernelClass& kc = p.classes[p.kernel_class[i]];
    if (!kc.attention_backend.empty()) attention_ns[kc.attention_backend] += tl.gpu_ops.dur_ns[i];
  }
  std::vector<std::pair<StrId, Agg>> ranked(by_name.begin(), by_name.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.ns != b.second.ns ? a.second.ns > b.second.ns : a.first < b.first;
  });
  for (size_t i = 0; i < ranked.size() && i < 10; ++i) {
    const KernelClass& kc = p.classes[ranked[i].second.cls];
    m.top_kernels.push_back(
        TopKernel{std::string(tl.str(ranked[i].first)), kc.category, kc.family,
                  total_kernel > 0 ? 100.0 * ranked[i].second.ns / static_cast<double>(total_kernel) : 0,
                  ranked[i].second.ns / 1e9, ranked[i].second.count});
  }

  // ---- attention backend: the attention family with the most kernel time ----
  if (!attention_ns.empty()) {
    auto best = std::max_element(attention_ns.begin(), attention_ns.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    m.attention_kernel_loaded = best->first;
  } else if (p.per_category.count("softmax") && p.per_category.count("gemm")) {
    m.attention_kernel_loaded = "eager";  // no fused attention kernel; softmax + GEMMs (bmm) instead
  } else {
    m.attention_kernel_loaded = "none";
  }

  // ---- memory from telemetry ----
  StrId mem = tl.strings.find("mem_used_bytes");
  std::unordered_map<int32_t, std::pair<double, std::pair<double, int64_t>>> per_dev;  // peak, (sum, n)
  if (mem != kNoStr) {
    for (size_t i = 0; i < tl.samples.size(); ++i) {
      if (tl.samples.metric[i] != mem) continue;
      auto& d = per_dev[tl.samples.device[i]];
      d.first = std::max(d.first, tl.samples.value[i]);
      d.second.first += tl.samples.value[i];
      ++d.second.second;
    }
  }
  if (!per_dev.empty()) {
    auto best = std::max_element(per_dev.begin(), per_dev.end(),
                                 [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    m.hbm_peak_gb = best->second.first / 1e9;
    m.hbm_avg_gb = best->second.second.first / static_cast<double>(best->second.second.second) / 1e9;
    // Capacity: telemetry's mem_total_bytes of that device, else the device properties.
    double total = 0;
    if (StrId tot = tl.strings.find("mem_total_bytes"); tot != kNoStr)
      for (size_t i = 0; i < tl.samples.size(); ++i)
        if (tl.samples.metric[i] == tot && tl.samples.device[i] == best->first)
          total = std::max(total, tl.samples.value[i]);
    if (total <= 0)
      for (const DeviceInfo& d : tl.meta.devices)
        if (d.id == best->first && d.total_memory_bytes > 0) total = static_cast<double>(d.total_memory_bytes);
    if (total > 0 && total >= best->second.first) {
      m.hbm_total_gb = total / 1e9;
      m.memory_headroom_gb = (total - best->second.first) / 1e9;
    } else if (total > 0) {
      // More used than the card holds: telemetry of another card, or damaged samples. Refused.
      m.warnings.push_back(make_warning(
          W::hbm_refused,
          fmt::format("hbm_peak_gb refused: {} GB used on a device with {} GB of memory is physically impossible "
                      "(telemetry from another card, or damaged samples); hbm_peak_gb, hbm_avg_gb and "
                      "memory_headroom_gb are null",
                      format_sig(best->second.first / 1e9, 4), format_sig(total / 1e9, 4))));
      m.hbm_peak_gb.reset();
      m.hbm_avg_gb.reset();
      m.hbm_total_gb = total / 1e9;
    } else {
      m.warnings.push_back(make_warning(W::memory_headroom_unobserved,
                                        "memory_headroom_gb unobserved: no memory capacity (memory.total) for the "
                                        "device with the HBM peak"));
    }
  } else {
    m.warnings.push_back(make_warning(W::hbm_unobserved,
                                      "hbm_peak_gb/hbm_avg_gb unobserved: no mem_used_bytes telemetry samples (pass a "
                                      "run directory with nvidia-smi/amd-smi/rocm-smi output)"));
  }

  // ---- GPU utilisation from telemetry (busy samples, like goblin bench) ----
  if (StrId util = tl.strings.find("gpu_util_pct"); util != kNoStr) {
    std::unordered_map<int32_t, std::pair<double, int64_t>> busy;  // device → (sum, n) over util > 0
    std::unordered_map<int32_t, int64_t> all;
    for (size_t i = 0; i < tl.samples.size(); ++i) {
      if (tl.samples.metric[i] != util) continue;
      ++all[tl.samples.device[i]];
      if (tl.samples.value[i] > 0) {
        busy[tl.samples.device[i]].first += tl.samples.value[i];
        ++busy[tl.samples.device[i]].second;
      }
    }
    std::optional<int32_t> dev;
    if (!per_dev.empty())
      dev = std::max_element(per_dev.begin(), per_dev.end(), [](const auto& a, const auto& b) {
              return a.second.first < b.second.first;
            })->first;
    else if (!all.empty())
      dev = std::max_element(all.begin(), all.end(), [](const auto& a, const auto& b) {
              return a.second < b.second;
            })->first;
    if (dev && busy.count(*dev)) {
      const auto& [sum, n] = busy[*dev];
      m.gpu_util_telemetry_pct = sum / static_cast<double>(n);
    } else if (dev) {
      m.gpu_util_telemetry_pct = 0.0;  // telemetry saw the device and it was never busy
    }
  }

  if (m.memory_headroom_gb) {
    auto& u = m.waste_budget.unobserved;
    u.erase(std::remove(u.begin(), u.end(), "memory_headroom"), u.end());
  }

  // ---- MFU ----
  compute_mfu(tl, p, sd, k.mfu, m);

  // ---- versions / GPU ----
  m.versions = tl.meta.versions;
  if (!tl.meta.devices.empty()) {
    m.gpu_name = tl.meta.devices.front().name;
    m.versions["gpu"] = m.gpu_name;
  }
  // The reader's warnings, each with its own id, count and place; the message says where it came
  // from, as the text output always has.
  for (const Diagnostic& d : tl.warnings) {
    Warning w = d;
    w.message = fmt::format("reader: {}", d.message);
    m.warnings.push_back(std::move(w));
  }
  return m;
}

}  // namespace goblin::analysis
