// nn.Module attribution and the module table (formulas: modules.h).
#include "analysis/modules.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "analysis/thread_sweep.h"

namespace goblin::analysis {

namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";

// "Qwen3DecoderLayer_12" → "Qwen3DecoderLayer" (PyTorch's profiler numbers module instances).
std::string module_class(std::string_view instance) {
  size_t u = instance.rfind('_');
  if (u == std::string_view::npos || u + 1 == instance.size()) return std::string(instance);
  for (size_t i = u + 1; i < instance.size(); ++i)
    if (instance[i] < '0' || instance[i] > '9') return std::string(instance);
  return std::string(instance.substr(0, u));
}

}  // namespace

ModuleAttribution attribute_modules(const Timeline& tl, const LaunchAttribution& la) {
  ModuleAttribution ma;
  const size_t n = la.launch_ns.size();
  ma.op_stack.assign(n, -1);
  const CpuOpTable& co = tl.cpu_ops;
  std::unordered_map<ThreadKey, std::vector<uint32_t>, ThreadKeyHash> frames;
  for (size_t r = 0; r < co.size(); ++r) {
    if (co.kind[r] != CpuOpKind::PythonFunction) continue;
    if (tl.str(co.name[r]).substr(0, kModulePrefix.size()) != kModulePrefix) continue;
    frames[{co.pid[r], co.tid[r]}].push_back(static_cast<uint32_t>(r));
    ma.has_module_frames = true;
  }
  if (!ma.has_module_frames) return ma;
  std::unordered_map<ThreadKey, std::vector<SweepQuery>, ThreadKeyHash> queries;
  for (size_t i = 0; i < n; ++i)
    if (la.launch_ns[i] != kNone && frames.count(la.thread[i]))
      queries[la.thread[i]].push_back({la.launch_ns[i], static_cast<uint32_t>(i)});
  std::map<std::vector<StrId>, int32_t> stack_ids;
  for (auto& [thread, qs] : queries) {
    sweep_intervals(
        frames[thread], qs, [&](uint32_t r) { return co.start_ns[r]; }, [&](uint32_t r) { return co.end_ns(r); },
        [&](const SweepQuery& q, const std::vector<uint32_t>& st) {
          std::vector<StrId> key;
          for (uint32_t r : st)
            if (co.start_ns[r] <= q.t && q.t <= co.end_ns(r)) key.push_back(co.name[r]);
          if (key.empty()) return;
          auto [it, inserted] = stack_ids.emplace(key, static_cast<int32_t>(ma.stacks.size()));
          if (inserted) {
            std::vector<std::string> names;
            for (StrId s : key) names.emplace_back(tl.str(s).substr(kModulePrefix.size()));
            ma.stacks.push_back(std::move(names));
          }
          ma.op_stack[q.op] = it->second;
          ++ma.with_module;
        });
  }
  return ma;
}

