// goblin metrics PATH... [--json] [--tokens-per-step N]: RunMetrics of one trace or run directory;
// with several paths, of each rank (one path per rank, read one at a time), each result saying
// which rank it is for. Formulas and windows: src/analysis/breakdown.h, docs/metrics.md.
#include <cstdio>

#include "analysis/ranks.h"
#include "analysis/run_metrics.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "trace/load.h"

namespace goblin {

namespace {

std::string fmt_opt(const std::optional<double>& v, const char* unit) {
  if (!v) return "unobserved";
  char b[64];
  std::snprintf(b, sizeof b, "%.3f%s", *v, unit);
  return b;
}

std::string human(const RunMetrics& m) {
  std::string s;
  char b[512];
  if (m.step_time_s > 0)
    std::snprintf(b, sizeof b, "step time      %.6f s", m.step_time_s);
  else
    std::snprintf(b, sizeof b, "step time      unobserved");
  s += b;
  if (m.gpu_activity)
    std::snprintf(b, sizeof b, "   (gpu util %.2f%% = busy union / step wall)\n", m.gpu_util_pct);
  else
    std::snprintf(b, sizeof b, "   (gpu util n/a: no GPU activity in the input)\n");
  s += b;
  s += "tokens/s       " + fmt_opt(m.tokens_per_sec, "") + "\n";
  s += "mfu            " + fmt_opt(m.mfu_pct, " %") + "   (dtype path: " + fmt_opt(m.mfu_dtype_path_pct, " %") + ")\n";
  if (m.flops_per_step) {
    std::snprintf(b, sizeof b, "flops/step     %.4g\n", *m.flops_per_step);
    s += b;
  }
  if (!m.mfu_basis.empty()) s += "mfu basis      " + m.mfu_basis + "\n";
  s += "hbm peak/avg   " + fmt_opt(m.hbm_peak_gb, " GB") + " / " + fmt_opt(m.hbm_avg_gb, " GB") + "\n";
  s += "attention      " + m.attention_kernel_loaded + "\n";
  s += "steps:\n";
  for (const auto& st : m.steps) {
    std::snprintf(b, sizeof b, "  %-20s wall %.6f s  busy %.6f s%s\n", st.name.c_str(), st.wall_s, st.busy_s,
                  st.partial ? "  (partial)" : "");
    s += b;
  }
  const WasteBudget& w = m.waste_budget;
  std::snprintf(b, sizeof b, "waste budget (s/step, sums to %.6f s):\n", w.step_time_s);
  s += b;
  for (const auto& k : WasteBudget::kBuckets) {
    const char* n = k.name;
    const double v = w.*k.field;
    std::snprintf(b, sizeof b, "  %-16s %.6f  (%.1f%%)\n", n, v, w.step_time_s > 0 ? 100.0 * v / w.step_time_s : 0.0);
    s += b;
  }
  if (!w.unobserved.empty()) {
    s += "  unobserved:";
    for (const auto& u : w.unobserved) s += " " + u;
    s += "\n";
  }
  s += "top kernels (share of summed kernel time):\n";
  for (const auto& k : m.top_kernels) {
    std::snprintf(b, sizeof b, "  %6.2f%%  %-13s %-16s %.90s\n", k.pct_time, k.category.c_str(), k.family.c_str(),
                  k.name.c_str());
    s += b;
  }
  for (const auto& w2 : m.warnings) s += "warning: " + w2 + "\n";
  s += "window: " + m.window + "\n";
  return s;
}

}  // namespace

void register_metrics(CLI::App& app) {
  struct Opts {
    std::vector<std::string> paths;
    double tokens_per_step = 0;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "metrics",
      "RunMetrics of a trace or run directory: steps, step time, GPU utilisation, additive waste budget (s/step), top "
      "kernels, tokens/s, HBM from telemetry, attention backend");
  cmd->footer(help_footer_with_examples(
      "  goblin metrics trace.json.gz                      RunMetrics and the waste budget per step\n"
      "  goblin metrics run_dir/ --json                    trace + telemetry (HBM, telemetry utilisation)\n"
      "  goblin metrics trace.json.gz --tokens-per-step 8192\n"
      "  goblin metrics rank0.json.gz rank1.json.gz        one RunMetrics per rank, each naming its rank\n"));
  cmd->add_option("path", o->paths,
                  "Trace file or run directory (trace + telemetry); several: one per rank of a distributed job")
      ->required();
  cmd->add_option(
         "--tokens-per-step", o->tokens_per_step,
         "Tokens processed per step (tokens/s = this / step time when the trace does not carry tokens_per_sec)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&]() -> VerbResult {
      MetricsOptions opt;
      if (o->tokens_per_step > 0) opt.tokens_per_step = o->tokens_per_step;
      // One rank (or a plain single run).
      auto one = [&](const std::string& path, const Timeline** tl_out, LoadedTrace* keep) -> VerbResult {
        VerbResult vr;
        auto in = load_trace(path, kNeedGpuOps | kNeedSamples);
        if (!in) {
          vr.error = in.error();
          return vr;
        }
        auto m = compute_run_metrics(in->timeline, opt);
        if (!m) {
          vr.error = m.error();
          return vr;
        }
        if (in->damage) {
          m->warnings.push_back("input damaged, figures cover what was read: " + in->damage->describe());
          vr.error = in->damage;
        }
        vr.result = run_metrics_to_json(*m);
        vr.human = human(*m);
        if (tl_out) {
          *keep = std::move(*in);
          *tl_out = &keep->timeline;
        }
        return vr;
      };
      if (o->paths.size() == 1) return one(o->paths[0], nullptr, nullptr);
      // Several ranks, one Timeline at a time; each result names its rank.
      VerbResult all;
      Json ranks = Json::array();
      for (size_t i = 0; i < o->paths.size(); ++i) {
        const Timeline* tl = nullptr;
        LoadedTrace keep;
        VerbResult vr = one(o->paths[i], &tl, &keep);
        std::string from;
        int64_t rank = tl ? rank_of(*tl, o->paths[i], &from) : rank_from_name(o->paths[i]);
        if (rank < 0) from = "order", rank = static_cast<int64_t>(i);
        Json r;
        r["rank"] = rank;
        r["rank_from"] = from.empty() ? "file name" : from;
        r["source"] = o->paths[i];
        r["metrics"] = vr.result.is_null() ? Json(nullptr) : vr.result;
        r["error"] = vr.error ? error_to_json(*vr.error) : Json(nullptr);
        ranks.push_back(r);
        all.human += "== rank " + std::to_string(rank) + " (" + o->paths[i] + ") ==\n" +
                     (vr.human.empty() && vr.error ? "error: " + vr.error->describe() + "\n" : vr.human) + "\n";
        if (vr.error && !all.error) all.error = vr.error;
      }
      all.result = Json{{"ranks", ranks}};
      return all;
    });
  });
}

}  // namespace goblin
