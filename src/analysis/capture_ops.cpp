// attach_capture_ops (analysis/capture_ops.h): capture windows, their launch calls in issue
// order, and the join to each graph launch's replayed GPU ops in start order.
#include "analysis/capture_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

namespace goblin::analysis {

namespace {

// What a launch call puts into the graph, to check a node against the replayed op.
GpuOpKind call_kind(std::string_view n, bool& is_launch) {
  is_launch = true;
  if (n.find("Memcpy") != std::string_view::npos && n.find("Async") != std::string_view::npos) return GpuOpKind::Memcpy;
  if (n.find("Memset") != std::string_view::npos && n.find("Async") != std::string_view::npos) return GpuOpKind::Memset;
  // cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel(Ex), hipLaunchKernel, hipModuleLaunchKernel,
  // hipExtModuleLaunchKernel, cudaLaunchCooperativeKernel.
  if (n.find("LaunchKernel") != std::string_view::npos || n.find("LaunchCooperativeKernel") != std::string_view::npos)
    return GpuOpKind::Kernel;
  is_launch = false;
  return GpuOpKind::Kernel;
}

struct Node {
  GpuOpKind kind;
  int64_t cpu_op;  // row in the capture trace's cpu_ops, -1: none
};

// Per capture window (per thread, BeginCapture to EndCapture), its launch calls in issue order.
// A call nested in another launch call of its thread (a driver call under cudaLaunchKernel) is
// the same node and is skipped.
std::vector<std::vector<Node>> capture_windows(const Timeline& c) {
  const RuntimeTable& r = c.runtime;
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> by_thread;
  for (size_t i = 0; i < r.size(); ++i) by_thread[{r.pid[i], r.tid[i]}].push_back(i);
  std::vector<std::vector<Node>> out;
  for (auto& [thread, rows] : by_thread) {
    std::sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
      return r.correlation[a] != r.correlation[b] ? r.correlation[a] < r.correlation[b] : a < b;
    });
    bool open = false;
    int64_t last_end = INT64_MIN;
    std::vector<Node> cur;
    for (size_t i : rows) {
      const std::string_view n = c.str(r.name[i]);
      if (n.find("BeginCapture") != std::string_view::npos) {
        open = true, cur.clear(), last_end = INT64_MIN;
        continue;
      }
      if (n.find("EndCapture") != std::string_view::npos) {
        if (open && !cur.empty()) out.push_back(std::move(cur));
        open = false, cur = {};
        continue;
      }
      bool launch = false;
      const GpuOpKind k = call_kind(n, launch);
      if (!open || !launch) continue;
      if (r.start_ns[i] < last_end) continue;  // nested in the previous launch call
      last_end = r.end_ns(i);
      int64_t op = -1;
      if (r.external_id[i] != kNone)
        if (auto o = c.cpu_op_by_external_id(r.external_id[i])) op = static_cast<int64_t>(*o);
      cur.push_back({k, op});
    }
  }
  return out;
}

// Rows of t reordered: row order[j] becomes row j.
template <class Table>
void reorder(Table& t, const std::vector<uint32_t>& order) {
  t.for_each_column([&](const char*, auto& col, ColumnKind) {
    std::decay_t<decltype(col)> out;
    out.reserve(order.size());
    for (uint32_t i : order) out.push_back(col[i]);
    col = std::move(out);
  });
}

}  // namespace

