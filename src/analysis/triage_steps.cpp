// Triage's steps: each step's wall and GPU-busy time, and the one step time every verb reports
// (analysis/step_time.h), so a triage run trends and gates on step_time_s like a metrics run
// (docs/store.md § What a run holds). Busy is the union of GPU ops over every stream and device
// inside the step's window, as metrics' busy; idle is wall − busy.
#include "analysis/intervals.h"
#include "analysis/step_time.h"
#include "analysis/triage_artifacts.h"
#include "core/json.h"

namespace goblin::analysis {

TriageSteps triage_steps(const Timeline& tl) {
  TriageSteps out;
  const StepDetection sd = find_steps(tl);
  const GpuOpTable& g = tl.gpu_ops;
  std::vector<Interval> ops;
  ops.reserve(g.size());
  for (size_t i = 0; i < g.size(); ++i)
    if (g.end_ns(i) > g.start_ns[i]) ops.push_back({g.start_ns[i], g.end_ns(i)});
  const IntervalSet busy = union_of(std::move(ops));
  for (const Step& s : sd.steps) {
    const int64_t b = total_length(clip(busy, {s.start_ns, s.end_ns}));
    out.steps.push_back(
        {s.name, static_cast<double>(s.end_ns - s.start_ns) / 1e9, static_cast<double>(b) / 1e9, s.partial});
  }
  out.step_time_s = step_time(sd).seconds();
  out.method = sd.method;
  return out;
}

Json triage_steps_json(const TriageSteps& s) {
  Json steps = Json::array();
  for (const StepMetrics& x : s.steps)
    steps.push_back(Json{{"name", x.name},
                         {"wall_s", round_to(x.wall_s, 9)},
                         {"busy_s", round_to(x.busy_s, 9)},
                         {"idle_s", round_to(x.wall_s - x.busy_s, 9)},
                         {"partial", x.partial}});
  return Json{{"step_time_s", s.step_time_s > 0 ? Json(round_to(s.step_time_s, 9)) : Json(nullptr)},
              {"step_detection", s.method},
              {"steps", std::move(steps)}};
}

}  // namespace goblin::analysis
