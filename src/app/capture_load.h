// --capture TRACE for the verbs that price ops (roofline, triage): reads a trace recorded during
// CUDA-graph capture and gives the graph-replayed GPU ops of `tl` the ops recorded at capture
// (analysis/capture_ops.h). The JSON says how many matched.
#pragma once
#include <string>

#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::app {

Result<Json> attach_capture(Timeline& tl, const std::string& capture_path);
// The same with the capture trace already read (`capture_path` only names it in the JSON): a verb
// that also prices the capture's own kernels (roofline) reads it once.
Json attach_capture(Timeline& tl, const Timeline& capture, const std::string& capture_path);

}  // namespace goblin::app
