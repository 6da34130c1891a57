// Recording a verb's result in the run store (docs/store.md § Recording): once, for every verb and
// every door, in app::run_verb. The inputs are the request's path fields, hashed now.
#include <fmt/format.h>

#include <tuple>

#include "app/registry.h"
#include "config/workload_config.h"
#include "store/import.h"
#include "store/store.h"

namespace goblin::app {

namespace {

// The fields every recording verb gets, and the struct they are read into.
struct RecordRequest {
  std::optional<std::string> store;
  store::Linkage link;
};

const auto& record_params() {
  // CLI and Python only: over MCP the store is the server's ($GOBLIN_STORE), not the caller's.
  auto f = [](const char* name, FieldKind k, const char* help) {
    Field x{name, k, help};
    x.doors = kCli | kPython;
    return x;
  };
  using R = RecordRequest;
  using L = store::Linkage;
  static const auto params = std::tuple{
      param(&R::store, f("store", FieldKind::String,
                         "Record the result as a run in this store (sqlite:///path.db, postgresql://...; default "
                         "$GOBLIN_STORE)")),
      param(&R::link, &L::experiment_id,
            f("experiment", FieldKind::String, "Experiment id the recorded run belongs to (with --store)")),
      param(&R::link, &L::trial_id,
            f("trial", FieldKind::String, "Trial id the recorded run belongs to (with --store)")),
      param(&R::link, &L::workload,
            f("workload", FieldKind::String,
              "Workload name trends and goblin gate group the recorded run by (with --store)")),
      param(&R::link, &L::tags, f("tag", FieldKind::StringList, "Tags of the recorded run (with --store)"))};
  return params;
}

// A request the door validated holds these fields with their types; one that did not (a verb's
// own Request built by hand) reads as "not given".
RecordRequest record_request(const Request& rq) {
  auto r = std::apply([&](const auto&... p) { return read_request<RecordRequest>(rq, p...); }, record_params());
  return r ? *r : RecordRequest{};
}

}  // namespace

std::vector<Field> record_fields() {
  return std::apply([](const auto&... p) { return std::vector<Field>{p.field...}; }, record_params());
}

void record_result(const Verb& v, const Request& rq, VerbResult& r) {
  const std::string url = record_request(rq).store.value_or(store::default_store_url());
  if (url.empty()) return;
  std::vector<std::string> inputs;
  for (const Field& f : v.request) {
    if (!rq.has(f.name)) continue;
    if (f.kind == FieldKind::InputPath) inputs.push_back(rq.str(f.name));
    if (f.kind == FieldKind::InputPaths)
      for (auto& p : rq.strings(f.name)) inputs.push_back(p);
    if (f.kind == FieldKind::InputJson && rq.args()[f.name].is_string()) inputs.push_back(rq.str(f.name));
  }
  if (v.record_inputs)
    for (auto& p : v.record_inputs(rq, r)) inputs.push_back(std::move(p));
  const store::Linkage link = request_linkage(rq);
  const std::string folder = v.record_folder ? v.record_folder(rq, r) : std::string();
  auto rec = folder.empty() ? store::record_from_result(v.cli_name(), inputs, r.result, link)
                            : store::record_from_path(folder, link);
  if (rec && !folder.empty()) rec->source = "verb";  // recorded live, not imported later
  store_run(url, std::move(rec), r);
}

store::Linkage request_linkage(const Request& rq) { return record_request(rq).link; }

void store_run(const std::string& url, Result<store::RunRecord> rec, VerbResult& r) {
  auto fail = [&](const Error& e) {
    Error x = e;
    x.message = config::redact_credentials("the result was computed but not recorded in the store: " + e.message);
    x.file = config::redact_credentials(x.file);
    r.error = x;
  };
  if (!rec) return fail(rec.error());
  auto s = store::Store::open(url, true, true);
  if (!s) return fail(s.error());
  auto out = s->add(std::move(*rec));
  if (!out) return fail(out.error());
  if (r.result.is_object()) r.result["stored_run"] = {{"id", out->run_id}, {"added", out->added}, {"store", s->url()}};
  r.human +=
      fmt::format("{} run {} in {}\n", out->added ? "recorded as" : "already recorded as", out->run_id, s->url());
}

}  // namespace goblin::app
