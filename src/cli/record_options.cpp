// --store on profile, bench and trace (record_options.h).
#include "cli/record_options.h"

#include <fmt/format.h>

#include "config/workload_config.h"
#include "store/import.h"
#include "store/store.h"

namespace goblin::cli {

void add_record_options(CLI::App* cmd, RecordOptions& o, bool with_workload) {
  cmd->add_option("--store", o.store,
                  "Record the result as a run in this store (sqlite:///path.db, postgresql://...; default "
                  "$GOBLIN_STORE)");
  cmd->add_option("--experiment", o.experiment, "Experiment id the recorded run belongs to (with --store)");
  cmd->add_option("--trial", o.trial, "Trial id the recorded run belongs to (with --store)");
  if (with_workload)
    cmd->add_option("--workload", o.workload,
                    "Workload name trends and goblin gate group the recorded run by (with --store)");
  cmd->add_option("--tag", o.tags, "Tags of the recorded run (with --store)")->delimiter(',');
}

void record_cli_result(const RecordOptions& o, const std::string& verb, const std::vector<std::string>& inputs,
                       const std::string& folder, VerbResult& r) {
  if (r.error) return;
  const std::string url = o.store.empty() ? store::default_store_url() : o.store;
  if (url.empty()) return;
  store::Linkage link;
  link.experiment_id = o.experiment, link.trial_id = o.trial, link.workload = o.workload, link.tags = o.tags;
  auto fail = [&](const Error& e) {
    Error x = e;
    x.message = config::redact_credentials("the result was computed but not recorded in the store: " + e.message);
    x.file = config::redact_credentials(x.file);
    r.error = x;
  };
  auto rec =
      folder.empty() ? store::record_from_result(verb, inputs, r.result, link) : store::record_from_path(folder, link);
  if (!rec) return fail(rec.error());
  if (!folder.empty()) rec->source = "verb";  // recorded live, not imported later
  auto s = store::Store::open(url, true, true);
  if (!s) return fail(s.error());
  auto out = s->add(std::move(*rec));
  if (!out) return fail(out.error());
  if (r.result.is_object()) r.result["stored_run"] = {{"id", out->run_id}, {"added", out->added}, {"store", s->url()}};
  r.human +=
      fmt::format("{} run {} in {}\n", out->added ? "recorded as" : "already recorded as", out->run_id, s->url());
}

}  // namespace goblin::cli
