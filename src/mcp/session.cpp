#include "mcp/session.h"

#include <filesystem>

#include "audit/replay_runner.h"
#include "core/data.h"

namespace goblin::mcp {

Result<audit::ReplayRunner*> Session::replay() {
  if (replay_) return replay_.get();
  if (opt_.replay_dir.empty())
    return make_error(ErrorKind::Environment,
                      "no replay directory: this session was started without --replay DIR, so recorded runs cannot "
                      "stand in for a live run");
  ASSIGN_OR_RETURN(auto r, audit::ReplayRunner::open(opt_.replay_dir));
  replay_ = std::make_unique<audit::ReplayRunner>(std::move(r));
  return replay_.get();
}

void Session::record_run(RunRecord r) { runs_.push_back(std::move(r)); }

const RunRecord* Session::find_run(const std::string& id) const {
  for (const auto& r : runs_)
    if (r.id == id) return &r;
  return nullptr;
}

const RunRecord* Session::last_profile_of(const config::WorkloadConfig& c) const {
  for (auto it = runs_.rbegin(); it != runs_.rend(); ++it)
    if (it->kind == "profile" && audit::config_differences(it->requested, c).empty()) return &*it;
  return nullptr;
}

void Session::add_report(ReportRecord r) {
  std::lock_guard<std::mutex> l(mu_);
  reports_.push_back(std::move(r));
}

std::vector<ReportRecord> Session::reports() const {
  std::lock_guard<std::mutex> l(mu_);
  return reports_;
}

Confinement confinement_of(const ServerOptions& o, const Roots& roots) {
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  Confinement c;
  c.read_roots = roots.dirs();
  for (const std::string& extra : {o.replay_dir, data_dir_override(), o.out_dir})
    if (!extra.empty()) c.read_roots.push_back(extra);
  c.write_roots = {o.out_dir};
  return c;
}

}  // namespace goblin::mcp
