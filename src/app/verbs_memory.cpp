// The memory verb in the registry: `goblin memory SNAPSHOT|TRACE [--diff OTHER]` (docs/memory.md).
// Reads PyTorch memory snapshots (the data-only pickle reader, trace/memory_snapshot.h) or the
// [memory] events of Kineto traces recorded with profile_memory=True (app/memory_source.h), and
// renders analysis/memory.h's report or two-run diff, with the batch headroom against the
// device's memory where that is known.
#include <fmt/format.h>

#include "analysis/memory.h"
#include "analysis/memory_events.h"
#include "analysis/memory_json.h"
#include "app/analysis_context.h"
#include "app/memory_source.h"
#include "app/registry.h"
#include "hw/knowledge.h"

namespace goblin::app {

namespace {

std::string mib(int64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }
std::string signed_mib(int64_t bytes) {
  return fmt::format("{:+.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

void render_report(const analysis::MemoryReport& r, size_t top, std::string& out) {
  fmt::format_to(std::back_inserter(out), "{}\n", r.source);
  const bool trace = r.source_kind != "snapshot";
  for (const auto& d : r.devices) {
    if (trace)
      fmt::format_to(std::back_inserter(out),
                     "device {}: peak allocated {} ({} bytes), peak reserved {}; at the trace's last memory event {} "
                     "allocated, {} reserved, {} cached free\n",
                     d.device, mib(d.peak_allocated), d.peak_allocated, mib(d.peak_reserved), mib(d.allocated_at_dump),
                     mib(d.reserved_at_dump), mib(d.inactive_at_dump));
    else
      fmt::format_to(std::back_inserter(out),
                     "device {}: peak allocated {} ({} bytes), peak reserved {}; at the dump {} allocated, {} "
                     "reserved, {} cached free ({:.1f} % fragmented)\n",
                     d.device, mib(d.peak_allocated), d.peak_allocated, mib(d.peak_reserved), mib(d.allocated_at_dump),
                     mib(d.reserved_at_dump), mib(d.inactive_at_dump), 100.0 * d.fragmentation_at_dump);
    for (const auto& st : d.steps)
      fmt::format_to(std::back_inserter(out), "  {:<18} peak allocated {:>12} (from {:>12}), peak reserved {:>12}\n",
                     st.name, mib(st.peak_allocated), mib(st.allocated_at_start), mib(st.peak_reserved));
    fmt::format_to(std::back_inserter(out), "  live at the {}, by category:\n", d.has_history ? "peak" : "dump");
    std::vector<std::pair<std::string, int64_t>> cats(d.by_category.begin(), d.by_category.end());
    std::stable_sort(cats.begin(), cats.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [c, b] : cats)
      fmt::format_to(
          std::back_inserter(out), "    {:<16} {:>12} {:>6.1f} %\n", c, mib(b),
          d.peak_allocated > 0 ? 100.0 * static_cast<double>(b) / static_cast<double>(d.peak_allocated) : 0.0);
    fmt::format_to(std::back_inserter(out), "  largest allocation sites{}:\n", trace ? " (op <- outermost op)" : "");
    for (size_t i = 0; i < d.by_stack.size() && i < top; ++i) {
      const auto& g = d.by_stack[i];
      fmt::format_to(std::back_inserter(out), "    {:>12} x{:<5} {:<16} {}  <- {}\n", mib(g.bytes), g.count, g.category,
                     g.site, g.where);
    }
  }
  for (const auto& n : r.notes) fmt::format_to(std::back_inserter(out), "note: {}\n", n);
}

void render_diff(const std::vector<analysis::MemoryDiff>& diffs, size_t top, std::string& out) {
  for (const auto& d : diffs) {
    fmt::format_to(std::back_inserter(out), "device {}: peak allocated {} -> {} ({}), peak reserved {} -> {}\n",
                   d.device, mib(d.peak_before), mib(d.peak_after), signed_mib(d.peak_delta), mib(d.reserved_before),
                   mib(d.reserved_after));
    fmt::format_to(std::back_inserter(out), "  what grew, by category (explains {:.1f} % of the peak's change):\n",
                   100.0 * d.explained);
    for (const auto& c : d.by_category)
      fmt::format_to(std::back_inserter(out), "    {:<16} {:>12} -> {:>12} ({})\n", c.category, mib(c.before),
                     mib(c.after), signed_mib(c.delta));
    fmt::format_to(std::back_inserter(out), "  where:\n");
    for (size_t i = 0; i < d.by_stack.size() && i < top; ++i) {
      const auto& g = d.by_stack[i];
      fmt::format_to(std::back_inserter(out), "    {:>12} {:<16} {}  <- {}\n", signed_mib(g.delta), g.category, g.site,
                     g.where);
    }
  }
}

void trim(analysis::MemoryReport& r, size_t top) {
  for (auto& d : r.devices)
    if (d.by_stack.size() > top) d.by_stack.resize(top);
}

void render_headroom(const analysis::MemoryHeadroom& h, std::string& out) {
  fmt::format_to(std::back_inserter(out),
                 "batch headroom: the batch fits {:.2f}x{} in {} of device memory ({} free at the peak)\n  basis: {}\n",
                 h.batch_scale_fits,
                 h.batch_scale_capped ? " (capped: per-batch bytes under one allocator segment)" : "",
                 mib(h.capacity_bytes), mib(h.headroom_bytes), h.basis);
}

// The memory source's report with its headroom against the device's memory when that is known
// (--gpu, else the trace's device properties); `notes` get why it is not.
Json with_headroom(const MemorySource& src, const analysis::MemoryReport& r, const std::string& gpu, Context& ctx,
                   std::string& human) {
  Json j = analysis::memory_report_json(r);
  std::string why;
  auto hw = hw_knowledge_of(ctx);
  auto h =
      analysis::memory_headroom(r, *hw, gpu.empty() ? src.device_name : gpu, gpu.empty() ? src.device_total : 0, why);
  if (h) {
    j["headroom"] = analysis::memory_headroom_json(*h);
    render_headroom(*h, human);
  } else {
    j["headroom"] = nullptr;
    j["headroom_unknown"] = why;
  }
  return j;
}

struct MemoryRequest {
  std::string path;
  std::optional<std::string> diff;
  std::string gpu;
  int64_t top = 15;
};

VerbResult memory_verb(const MemoryRequest& rq, Context& ctx) {
  ASSIGN_OR_RETURN(auto rules, memory_rules());
  const size_t top = static_cast<size_t>(rq.top);
  const std::string& gpu = rq.gpu;
  if (!gpu.empty()) RETURN_IF_ERROR(hw_knowledge_of(ctx)->gpu(gpu));
  ASSIGN_OR_RETURN(auto a, read_memory_source(rq.path, rules));
  VerbResult r;
  if (a.damage) r.error = a.damage;
  if (!rq.diff) {
    trim(a.report, top);
    render_report(a.report, top, r.human);
    r.result = with_headroom(a, a.report, gpu, ctx, r.human);
    return r;
  }
  ASSIGN_OR_RETURN(auto b, read_memory_source(*rq.diff, rules));
  if (b.damage && !r.error) r.error = b.damage;
  auto diffs = analysis::diff_memory(a.report, b.report, static_cast<int>(top));
  trim(a.report, top);
  trim(b.report, top);
  render_report(a.report, top, r.human);
  render_report(b.report, top, r.human);
  render_diff(diffs, top, r.human);
  r.result = Json{{"before", analysis::memory_report_json(a.report)},
                  {"after", analysis::memory_report_json(b.report)},
                  {"diff", analysis::memory_diff_json(diffs)}};
  return r;
}

}  // namespace

void add_memory_verbs(std::vector<Verb>& out) {
  Verb v;
  v.cli_path = {"memory"};
  v.tool = "memory";
  v.title = "Where the GPU memory went";
  v.summary =
      "Where the GPU memory went: a PyTorch memory snapshot's or profile_memory trace's peak allocated and reserved "
      "bytes (per step in a trace), the allocations live at the peak by allocation site and by category "
      "(parameters, gradients, optimizer state, activations, temporaries), fragmentation, how much larger a batch "
      "fits, and with --diff what grew between two runs";
  v.description =
      "Reads torch.cuda.memory._dump_snapshot pickles (only the data subset: nothing in the file is run). With the "
      "allocation history on (torch.cuda.memory._record_memory_history) the peak is rebuilt from the trace and "
      "equals torch.cuda.max_memory_allocated(); without it, the state at the dump is reported. Also reads Kineto "
      "traces recorded with torch.profiler.profile(profile_memory=True): their [memory] events give the peak, the "
      "peak per ProfilerStep and the allocations live at the peak by the CPU op that made them. Categories come "
      "from the stacks (or, in a trace, the enclosing ops) that allocated and freed each block "
      "(data/memory_categories.yaml).";
  v.examples =
      "  goblin memory snapshot.pickle                      the peak and what was live at it\n"
      "  goblin memory b8.pickle --diff b32.pickle          what grew between two runs, by category and site\n"
      "  goblin memory trace.json.gz --gpu H100-SXM         a profile_memory trace's peak, per step, and batch "
      "headroom\n";
  Field path{"path", FieldKind::InputPath,
             "PyTorch memory snapshot (torch.cuda.memory._dump_snapshot pickle) or Kineto trace recorded with "
             "profile_memory=True"};
  path.required = true;
  path.positional = true;
  Field diff{"diff", FieldKind::InputPath, "A second snapshot or trace: what grew from the first to it"};
  Field gpu{"gpu", FieldKind::String,
            "GPU id or name (H100-SXM, \"NVIDIA H100 80GB HBM3\", ...) whose memory the batch headroom is measured "
            "against; default: the trace's device"};
  Field top{"top", FieldKind::Integer, "Allocation sites listed", 15};
  top.min = 1;
  top.max = 1000;

  v.result_schema = Json{{"type", "object"},
                         {"description",
                          "one snapshot or trace: {source, source_kind, devices: [{peak_allocated_bytes, "
                          "peak_reserved_bytes, by_category, by_stack, timeline, steps, fragmentation_at_dump, ...}], "
                          "notes, headroom: {batch_scale_fits, capacity_bytes, basis, ...} or null}; with diff: "
                          "{before, after, diff: [{peak_delta_bytes, by_category, by_stack, explained}]}"}};
  v.writes = false;
  v.records = false;  // the run store has no memory record yet (docs/store.md)
  typed_request<MemoryRequest>(v, memory_verb, param(&MemoryRequest::path, path), param(&MemoryRequest::diff, diff),
                               param(&MemoryRequest::gpu, gpu), param(&MemoryRequest::top, top));
  out.push_back(std::move(v));
}

}  // namespace goblin::app
