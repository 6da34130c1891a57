#include "app/capture_load.h"

#include "analysis/capture_ops.h"
#include "trace/load.h"

namespace goblin::app {

Result<Json> attach_capture(Timeline& tl, const std::string& capture_path) {
  // No GPU activity is needed: nothing runs while a graph is captured.
  auto cap = trace::load_trace(capture_path, 0);
  if (!cap) return cap.error();
  return attach_capture(tl, cap->timeline, capture_path);
}

Json attach_capture(Timeline& tl, const Timeline& capture, const std::string& capture_path) {
  const analysis::CaptureJoin j = analysis::attach_capture_ops(tl, capture);
  Json notes = Json::array();
  for (const std::string& n : j.notes) notes.push_back(n);
  return Json{{"path", capture_path},
              {"capture_windows", j.capture_windows},
              {"graph_launches", j.graph_launches},
              {"graph_launches_matched", j.launches_matched},
              {"ops_joined", j.ops_joined},
              {"cpu_ops_added", j.ops_added},
              {"notes", notes}};
}

}  // namespace goblin::app
