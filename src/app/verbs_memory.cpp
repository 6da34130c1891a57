// The memory verb in the registry: `goblin memory SNAPSHOT [--diff OTHER]` (docs/memory.md). Reads
// PyTorch memory snapshots through the data-only pickle reader (trace/memory_snapshot.h) and
// renders analysis/memory.h's report or two-snapshot diff.
#include <fmt/format.h>

#include "analysis/memory.h"
#include "analysis/memory_json.h"
#include "app/registry.h"
#include "core/data.h"
#include "core/io.h"
#include "trace/memory_snapshot.h"

namespace goblin::app {

namespace {

std::string mib(int64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }
std::string signed_mib(int64_t bytes) {
  return fmt::format("{:+.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

Result<analysis::MemoryReport> analyse(const std::string& path, const analysis::MemoryCategoryRules& rules) {
  ASSIGN_OR_RETURN(std::string prefix, read_prefix(path, 64));
  if (!trace::looks_like_pickle(prefix) && !looks_gzip(prefix))
    return make_error(ErrorKind::UnknownFormat,
                      "goblin memory reads PyTorch memory snapshots (the pickle torch.cuda.memory._dump_snapshot "
                      "writes); this file is not one (the [memory] events of a Kineto trace recorded with "
                      "profile_memory=True are not read yet: docs/memory.md)",
                      path, 0);
  ASSIGN_OR_RETURN(trace::MemorySnapshot s, trace::read_memory_snapshot(path));
  // Every group is kept (top -1): a diff matches groups across the two, and the verb trims.
  analysis::MemoryReport r = analysis::analyse_memory(s, rules, -1);
  r.source = path;
  return r;
}

void render_report(const analysis::MemoryReport& r, size_t top, std::string& out) {
  fmt::format_to(std::back_inserter(out), "{}\n", r.source);
  for (const auto& d : r.devices) {
    fmt::format_to(std::back_inserter(out),
                   "device {}: peak allocated {} ({} bytes), peak reserved {}; at the dump {} allocated, {} "
                   "reserved, {} cached free ({:.1f} % fragmented)\n",
                   d.device, mib(d.peak_allocated), d.peak_allocated, mib(d.peak_reserved), mib(d.allocated_at_dump),
                   mib(d.reserved_at_dump), mib(d.inactive_at_dump), 100.0 * d.fragmentation_at_dump);
    fmt::format_to(std::back_inserter(out), "  live at the {}, by category:\n", d.has_history ? "peak" : "dump");
    std::vector<std::pair<std::string, int64_t>> cats(d.by_category.begin(), d.by_category.end());
    std::stable_sort(cats.begin(), cats.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [c, b] : cats)
      fmt::format_to(
          std::back_inserter(out), "    {:<16} {:>12} {:>6.1f} %\n", c, mib(b),
          d.peak_allocated > 0 ? 100.0 * static_cast<double>(b) / static_cast<double>(d.peak_allocated) : 0.0);
    fmt::format_to(std::back_inserter(out), "  largest allocation sites:\n");
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

VerbResult memory_verb(const Request& rq, Context&) {
  const char* rel = "memory_categories.yaml";
  auto text = load_data_file(rel);
  if (!text) return VerbResult{nullptr, text.error(), ""};
  auto rules = analysis::parse_memory_categories(*text, data_file_origin(rel));
  if (!rules) return VerbResult{nullptr, rules.error(), ""};
  const size_t top = static_cast<size_t>(rq.integer("top"));
  auto a = analyse(rq.str("path"), *rules);
  if (!a) return VerbResult{nullptr, a.error(), ""};
  VerbResult r;
  if (!rq.has("diff")) {
    trim(*a, top);
    r.result = analysis::memory_report_json(*a);
    render_report(*a, top, r.human);
    return r;
  }
  auto b = analyse(rq.str("diff"), *rules);
  if (!b) return VerbResult{nullptr, b.error(), ""};
  auto diffs = analysis::diff_memory(*a, *b, static_cast<int>(top));
  trim(*a, top);
  trim(*b, top);
  r.result = Json{{"before", analysis::memory_report_json(*a)},
                  {"after", analysis::memory_report_json(*b)},
                  {"diff", analysis::memory_diff_json(diffs)}};
  render_report(*a, top, r.human);
  render_report(*b, top, r.human);
  render_diff(diffs, top, r.human);
  return r;
}

}  // namespace

void add_memory_verbs(std::vector<Verb>& out) {
  Verb v;
  v.cli_path = {"memory"};
  v.tool = "memory";
  v.title = "Where the GPU memory went";
  v.summary =
      "Where the GPU memory went: a PyTorch memory snapshot's peak allocated and reserved bytes, the allocations "
      "live at the peak by allocation site and by category (parameters, gradients, optimizer state, activations, "
      "temporaries), fragmentation, and with --diff what grew between two snapshots";
  v.description =
      "Reads torch.cuda.memory._dump_snapshot pickles (only the data subset: nothing in the file is run). With the "
      "allocation history on (torch.cuda.memory._record_memory_history) the peak is rebuilt from the trace and "
      "equals torch.cuda.max_memory_allocated(); without it, the state at the dump is reported. Categories come "
      "from the stacks that allocated and freed each block (data/memory_categories.yaml).";
  v.examples =
      "  goblin memory snapshot.pickle                      the peak and what was live at it\n"
      "  goblin memory b8.pickle --diff b32.pickle          what grew between two runs, by category and site\n";
  Field path{"path", FieldKind::InputPath, "PyTorch memory snapshot (torch.cuda.memory._dump_snapshot pickle)"};
  path.required = true;
  path.positional = true;
  Field diff{"diff", FieldKind::InputPath, "A second snapshot: what grew from the first to it"};
  Field top{"top", FieldKind::Integer, "Allocation sites listed", 15};
  top.min = 1;
  top.max = 1000;
  v.request = {path, diff, top};
  v.result_schema = Json{{"type", "object"},
                         {"description",
                          "one snapshot: {source, devices: [{peak_allocated_bytes, peak_reserved_bytes, by_category, "
                          "by_stack, timeline, fragmentation_at_dump, ...}], notes}; with diff: {before, after, "
                          "diff: [{peak_delta_bytes, by_category, by_stack, explained}]}"}};
  v.writes = false;
  v.records = false;  // the run store has no memory record yet (docs/store.md)
  v.run = memory_verb;
  out.push_back(std::move(v));
}

}  // namespace goblin::app
