// The audit and the run store (docs/store.md § The audit). The audit's calibration
// (audit::HistoryStore::calibrate) reads a history file; with --store that file is made from the
// store's audit rounds, so every audit any teammate stored calibrates this one. The audit module
// stays below the store: it sees only the history file it always read.
#include "cli/audit_store.h"

#include <fmt/format.h>

#include "audit/history.h"
#include "store/import.h"
#include "store/store.h"

namespace goblin::cli {

Result<int> history_from_store(const std::string& url, const std::string& history_path) {
  ASSIGN_OR_RETURN(auto s, store::Store::open(url));
  ASSIGN_OR_RETURN(auto rounds, s.audit_rounds());
  ASSIGN_OR_RETURN(auto h, audit::HistoryStore::open(history_path));
  int n = 0;
  for (const auto& p : rounds) {
    audit::HistoryRecord r;
    r.created = p.created;
    r.workload = p.workload;
    r.gpu = p.round.gpu;
    r.rules = p.round.rules;
    r.prediction_method = p.round.method;
    r.predicted_low = p.round.predicted_low, r.predicted_high = p.round.predicted_high;
    r.measured = p.round.measured, r.ci_low = p.round.ci_low, r.ci_high = p.round.ci_high;
    r.significant = p.round.significant;
    r.prediction_held = p.round.held;
    r.round = p.round.round;
    r.runner_kind = "store";
    RETURN_IF_ERROR(h.add(r));
    ++n;
  }
  return n;
}

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
