// A run as JSON (store show/ls/export and the dashboard's API): one writer for every door.
#include "store/record.h"

namespace goblin::store {
namespace {

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

Json run_to_json(const RunRecord& r, bool with_tables) {
  Json env = {{"gpu", r.gpu},   {"driver", r.driver},   {"cuda", r.cuda},
              {"rocm", r.rocm}, {"pytorch", r.pytorch}, {"clocks", r.clocks}};
  Json link = Json::object();
  for (const auto& f : linkage_fields()) {
    auto it = r.linkage.find(f);
    link[f] = it == r.linkage.end() ? std::string(kUnknown) : it->second;
  }
  Json metrics = Json::object();
  for (const auto& [k, v] : r.metrics) metrics[k] = v;
  Json j = {{"id", r.id},
            {"created", r.created},
            {"verb", r.verb},
            {"source", r.source},
            {"workload", r.workload},
            {"experiment_id", link["experiment_id"]},
            {"trial_id", link["trial_id"]},
            {"tags", r.tags},
            {"goblin", {{"version", r.goblin_version}, {"commit", r.goblin_commit}}},
            {"environment", env},
            {"linkage", link},
            {"metrics", metrics},
            {"content_key", r.content_key}};
  if (!with_tables) return j;
  Json inputs = Json::array();
  for (const auto& i : r.inputs) inputs.push_back({{"path", i.path}, {"sha256", i.sha256}, {"bytes", i.bytes}});
  Json arts = Json::array();
  for (const auto& a : r.artifacts) arts.push_back({{"name", a.name}, {"sha256", a.sha256}, {"bytes", a.bytes}});
  Json steps = Json::array();
  for (const auto& s : r.steps)
    steps.push_back({{"name", s.name}, {"wall_s", opt(s.wall_s)}, {"busy_s", opt(s.busy_s)}});
  Json cats = Json::array();
  for (const auto& c : r.categories)
    cats.push_back({{"category", c.category}, {"time_s", opt(c.time_s)}, {"pct", opt(c.pct)}});
  Json kernels = Json::array();
  for (const auto& k : r.kernels)
    kernels.push_back({{"name", k.name},
                       {"category", k.category},
                       {"time_s", opt(k.time_s)},
                       {"pct", opt(k.pct)},
                       {"launches", k.count}});
  Json waste = Json::object();
  for (const auto& w : r.waste) waste[w.bucket] = opt(w.seconds);
  Json rounds = Json::array();
  for (const auto& a : r.audit_rounds)
    rounds.push_back(
        {{"round", a.round},
         {"rules", a.rules},
         {"gpu", a.gpu},
         {"predicted", {{"low", opt(a.predicted_low)}, {"high", opt(a.predicted_high)}, {"method", a.method}}},
         {"measured",
          {{"speedup", opt(a.measured)},
           {"ci_low", opt(a.ci_low)},
           {"ci_high", opt(a.ci_high)},
           {"significant", a.significant ? Json(*a.significant) : Json(nullptr)}}},
         {"prediction_held", a.held}});
  Json iters = Json::array();
  for (const auto& it : r.iterations)
    iters.push_back({{"version", it.version},
                     {"change", it.change},
                     {"metric", it.metric},
                     {"value", opt(it.value)},
                     {"pct_of_stop_condition", opt(it.pct_of_target)},
                     {"masked", it.masked},
                     {"correct", it.correct}});
  Json ranks = Json::array();
  for (const auto& k : r.ranks)
    ranks.push_back({{"rank", k.rank},
                     {"gpu", k.gpu},
                     {"step_time_s", opt(k.step_time_s)},
                     {"steps", k.steps},
                     {"collectives", k.collectives}});
  j["inputs"] = inputs;
  j["artifacts"] = arts;
  j["steps"] = steps;
  j["categories"] = cats;
  j["top_kernels"] = kernels;
  j["waste_budget"] = waste;
  j["audit_rounds"] = rounds;
  j["kernel_iterations"] = iters;
  j["ranks"] = ranks;
  return j;
}

}  // namespace goblin::store
