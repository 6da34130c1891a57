// The run store's verbs (docs/store.md): store init|add|ls|show|rm|migrate|export|trend|calibration
// and gate (the dashboard's own reads are in verbs_store_web.cpp). Each is one call into src/store;
// the dashboard's JSON API (serve/api.cpp) calls these verbs through app::run_verb like every other
// door. Recording a verb's result (`--store` on every verb that produces one) is app::run_verb's
// (registry.cpp).
#include <fmt/format.h>

#include "app/registry.h"
#include "app/store_access.h"
#include "audit/rules.h"
#include "core/io.h"
#include "store/changes.h"
#include "store/import.h"
#include "store/store.h"

namespace goblin::app {
namespace {

Json obj_schema(std::initializer_list<std::pair<const char*, const char*>> props) {
  Json p = Json::object();
  for (const auto& [k, d] : props) p[k] = {{"description", d}};
  return Json{{"type", "object"}, {"properties", p}};
}

VerbResult fail(Error e) { return VerbResult{nullptr, std::move(e), ""}; }

std::string run_line(const store::RunRecord& r) {
  std::string m;
  for (const char* k : {"step_time_s", "tokens_per_sec", "mfu_pct", "speedup"})
    if (auto it = r.metrics.find(k); it != r.metrics.end())
      fmt::format_to(std::back_inserter(m), " {}={:g}", k, it->second);
  return fmt::format("{:>6}  {}  {:<8} {:<28} {:<20} {}/{}{}\n", r.id, r.created, r.verb, r.workload, r.gpu,
                     r.linkage.at("experiment_id"), r.linkage.at("trial_id"), m);
}

// The store verbs open the store the whole request names (open_store: the door may override it,
// goblin serve's own store); `store` is declared here with the verb's other fields.
struct StoreOnlyRequest {
  std::string store;
};

// store ls / export: the filter, read straight into store::RunFilter.
struct FilterRequest {
  std::string store;
  store::RunFilter filter;
  std::optional<std::string> out;  // export
};

// The filter's fields; `limit_default` null: every run (export), else a page (ls).
auto filter_params(Json limit_default) {
  Field limit{"limit", FieldKind::Integer,
              limit_default.is_null() ? "At most this many runs (newest first; default: all)"
                                      : "At most this many runs (newest first)",
              std::move(limit_default)};
  limit.min = 1, limit.max = 1000000;
  Field offset{"offset", FieldKind::Integer, "Skip this many runs first", 0};
  offset.min = 0;
  using F = FilterRequest;
  using RF = store::RunFilter;
  return std::tuple{
      param(&F::filter, &RF::workload, Field{"workload", FieldKind::String, "Only runs of this workload"}),
      param(&F::filter, &RF::gpu, Field{"gpu", FieldKind::String, "Only runs on this GPU (its name as recorded)"}),
      param(&F::filter, &RF::experiment_id, Field{"experiment", FieldKind::String, "Only runs of this experiment id"}),
      param(&F::filter, &RF::trial_id, Field{"trial", FieldKind::String, "Only runs of this trial id"}),
      param(&F::filter, &RF::verb,
            Field{"verb", FieldKind::String, "Only runs made by this verb (triage, metrics, audit, ...)"}),
      param(&F::filter, &RF::tag, Field{"tag", FieldKind::String, "Only runs with this tag"}),
      param(&F::filter, &RF::since,
            Field{"since", FieldKind::String, "Only runs created at or after this ISO 8601 time (2026-11-01)"}),
      param(&F::filter, &RF::until, Field{"until", FieldKind::String, "Only runs created before this ISO 8601 time"}),
      param(&F::filter, &RF::limit, limit),
      param(&F::filter, &RF::offset, offset)};
}

Verb base_verb(const std::string& word, const std::string& title, const std::string& summary) {
  Verb v;
  v.cli_path = {"store", word};
  // Over MCP only ls and show are tools (store_ls, store_show; gate too), read-only, on the
  // server's store ($GOBLIN_STORE): the store is the operator's, never an MCP caller's to choose.
  v.title = title;
  v.summary = summary;
  v.records = false;
  return v;
}

VerbResult do_init(const Request& rq, const Context& ctx, bool migrate_only) {
  const std::string url = store_url_of(rq, ctx);
  int before = -1;
  if (migrate_only) {
    // The version before migrating, read without changing anything.
    auto peek = store::Store::open(url, false, false);
    if (peek)
      before = peek->schema_version();
    else if (peek.error().kind != ErrorKind::Usage)
      return fail(peek.error());
  }
  auto s = store::Store::open(url, !migrate_only, true);
  if (!s) return fail(s.error());
  Json r = {{"store", s->url()},
            {"engine", s->engine_kind() == store::EngineKind::Sqlite ? "sqlite" : "postgresql"},
            {"schema_version", s->schema_version()}};
  if (migrate_only) r["migrated_from"] = before < 0 ? Json(nullptr) : Json(before);
  std::string h =
      fmt::format("{}: {} store at schema version {}\n", s->url(), r["engine"].get<std::string>(), s->schema_version());
  return VerbResult{r, std::nullopt, h};
}

struct AddRequest {
  std::vector<std::string> path;
  Json result;  // null when not given
  std::string verb, store;
  store::Linkage link;
};

VerbResult do_add(const AddRequest& q, const Request& rq, const Context& ctx) {
  if (q.path.empty() && q.result.is_null())  // before the store is opened: nothing is created
    return fail(make_error(ErrorKind::Usage, "store add: name the result folders or JSON files to import"));
  auto ref = open_store(rq, ctx, true, true);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  const store::Linkage& link = q.link;
  Json added = Json::array();
  std::string h;
  if (!q.result.is_null()) {
    // A result JSON given inline (the JSON doors: goblin serve's POST /api/runs), summarised as
    // `store add FILE.json` would summarise the file.
    const Json& j = q.result;
    const Json& result = j.contains("result") && j["result"].is_object() ? j["result"] : j;
    auto rec = store::record_from_result(q.verb, {}, result, link);
    if (!rec) return fail(rec.error());
    rec->source = ctx.door == kHttp ? "import:http" : "import:json";
    const std::string verb = rec->verb, workload = rec->workload;
    auto out = s->add(std::move(*rec));
    if (!out) return fail(out.error());
    added.push_back(
        {{"path", nullptr}, {"run_id", out->run_id}, {"added", out->added}, {"verb", verb}, {"workload", workload}});
    h += fmt::format("{} run {}\n", out->added ? "added" : "already stored as", out->run_id);
  }
  for (const auto& p : q.path) {
    auto rec = store::record_from_path(p, link);
    if (!rec) return VerbResult{Json{{"store", s->url()}, {"runs", added}}, rec.error(), h};
    const std::string verb = rec->verb, workload = rec->workload;
    auto out = s->add(std::move(*rec));
    if (!out) return VerbResult{Json{{"store", s->url()}, {"runs", added}}, out.error(), h};
    added.push_back(
        {{"path", p}, {"run_id", out->run_id}, {"added", out->added}, {"verb", verb}, {"workload", workload}});
    h += fmt::format("{} run {} ({} of {}): {}\n", out->added ? "added" : "already stored as", out->run_id, verb,
                     workload, p);
  }
  return VerbResult{Json{{"store", s->url()}, {"runs", added}}, std::nullopt, h};
}

VerbResult do_ls(const FilterRequest& q, const Request& rq, const Context& ctx) {
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  const store::RunFilter& f = q.filter;
  auto runs = s->list(f);
  if (!runs) return fail(runs.error());
  auto total = s->count(f);
  if (!total) return fail(total.error());
  Json arr = Json::array();
  std::string h = fmt::format("{} run(s) in {}, {} shown\n", *total, s->url(), runs->size());
  for (const auto& r : *runs) {
    arr.push_back(store::run_to_json(r, false));
    h += run_line(r);
  }
  return VerbResult{
      Json{{"store", s->url()}, {"total", *total}, {"limit", f.limit}, {"offset", f.offset}, {"runs", arr}},
      std::nullopt, h};
}

struct ShowRequest {
  std::string run, store;
};

VerbResult do_show(const ShowRequest& q, const Request& rq, const Context& ctx) {
  auto id = parse_run_id(q.run);
  if (!id) return fail(id.error());
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  auto r = s->get(*id);
  if (!r) return fail(r.error());
  Json j = store::run_to_json(*r, true);
  j["trace"] = trace_link(j);  // what the dashboard's "open in Perfetto UI" link opens
  std::string h = run_line(*r);
  h += fmt::format("  goblin {} ({}), {} on {}, driver {}, CUDA {}, ROCm {}, PyTorch {}\n", r->goblin_version,
                   r->goblin_commit, r->verb, r->gpu, r->driver, r->cuda, r->rocm, r->pytorch);
  for (const auto& i : r->inputs) h += fmt::format("  input {} sha256:{}\n", i.path, i.sha256);
  for (const auto& a : r->artifacts)
    h += fmt::format("  artifact {} sha256:{} ({} bytes)\n", a.name, a.sha256, a.bytes);
  for (const auto& k : r->kernels)
    h += fmt::format("  kernel {:>7.3f}% {} ({})\n", k.pct.value_or(0), k.name.substr(0, 80), k.category);
  for (const auto& a : r->audit_rounds)
    h += fmt::format("  round {}: predicted {:g}..{:g}, measured {:g}, {}\n", a.round, a.predicted_low.value_or(0),
                     a.predicted_high.value_or(0), a.measured.value_or(0), a.held);
  for (const auto& it : r->iterations)
    h += fmt::format("  v{}: {:g}% of the Stop Condition{}: {}\n", it.version, it.pct_of_target.value_or(0),
                     it.masked ? " (masked)" : "", it.change);
  return VerbResult{j, std::nullopt, h};
}

struct RmRequest {
  std::vector<std::string> run;
  std::string store;
};

VerbResult do_rm(const RmRequest& q, const Request& rq, const Context& ctx) {
  std::vector<int64_t> ids;
  for (const auto& x : q.run) {
    auto id = parse_run_id(x);
    if (!id) return fail(id.error());
    ids.push_back(*id);
  }
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  Json removed = Json::array();
  for (int64_t id : ids) {
    if (auto st = s->remove(id); !st) return VerbResult{Json{{"removed", removed}}, st.error(), ""};
    removed.push_back(id);
  }
  return VerbResult{Json{{"store", s->url()}, {"removed", removed}}, std::nullopt,
                    fmt::format("removed {} run(s) from {}\n", removed.size(), s->url())};
}

VerbResult do_export(const FilterRequest& q, const Request& rq, const Context& ctx) {
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  store::RunFilter f = q.filter;
  if (!rq.args().contains("limit")) f.limit = 1000000;  // no --limit: every run
  auto runs = s->list(f);
  if (!runs) return fail(runs.error());
  Json arr = Json::array();
  for (const auto& r : *runs) {
    auto full = s->get(r.id);
    if (!full) return fail(full.error());
    arr.push_back(store::run_to_json(*full, true));
  }
  Json doc = {{"store", s->url()}, {"schema_version", s->schema_version()}, {"runs", arr}};
  if (q.out) {
    RETURN_IF_ERROR(write_file(*q.out, doc.dump(1) + "\n"));
    return VerbResult{Json{{"store", s->url()}, {"runs", arr.size()}, {"written_to", *q.out}}, std::nullopt,
                      fmt::format("exported {} run(s) to {}\n", arr.size(), *q.out)};
  }
  return VerbResult{doc, std::nullopt, doc.dump(1) + "\n"};
}

struct TrendRequest {
  std::string store, workload, metric;
  int64_t limit = 1000;
};

VerbResult do_trend(const TrendRequest& q, const Request& rq, const Context& ctx) {
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  std::string metric = q.metric;
  if (metric == "step_time") metric = "step_time_s";
  const std::string& workload = q.workload;
  auto t = s->trend(workload, metric, q.limit);
  if (!t) return fail(t.error());
  Json pts = Json::array();
  std::string h = fmt::format("{} of {}: {} run(s), oldest first\n", metric, workload, t->size());
  for (const auto& p : *t) {
    const std::string source = store::figure_source(p.verb);
    pts.push_back({{"run_id", p.run_id}, {"created", p.created}, {"value", p.value}, {"source", source}});
    h += fmt::format("{:>6}  {}  {:g}  ({})\n", p.run_id, p.created, p.value, source);
  }
  // The newest run against its baseline by goblin gate's test (store/change_point.h),
  // so a trend marks its regression; null when the gate cannot judge (too few runs).
  Json verdict = nullptr;
  store::GateOptions go;
  go.workload = workload;
  go.metric = metric;
  if (auto g = store::gate(*s, go)) {
    verdict = store::gate_to_json(*g);
    h += fmt::format("gate: {} — {}\n", g->verdict, g->reason);
  }
  // The series' change points (store/changes.h): the dashboard's alerts.
  Json changes = Json::array();
  if (auto c = store::workload_changes(*s, workload, metric)) {
    changes = store::changes_to_json(*c);
    for (const auto& al : *c)
      h += fmt::format("change: runs {} -> {}: {:+.2f}% ({}, {}, p = {:.2g}); {}\n", al.before_run, al.after_run,
                       al.point.change_pct, al.regression ? "regression" : "improvement", al.classification,
                       al.point.p_value, al.compare);
  }
  return VerbResult{
      Json{{"workload", workload}, {"metric", metric}, {"points", pts}, {"gate", verdict}, {"changes", changes}},
      std::nullopt, h};
}

VerbResult do_calibration(const Request& rq, Context& ctx) {
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  auto c = s->calibration();
  if (!c) return fail(c.error());
  auto rounds = s->audit_rounds();
  if (!rounds) return fail(rounds.error());
  // Each rule's citation from the rule base (data/rules/*.yaml), so the audit history shows where a
  // prediction came from; null for a rule this goblin does not know.
  auto kb = knowledge(ctx);
  auto citation = [&](const std::string& id) -> Json {
    const audit::Rule* rule = kb ? (*kb)->rules.find(id) : nullptr;
    return rule && !rule->citation.empty() ? Json(rule->citation) : Json(nullptr);
  };
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  Json rows = Json::array();
  std::string h = "rule                                      gpu                        audits held exceeded missed\n";
  for (const auto& r : *c) {
    rows.push_back({{"rule_id", r.rule_id},
                    {"citation", citation(r.rule_id)},
                    {"gpu", r.gpu},
                    {"audits", r.audits},
                    {"held", r.held},
                    {"exceeded", r.exceeded},
                    {"missed", r.missed},
                    {"not_predicted", r.not_predicted},
                    {"median_measured_over_predicted_mid", opt(r.median_measured_over_mid)}});
    h += fmt::format("{:<41} {:<26} {:>6} {:>4} {:>8} {:>6}\n", r.rule_id, r.gpu, r.audits, r.held, r.exceeded,
                     r.missed);
  }
  // Every stored audit round, oldest first: the calibration plot's points.
  Json rs = Json::array();
  for (const auto& p : *rounds)
    rs.push_back({{"created", p.created},
                  {"workload", p.workload},
                  {"round", p.round.round},
                  {"rules", p.round.rules},
                  {"gpu", p.round.gpu},
                  {"method", p.round.method},
                  {"held", p.round.held},
                  {"predicted_low", opt(p.round.predicted_low)},
                  {"predicted_high", opt(p.round.predicted_high)},
                  {"measured", opt(p.round.measured)},
                  {"ci_low", opt(p.round.ci_low)},
                  {"ci_high", opt(p.round.ci_high)}});
  return VerbResult{Json{{"store", s->url()}, {"rules", rows}, {"rounds", rs}}, std::nullopt, h};
}

struct GateRequest {
  std::string store;
  store::GateOptions o;
};

VerbResult do_gate(const GateRequest& q, const Request& rq, const Context& ctx) {
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  store::Store* s = &**ref;
  store::GateOptions o = q.o;
  if (o.metric == "step_time") o.metric = "step_time_s";
  auto g = store::gate(*s, o);
  if (!g) return fail(g.error());
  VerbResult r{store::gate_to_json(*g), std::nullopt, fmt::format("gate: {} — {}\n", g->verdict, g->reason)};
  if (g->regression) r.error = make_error(ErrorKind::Workload, fmt::format("regression: {}", g->reason));
  if (g->verdict == "invalid") r.error = make_error(ErrorKind::Malformed, fmt::format("invalid: {}", g->reason));
  return r;
}

}  // namespace

void add_store_verbs(std::vector<Verb>& out) {
  {
    Verb v = base_verb("init", "Create a run store", "Create (or migrate) a run store at --store URL");
    v.writes_store = true;
    v.examples =
        "  goblin store init --store sqlite:///srv/goblin/runs.db\n"
        "  goblin store init --store 'postgresql:///goblin?host=/run/postgresql'\n";
    typed_request<StoreOnlyRequest>(
        v, [](const StoreOnlyRequest&, const Request& rq, Context& ctx) { return do_init(rq, ctx, false); },
        param(&StoreOnlyRequest::store, store_field()));
    v.result_schema = obj_schema({{"store", "the store URL (no password)"},
                                  {"engine", "sqlite or postgresql"},
                                  {"schema_version", "the store's schema version"}});
    v.writes = true;
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("add", "Import earlier results",
                       "Import results written earlier: triage artifact folders, audit folders, run folders, kernel "
                       "workspaces, ranks/diff/metrics JSON (adding the same thing twice is a no-op)");
    v.writes_store = true;
    v.examples = "  goblin store add out/triage out/audit runs/ranks.json --experiment exp42 --trial t3\n";
    Field paths{"path", FieldKind::InputPaths, "Result folders or JSON files"};
    paths.positional = true;  // required unless `result` is given (the JSON doors)
    Field tag{"tag", FieldKind::StringList, "Tags for the imported runs"};
    // The JSON doors record a result they were handed (goblin serve's POST /api/runs): the object
    // itself, never a path, so a caller of the server cannot make it read a file.
    Field result{"result", FieldKind::Object, "A result JSON object (or a --json envelope) to record as a run"};
    result.doors = kJsonDoors;
    Field verb{"verb", FieldKind::String, "The verb that made `result` (metrics, triage, ...)", "json"};
    verb.doors = kJsonDoors;
    using A = AddRequest;
    using L = store::Linkage;
    typed_request<A>(
        v, do_add, param(&A::path, paths), param(&A::result, result), param(&A::verb, verb),
        param(&A::store, store_field()),
        param(&A::link, &L::experiment_id,
              Field{"experiment", FieldKind::String, "Experiment id (overrides the result's)"}),
        param(&A::link, &L::trial_id, Field{"trial", FieldKind::String, "Trial id (overrides the result's)"}),
        param(&A::link, &L::workload, Field{"workload", FieldKind::String, "Workload name the runs are grouped by"}),
        param(&A::link, &L::tags, tag));
    v.result_schema = obj_schema({{"store", "the store URL"}, {"runs", "{path, run_id, added, verb, workload} each"}});
    v.writes = true;
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("ls", "List runs", "List the store's runs (newest first) with their linkage fields, filtered");
    v.examples = "  goblin store ls --workload llama-8b --gpu 'NVIDIA H100 80GB HBM3' --since 2026-11-01\n";
    v.tool = "store_ls";
    std::apply(
        [&](auto... filter) {
          typed_request<FilterRequest>(v, do_ls, param(&FilterRequest::store, store_field()), filter...);
        },
        filter_params(100));
    v.result_schema =
        obj_schema({{"store", "the store URL"}, {"total", "runs matching the filter"}, {"runs", "the page"}});
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("show", "Show one run", "One run with its inputs, artifacts and summary tables");
    v.tool = "store_show";
    Field id{"run", FieldKind::String, "Run id (store_ls gives them)"};
    id.required = id.positional = true;
    typed_request<ShowRequest>(v, do_show, param(&ShowRequest::run, id), param(&ShowRequest::store, store_field()));
    v.result_schema = obj_schema({{"id", "run id"},
                                  {"linkage", "the run's linkage fields (experiment, trial, environment, config hash)"},
                                  {"top_kernels", "..."}});
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("rm", "Remove runs", "Remove runs (and the artifacts no other run shares)");
    v.writes_store = true;
    Field id{"run", FieldKind::StringList, "Run ids"};
    id.required = id.positional = true;
    typed_request<RmRequest>(v, do_rm, param(&RmRequest::run, id), param(&RmRequest::store, store_field()));
    v.result_schema = obj_schema({{"removed", "the run ids removed"}});
    v.writes = true;
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("migrate", "Migrate a store", "Bring a store to this goblin's schema version");
    v.writes_store = true;
    typed_request<StoreOnlyRequest>(
        v, [](const StoreOnlyRequest&, const Request& rq, Context& ctx) { return do_init(rq, ctx, true); },
        param(&StoreOnlyRequest::store, store_field()));
    v.result_schema = obj_schema({{"schema_version", "after"}, {"migrated_from", "before"}});
    v.writes = true;
    out.push_back(std::move(v));
  }
  {
    Verb v =
        base_verb("export", "Export runs", "Every run (or the filtered ones) with its tables as one JSON document");
    Field o{"out", FieldKind::OutputFile, "Write the document here instead of printing it"};
    o.cli = "-o,--out";
    o.doors = kCli | kPython;
    std::apply(
        [&](auto... filter) {
          typed_request<FilterRequest>(v, do_export, param(&FilterRequest::store, store_field()),
                                       param(&FilterRequest::out, o), filter...);
        },
        filter_params(nullptr));
    v.result_schema = obj_schema({{"schema_version", "the store's"}, {"runs", "every run with its tables"}});
    out.push_back(std::move(v));
  }
  {
    Verb v =
        base_verb("trend", "A metric over a workload's runs", "A metric over a workload's newest runs, oldest first");
    Field w{"workload", FieldKind::String, "The workload"};
    w.required = true;
    Field m{"metric", FieldKind::String, "step_time_s (or step_time), tokens_per_sec, mfu_pct, gpu_util_pct, speedup",
            "step_time_s"};
    Field limit{"limit", FieldKind::Integer, "At most this many runs", 1000};
    limit.min = 1, limit.max = 1000000;
    typed_request<TrendRequest>(v, do_trend, param(&TrendRequest::store, store_field()),
                                param(&TrendRequest::workload, w), param(&TrendRequest::metric, m),
                                param(&TrendRequest::limit, limit));
    v.result_schema =
        obj_schema({{"points", "{run_id, created, value, source}, oldest first"},
                    {"gate", "goblin gate's verdict on the newest run, or null"},
                    {"changes", "change points of the series with their runs, classification and commands"}});
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("calibration", "Audit calibration",
                       "Past audit predictions against measurements, per rule and GPU (what calibrates the audit)");
    typed_request<StoreOnlyRequest>(
        v, [](const StoreOnlyRequest&, const Request& rq, Context& ctx) { return do_calibration(rq, ctx); },
        param(&StoreOnlyRequest::store, store_field()));
    v.result_schema = obj_schema({{"rules",
                                   "{rule_id, gpu, audits, held, exceeded, missed, not_predicted, "
                                   "median_measured_over_predicted_mid}"}});
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"gate"};
    v.tool = "gate";
    v.title = "Regression gate";
    v.summary =
        "Exit non-zero when a workload's newest run is worse than its baseline runs by a one-sided Student t-test "
        "(p < 0.01; the test of the dashboard's change points), with a JSON verdict: a regression gate for CI. "
        "Fewer than 3 baseline runs: insufficient_data (not enough data), never pass";
    v.examples =
        "  goblin gate --store sqlite:///ci/runs.db --workload llama-8b --metric step_time_s --json\n"
        "  goblin gate --workload llama-8b --metric tokens_per_sec --baseline 42\n";
    Field w{"workload", FieldKind::String, "The workload whose runs are compared"};
    w.required = true;
    Field m{"metric", FieldKind::String,
            "The metric: step_time_s (alias step_time), tokens_per_sec, mfu_pct, gpu_util_pct, speedup", "step_time_s"};
    Field b{"baseline", FieldKind::String, "A run id, or last-good: the runs before the newest", "last-good"};
    Field win{"window", FieldKind::Integer, "How many earlier runs make the last-good baseline", 10};
    win.min = 1, win.max = 10000;
    using G = GateRequest;
    using O = store::GateOptions;
    typed_request<G>(v, do_gate, param(&G::store, store_field()), param(&G::o, &O::workload, w),
                     param(&G::o, &O::metric, m), param(&G::o, &O::baseline, b), param(&G::o, &O::window, win));
    v.result_schema = obj_schema(
        {{"verdict", "pass | regression | insufficient_data | invalid (the newest run's time is impossible)"},
         {"regression", "true when the newest run is worse by the t-test (p below alpha)"},
         {"p_value", "one-sided p of a value this much worse with no change"},
         {"min_baseline_runs", "below it the verdict is insufficient_data"},
         {"warnings", "a spread (mixed) baseline, a change inside the baseline"},
         {"change_pct", "newest vs the baseline median, %"},
         {"noise_floor_pct", "the baseline runs' A/A noise floor, %"}});
    v.records = false;
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
