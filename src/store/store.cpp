// Opening, initialising, migrating and writing the run store (docs/store.md). Reads: queries.cpp.
#include "store/store.h"

#include <fmt/format.h>

#include <cstdlib>

#include "core/clock.h"
#include "store/schema.h"
#include "store/store_sql.h"

namespace goblin::store {
namespace {

// PostgreSQL: one session at a time runs init/migrations (a transaction-scoped advisory lock).
constexpr int64_t kMigrationLock = 0x60B11;

Error refuse(const StoreUrl& u, const std::string& why) {
  return make_error(ErrorKind::Malformed, "store: " + why + "; the store was not changed", u.redacted);
}

// A name from the database, shown in a message: printable ASCII, at most 64 characters.
std::string shown(const std::string& name) {
  std::string out;
  for (unsigned char c : name.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  return out + (name.size() > 64 ? "..." : "");
}

// Where goblin reads tables, a view or a trigger would run the database's own SQL on every read
// (a recursive view named run_tags spins each reader for ever), so a store holding one is
// refused, as the trace readers refuse a database they do not recognise. goblin's schema
// creates neither. In PostgreSQL, where a store may share its schema with other applications,
// only views named as goblin's tables and triggers on goblin's tables count.
Status refuse_foreign_objects(Engine& e, const StoreUrl& u) {
  std::vector<Row> odd;
  if (e.kind() == EngineKind::Sqlite) {
    ASSIGN_OR_RETURN(odd, e.query("SELECT type, name FROM sqlite_master WHERE type NOT IN ('table', 'index') "
                                  "ORDER BY name LIMIT 1",
                                  {}));
  } else {
    for (const auto& t : table_names()) {
      ASSIGN_OR_RETURN(odd, e.query("SELECT 'view', table_name FROM information_schema.tables WHERE table_schema = "
                                    "current_schema() AND table_name = ? AND table_type <> 'BASE TABLE' UNION ALL "
                                    "SELECT 'trigger', t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                                    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND "
                                    "n.nspname = current_schema() AND c.relname = ? LIMIT 1",
                                    {Value(t), Value(t)}));
      if (!odd.empty()) break;
    }
  }
  if (odd.empty() || odd[0].size() < 2) return {};
  return refuse(u, fmt::format("the store holds a {} named '{}', where goblin keeps only tables and indexes (a view "
                               "or trigger runs its own SQL on every read)",
                               odd[0][0].value_or("?"), shown(odd[0][1].value_or(""))));
}

Value opt(const std::optional<double>& v) { return v ? Value(*v) : Value(); }

}  // namespace

std::string default_store_url() {
  const char* e = std::getenv("GOBLIN_STORE");
  return e ? e : "";
}

int Store::current_schema() { return static_cast<int>(migrations().size()); }

Result<Store> Store::open(const std::string& url, bool create, bool migrate) {
  Store s;
  ASSIGN_OR_RETURN(s.url_, parse_store_url(url));
  if (s.url_.kind == EngineKind::Sqlite) {
    ASSIGN_OR_RETURN(s.engine_, open_sqlite(s.url_.path, create));
  } else {
    ASSIGN_OR_RETURN(s.engine_, open_postgres(s.url_.conninfo, s.url_.redacted));
  }
  Engine& e = *s.engine_;
  ASSIGN_OR_RETURN(bool marked, e.has_table(kMetaTable));
  if (!marked) {
    ASSIGN_OR_RETURN(bool empty, e.empty());
    if (!empty) return refuse(s.url_, "the database holds tables but is not a goblin run store");
    if (!create)
      return make_error(ErrorKind::NotFound, "store: not initialised (goblin store init creates it)", s.url_.redacted);
  } else {
    ASSIGN_OR_RETURN(auto rows, e.query(fmt::format("SELECT key, value FROM {}", kMetaTable), {}));
    std::string app, ver;
    for (const auto& r : rows) {
      if (r.size() < 2 || !r[0] || !r[1]) continue;
      if (*r[0] == "application") app = *r[1];
      if (*r[0] == "schema_version") ver = *r[1];
    }
    if (app != kApplication) return refuse(s.url_, "the database is not a goblin run store");
    char* end = nullptr;
    const long v = std::strtol(ver.c_str(), &end, 10);
    if (ver.empty() || *end != '\0' || v < 0) return refuse(s.url_, "the store's schema version is unreadable");
    s.version_ = static_cast<int>(v);
    if (s.version_ > current_schema())
      return refuse(s.url_, fmt::format("the store has schema version {}, newer than this goblin's {} (upgrade goblin)",
                                        s.version_, current_schema()));
    if (s.version_ < current_schema() && !migrate && !create)
      return make_error(ErrorKind::Usage,
                        fmt::format("store: schema version {} is older than {}: run goblin store migrate", s.version_,
                                    current_schema()),
                        s.url_.redacted);
  }
  RETURN_IF_ERROR(refuse_foreign_objects(e, s.url_));
  if (e.kind() == EngineKind::Sqlite) {
    // Only now that the file is known to be a goblin store (or empty) may anything write to it.
    RETURN_IF_ERROR(e.query("PRAGMA journal_mode=WAL", {}));
    // WAL + synchronous=NORMAL: a commit is atomic and survives a crash of goblin; only a power
    // loss may drop the last commits (never corrupting the file). https://sqlite.org/wal.html
    RETURN_IF_ERROR(e.query("PRAGMA synchronous=NORMAL", {}));
    RETURN_IF_ERROR(e.query("PRAGMA foreign_keys=ON", {}));
  }
  if (!marked || s.version_ < current_schema()) RETURN_IF_ERROR(s.migrate_to_current());
  return s;
}

Status Store::migrate_to_current() {
  Engine& e = *engine_;
  RETURN_IF_ERROR(e.begin());
  auto fail = [&](const Error& err) -> Status {
    e.rollback();
    return err;
  };
  if (e.kind() == EngineKind::Postgres)
    if (auto r = e.query("SELECT pg_advisory_xact_lock(?)", {Value(kMigrationLock)}); !r) return fail(r.error());
  // Read the version again inside the transaction: another process may have migrated meanwhile.
  int v = 0;
  auto has = e.has_table(kMetaTable);
  if (!has) return fail(has.error());
  if (!*has) {
    auto r = e.query(fmt::format("CREATE TABLE {} (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                                 "INSERT INTO {} (key, value) VALUES ('application', '{}'), ('schema_version', '0');",
                                 kMetaTable, kMetaTable, kApplication),
                     {});
    if (!r) return fail(r.error());
  } else {
    auto r = e.query(fmt::format("SELECT value FROM {} WHERE key = 'schema_version'", kMetaTable), {});
    if (!r) return fail(r.error());
    if (!r->empty() && r->front()[0]) v = std::atoi(r->front()[0]->c_str());
  }
  for (; v < current_schema(); ++v) {
    auto r = e.query(dialect(migrations()[static_cast<size_t>(v)], e.kind()), {});
    if (!r) return fail(r.error());
  }
  auto r = e.query(fmt::format("UPDATE {} SET value = ? WHERE key = 'schema_version'", kMetaTable),
                   {Value(fmt::format("{}", v))});
  if (!r) return fail(r.error());
  RETURN_IF_ERROR(e.commit());
  version_ = v;
  return {};
}

namespace {

Status check_step_times(const RunRecord& r) {
  auto bad = [&](const std::string& what, double v) {
    return make_error(ErrorKind::Malformed,
                      fmt::format("store: {} = {:g} s is impossible (a step takes a positive, finite time): the run "
                                  "is not recorded",
                                  what, v));
  };
  if (auto it = r.metrics.find("step_time_s"); it != r.metrics.end() && !plausible_seconds(it->second))
    return bad("step_time_s", it->second);
  // One step of a table may be an empty annotation (0 s); a negative or non-finite one is damage.
  for (const auto& st : r.steps)
    if (st.wall_s && !(std::isfinite(*st.wall_s) && *st.wall_s >= 0))
      return bad("step " + st.name + " wall_s", *st.wall_s);
  for (const auto& rk : r.ranks)
    if (rk.step_time_s && !plausible_seconds(*rk.step_time_s))
      return bad(fmt::format("rank {} step_time_s", rk.rank), *rk.step_time_s);
  return {};
}

}  // namespace

Result<AddOutcome> Store::add(RunRecord r) {
  finish_record(r);
  // A step takes a positive, finite time: a step time of -5 s or 0 s is not a measurement, and
  // stored it would make every later gate compare against nonsense (docs/robustness.md).
  RETURN_IF_ERROR(check_step_times(r));
  if (r.created.empty()) r.created = now_iso8601();
  if (r.content_key.empty()) return make_error(ErrorKind::Internal, "store: a run without a content key");
  Engine& e = *engine_;
  RETURN_IF_ERROR(e.begin());
  auto body = [&]() -> Result<AddOutcome> {
    const std::string& exp = r.linkage["experiment_id"];
    const std::string& trial = r.linkage["trial_id"];
    RETURN_IF_ERROR(
        e.query("INSERT INTO experiments (id, created) VALUES (?, ?) ON CONFLICT DO NOTHING", {exp, r.created}));
    RETURN_IF_ERROR(e.query("INSERT INTO trials (experiment_id, id, created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                            {exp, trial, r.created}));
    std::vector<Value> vals = {r.content_key,    r.created,       r.verb,  r.source, r.workload,
                               r.goblin_version, r.goblin_commit, r.gpu,   r.driver, r.cuda,
                               r.rocm,           r.pytorch,       r.clocks};
    for (const auto& f : linkage_fields()) vals.emplace_back(r.linkage[f]);
    std::string marks;
    for (size_t i = 0; i < vals.size(); ++i) marks += i ? ", ?" : "?";
    ASSIGN_OR_RETURN(auto ins, e.query(fmt::format("INSERT INTO runs ({}) VALUES ({}) ON CONFLICT (content_key) DO "
                                                   "NOTHING RETURNING id",
                                                   run_insert_columns(), marks),
                                       vals));
    AddOutcome out;
    if (ins.empty()) {  // the same run is stored already
      ASSIGN_OR_RETURN(auto old, e.query("SELECT id FROM runs WHERE content_key = ?", {r.content_key}));
      if (!old.empty() && old[0][0]) out.run_id = std::atoll(old[0][0]->c_str());
      return out;
    }
    out.run_id = std::atoll(ins[0][0].value_or("0").c_str());
    out.added = true;
    const Value id(out.run_id);
    for (const auto& t : r.tags)
      RETURN_IF_ERROR(e.query("INSERT INTO run_tags (run_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING", {id, t}));
    for (const auto& [k, v] : r.metrics)
      RETURN_IF_ERROR(e.query("INSERT INTO run_metrics (run_id, name, value) VALUES (?, ?, ?)", {id, k, v}));
    for (size_t i = 0; i < r.inputs.size(); ++i)
      RETURN_IF_ERROR(e.query("INSERT INTO run_inputs (run_id, idx, path, sha256, bytes) VALUES (?, ?, ?, ?, ?)",
                              {id, int64_t(i), r.inputs[i].path, r.inputs[i].sha256, r.inputs[i].bytes}));
    for (const auto& a : r.artifacts) {
      RETURN_IF_ERROR(e.query("INSERT INTO blobs (sha256, bytes, content) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                              {a.sha256, a.bytes, a.content ? Value(*a.content) : Value()}));
      RETURN_IF_ERROR(
          e.query("INSERT INTO run_artifacts (run_id, name, sha256) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                  {id, a.name, a.sha256}));
    }
    for (size_t i = 0; i < r.steps.size(); ++i)
      RETURN_IF_ERROR(e.query("INSERT INTO run_steps (run_id, idx, name, wall_s, busy_s) VALUES (?, ?, ?, ?, ?)",
                              {id, int64_t(i), r.steps[i].name, opt(r.steps[i].wall_s), opt(r.steps[i].busy_s)}));
    for (const auto& c : r.categories)
      RETURN_IF_ERROR(
          e.query("INSERT INTO run_categories (run_id, category, time_s, pct) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT DO NOTHING",
                  {id, c.category, opt(c.time_s), opt(c.pct)}));
    for (size_t i = 0; i < r.kernels.size(); ++i) {
      const auto& k = r.kernels[i];
      RETURN_IF_ERROR(
          e.query("INSERT INTO run_kernels (run_id, idx, name, category, time_s, pct, launches) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?)",
                  {id, int64_t(i), k.name, k.category, opt(k.time_s), opt(k.pct), k.count}));
    }
    for (const auto& w : r.waste)
      RETURN_IF_ERROR(e.query("INSERT INTO run_waste (run_id, bucket, seconds) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                              {id, w.bucket, opt(w.seconds)}));
    for (const auto& a : r.audit_rounds) {
      std::string rules;
      for (const auto& x : a.rules) rules += (rules.empty() ? "" : ",") + x;
      Value sig = a.significant ? Value(int64_t(*a.significant)) : Value();
      RETURN_IF_ERROR(e.query(
          "INSERT INTO run_audit_rounds (run_id, round, rules, gpu, method, predicted_low, "
          "predicted_high, measured, ci_low, ci_high, significant, held) VALUES (?, ?, ?, ?, ?, ?, "
          "?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
          {id, int64_t(a.round), rules, a.gpu.empty() ? std::string(kUnknown) : a.gpu, a.method, opt(a.predicted_low),
           opt(a.predicted_high), opt(a.measured), opt(a.ci_low), opt(a.ci_high), sig, a.held}));
      for (const auto& x : a.rules)
        RETURN_IF_ERROR(
            e.query("INSERT INTO run_audit_rules (run_id, round, rule_id) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    {id, int64_t(a.round), x}));
    }
    for (const auto& it : r.iterations)
      RETURN_IF_ERROR(
          e.query("INSERT INTO run_kernel_iterations (run_id, version, change, metric, value, "
                  "pct_of_target, masked, correct) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                  {id, int64_t(it.version), it.change, it.metric, opt(it.value), opt(it.pct_of_target),
                   int64_t(it.masked), int64_t(it.correct)}));
    for (const auto& k : r.ranks)
      RETURN_IF_ERROR(
          e.query("INSERT INTO run_ranks (run_id, rank, gpu, step_time_s, steps, collectives) VALUES "
                  "(?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                  {id, int64_t(k.rank), k.gpu, opt(k.step_time_s), k.steps, k.collectives}));
    return out;
  };
  auto out = body();
  if (!out) {
    e.rollback();
    return out.error();
  }
  RETURN_IF_ERROR(e.commit());
  return out;
}

Status Store::remove(int64_t run_id) {
  Engine& e = *engine_;
  RETURN_IF_ERROR(e.begin());
  auto body = [&]() -> Status {
    const Value id(run_id);
    ASSIGN_OR_RETURN(auto have, e.query("SELECT 1 FROM runs WHERE id = ?", {id}));
    if (have.empty()) return make_error(ErrorKind::NotFound, fmt::format("store: no run {}", run_id), url_.redacted);
    for (const char* t :
         {"run_tags", "run_metrics", "run_inputs", "run_artifacts", "run_steps", "run_categories", "run_kernels",
          "run_waste", "run_audit_rounds", "run_audit_rules", "run_kernel_iterations", "run_ranks"})
      RETURN_IF_ERROR(e.query(fmt::format("DELETE FROM {} WHERE run_id = ?", t), {id}));
    RETURN_IF_ERROR(e.query("DELETE FROM runs WHERE id = ?", {id}));
    // Artifacts are shared by content hash: drop only those no run refers to any more.
    RETURN_IF_ERROR(
        e.query("DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM run_artifacts a WHERE a.sha256 = "
                "blobs.sha256)",
                {}));
    return {};
  };
  if (auto st = body(); !st) {
    e.rollback();
    return st;
  }
  return e.commit();
}

Status Store::set_tags(int64_t run_id, const std::vector<std::string>& tags) {
  Engine& e = *engine_;
  RETURN_IF_ERROR(e.begin());
  auto body = [&]() -> Status {
    RETURN_IF_ERROR(e.query("DELETE FROM run_tags WHERE run_id = ?", {Value(run_id)}));
    for (const auto& t : tags)
      RETURN_IF_ERROR(
          e.query("INSERT INTO run_tags (run_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING", {Value(run_id), t}));
    return {};
  };
  if (auto st = body(); !st) {
    e.rollback();
    return st;
  }
  return e.commit();
}

}  // namespace goblin::store
