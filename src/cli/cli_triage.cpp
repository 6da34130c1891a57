// `goblin triage TRACE -o DIR [--stage NAME] [--target-arch ARCH] [--top N] [--by-module] [--json]`:
// the triage artifact contract (profile_summary.md, profile_metadata.json, kernel_table.json,
// overlap_opportunities.json, fuse_opportunities.json, module_table.json, stage_table.json) plus a
// readable summary (with --by-module: GPU time by nn.Module first). Damaged input:
// what was read is still analysed and written, and the exit code says malformed (5).
#include <filesystem>

#include "analysis/triage_artifacts.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "trace/load.h"

namespace goblin {

void register_triage(CLI::App& app) {
  struct Opts {
    std::string trace, out, stage, target_arch;
    int top = 15;
    bool json = false, by_module = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("triage",
                                 "Kernel table, overlap and fuse opportunities for one trace; writes the "
                                 "profiling artifacts (profile_summary.md, profile_metadata.json, kernel_table.json, "
                                 "overlap_opportunities.json, fuse_opportunities.json, module_table.json, "
                                 "stage_table.json) into -o DIR");
  cmd->footer(help_footer_with_examples(
      "  goblin triage trace.json.gz -o out/triage         kernel table, overlap + fuse tables, summary\n"
      "  goblin triage trace.json.gz -o out/t --stage decode --target-arch gfx942\n"
      "  goblin triage serving.json.gz -o out/t --by-module   GPU time by nn.Module first\n"));
  cmd->add_option("trace", o->trace, "Trace file or run directory (Kineto, rocprofv3, Nsight, ...)")->required();
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
      VerbResult vr;
      auto in = load_trace(o->trace, kNeedGpuOps);
      if (!in) {
        vr.error = in.error();
        return vr;
      }
      TriageOptions opt;
      opt.stage = o->stage;
      opt.target_arch = o->target_arch;
      std::error_code ec;
      auto abs = std::filesystem::absolute(o->trace, ec);
      opt.source_path = ec ? o->trace : abs.lexically_normal().string();
      opt.top = o->top;
      opt.by_module = o->by_module;
      auto rep = run_triage(in->timeline, opt);
      if (!rep) {
        vr.error = rep.error();
        return vr;
      }
      Status ws = write_triage_artifacts(*rep, o->out);
      if (!ws) {
        vr.error = ws.error();
        return vr;
      }
      if (in->damage) vr.error = in->damage;  // partial input: artifacts written from what was read
      Json res;
      res["out_dir"] = o->out;
      res["artifacts"] = triage_artifact_names();
      res["metadata"] = rep->metadata;
      Json top = kernel_table_to_json(rep->kernels);
      if (top.size() > static_cast<size_t>(o->top)) top.erase(top.begin() + o->top, top.end());
      res["top_kernels"] = top;
      Json ov = Json::array();
      for (const auto& r : rep->overlap)
        if (r.priority <= Priority::P3 && ov.size() < static_cast<size_t>(o->top)) ov.push_back(overlap_row_to_json(r));
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
      vr.human = triage_human_summary(*rep, o->top, o->by_module) + "\nartifacts written to " + o->out + "\n";
      return vr;
    });
  });
}

}  // namespace goblin
