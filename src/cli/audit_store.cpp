// The audit and the run store (docs/store.md § The audit): an audit's output directory recorded
// as a run. (The store's audit rounds calibrate an audit through store/calibration_source.h.)
#include "cli/audit_store.h"

#include <fmt/format.h>

#include "store/import.h"
#include "store/store.h"

namespace goblin::cli {

Result<std::string> record_audit(const std::string& url, const std::string& out_dir, const std::string& experiment,
                                 const std::string& trial, const std::vector<std::string>& tags) {
  store::Linkage link;
  link.experiment_id = experiment, link.trial_id = trial, link.tags = tags;
  ASSIGN_OR_RETURN(auto rec, store::record_from_path(out_dir, link));
  ASSIGN_OR_RETURN(auto s, store::Store::open(url, true));
  ASSIGN_OR_RETURN(auto out, s.add(std::move(rec)));
  return fmt::format("{} run {} in {}\n", out.added ? "recorded as" : "already recorded as", out.run_id, s.url());
}

}  // namespace goblin::cli