ModuleTable build_module_table(const Timeline& tl, const LaunchAttribution& la, const ModuleAttribution& ma,
                               const KernelTableResult& kt) {
  ModuleTable t;
  t.available = ma.has_module_frames;
  t.method =
      "innermost nn.Module python_function frame open on the launching thread at the op's launch (runtime call by "
      "correlation, else its CPU op); graph-replay ops attributed to their graph launch";
  if (!t.available) return t;
  const GpuOpTable& ops = tl.gpu_ops;
  struct Acc {
    ModuleRow row;
    std::set<std::string> instances;
    std::map<std::string, int64_t> paths;
    std::map<int32_t, int64_t> kernels;  // kernel-table row → ns
  };
  std::map<std::string, Acc> acc;
  for (size_t i = 0; i < ops.size() && i < kt.op_row.size(); ++i) {
    const int32_t kr = kt.op_row[i];
    if (kr < 0) continue;  // negative duration: not in the kernel table either
    const int64_t d = ops.dur_ns[i];
    std::string key, path, instance;
    const int32_t s = ma.op_stack[i];
    if (la.graph_launch[i]) ++t.graph_replay_ops;
    if (s >= 0) {
      const auto& st = ma.stacks[static_cast<size_t>(s)];
      instance = st.back();
      key = module_class(instance);
      for (const auto& m : st) path += (path.empty() ? "" : " > ") + module_class(m);
      if (la.graph_launch[i]) {
        key = "(graph replay) " + key;
        path = "graph launched inside " + path;
      }
    } else if (la.graph_launch[i]) {
      key = "(graph replay)";
      path = "kernels of a CUDA/HIP graph launch (no nn.Module frame encloses the launch)";
      if (la.python[i] != kNoStr) path += " at " + std::string(tl.str(la.python[i]));
    } else if (la.launch_ns[i] == kNone) {
      key = "(launch not in trace)";
      path = "no launch record in the trace (launched before the profiler started?)";
    } else {
      key = "(no nn.Module)";
      path = "launched outside every nn.Module frame";
    }
    Acc& a = acc[key];
    a.row.module = key;
    ++a.row.ops;
    a.row.time_ns += d;
    a.row.category_ns[kt.rows[static_cast<size_t>(kr)].category] += d;
    a.kernels[kr] += d;
    ++a.paths[path];
    if (!instance.empty()) a.instances.insert(instance);
    t.total_ns += d;
  }
  for (auto& [key, a] : acc) {
    ModuleRow r = std::move(a.row);
    r.instances = static_cast<int64_t>(a.instances.size());
    r.paths = static_cast<int64_t>(a.paths.size());
    int64_t best = -1;
    for (const auto& [p, c] : a.paths)
      if (c > best) {
        best = c;
        r.path = p;
      }
    for (const auto& [k, ns] : a.kernels)
      if (ns > r.top_kernel_ns) {
        r.top_kernel_ns = ns;
        r.top_kernel = kt.rows[static_cast<size_t>(k)].name;
      }
    r.share_pct = t.total_ns > 0 ? 100.0 * static_cast<double>(r.time_ns) / static_cast<double>(t.total_ns) : 0;
    t.rows.push_back(std::move(r));
  }
  std::sort(t.rows.begin(), t.rows.end(), [](const ModuleRow& a, const ModuleRow& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.module < b.module;
  });
  return t;
}

Json module_rows_to_json(const ModuleTable& t) {
  Json a = Json::array();
  for (const auto& r : t.rows) {
    Json cats = Json::array();
    std::vector<std::pair<int64_t, std::string>> v;
    for (const auto& [c, ns] : r.category_ns) v.emplace_back(ns, c);
    std::sort(v.rbegin(), v.rend());
    for (const auto& [ns, c] : v)
      cats.push_back({{"category", c},
                      {"time_us", round_to(static_cast<double>(ns) / 1e3, 3)},
                      {"pct_of_module", r.time_ns ? round_to(100.0 * ns / static_cast<double>(r.time_ns), 3) : 0.0}});
    a.push_back({{"module", r.module},
                 {"path", r.path},
                 {"distinct_paths", r.paths},
                 {"instances", r.instances},
                 {"gpu_ops", r.ops},
                 {"time_us", round_to(static_cast<double>(r.time_ns) / 1e3, 3)},
                 {"share_pct", round_to(r.share_pct, 4)},
                 {"categories", cats},
                 {"top_kernel", r.top_kernel},
                 {"top_kernel_us", round_to(static_cast<double>(r.top_kernel_ns) / 1e3, 3)}});
  }
  return a;
}

std::string module_table_markdown(const ModuleTable& t, int top) {
  if (!t.available) return "No nn.Module frames in the trace (profile with with_stack=True).\n";
  std::string s =
      "| module | time ms | share % | GPU ops | instances | categories | path |\n|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < t.rows.size() && static_cast<int>(i) < top; ++i) {
    const auto& r = t.rows[i];
    std::vector<std::pair<int64_t, std::string>> v;
    for (const auto& [c, ns] : r.category_ns) v.emplace_back(ns, c);
    std::sort(v.rbegin(), v.rend());
    std::string cats;
    for (size_t k = 0; k < v.size() && k < 3; ++k)
      fmt::format_to(std::back_inserter(cats), "{}{} {:.0f}%", k ? ", " : "", v[k].second,
                     r.time_ns ? 100.0 * v[k].first / r.time_ns : 0.0);
    std::string path = r.path + (r.paths > 1 ? fmt::format(" (+{} more)", r.paths - 1) : "");
    for (char& c : path)
      if (c == '|') c = '/';
    fmt::format_to(std::back_inserter(s), "| {} | {:.3f} | {:.2f} | {} | {} | {} | {} |\n", r.module, r.time_ns / 1e6,
                   r.share_pct, r.ops, r.instances, cats, path);
  }
  return s;
}

}  // namespace goblin::analysis
