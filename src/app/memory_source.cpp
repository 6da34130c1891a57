#include "app/memory_source.h"

#include <fmt/format.h>

#include "analysis/memory_events.h"
#include "core/data.h"
#include "core/io.h"
#include "trace/load.h"
#include "trace/memory_snapshot.h"
#include "trace/readers.h"

namespace goblin::app {

Result<analysis::MemoryCategoryRules> memory_rules() {
  const char* rel = "memory_categories.yaml";
  ASSIGN_OR_RETURN(std::string text, load_data_file(rel));
  return analysis::parse_memory_categories(text, data_file_origin(rel));
}

Result<MemorySource> read_memory_source(const std::string& path, const analysis::MemoryCategoryRules& rules) {
  // The decompressed first bytes tell a pickle from a Kineto trace's JSON.
  ASSIGN_OR_RETURN(std::string prefix, read_prefix(path, 64 * 1024));
  MemorySource out;
  if (trace::looks_like_pickle(prefix)) {
    ASSIGN_OR_RETURN(trace::MemorySnapshot s, trace::read_memory_snapshot(path));
    out.report = analysis::analyse_memory(s, rules, -1);
    out.report.source = path;
    return out;
  }
  if (!trace::sniff_kineto(prefix))
    return make_error(ErrorKind::UnknownFormat,
                      "goblin memory reads PyTorch memory snapshots (the pickle torch.cuda.memory._dump_snapshot "
                      "writes) and Kineto traces recorded with torch.profiler.profile(profile_memory=True); this file "
                      "is neither",
                      path, 0);
  ASSIGN_OR_RETURN(trace::LoadedTrace in, trace::load_trace(path, trace::kNeedMemoryEvents | trace::kNeedGpuOps));
  const Timeline& tl = in.timeline;
  out.damage = in.damage;
  out.report = analysis::analyse_memory_events(tl, rules, -1);
  out.report.source = path;
  // Damaged events (a [memory] event's args of the wrong type or missing) are never silent.
  for (const auto& w : tl.warnings)
    if (w.id == W::kineto_damaged_event)
      out.report.notes.push_back(
          w.byte_offset >= 0 ? fmt::format("{} ({} time(s), the first at byte {})", w.message, w.count, w.byte_offset)
                             : fmt::format("{} ({} time(s))", w.message, w.count));
  if (in.damage) out.report.notes.push_back("input damaged, figures cover what was read: " + in.damage->describe());
  const int32_t dev = out.report.devices.empty() ? 0 : out.report.devices.front().device;
  for (const DeviceInfo& d : tl.meta.devices)
    if (d.id == dev || out.device_name.empty()) {
      out.device_name = d.name;
      out.device_total = d.total_memory_bytes > 0 ? d.total_memory_bytes : 0;
    }
  return out;
}

}  // namespace goblin::app
