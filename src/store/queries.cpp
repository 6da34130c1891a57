// Reading the run store: the runs list, one run with its tables, trends, calibration, experiments
// (docs/store.md § Reading). Filters are fixed SQL fragments with bound values.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "core/stats.h"
#include "store/store.h"
#include "store/store_sql.h"

namespace goblin::store {
namespace {

const char* const kBaseColumns[] = {"content_key",    "created",       "verb",  "source", "workload",
                                    "goblin_version", "goblin_commit", "gpu",   "driver", "cuda",
                                    "rocm",           "pytorch",       "clocks"};

std::string cell(const Cell& c) { return c.value_or(""); }

std::vector<std::string> split_rules(const std::string& s) {
  std::vector<std::string> out;
  for (size_t p = 0, q; !s.empty() && p <= s.size(); p = q + 1) {
    q = s.find(',', p);
    if (q == std::string::npos) q = s.size();
    out.push_back(s.substr(p, q - p));
  }
  return out;
}

// WHERE clause for a filter: fixed text, the user's values as parameters.
std::string where_of(const RunFilter& f, std::vector<Value>& params) {
  std::string w = " WHERE 1 = 1";
  auto eq = [&](const char* col, const std::string& v) {
    if (v.empty()) return;
    fmt::format_to(std::back_inserter(w), " AND {} = ?", col);
    params.emplace_back(v);
  };
  eq("workload", f.workload);
  eq("gpu", f.gpu);
  eq("experiment_id", f.experiment_id);
  eq("trial_id", f.trial_id);
  eq("verb", f.verb);
  if (!f.tag.empty()) {
    w += " AND id IN (SELECT run_id FROM run_tags WHERE tag = ?)";
    params.emplace_back(f.tag);
  }
  if (!f.since.empty()) {
    w += " AND created >= ?";
    params.emplace_back(f.since);
  }
  if (!f.until.empty()) {
    w += " AND created < ?";
    params.emplace_back(f.until);
  }
  return w;
}

}  // namespace

std::string run_insert_columns() {
  std::string s;
  for (const char* c : kBaseColumns) fmt::format_to(std::back_inserter(s), "{}{}", s.empty() ? "" : ", ", c);
  for (const auto& f : linkage_fields()) fmt::format_to(std::back_inserter(s), ", {}", f);
  return s;
}

std::string run_select_columns(const std::string& prefix) {
  std::string s = prefix + "id";
  for (const char* c : kBaseColumns) fmt::format_to(std::back_inserter(s), ", {}{}", prefix, c);
  for (const auto& f : linkage_fields()) fmt::format_to(std::back_inserter(s), ", {}{}", prefix, f);
  return s;
}

std::optional<double> cell_double(const Cell& c) {
  if (!c) return std::nullopt;
  return std::strtod(c->c_str(), nullptr);
}
int64_t cell_int(const Cell& c) { return c ? std::atoll(c->c_str()) : 0; }

RunRecord run_from_row(const Row& row) {
  RunRecord r;
  size_t i = 0;
  r.id = cell_int(row.at(i++));
  std::string* base[] = {&r.content_key,    &r.created,       &r.verb,  &r.source, &r.workload,
                         &r.goblin_version, &r.goblin_commit, &r.gpu,   &r.driver, &r.cuda,
                         &r.rocm,           &r.pytorch,       &r.clocks};
  for (std::string* p : base) *p = cell(row.at(i++));
  for (const auto& f : linkage_fields()) r.linkage[f] = cell(row.at(i++));
  return r;
}

Result<std::vector<RunRecord>> Store::list(const RunFilter& f) const {
  std::vector<Value> params;
  const std::string where = where_of(f, params);
  params.emplace_back(std::max<int64_t>(0, f.limit));
  params.emplace_back(std::max<int64_t>(0, f.offset));
  ASSIGN_OR_RETURN(auto rows, engine_->query(fmt::format("SELECT {} FROM runs{} ORDER BY id DESC LIMIT ? OFFSET ?",
                                                         run_select_columns(), where),
                                             params));
  std::vector<RunRecord> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(run_from_row(row));
  if (out.empty()) return out;
  // Metrics and tags of exactly the page's runs: the same filter and page as a subquery.
  std::map<int64_t, RunRecord*> by_id;
  for (auto& r : out) by_id[r.id] = &r;
  const std::string page = fmt::format("SELECT id FROM runs{} ORDER BY id DESC LIMIT ? OFFSET ?", where);
  ASSIGN_OR_RETURN(
      auto ms,
      engine_->query(fmt::format("SELECT run_id, name, value FROM run_metrics WHERE run_id IN ({})", page), params));
  for (const auto& m : ms)
    if (auto it = by_id.find(cell_int(m[0])); it != by_id.end()) it->second->metrics[cell(m[1])] = *cell_double(m[2]);
  ASSIGN_OR_RETURN(auto ts, engine_->query(fmt::format("SELECT run_id, tag FROM run_tags WHERE run_id IN ({}) ORDER BY "
                                                       "tag",
                                                       page),
                                           params));
  for (const auto& t : ts)
    if (auto it = by_id.find(cell_int(t[0])); it != by_id.end()) it->second->tags.push_back(cell(t[1]));
  return out;
}

Result<int64_t> Store::count(const RunFilter& f) const {
  std::vector<Value> params;
  const std::string where = where_of(f, params);
  ASSIGN_OR_RETURN(auto rows, engine_->query("SELECT count(*) FROM runs" + where, params));
  return cell_int(rows.at(0).at(0));
}

Result<RunRecord> Store::get(int64_t run_id) const {
  const Value id(run_id);
  ASSIGN_OR_RETURN(auto rows,
                   engine_->query(fmt::format("SELECT {} FROM runs WHERE id = ?", run_select_columns()), {id}));
  if (rows.empty()) return make_error(ErrorKind::NotFound, fmt::format("store: no run {}", run_id), url_.redacted);
  RunRecord r = run_from_row(rows[0]);
  Engine& e = *engine_;
  ASSIGN_OR_RETURN(auto ms, e.query("SELECT name, value FROM run_metrics WHERE run_id = ? ORDER BY name", {id}));
  for (const auto& m : ms) r.metrics[cell(m[0])] = *cell_double(m[1]);
  ASSIGN_OR_RETURN(auto ts, e.query("SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag", {id}));
  for (const auto& t : ts) r.tags.push_back(cell(t[0]));
  ASSIGN_OR_RETURN(auto in, e.query("SELECT path, sha256, bytes FROM run_inputs WHERE run_id = ? ORDER BY idx", {id}));
  for (const auto& x : in) r.inputs.push_back({cell(x[0]), cell(x[1]), cell_int(x[2])});
  ASSIGN_OR_RETURN(auto ar, e.query("SELECT a.name, a.sha256, b.bytes FROM run_artifacts a JOIN blobs b ON b.sha256 = "
                                    "a.sha256 WHERE a.run_id = ? ORDER BY a.name",
                                    {id}));
  for (const auto& x : ar) r.artifacts.push_back({cell(x[0]), cell(x[1]), cell_int(x[2]), std::nullopt});
  ASSIGN_OR_RETURN(auto st, e.query("SELECT name, wall_s, busy_s FROM run_steps WHERE run_id = ? ORDER BY idx", {id}));
  for (const auto& x : st) r.steps.push_back({cell(x[0]), cell_double(x[1]), cell_double(x[2])});
  ASSIGN_OR_RETURN(auto ca, e.query("SELECT category, time_s, pct FROM run_categories WHERE run_id = ? ORDER BY time_s "
                                    "DESC, category",
                                    {id}));
  for (const auto& x : ca) r.categories.push_back({cell(x[0]), cell_double(x[1]), cell_double(x[2])});
  ASSIGN_OR_RETURN(auto ke, e.query("SELECT name, category, time_s, pct, launches FROM run_kernels WHERE run_id = ? "
                                    "ORDER BY idx",
                                    {id}));
  for (const auto& x : ke)
    r.kernels.push_back({cell(x[0]), cell(x[1]), cell_double(x[2]), cell_double(x[3]), cell_int(x[4])});
  ASSIGN_OR_RETURN(auto wa, e.query("SELECT bucket, seconds FROM run_waste WHERE run_id = ? ORDER BY bucket", {id}));
  for (const auto& x : wa) r.waste.push_back({cell(x[0]), cell_double(x[1])});
  ASSIGN_OR_RETURN(auto au,
                   e.query("SELECT round, rules, gpu, method, held, predicted_low, predicted_high, measured, "
                           "ci_low, ci_high, significant FROM run_audit_rounds WHERE run_id = ? ORDER BY round",
                           {id}));
  for (const auto& x : au) {
    AuditRoundRow a;
    a.round = static_cast<int>(cell_int(x[0]));
    a.rules = split_rules(cell(x[1]));
    a.gpu = cell(x[2]), a.method = cell(x[3]), a.held = cell(x[4]);
    a.predicted_low = cell_double(x[5]), a.predicted_high = cell_double(x[6]), a.measured = cell_double(x[7]);
    a.ci_low = cell_double(x[8]), a.ci_high = cell_double(x[9]);
    if (x[10]) a.significant = cell_int(x[10]) != 0;
    r.audit_rounds.push_back(std::move(a));
  }
  ASSIGN_OR_RETURN(auto itr, e.query("SELECT version, change, metric, value, pct_of_target, masked, correct FROM "
                                     "run_kernel_iterations WHERE run_id = ? ORDER BY version",
                                     {id}));
  for (const auto& x : itr)
    r.iterations.push_back({static_cast<int>(cell_int(x[0])), cell(x[1]), cell_double(x[3]), cell_double(x[4]),
                            cell(x[2]), cell_int(x[5]) != 0, cell_int(x[6]) != 0});
  ASSIGN_OR_RETURN(auto rk, e.query("SELECT rank, gpu, step_time_s, steps, collectives FROM run_ranks WHERE run_id = ? "
                                    "ORDER BY rank",
                                    {id}));
  for (const auto& x : rk)
    r.ranks.push_back(
        {static_cast<int>(cell_int(x[0])), cell(x[1]), cell_double(x[2]), cell_int(x[3]), cell_int(x[4])});
  return r;
}

Result<std::vector<TrendPoint>> Store::trend(const std::string& workload, const std::string& metric,
                                             int64_t limit) const {
  ASSIGN_OR_RETURN(auto rows,
                   engine_->query("SELECT r.id, r.created, m.value, r.verb FROM runs r JOIN run_metrics m ON m.run_id "
                                  "= r.id AND m.name = ? WHERE r.workload = ? ORDER BY r.id DESC LIMIT ?",
                                  {metric, workload, Value(std::max<int64_t>(0, limit))}));
  std::vector<TrendPoint> out;
  out.reserve(rows.size());
  for (auto it = rows.rbegin(); it != rows.rend(); ++it)
    out.push_back({cell_int((*it)[0]), cell((*it)[1]), cell_double((*it)[2]).value_or(0), cell((*it)[3])});
  return out;
}

Result<std::vector<CalibrationRow>> Store::calibration() const {
  ASSIGN_OR_RETURN(auto rows, engine_->query("SELECT u.rule_id, a.gpu, a.held, a.predicted_low, a.predicted_high, "
                                             "a.measured FROM run_audit_rules u JOIN run_audit_rounds a ON a.run_id = "
                                             "u.run_id AND a.round = u.round ORDER BY u.rule_id, a.gpu",
                                             {}));
  std::map<std::pair<std::string, std::string>, std::pair<CalibrationRow, std::vector<double>>> by;
  for (const auto& x : rows) {
    auto& [row, ratios] = by[{cell(x[0]), cell(x[1])}];
    row.rule_id = cell(x[0]), row.gpu = cell(x[1]);
    const std::string held = cell(x[2]);
    const auto lo = cell_double(x[3]), hi = cell_double(x[4]), m = cell_double(x[5]);
    if (!m) continue;  // no measurement: nothing to calibrate against
    ++row.audits;
    if (held == "held")
      ++row.held;
    else if (held == "exceeded")
      ++row.exceeded;
    else if (held == "missed")
      ++row.missed;
    else
      ++row.not_predicted;
    if (lo && hi && *lo + *hi > 0) ratios.push_back(*m / ((*lo + *hi) / 2));
  }
  std::vector<CalibrationRow> out;
  for (auto& [k, v] : by) {
    if (!v.second.empty()) v.first.median_measured_over_mid = median(v.second);
    out.push_back(std::move(v.first));
  }
  return out;
}

Result<std::vector<Store::PastRound>> Store::audit_rounds() const {
  ASSIGN_OR_RETURN(auto rows, engine_->query("SELECT r.created, r.workload, a.round, a.rules, a.gpu, a.method, a.held, "
                                             "a.predicted_low, a.predicted_high, a.measured, a.ci_low, a.ci_high, "
                                             "a.significant FROM run_audit_rounds a JOIN runs r ON r.id = a.run_id "
                                             "ORDER BY r.id, a.round",
                                             {}));
  std::vector<PastRound> out;
  for (const auto& x : rows) {
    PastRound p{cell(x[0]), cell(x[1]), {}};
    AuditRoundRow& a = p.round;
    a.round = static_cast<int>(cell_int(x[2]));
    a.rules = split_rules(cell(x[3]));
    a.gpu = cell(x[4]), a.method = cell(x[5]), a.held = cell(x[6]);
    a.predicted_low = cell_double(x[7]), a.predicted_high = cell_double(x[8]), a.measured = cell_double(x[9]);
    a.ci_low = cell_double(x[10]), a.ci_high = cell_double(x[11]);
    if (x[12]) a.significant = cell_int(x[12]) != 0;
    out.push_back(std::move(p));
  }
  return out;
}

Result<Json> Store::experiments() const {
  ASSIGN_OR_RETURN(auto rows, engine_->query("SELECT e.id, e.created, (SELECT count(*) FROM trials t WHERE "
                                             "t.experiment_id = e.id), (SELECT count(*) FROM runs r WHERE "
                                             "r.experiment_id = e.id) FROM experiments e ORDER BY e.created DESC, e.id",
                                             {}));
  Json out = Json::array();
  for (const auto& x : rows)
    out.push_back(
        {{"experiment_id", cell(x[0])}, {"created", cell(x[1])}, {"trials", cell_int(x[2])}, {"runs", cell_int(x[3])}});
  return out;
}

Result<std::optional<std::string>> Store::artifact(const std::string& sha256) const {
  ASSIGN_OR_RETURN(auto rows, engine_->query("SELECT content FROM blobs WHERE sha256 = ?", {sha256}));
  if (rows.empty()) return make_error(ErrorKind::NotFound, "store: no artifact with this hash", url_.redacted);
  return rows[0][0];
}

}  // namespace goblin::store
