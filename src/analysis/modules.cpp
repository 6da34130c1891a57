// nn.Module attribution and the module table (formulas: modules.h).
#include "analysis/modules.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>
#include <tuple>
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

namespace {

constexpr std::string_view kEvaluateFunction = "autograd::engine::evaluate_function: ";

// "autograd::engine::evaluate_function: MmBackward0" or "MmBackward0": a node of the backward graph.
bool is_backward_node(std::string_view name) {
  if (name.substr(0, kEvaluateFunction.size()) == kEvaluateFunction) return true;
  size_t d = name.size();
  while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
  return d < name.size() && d >= 8 && name.substr(d - 8, 8) == "Backward";
}

struct TimeOnThread {
  ThreadKey thread;
  int64_t t = 0;
  bool operator<(const TimeOnThread& o) const { return std::tie(thread, t) < std::tie(o.thread, o.t); }
};

}  // namespace

ModuleAttribution attribute_modules(const Timeline& tl, const LaunchAttribution& la) {
  ModuleAttribution ma;
  const size_t n = la.launch_ns.size();
  ma.op_stack.assign(n, -1);
  ma.backward.assign(n, 0);
  const CpuOpTable& co = tl.cpu_ops;
  std::unordered_map<ThreadKey, std::vector<uint32_t>, ThreadKeyHash> frames, bwd_nodes;
  for (size_t r = 0; r < co.size(); ++r) {
    const std::string_view name = tl.str(co.name[r]);
    if (co.kind[r] == CpuOpKind::PythonFunction) {
      if (name.substr(0, kModulePrefix.size()) != kModulePrefix) continue;
      frames[{co.pid[r], co.tid[r]}].push_back(static_cast<uint32_t>(r));
      ma.has_module_frames = true;
    } else if (is_backward_node(name)) {
      bwd_nodes[{co.pid[r], co.tid[r]}].push_back(static_cast<uint32_t>(r));
    }
  }
  auto start = [&](uint32_t r) { return co.start_ns[r]; };
  auto end = [&](uint32_t r) { return co.end_ns(r); };
  // Which ops were launched inside a backward node, and the innermost such node with a sequence
  // number (evaluate_function and the node it runs both carry it in Kineto traces; goblin's
  // tracer records it on the node alone).
  std::vector<int64_t> node_of(n, kNone);
  {
    std::unordered_map<ThreadKey, std::vector<SweepQuery>, ThreadKeyHash> qs;
    for (size_t i = 0; i < n; ++i)
      if (la.launch_ns[i] != kNone && bwd_nodes.count(la.thread[i]))
        qs[la.thread[i]].push_back({la.launch_ns[i], static_cast<uint32_t>(i)});
    for (auto& [thread, q] : qs)
      sweep_intervals(bwd_nodes[thread], q, start, end, [&](const SweepQuery& sq, const std::vector<uint32_t>& st) {
        for (auto it = st.rbegin(); it != st.rend(); ++it) {
          if (co.start_ns[*it] > sq.t || sq.t > co.end_ns(*it)) continue;
          ma.backward[sq.op] = 1;
          if (co.sequence_number[*it] != kNone) {
            node_of[sq.op] = *it;
            break;
          }
        }
      });
  }
  if (!ma.has_module_frames) return ma;

  // Forward anchors of backward nodes: fwdbwd flows first ('f' half at the node's start, 's' half
  // at the forward op's start), then sequence numbers.
  std::map<TimeOnThread, int64_t> flow_end;  // 'f' half → flow id
  std::unordered_map<int64_t, TimeOnThread> flow_start;
  const FlowTable& fl = tl.flows;
  for (size_t f = 0; f < fl.size(); ++f) {
    if (tl.str(fl.category[f]) != "fwdbwd" || fl.id[f] == kNone) continue;
    TimeOnThread at{{fl.pid[f], fl.tid[f]}, fl.ts_ns[f]};
    if (fl.is_start[f])
      flow_start[fl.id[f]] = at;
    else
      flow_end[at] = fl.id[f];
  }
  // Forward ops by sequence number: (start, thread), ops inside backward nodes left out.
  std::unordered_map<int64_t, std::vector<TimeOnThread>> fwd_by_seq;
  for (size_t r = 0; r < co.size(); ++r) {
    if (co.sequence_number[r] == kNone || co.kind[r] == CpuOpKind::PythonFunction) continue;
    if (is_backward_node(tl.str(co.name[r]))) continue;
    fwd_by_seq[co.sequence_number[r]].push_back({{co.pid[r], co.tid[r]}, co.start_ns[r]});
  }
  // Per thread, backward nodes by start with the running maximum end: a time is inside some node
  // when the latest end among the nodes started by then reaches it.
  std::unordered_map<ThreadKey, std::vector<std::pair<int64_t, int64_t>>, ThreadKeyHash> node_spans;
  for (auto& [thread, rows] : bwd_nodes) {
    auto& v = node_spans[thread];
    for (uint32_t r : rows) v.emplace_back(co.start_ns[r], co.end_ns(r));
    std::sort(v.begin(), v.end());
    for (size_t k = 1; k < v.size(); ++k) v[k].second = std::max(v[k].second, v[k - 1].second);
  }
  auto inside_backward = [&](const TimeOnThread& at) {
    auto it = node_spans.find(at.thread);
    if (it == node_spans.end()) return false;
    auto p = std::upper_bound(it->second.begin(), it->second.end(), std::make_pair(at.t, INT64_MAX));
    return p != it->second.begin() && std::prev(p)->second >= at.t;
  };
  std::unordered_map<int64_t, std::pair<TimeOnThread, bool>> anchor_of_node;  // node row → (anchor, by flow)
  auto anchor = [&](int64_t node) -> const std::pair<TimeOnThread, bool>* {
    auto cached = anchor_of_node.find(node);
    if (cached != anchor_of_node.end()) return cached->second.first.t == kNone ? nullptr : &cached->second;
    std::pair<TimeOnThread, bool> a{{{kNone, kNone}, kNone}, false};
    auto fe = flow_end.find({{co.pid[node], co.tid[node]}, co.start_ns[node]});
    if (fe != flow_end.end())
      if (auto fs = flow_start.find(fe->second); fs != flow_start.end()) a = {fs->second, true};
    if (a.first.t == kNone) {
      auto fw = fwd_by_seq.find(co.sequence_number[node]);
      if (fw != fwd_by_seq.end())
        for (const TimeOnThread& c : fw->second)
          if (c.t < co.start_ns[node] && (a.first.t == kNone || c.t > a.first.t) && !inside_backward(c)) a = {c, false};
    }
    auto [it, _] = anchor_of_node.emplace(node, a);
    return a.first.t == kNone ? nullptr : &it->second;
  };

  std::unordered_map<ThreadKey, std::vector<SweepQuery>, ThreadKeyHash> queries;
  std::vector<uint8_t> by_flow(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (ma.backward[i]) {
      if (node_of[i] == kNone) continue;
      const auto* a = anchor(node_of[i]);
      if (!a || !frames.count(a->first.thread)) continue;
      by_flow[i] = a->second ? 1 : 0;
      queries[a->first.thread].push_back({a->first.t, static_cast<uint32_t>(i)});
    } else if (la.launch_ns[i] != kNone && frames.count(la.thread[i])) {
      queries[la.thread[i]].push_back({la.launch_ns[i], static_cast<uint32_t>(i)});
    }
  }
  std::map<std::vector<StrId>, int32_t> stack_ids;
  for (auto& [thread, qs] : queries) {
    sweep_intervals(frames[thread], qs, start, end, [&](const SweepQuery& q, const std::vector<uint32_t>& st) {
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
      if (ma.backward[q.op]) ++(by_flow[q.op] ? ma.backward_by_flow : ma.backward_by_sequence);
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
  t.method +=
      "; ops launched inside an autograd backward node take the module of the forward op that created the node "
      "(fwdbwd flow, else sequence number)";
  t.backward_by_flow = ma.backward_by_flow;
  t.backward_by_sequence = ma.backward_by_sequence;
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
    const bool bwd = i < ma.backward.size() && ma.backward[i];
    if (bwd) a.row.backward_ns += d;
    (bwd ? t.backward_ns : t.forward_ns) += d;
    if (s >= 0) (bwd ? t.backward_attributed_ns : t.forward_attributed_ns) += d;
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
                 {"backward_time_us", round_to(static_cast<double>(r.backward_ns) / 1e3, 3)},
                 {"categories", cats},
                 {"top_kernel", r.top_kernel},
                 {"top_kernel_us", round_to(static_cast<double>(r.top_kernel_ns) / 1e3, 3)}});
  }
  return a;
}

