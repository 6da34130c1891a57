// What lets a join over the query tables run at database speed, and the derived columns that need
// a pass over a whole table: the per-column sorted indexes the virtual tables' xFilter searches
// (TableData::index), CPU-op nesting (cpu_ops.parent_id, depth) and each GPU op's step
// (gpu_ops.step). Each is computed once, on first use.
#include <algorithm>
#include <numeric>

#include "query/table_state.h"

namespace goblin::query {

using namespace detail;

// Rows of one (pid, tid) in order of start, then longer first, then row: a row's parent is the
// nearest row before it in that order whose span contains its span (docs/query.md § CPU-op
// nesting). With a stack: the rows not contained by the current one end before it does, and no
// later row can have them as its nearest container (the current row is nearer), so they go.
void TraceState::nest_cpu_ops() {
  nested = true;
  const CpuOpTable& c = tl().cpu_ops;
  const size_t n = c.size();
  cpu_parent.assign(n, kNone);
  cpu_depth.assign(n, 0);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  auto end = [&](uint32_t r) { return c.start_ns[r] + c.dur_ns[r]; };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (c.pid[a] != c.pid[b]) return c.pid[a] < c.pid[b];
    if (c.tid[a] != c.tid[b]) return c.tid[a] < c.tid[b];
    if (c.start_ns[a] != c.start_ns[b]) return c.start_ns[a] < c.start_ns[b];
    if (end(a) != end(b)) return end(a) > end(b);
    return a < b;
  });
  std::vector<uint32_t> stack;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = order[i];
    if (i > 0 && (c.pid[r] != c.pid[order[i - 1]] || c.tid[r] != c.tid[order[i - 1]])) stack.clear();
    while (!stack.empty() && end(stack.back()) < end(r)) stack.pop_back();
    if (!stack.empty()) {
      cpu_parent[r] = stack.back();
      cpu_depth[r] = cpu_depth[stack.back()] + 1;
    }
    stack.push_back(r);
  }
}

// The steps table's windows over GPU ops in start order: each step, in table order, takes the ops
// whose start lies in [start, end) and that no earlier step took.
void TraceState::step_gpu_ops() {
  const GpuOpTable& g = tl().gpu_ops;
  const analysis::StepDetection& sd = steps();
  stepped = true;
  const size_t n = g.size();
  gpu_step.assign(n, kNone);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  if (!std::is_sorted(g.start_ns.begin(), g.start_ns.end()))
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return g.start_ns[a] < g.start_ns[b]; });
  auto at = [&](int64_t t) {
    return std::partition_point(order.begin(), order.end(), [&](uint32_t r) { return g.start_ns[r] < t; });
  };
  for (size_t s = 0; s < sd.steps.size(); ++s) {
    const auto hi = at(sd.steps[s].end_ns);
    for (auto it = at(sd.steps[s].start_ns); it < hi; ++it)
      if (gpu_step[*it] == kNone) gpu_step[*it] = step_numbers[s];
  }
}

bool TableData::can_index(size_t t, int c) const {
  const TableInfo& info = tables()[t].info;
  return !info.analysis && c >= 0 && static_cast<size_t>(c) < info.columns.size() &&
         info.columns[static_cast<size_t>(c)].type == SqlType::Integer;
}

// Every trace's values of the column read as scan() reads them (the Bulk reader where there is
// one, else the getters), the NULLs left out (no equality or range holds for NULL), then sorted
// by value and row; a column already in order (id, start_ns) is not sorted again.
const TableData::ColumnIndex& TableData::index(size_t t, int c) {
  auto [it, fresh] = impl_->indexes.try_emplace({t, c});
  ColumnIndex& ix = it->second;
  if (!fresh) return ix;
  const Table& table = tables()[t];
  const auto fast = table.bulk.find(c);
  for (size_t tr = 0; tr < trace_count(); ++tr) {
    TraceState& st = impl_->traces[tr];
    const size_t n = rows(t, tr);
    if (n == 0) continue;
    ColumnBuilder b;
    b.reserve(n);
    if (fast != table.bulk.end()) {
      fast->second.append(st, b);
    } else {
      Out o;
      o.b = &b;
      for (size_t r = 0; r < n; ++r) write(*impl_, t, tr, r, c, o);
    }
    const ColumnData col = b.finish();
    if (col.kind != ColumnData::Kind::Integer) continue;  // NULLs alone
    for (size_t r = 0; r < col.rows; ++r) {
      if (col.is_null(r)) continue;
      ix.keys.push_back(col.int32 ? col.ints32[r] : col.ints[r]);
      ix.rows.push_back((static_cast<uint64_t>(tr) << 40) | r);
    }
  }
  if (std::is_sorted(ix.keys.begin(), ix.keys.end())) return ix;
  std::vector<uint32_t> perm(ix.keys.size());
  std::iota(perm.begin(), perm.end(), 0u);
  std::stable_sort(perm.begin(), perm.end(), [&](uint32_t a, uint32_t b) { return ix.keys[a] < ix.keys[b]; });
  ColumnIndex sorted;
  sorted.keys.reserve(perm.size());
  sorted.rows.reserve(perm.size());
  for (uint32_t p : perm) {
    sorted.keys.push_back(ix.keys[p]);
    sorted.rows.push_back(ix.rows[p]);
  }
  ix = std::move(sorted);
  return ix;
}

}  // namespace goblin::query
