// Input shapes of a window's first step given to its later steps (op_shapes.h).
#include "trace/op_shapes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>

#include "core/json.h"
#include "model/profiler_step.h"

namespace goblin::trace {

bool pair_sequences(const std::vector<StrId>& a, const std::vector<StrId>& b, size_t max_edits,
                    std::vector<std::pair<size_t, size_t>>& pairs) {
  pairs.clear();
  const int64_t n = static_cast<int64_t>(a.size()), m = static_cast<int64_t>(b.size());
  const int64_t dmax = static_cast<int64_t>(max_edits);
  if (n - m > dmax || m - n > dmax) return false;
  const int64_t off = dmax + 1;
  std::vector<int64_t> v(static_cast<size_t>(2 * dmax + 3), 0);
  std::vector<std::vector<int64_t>> trace;  // v before each round d, for the walk back
  int64_t found = -1;
  for (int64_t d = 0; d <= dmax && found < 0; ++d) {
    trace.push_back(v);
    for (int64_t k = -d; k <= d; k += 2) {
      int64_t x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
      int64_t y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return false;
  int64_t x = n, y = m;
  for (int64_t d = found; d >= 0; --d) {
    const std::vector<int64_t>& w = trace[static_cast<size_t>(d)];
    const int64_t k = x - y;
    const int64_t pk = (k == -d || (k != d && w[off + k - 1] < w[off + k + 1])) ? k + 1 : k - 1;
    const int64_t px = w[off + pk], py = px - pk;
    while (x > px && y > py && x > 0 && y > 0) {
      pairs.emplace_back(static_cast<size_t>(x - 1), static_cast<size_t>(y - 1));
      --x, --y;
    }
    if (d == 0) break;
    x = px, y = py;
  }
  std::reverse(pairs.begin(), pairs.end());
  return true;
}

namespace {
constexpr std::string_view kModulePrefix = "nn.Module: ";

// One step's ops on one thread in start order (parents before the children they start with),
// and its nn.Module frames.
struct ThreadOps {
  std::vector<size_t> ops, modules;
};
using StepOps = std::map<int64_t, ThreadOps>;  // tid → rows

// `rows` sorted by start: the step's rows are one slice of it.
StepOps step_ops(const Timeline& tl, const std::vector<size_t>& rows, int64_t t0, int64_t t1) {
  StepOps out;
  const CpuOpTable& c = tl.cpu_ops;
  auto lo = std::lower_bound(rows.begin(), rows.end(), t0, [&](size_t r, int64_t t) { return c.start_ns[r] < t; });
  for (auto it = lo; it != rows.end() && c.start_ns[*it] < t1; ++it) {
    const size_t r = *it;
    ThreadOps& t = out[c.tid[r]];
    if (c.kind[r] == CpuOpKind::Op)
      t.ops.push_back(r);
    else if (tl.str(c.name[r]).substr(0, kModulePrefix.size()) == kModulePrefix)
      t.modules.push_back(r);
  }
  for (auto& [tid, t] : out)
    std::sort(t.ops.begin(), t.ops.end(), [&](size_t x, size_t y) {
      if (c.start_ns[x] != c.start_ns[y]) return c.start_ns[x] < c.start_ns[y];
      if (c.dur_ns[x] != c.dur_ns[y]) return c.dur_ns[x] > c.dur_ns[y];
      return x < y;
    });
  return out;
}

bool has_shapes(const Timeline& tl, const StepOps& s) {
  for (const auto& [tid, t] : s)
    for (size_t r : t.ops)
      if (tl.cpu_ops.input_dims[r] != kNoStr) return true;
  return false;
}

size_t op_count(const StepOps& s) {
  size_t n = 0;
  for (const auto& [tid, t] : s) n += t.ops.size();
  return n;
}

// The template's module frame re-created around the ops it enclosed, mapped into the step; false
// when it enclosed no op or its first or last op has no partner.
bool mapped_frame(const Timeline& tl, size_t frame, const std::vector<size_t>& tops, const std::vector<size_t>& sops,
                  const std::vector<int64_t>& partner, CpuOpRow& out) {
  const CpuOpTable& c = tl.cpu_ops;
  const int64_t fs = c.start_ns[frame], fe = c.end_ns(frame);
  auto first = std::lower_bound(tops.begin(), tops.end(), fs, [&](size_t r, int64_t t) { return c.start_ns[r] < t; });
  size_t p = static_cast<size_t>(first - tops.begin());
  if (p >= tops.size() || c.start_ns[tops[p]] >= fe || partner[p] < 0) return false;
  int64_t tend = INT64_MIN, send = INT64_MIN;
  size_t q = p;
  for (; q < tops.size() && c.start_ns[tops[q]] < fe; ++q) {
    if (partner[q] < 0) continue;
    tend = std::max(tend, c.end_ns(tops[q]));
    send = std::max(send, c.end_ns(sops[static_cast<size_t>(partner[q])]));
  }
  if (partner[q - 1] < 0 || tend == INT64_MIN) return false;
  out = CpuOpRow{};
  out.start_ns = c.start_ns[sops[static_cast<size_t>(partner[p])]] - (c.start_ns[tops[p]] - fs);
  const int64_t end = send + std::max<int64_t>(0, fe - tend);
  out.dur_ns = std::max<int64_t>(0, end - out.start_ns);
  out.name = c.name[frame];
  out.pid = c.pid[frame];
  out.tid = c.tid[frame];
  out.kind = CpuOpKind::PythonFunction;
  return true;
}
}  // namespace

ShapeMapResult map_first_step_shapes(Timeline& tl, size_t op_begin, size_t ann_begin) {
  ShapeMapResult res;
  auto it = tl.meta.extra.find("goblin_tracer_shapes");
  if (it == tl.meta.extra.end() || it->second != "\"first_step\"") return res;
  res.applied = true;
  std::vector<size_t> steps;
  const AnnotationTable& an = tl.annotations;
  for (size_t i = ann_begin; i < an.size(); ++i)
    if (!an.on_gpu[i] && is_profiler_step(tl.str(an.name[i]))) steps.push_back(i);
  std::sort(steps.begin(), steps.end(), [&](size_t x, size_t y) { return an.start_ns[x] < an.start_ns[y]; });
  std::vector<size_t> rows;
  for (size_t r = op_begin; r < tl.cpu_ops.size(); ++r) rows.push_back(r);
  std::stable_sort(rows.begin(), rows.end(),
                   [&](size_t x, size_t y) { return tl.cpu_ops.start_ns[x] < tl.cpu_ops.start_ns[y]; });

  StepOps tmpl;
  bool have_tmpl = false;
  std::vector<CpuOpRow> added;
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t s : steps) {
    ShapeMapStep st;
    st.name = std::string(tl.str(an.name[s]));
    StepOps cur = step_ops(tl, rows, an.start_ns[s], an.end_ns(s));
    st.ops = op_count(cur);
    if (st.ops == 0) {
      st.role = "no ops";
    } else if (const bool shaped = has_shapes(tl, cur); shaped || !have_tmpl) {
      st.role = shaped ? "template" : "refused";
      if (!shaped) st.reason = "no earlier step with input shapes";
      if (shaped) tmpl = std::move(cur), have_tmpl = true;
    } else {
      // Pair thread by thread; refuse the whole step when the sequences differ too much.
      const size_t tmpl_ops = op_count(tmpl);
      const size_t budget = static_cast<size_t>(kMaxUnpairedShare * static_cast<double>(std::max(st.ops, tmpl_ops)));
      struct ThreadPairs {
        const ThreadOps* t;
        const ThreadOps* c;
        std::vector<int64_t> partner;  // template index → step index, -1 unpaired
      };
      std::vector<ThreadPairs> tp;
      for (const auto& [tid, c] : cur) {
        auto ti = tmpl.find(tid);
        if (ti == tmpl.end()) {
          st.unpaired += c.ops.size();
          continue;
        }
        std::vector<StrId> a, b;
        for (size_t r : ti->second.ops) a.push_back(tl.cpu_ops.name[r]);
        for (size_t r : c.ops) b.push_back(tl.cpu_ops.name[r]);
        if (!pair_sequences(a, b, budget + 8, pairs)) {
          st.role = "refused";
          st.reason = fmt::format("the op sequence of thread {} differs from the template step's in more than {} ops",
                                  tid, budget + 8);
          break;
        }
        ThreadPairs x{&ti->second, &c, std::vector<int64_t>(a.size(), -1)};
        for (auto [i, j] : pairs) x.partner[i] = static_cast<int64_t>(j);
        st.paired += pairs.size();
        st.unpaired += b.size() - pairs.size();
        tp.push_back(std::move(x));
      }
      if (st.role.empty() && st.unpaired > budget) {
        st.role = "refused";
        st.reason = fmt::format("{} of {} ops have no partner in the template step (at most {} allowed)", st.unpaired,
                                st.ops, budget);
      }
      if (st.role.empty()) {
        st.role = "mapped";
        CpuOpTable& c = tl.cpu_ops;
        for (const ThreadPairs& x : tp) {
          for (size_t i = 0; i < x.partner.size(); ++i) {
            if (x.partner[i] < 0) continue;
            const size_t from = x.t->ops[i], to = x.c->ops[static_cast<size_t>(x.partner[i])];
            c.input_dims[to] = c.input_dims[from];
            c.input_types[to] = c.input_types[from];
          }
          if (!x.c->modules.empty()) continue;  // the step has its own frames
          for (size_t f : x.t->modules) {
            CpuOpRow row;
            if (mapped_frame(tl, f, x.t->ops, x.c->ops, x.partner, row)) {
              added.push_back(row);
              ++st.modules_added;
            }
          }
        }
        res.ops_given_shapes += st.paired;
        res.modules_added += st.modules_added;
      } else {
        st.paired = 0;
        ++res.steps_refused;
      }
    }
    res.steps.push_back(std::move(st));
  }
  for (const CpuOpRow& r : added) tl.cpu_ops.push(r);

  Json j = Json::object();
  j["ops_given_shapes"] = res.ops_given_shapes;
  j["modules_added"] = res.modules_added;
  j["steps_refused"] = res.steps_refused;
  Json arr = Json::array();
  for (const ShapeMapStep& st : res.steps) {
    Json o = {{"step", st.name}, {"role", st.role}, {"ops", st.ops}};
    if (st.role == "mapped")
      o["paired"] = st.paired, o["unpaired"] = st.unpaired, o["modules_added"] = st.modules_added;
    if (!st.reason.empty()) o["reason"] = st.reason;
    arr.push_back(std::move(o));
  }
  j["steps"] = std::move(arr);
  tl.meta.extra["goblin_shapes_mapped"] = j.dump();
  return res;
}

}  // namespace goblin::trace
