#include "app/diagnose_run.h"

#include <sstream>

#include "core/io.h"
#include "core/limits.h"
#include "core/verb_result.h"
#include "hw/diagnose.h"
#include "hw/knowledge.h"
#include "trace/load.h"

namespace goblin::app {

namespace {

VerbResult parse_response(const DiagnoseRequest& a) {
  VerbResult r;
  auto text = read_all(a.parse_response, IoLimits{.max_inflated_bytes = limits::kMaxJudgeResponseBytes});
  if (!text.ok()) {
    r.error = text.error();
    return r;
  }
  auto ex = hw::extract_judge_json(*text);
  if (!ex) {
    r.error = make_error(ErrorKind::Malformed,
                         "no JSON array or object found in the response (looked at the whole text, ``` fenced "
                         "blocks and every balanced [...] / {...} nested at most " +
                             std::to_string(limits::kMaxJudgeDepth) + " levels deep)",
                         a.parse_response);
    r.result = {{"valid", false}, {"found", false}};
    return r;
  }
  auto errs = hw::validate_judge_json(ex->value);
  r.result = {{"valid", errs.empty()},
              {"found", true},
              {"extracted_from", ex->how},
              {"errors", errs},
              {"bottlenecks", ex->value}};
  std::ostringstream h;
  h << "JSON found (" << ex->how << "): " << ex->value.size() << " bottleneck(s)\n";
  if (errs.empty()) {
    for (auto& b : ex->value) h << "  [" << b.value("category", "?") << "] " << b.value("summary", "") << "\n";
    h << "valid\n";
  } else {
    for (auto& e : errs) h << "  " << e << "\n";
    r.error = make_error(ErrorKind::Malformed,
                         "the judge response does not match the schema (" + std::to_string(errs.size()) +
                             " problem(s)); first: " + errs.front(),
                         a.parse_response);
  }
  r.human = h.str();
  return r;
}

}  // namespace

VerbResult run_diagnose(const DiagnoseRequest& a, const hw::HwKnowledge& kn) {
  if (!a.parse_response.empty()) return parse_response(a);
  VerbResult r;
  if (a.ncu.empty()) {
    r.error = make_error(
        ErrorKind::Usage,
        "pass the Nsight Compute CSV (ncu --csv --page raw): goblin diagnose RAW.csv, or --parse-response FILE");
    return r;
  }
  auto in = load_trace(a.ncu, kNeedCounters);
  if (!in) {
    r.error = in.error();
    return r;
  }
  const Timeline& tl = in->timeline;
  auto kernels = hw::counter_kernels(tl);
  if (kernels.empty()) {
    r.error = make_error(ErrorKind::Malformed, "no profiled kernels with metrics in " + a.ncu, a.ncu);
    return r;
  }
  const auto& rules = kn.ncu_rules;
  if (!rules.ok()) {
    r.error = rules.error();
    return r;
  }
  auto choice = hw::choose_gpu(kn, a.gpu, tl);
  if (!choice.ok()) {
    r.error = choice.error();
    return r;
  }
  const std::optional<hw::GpuSpec>& gpu = choice->gpu;
  const std::string gpu_note = choice->why_none ? choice->why_none->message : "";
  std::string src;
  if (!a.kernel_src.empty()) {
    auto s = read_all(a.kernel_src);
    if (!s.ok()) {
      r.error = s.error();
      return r;
    }
    src = *s;
  }
  // Which kernels: --id, else all (diagnosis) / the longest (prompt).
  std::vector<const hw::CounterKernel*> sel;
  for (auto& k : kernels)
    if (a.id < 0 || k.key == a.id) sel.push_back(&k);
  if (sel.empty()) {
    std::string ids;
    for (auto& k : kernels) ids += (ids.empty() ? "" : ", ") + std::to_string(k.key);
    r.error =
        make_error(ErrorKind::NotFound, "no kernel with ID " + std::to_string(a.id) + " (IDs: " + ids + ")", a.ncu);
    return r;
  }
  std::ostringstream h;
  if (a.prompt) {
    const hw::CounterKernel* k = sel.front();
    if (a.id < 0)
      for (auto* x : sel) {
        auto* d = x->get("gpu__time_duration.sum");
        auto* b = k->get("gpu__time_duration.sum");
        if (d && (!b || *d > *b)) k = x;
      }
    const auto& schema = kn.ncu_metric_schema;
    if (!schema.ok()) {
      r.error = schema.error();
      return r;
    }
    auto p = hw::build_judge_prompt(*k, *schema, gpu ? &*gpu : nullptr, src, a.problem);
    r.result = {{"kernel_id", k->key},
                {"kernel", k->name},
                {"gpu", gpu ? Json(gpu->id) : Json(nullptr)},
                {"system_prompt", p.system},
                {"user_prompt", p.user}};
    if (!gpu_note.empty()) r.result["gpu_note"] = gpu_note;
    h << "===== SYSTEM PROMPT =====\n" << p.system << "\n===== USER PROMPT =====\n" << p.user;
    r.human = h.str();
    return r;
  }
  int sms = gpu ? gpu->sm_count() : -1;
  Json arr = Json::array();
  for (auto* k : sel) {
    auto d = hw::diagnose_kernel(*k, *rules, sms);
    Json j = hw::ncu_classification_json(d.cls);
    j["bottlenecks"] = hw::diagnosis_to_json(d);
    arr.push_back(j);
    h << "#" << k->key << " " << k->name.substr(0, 100) << "\n  class: " << d.cls.bound << " — " << d.cls.reason
      << "\n";
    int i = 1;
    for (auto& b : d.bottlenecks) {
      h << "  " << i++ << ". [" << b.category << ", severity " << round_to(b.severity, 1) << "] " << b.summary
        << "\n     cause: " << b.cause << "\n";
      for (auto& e : b.evidence) h << "     evidence: " << e.metric << " = " << e.value << " " << e.unit << "\n";
      for (auto& f : b.fixes) h << "     fix: " << f.fix << " — " << f.rationale << "\n";
    }
  }
  r.result = {{"input", a.ncu},
              {"gpu", gpu ? Json(gpu->id) : Json(nullptr)},
              {"kernels", arr},
              {"rules_source", rules->sol_source}};
  if (!gpu_note.empty()) r.result["gpu_note"] = gpu_note;
  if (in->damage) r.error = in->damage;
  r.human = h.str();
  return r;
}

}  // namespace goblin::app
