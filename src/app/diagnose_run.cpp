#include "app/diagnose_run.h"

#include <fmt/format.h>

#include "core/io.h"
#include "core/limits.h"
#include "core/verb_result.h"
#include "hw/diagnose.h"
#include "hw/knowledge.h"
#include "hw/vendor.h"
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
                             fmt::to_string(limits::kMaxJudgeDepth) + " levels deep)",
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
  std::string h = fmt::format("JSON found ({}): {} bottleneck(s)\n", ex->how, ex->value.size());
  auto out = std::back_inserter(h);
  if (errs.empty()) {
    for (auto& b : ex->value)
      fmt::format_to(out, "  [{}] {}\n", b.value("category", std::string("?")), b.value("summary", std::string()));
    h += "valid\n";
  } else {
    for (auto& e : errs) fmt::format_to(out, "  {}\n", e);
    r.error = make_error(ErrorKind::Malformed,
                         "the judge response does not match the schema (" + fmt::to_string(errs.size()) +
                             " problem(s)); first: " + errs.front(),
                         a.parse_response);
  }
  r.human = std::move(h);
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
  auto in = trace::load_trace(a.ncu, trace::kNeedCounters);
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
    for (auto& k : kernels) ids += (ids.empty() ? "" : ", ") + fmt::to_string(k.key);
    r.error = make_error(ErrorKind::NotFound, fmt::format("no kernel with ID {} (IDs: {})", a.id, ids), a.ncu);
    return r;
  }
  std::string h;
  auto out = std::back_inserter(h);
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
    r.human = "===== SYSTEM PROMPT =====\n" + p.system + "\n===== USER PROMPT =====\n" + p.user;
    return r;
  }
  int sms = gpu ? gpu->sm_count() : -1;
  // The fixes are worded for the GPU's vendor (HIP graphs, not CUDA graphs, on AMD): the chosen
  // GPU's, else the vendor the input's signals name (rocprofiler-compute counters: AMD).
  const std::string vendor = gpu ? gpu->vendor : hw::vendor_name(hw::vendor_of_timeline(kn, tl).vendor);
  Json arr = Json::array();
  for (auto* k : sel) {
    auto d = hw::diagnose_kernel(*k, *rules, sms, vendor);
    Json j = hw::ncu_classification_json(d.cls);
    j["bottlenecks"] = hw::diagnosis_to_json(d);
    arr.push_back(j);
    fmt::format_to(out, "#{} {}\n  class: {} — {}\n", k->key, k->name.substr(0, 100), d.cls.bound, d.cls.reason);
    int i = 1;
    for (auto& b : d.bottlenecks) {
      // {:g}: the stream's default (%g) these lines were first written with.
      fmt::format_to(out, "  {}. [{}, severity {:g}] {}\n     cause: {}\n", i++, b.category, round_to(b.severity, 1),
                     b.summary, b.cause);
      for (auto& e : b.evidence) fmt::format_to(out, "     evidence: {} = {:g} {}\n", e.metric, e.value, e.unit);
      for (auto& f : b.fixes) fmt::format_to(out, "     fix: {} — {}\n", f.fix, f.rationale);
    }
  }
  r.result = {{"input", a.ncu},
              {"gpu", gpu ? Json(gpu->id) : Json(nullptr)},
              {"kernels", arr},
              {"rules_source", rules->sol_source}};
  if (!gpu_note.empty()) r.result["gpu_note"] = gpu_note;
  if (in->damage) r.error = in->damage;
  r.human = std::move(h);
  return r;
}

}  // namespace goblin::app
