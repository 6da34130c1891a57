// `goblin triage TRACE... -o DIR [--stage NAME] [--target-arch ARCH] [--top N] [--by-module] [--json]`:
// the triage artifact contract (profile_summary.md, profile_metadata.json, kernel_table.json,
// overlap_opportunities.json, fuse_opportunities.json, module_table.json, stage_table.json) plus a
// readable summary (with --by-module: GPU time by nn.Module first). Damaged input: what was read is
// still analysed and written, and the exit code says malformed (5). Several traces (one per rank of
// a distributed job): each rank's artifacts in DIR/rank<N>/, read one at a time, each result
// naming its rank.
#include <filesystem>

#include "analysis/ranks.h"
#include "analysis/triage_artifacts.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "trace/load.h"

namespace goblin {

void register_triage(CLI::App& app) {
  struct Opts {
    std::vector<std::string> traces;
    std::string out, stage, target_arch;
    int top = 15;
    bool json = false, by_module = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("triage",
                                 "Kernel table, overlap and fuse opportunities for a trace (or one per rank); writes the "
                                 "profiling artifacts (profile_summary.md, profile_metadata.json, kernel_table.json, "
                                 "overlap_opportunities.json, fuse_opportunities.json, module_table.json, "
                                 "stage_table.json) into -o DIR");
  cmd->footer(help_footer_with_examples(
      "  goblin triage trace.json.gz -o out/triage         kernel table, overlap + fuse tables, summary\n"
      "  goblin triage trace.json.gz -o out/t --stage decode --target-arch gfx942\n"
      "  goblin triage serving.json.gz -o out/t --by-module   GPU time by nn.Module first\n"
      "  goblin triage rank0.json.gz rank1.json.gz -o out/t  one artifact set per rank: out/t/rank0/, out/t/rank1/\n"));
  cmd->add_option("trace", o->traces,
                  "Trace file or run directory (Kineto, rocprofv3, Nsight, ...); several: one per rank")
      ->required();
  cmd->add_option("-o,--out", o->out, "Output directory for the artifacts")->required();
  cmd->add_option("--stage", o->stage,
                  "Profile stage (prefill, decode, train, ...); if absent, from the trace's stage annotations or "
                  "attention op names, else the file name");
  cmd->add_option("--target-arch", o->target_arch,
                  "Architecture the results are for (sm_90, gfx942, gfx950): sets arch_match");
  cmd->add_option("--top", o->top, "Rows in the summary tables")->check(CLI::Range(1, 1000));
  cmd->add_flag("--by-module", o->by_module,
                "Lead the summary with GPU time by nn.Module (module_table.json is always written); --json adds "
                "`modules`");
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&]() -> VerbResult {
      // One trace into `out`; `rank_out` (several ranks) gets the rank it is for.
      auto one = [&](const std::string& trace, const std::string& out, Json* rank_out) -> VerbResult {
        VerbResult vr;
        auto in = load_trace(trace, kNeedGpuOps);
        if (!in) {
          vr.error = in.error();
          return vr;
        }
        if (rank_out) {
          std::string from;
          int64_t r = rank_of(in->timeline, trace, &from);
          (*rank_out)["rank"] = r >= 0 ? Json(r) : Json(nullptr);
          (*rank_out)["rank_from"] = from;
        }
        TriageOptions opt;
        opt.stage = o->stage;
        opt.target_arch = o->target_arch;
        std::error_code ec;
        auto abs = std::filesystem::absolute(trace, ec);
        opt.source_path = ec ? trace : abs.lexically_normal().string();
        opt.top = o->top;
        opt.by_module = o->by_module;
        auto rep = run_triage(in->timeline, opt);
        if (!rep) {
          vr.error = rep.error();
          return vr;
        }
        Status ws = write_triage_artifacts(*rep, out);
        if (!ws) {
          vr.error = ws.error();
          return vr;
        }
        if (in->damage) vr.error = in->damage;  // partial input: artifacts written from what was read
        Json res;
        res["out_dir"] = out;
        res["artifacts"] = triage_artifact_names();
        res["metadata"] = rep->metadata;
        Json top = kernel_table_to_json(rep->kernels);
        if (top.size() > static_cast<size_t>(o->top)) top.erase(top.begin() + o->top, top.end());
        res["top_kernels"] = top;
        Json ov = Json::array();
        for (const auto& r : rep->overlap)
          if (r.priority <= Priority::P3 && ov.size() < static_cast<size_t>(o->top))
            ov.push_back(overlap_row_to_json(r));
        res["top_overlap_opportunities"] = ov;
        Json fu = fuse_table_to_json(rep->fuse);
        if (fu.size() > static_cast<size_t>(o->top)) fu.erase(fu.begin() + o->top, fu.end());
        res["fuse_opportunities"] = fu;
        res["stages"] = stage_split_to_json(rep->stages);
        if (o->by_module) {
          Json mods = module_rows_to_json(rep->modules);
          if (mods.size() > static_cast<size_t>(o->top)) mods.erase(mods.begin() + o->top, mods.end());
          res["modules"] = mods;
        }
        res["gpu_op_time_us"] = round_to(rep->kernels.total_ns / 1000.0, 3);
        res["gpu_ops"] = rep->kernels.ops;
        vr.result = std::move(res);
        vr.human = triage_human_summary(*rep, o->top, o->by_module) + "\nartifacts written to " + out + "\n";
        return vr;
      };
      if (o->traces.size() == 1) return one(o->traces[0], o->out, nullptr);
      VerbResult all;
      Json ranks = Json::array();
      for (size_t i = 0; i < o->traces.size(); ++i) {
        Json head;
        // The output folder is named by the rank the file name gives (the trace may say otherwise;
        // the result's `rank` is the trace's own).
        int64_t hint = rank_from_name(std::filesystem::path(o->traces[i]).filename().string());
        const std::string dir =
            (std::filesystem::path(o->out) / ("rank" + std::to_string(hint >= 0 ? hint : static_cast<int64_t>(i))))
                .string();
        VerbResult vr = one(o->traces[i], dir, &head);
        if (head["rank"].is_null()) head["rank"] = static_cast<int64_t>(i), head["rank_from"] = "order";
        head["source"] = o->traces[i];
        head["triage"] = vr.result.is_null() ? Json(nullptr) : vr.result;
        head["error"] = vr.error ? error_to_json(*vr.error) : Json(nullptr);
        all.human += "== rank " + head["rank"].dump() + " (" + o->traces[i] + ") ==\n" +
                     (vr.human.empty() && vr.error ? "error: " + vr.error->describe() + "\n" : vr.human) + "\n";
        ranks.push_back(std::move(head));
        if (vr.error && !all.error) all.error = vr.error;
      }
      all.result = Json{{"out_dir", o->out}, {"ranks", ranks}};
      return all;
    });
  });
}

}  // namespace goblin
