// --store on profile, bench and trace (record_options.h).
#include "cli/record_options.h"

#include "app/registry.h"
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
  auto rec =
      folder.empty() ? store::record_from_result(verb, inputs, r.result, link) : store::record_from_path(folder, link);
  if (rec && !folder.empty()) rec->source = "verb";  // recorded live, not imported later
  app::store_run(url, std::move(rec), r);
}

}  // namespace goblin::cli
