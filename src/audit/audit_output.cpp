#include "audit/audit_output.h"

#include <filesystem>

#include "audit/report.h"
#include "core/io.h"

namespace goblin::audit {

namespace {
// Everything but the report: the trajectory, the live runs' log, the patch and patched config.
Status write_extras(const std::string& dir, const std::string& config_path, const AuditOutcome& o,
                    const std::function<Json()>& live_log, std::vector<std::string>* written) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the output directory: " + ec.message(), dir);
  auto put = [&](const std::string& name, const std::string& text) -> Status {
    std::string p = (fs::path(dir) / name).string();
    if (Status s = write_file(p, text); !s) return s;
    if (written) written->push_back(p);
    return Status::Ok();
  };
  Json t = {{"config", config_path}, {"runner_kind", o.runner_kind}, {"symptoms", o.symptoms},
            {"kb_hits", o.kb_hits},  {"rule_ids", o.rule_ids},       {"trajectory", trajectory_to_json(o)}};
  if (Status s = put("trajectory.json", t.dump(2) + "\n"); !s) return s;
  if (live_log) {  // what each live profile/bench call ran and measured
    if (Status s = put("live_runs.json", live_log().dump(1) + "\n"); !s) return s;
  }
  if (!o.patched_text.empty()) {
    if (Status s = put("patched_" + fs::path(config_path).filename().string(), o.patched_text); !s) return s;
    if (Status s = put("patch.json", (o.patch ? patch_to_json(*o.patch) : Json()).dump(2) + "\n"); !s) return s;
  }
  // The last accepted round's config (with --rounds; equal to the patched file after one round).
  if (!o.final_config_text.empty() && o.rounds.size() > 1)
    if (Status s = put(o.final_config_name, o.final_config_text); !s) return s;
  return Status::Ok();
}
}  // namespace

Status write_audit_directory(const std::string& dir, const std::string& config_path, const AuditOutcome& outcome,
                             const std::function<Json()>& live_log, std::vector<std::string>* written) {
  if (!outcome.error) {
    if (Status s = write_report_files(outcome.report, dir, written); !s) return s;
  }
  return write_extras(dir, config_path, outcome, live_log, written);
}

}  // namespace goblin::audit