namespace {
double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * part / static_cast<double>(whole) : 0.0; }
Json share_json(int64_t attributed, int64_t total) {
  return {{"gpu_time_us", round_to(total / 1e3, 3)},
          {"attributed_us", round_to(attributed / 1e3, 3)},
          {"attributed_pct", total > 0 ? Json(round_to(pct(attributed, total), 3)) : Json(nullptr)}};
}
}  // namespace

Json module_attribution_to_json(const ModuleTable& t) {
  if (!t.available) return nullptr;
  Json bwd = share_json(t.backward_attributed_ns, t.backward_ns);
  bwd["linked_by_flow_ops"] = t.backward_by_flow;
  bwd["linked_by_sequence_ops"] = t.backward_by_sequence;
  const int64_t total = t.forward_ns + t.backward_ns;
  return {
      {"attributed_pct",
       total > 0 ? Json(round_to(pct(t.forward_attributed_ns + t.backward_attributed_ns, total), 3)) : Json(nullptr)},
      {"forward", share_json(t.forward_attributed_ns, t.forward_ns)},
      {"backward", bwd}};
}

std::string module_attribution_line(const ModuleTable& t) {
  if (!t.available) return "";
  const int64_t total = t.forward_ns + t.backward_ns;
  std::string s = fmt::format(
      "nn.Module attribution: {:.1f} % of GPU time named a module (forward and other ops {:.1f} % of {:.3f} ms",
      pct(t.forward_attributed_ns + t.backward_attributed_ns, total), pct(t.forward_attributed_ns, t.forward_ns),
      t.forward_ns / 1e6);
  if (t.backward_ns > 0)
    s += fmt::format(
        "; backward {:.1f} % of {:.3f} ms: {} GPU ops linked to their forward op by fwdbwd flow, {} by "
        "sequence number)",
        pct(t.backward_attributed_ns, t.backward_ns), t.backward_ns / 1e6, t.backward_by_flow, t.backward_by_sequence);
  else
    s += "; no backward ops)";
  return s + "\n";
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
