// goblin patch CONFIG --rules ID,... [--metrics METRICS.json] [--json] [-o PATCHED_FILE]
#include <sstream>

#include "analysis/metrics_io.h"
#include "audit/patch.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/io.h"

namespace goblin {
void register_patch(CLI::App& app) {
  auto* cmd = app.add_subcommand("patch", "Apply rules to a config, in the user's own file format, with a diff");
  cmd->footer(help_footer_with_examples(
      "  goblin patch cfg.yaml --rules all --metrics prof/metrics.json    patch + predicted speedup\n"
      "  goblin patch train.py --rules precision.bf16_amp_over_fp32 -o patched.py\n"));
  struct Opts {
    std::string config, metrics, out, vendor;
    std::vector<std::string> rules;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("CONFIG", o->config, "config file (YAML, JSON, Python, env)")->required();
  cmd->add_option("--rules", o->rules, "rule ids (comma-separated), or `all`")->delimiter(',')->required();
  cmd->add_option("--metrics", o->metrics,
                  "RunMetrics JSON (goblin metrics --json) for evidence and the speedup range");
  cmd->add_option("--vendor", o->vendor, "amd | nvidia, when no metrics say it")
      ->check(CLI::IsMember({"amd", "nvidia"}));
  cmd->add_option("-o,--out,--output", o->out,
                  "write the patched file here (nothing is written if it would not parse back)");
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&] {
      VerbResult r;
      std::optional<RunMetrics> m;
      if (!o->metrics.empty()) {
        auto mm = load_metrics_file(o->metrics);
        if (!mm) {
          r.error = mm.error();
          return r;
        }
        m = *mm;
      }
      auto kb = audit::load_rule_base();
      if (!kb) {
        r.error = kb.error();
        return r;
      }
      audit::PatchOptions opt;
      opt.rule_ids = o->rules;
      opt.metrics = m ? &*m : nullptr;
      opt.vendor = o->vendor;
      auto p = audit::make_patch(o->config, opt, *kb);
      if (!p) {
        r.error = p.error();
        return r;
      }
      r.result = p->result;
      if (p->unsafe) {
        // The edit would damage the file: show what it would be, write nothing, exit non-zero.
        r.error = *p->unsafe;
        r.human = r.result["diff"].get<std::string>();
        return r;
      }
      if (!o->out.empty()) {
        Status s = write_file(o->out, p->patched_text);
        if (!s) {
          r.error = s.error();
          return r;
        }
        r.result["written_to"] = o->out;
      }
      std::ostringstream os;
      os << r.result["diff"].get<std::string>();
      for (const auto& x : r.result["rationale"])
        os << "applied " << x["rule_id"].get<std::string>() << " -> " << x["targets_bucket"].get<std::string>() << "  "
           << x["citation"].get<std::string>() << "\n";
      for (const auto& x : r.result["skipped"])
        os << "skipped " << x["rule_id"].get<std::string>() << ": " << x["reason"].get<std::string>() << "\n";
      for (const auto& x : r.result["findings"])
        os << "finding " << x["rule_id"].get<std::string>() << ": " << x["title"].get<std::string>() << "\n";
      os << "expected speedup: " << r.result["expected_speedup_low"].dump() << " .. "
         << r.result["expected_speedup_high"].dump() << "   confidence " << r.result["confidence"].dump()
         << " = coverage " << r.result["evidence_coverage"].dump() << " x consistency "
         << r.result["rule_consistency"].dump() << "\n";
      r.human = os.str();
      return r;
    });
  });
}
}  // namespace goblin