CaptureJoin attach_capture_ops(Timeline& tl, const Timeline& capture) {
  CaptureJoin j;
  const std::vector<std::vector<Node>> windows = capture_windows(capture);
  j.capture_windows = static_cast<int64_t>(windows.size());
  if (windows.empty()) {
    j.notes.push_back("the capture trace has no cudaStreamBeginCapture/EndCapture window with launch calls");
    return j;
  }
  // Graph launch calls of the replay trace, and their GPU ops (same correlation) in start order.
  const GpuOpTable& k = tl.gpu_ops;
  std::unordered_map<int64_t, std::vector<int32_t>> ops_of;
  for (size_t i = 0; i < k.size(); ++i)
    if (k.correlation[i] != kNone) ops_of[k.correlation[i]].push_back(static_cast<int32_t>(i));
  int64_t next_ext = 0;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) next_ext = std::max(next_ext, tl.cpu_ops.external_id[i]);
  for (size_t i = 0; i < k.size(); ++i) next_ext = std::max(next_ext, k.external_id[i]);
  for (size_t i = 0; i < tl.runtime.size(); ++i) next_ext = std::max(next_ext, tl.runtime.external_id[i]);
  ++next_ext;
  // Which ops already have a launching op, asked before any row is added: the timeline's index
  // is rebuilt whenever the CPU-op table grows, so asking inside the loop would cost O(n) a row.
  std::vector<uint8_t> has_op(k.size(), 0);
  for (size_t i = 0; i < k.size(); ++i)
    has_op[i] = k.external_id[i] != kNone && tl.cpu_op_by_external_id(k.external_id[i]).has_value();
  const size_t old_rows = tl.cpu_ops.size();
  int64_t unmatched = 0;
  for (size_t g = 0; g < tl.runtime.size(); ++g) {
    if (tl.str(tl.runtime.name[g]).find("GraphLaunch") == std::string_view::npos) continue;
    auto it = ops_of.find(tl.runtime.correlation[g]);
    if (it == ops_of.end()) continue;
    const std::vector<int32_t>& ops = it->second;
    ++j.graph_launches;
    // The first window of the same node count whose node kinds agree, position by position.
    const std::vector<Node>* w = nullptr;
    for (const auto& cand : windows) {
      if (cand.size() != ops.size()) continue;
      bool same = true;
      for (size_t n = 0; n < ops.size() && same; ++n) same = cand[n].kind == k.kind[ops[n]];
      if (same) {
        w = &cand;
        break;
      }
    }
    if (!w) {
      ++unmatched;
      continue;
    }
    ++j.launches_matched;
    std::unordered_map<int64_t, int64_t> added;  // captured op row → its copy's external id (this replay)
    for (size_t n = 0; n < ops.size(); ++n) {
      const int64_t src = (*w)[n].cpu_op;
      const int32_t op = ops[n];
      if (src < 0) continue;
      if (has_op[static_cast<size_t>(op)]) continue;
      auto [a, fresh] = added.try_emplace(src, next_ext);
      if (fresh) {
        const CpuOpTable& c = capture.cpu_ops;
        const auto s = static_cast<size_t>(src);
        CpuOpRow row;
        row.start_ns = tl.runtime.start_ns[g];
        row.dur_ns = 0;  // the replay ran no CPU op: the row only names what launched its kernels
        row.name = tl.strings.intern(capture.str(c.name[s]));
        row.pid = tl.runtime.pid[g];
        row.tid = tl.runtime.tid[g];
        row.external_id = next_ext++;
        row.kind = CpuOpKind::Op;
        if (c.input_dims[s] != kNoStr) row.input_dims = tl.strings.intern(capture.str(c.input_dims[s]));
        if (c.input_types[s] != kNoStr) row.input_types = tl.strings.intern(capture.str(c.input_types[s]));
        if (c.concrete_inputs[s] != kNoStr) row.concrete_inputs = tl.strings.intern(capture.str(c.concrete_inputs[s]));
        tl.cpu_ops.push(row);
        ++j.ops_added;
      }
      tl.gpu_ops.external_id[op] = a->second;
      ++j.ops_joined;
    }
  }
  if (tl.cpu_ops.size() > old_rows) {
    // Back into start order; python_frames point at CPU-op rows.
    std::vector<uint32_t> order(tl.cpu_ops.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return tl.cpu_ops.start_ns[a] < tl.cpu_ops.start_ns[b]; });
    std::vector<int64_t> new_row(order.size());
    for (size_t i = 0; i < order.size(); ++i) new_row[order[i]] = static_cast<int64_t>(i);
    reorder(tl.cpu_ops, order);
    for (auto& r : tl.python_frames.cpu_op)
      if (r >= 0 && static_cast<size_t>(r) < new_row.size()) r = new_row[static_cast<size_t>(r)];
    // The index keys on table sizes: rows moved without a size change need an explicit rebuild.
    tl.build_indexes();
  }
  if (unmatched > 0)
    j.notes.push_back(
        fmt::format("{} graph launch(es) matched no capture window (node count and kinds differ: another graph, or a "
                    "multi-stream graph whose replay order differs from its capture order)",
                    unmatched));
  return j;
}

}  // namespace goblin::analysis
