#include "analysis/kernel_table.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/thread_sweep.h"

namespace goblin::analysis {

namespace {
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::string canonical_kernel_name(std::string_view name) {
  // Leading "void " (CUDA's demangled return type).
  if (name.substr(0, 5) == "void ") name.remove_prefix(5);
  // Drop the trailing top-level argument list: the last ')' at the end and its matching '('.
  std::string_view body = name;
  {
    size_t e = body.find_last_not_of(' ');
    if (e != std::string_view::npos && body[e] == ')') {
      int depth = 0;
      for (size_t i = e + 1; i-- > 0;) {
        if (body[i] == ')')
          ++depth;
        else if (body[i] == '(') {
          if (--depth == 0) {
            if (i > 0) body = body.substr(0, i);  // keep names that are only "(...)"
            break;
          }
        }
      }
    }
  }
  std::string out;
  out.reserve(body.size());
  bool space = false;
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c == '0' && i + 2 < body.size() && (body[i + 1] == 'x' || body[i + 1] == 'X') && is_hex(body[i + 2]) &&
        (i == 0 || !is_ident(body[i - 1]))) {
      size_t j = i + 2;
      while (j < body.size() && is_hex(body[j])) ++j;
      if (space && !out.empty()) out.push_back(' ');
      space = false;
      out += "0xADDR";
      i = j;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      ++i;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
    ++i;
  }
  return out;
}

bool is_user_python_frame(std::string_view f) {
  if (f.empty() || f.front() == '<') return false;  // <built-in ...>, <string>, <frozen ...>
  if (f.find(".py(") == std::string_view::npos) return false;
  if (f.find("/lib/python3") != std::string_view::npos && f.find("-packages/") == std::string_view::npos)
    return false;  // absolute standard-library path
  for (std::string_view marker : {"site-packages/", "dist-packages/"}) {
    size_t p = f.find(marker);
    if (p != std::string_view::npos) f = f.substr(p + marker.size());
  }
  // Interpreter / stdlib / framework internals: the location a user wants is the model code that
  // called into them.
  static constexpr std::string_view kSkip[] = {
      "torch/",       "threading.py", "multiprocessing/", "contextlib.py",  "runpy.py", "functools.py",
      "concurrent/",  "asyncio/",     "importlib/",       "typing.py",      "abc.py",   "tqdm/",
      "selectors.py", "queue.py",     "weakref.py",       "_contextlib.py", "copy.py",  "enum.py"};
  for (std::string_view s : kSkip)
    if (f.substr(0, s.size()) == s) return false;
  return true;
}

namespace {

// The CPU-op table's intervals of one thread (rows of one CpuOpKind) against launch times.
template <class Cb>
void sweep_thread(const CpuOpTable& t, std::vector<uint32_t>& rows, std::vector<SweepQuery>& qs, Cb&& cb) {
  sweep_intervals(
      rows, qs, [&](uint32_t r) { return t.start_ns[r]; }, [&](uint32_t r) { return t.end_ns(r); }, cb);
}

}  // namespace

LaunchAttribution attribute_launches(const Timeline& tl) {
  const GpuOpTable& ops = tl.gpu_ops;
  const size_t n = ops.size();
  LaunchAttribution la;
  la.cpu_op.assign(n, -1);
  la.python.assign(n, kNoStr);
  la.launch_ns.assign(n, kNone);
  la.method.assign(n, AttributionMethod::None);
  la.thread.assign(n, {kNone, kNone});
  la.graph_launch.assign(n, 0);
  const CpuOpTable& co = tl.cpu_ops;
  for (size_t i = 0; i < co.size(); ++i)
    if (co.kind[i] == CpuOpKind::PythonFunction) {
      la.has_python_frames = true;
      break;
    }

  std::unordered_map<ThreadKey, std::vector<SweepQuery>, ThreadKeyHash> cpu_queries, py_queries;
  for (size_t i = 0; i < n; ++i) {
    std::optional<size_t> rt;
    int64_t corr = ops.correlation[i];
    if (corr != kNone) rt = tl.runtime_by_correlation(corr);
    ThreadKey thread{kNone, kNone};
    if (rt) {
      ++la.with_runtime;
      la.launch_ns[i] = tl.runtime.start_ns[*rt];
      thread = {tl.runtime.pid[*rt], tl.runtime.tid[*rt]};
      la.graph_launch[i] = tl.str(tl.runtime.name[*rt]).find("GraphLaunch") != std::string_view::npos;
      int64_t ext = tl.runtime.external_id[*rt];
      if (ext != kNone) {
        if (auto op = tl.cpu_op_by_external_id(ext)) {
          la.cpu_op[i] = static_cast<int64_t>(*op);
          la.method[i] = AttributionMethod::CorrelationExternalId;
        }
      }
    }
    if (la.cpu_op[i] < 0 && ops.external_id[i] != kNone) {
      if (auto op = tl.cpu_op_by_external_id(ops.external_id[i])) {
        la.cpu_op[i] = static_cast<int64_t>(*op);
        la.method[i] = AttributionMethod::KernelExternalId;
        if (!rt) {
          la.launch_ns[i] = co.start_ns[*op];
          thread = {co.pid[*op], co.tid[*op]};
        }
      }
    }
    la.thread[i] = thread;
    if (la.cpu_op[i] < 0 && rt) cpu_queries[thread].push_back({la.launch_ns[i], static_cast<uint32_t>(i)});
    if (la.has_python_frames && la.launch_ns[i] != kNone)
      py_queries[thread].push_back({la.launch_ns[i], static_cast<uint32_t>(i)});
  }

  if (!cpu_queries.empty() || !py_queries.empty()) {
    std::unordered_map<ThreadKey, std::vector<uint32_t>, ThreadKeyHash> op_rows, py_rows;
    for (size_t r = 0; r < co.size(); ++r) {
      ThreadKey k{co.pid[r], co.tid[r]};
      if (co.kind[r] == CpuOpKind::Op) {
        if (cpu_queries.count(k)) op_rows[k].push_back(static_cast<uint32_t>(r));
      } else if (py_queries.count(k)) {
        py_rows[k].push_back(static_cast<uint32_t>(r));
      }
    }
    for (auto& [k, qs] : cpu_queries) {
      auto it = op_rows.find(k);
      if (it == op_rows.end()) continue;
      sweep_thread(co, it->second, qs, [&](const SweepQuery& q, const std::vector<uint32_t>& st) {
        for (size_t s = st.size(); s-- > 0;) {
          uint32_t r = st[s];
          if (co.start_ns[r] <= q.t && q.t <= co.end_ns(r)) {
            la.cpu_op[q.op] = r;
            la.method[q.op] = AttributionMethod::TimeContainment;
            return;
          }
        }
      });
    }
    std::unordered_map<StrId, bool> user_cache;
    auto is_user = [&](StrId id) {
      auto it = user_cache.find(id);
      if (it != user_cache.end()) return it->second;
      bool u = is_user_python_frame(tl.str(id));
      user_cache.emplace(id, u);
      return u;
    };
    for (auto& [k, qs] : py_queries) {
      auto it = py_rows.find(k);
      if (it == py_rows.end()) continue;
      sweep_thread(co, it->second, qs, [&](const SweepQuery& q, const std::vector<uint32_t>& st) {
        StrId fallback = kNoStr;
        for (size_t s = st.size(); s-- > 0;) {
          uint32_t r = st[s];
          if (!(co.start_ns[r] <= q.t && q.t <= co.end_ns(r))) continue;
          if (is_user(co.name[r])) {
            la.python[q.op] = co.name[r];
            return;
          }
          if (fallback == kNoStr && tl.str(co.name[r]).find(".py(") != std::string_view::npos) fallback = co.name[r];
        }
        la.python[q.op] = fallback;
      });
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (la.cpu_op[i] >= 0) ++la.with_cpu_op;
    if (la.python[i] != kNoStr) ++la.with_python;
  }
  return la;
}

namespace {
template <class K>
K mode_of(const std::unordered_map<K, int64_t>& m, int64_t* count) {
  K best{};
  int64_t bc = -1;
  for (auto& [k, c] : m)
    if (c > bc || (c == bc && k < best)) {
      best = k;
      bc = c;
    }
  *count = bc < 0 ? 0 : bc;
  return best;
}
}  // namespace

KernelTableResult build_kernel_table(const Timeline& tl, const ExposureResult& ex, const LaunchAttribution& la,
                                     const Taxonomy* tax) {
  const GpuOpTable& ops = tl.gpu_ops;
  KernelTableResult kt;
  kt.taxonomy_loaded = tax != nullptr;
  kt.op_row.assign(ops.size(), -1);
  struct Acc {
    std::unordered_map<StrId, int64_t> names, cpu, py;
    std::vector<int32_t> devices;
    std::vector<int64_t> streams;
  };
  std::vector<Acc> acc;
  std::unordered_map<std::string, int32_t> by_key;
  std::unordered_map<uint64_t, int32_t> by_id;  // (kind, StrId) → row
  for (size_t i = 0; i < ops.size(); ++i) {
    int64_t d = ops.dur_ns[i];
    if (d < 0) continue;
    GpuOpKind kind = ops.kind[i];
    uint64_t idkey = (static_cast<uint64_t>(kind) << 32) | ops.name[i];
    int32_t row;
    auto it = by_id.find(idkey);
    if (it != by_id.end()) {
      row = it->second;
    } else {
      std::string canon = canonical_kernel_name(tl.str(ops.name[i]));
      if (canon.empty()) canon = "<unnamed>";
      std::string key = std::string(gpu_op_kind_name(kind)) + '\x1f' + canon;
      auto [kit, ins] = by_key.emplace(key, static_cast<int32_t>(kt.rows.size()));
      if (ins) {
        KernelTableRow r;
        r.name = canon;
        r.kind = kind;
        r.min_ns = INT64_MAX;
        kt.rows.push_back(std::move(r));
        acc.emplace_back();
      }
      row = kit->second;
      by_id.emplace(idkey, row);
    }
    kt.op_row[i] = row;
    KernelTableRow& r = kt.rows[row];
    Acc& a = acc[row];
    ++r.launches;
    r.total_ns += d;
    r.min_ns = std::min(r.min_ns, d);
    r.max_ns = std::max(r.max_ns, d);
    r.hidden_ns += ex.hidden_ns[i];
    r.exposed_ns += d - ex.hidden_ns[i];
    ++a.names[ops.name[i]];
    if (la.cpu_op[i] >= 0) ++a.cpu[tl.cpu_ops.name[la.cpu_op[i]]];
    if (la.python[i] != kNoStr) ++a.py[la.python[i]];
    int32_t dev = ops.device[i];
    if (std::find(a.devices.begin(), a.devices.end(), dev) == a.devices.end()) a.devices.push_back(dev);
    int64_t st = ops.stream[i];
    if (a.streams.size() < 16 && std::find(a.streams.begin(), a.streams.end(), st) == a.streams.end())
      a.streams.push_back(st);
    kt.total_ns += d;
    ++kt.ops;
  }
  for (size_t r = 0; r < kt.rows.size(); ++r) {
    KernelTableRow& row = kt.rows[r];
    Acc& a = acc[r];
    int64_t c = 0;
    row.full_name = std::string(tl.str(mode_of(a.names, &c)));
    row.distinct_full_names = static_cast<int64_t>(a.names.size());
    if (!a.cpu.empty()) {
      StrId op = mode_of(a.cpu, &c);
      row.cpu_op = std::string(tl.str(op));
      row.cpu_op_agreement = static_cast<double>(c) / row.launches;
    }
    if (!a.py.empty()) row.python_location = std::string(tl.str(mode_of(a.py, &c)));
    std::sort(a.devices.begin(), a.devices.end());
    std::sort(a.streams.begin(), a.streams.end());
    row.devices = std::move(a.devices);
    row.streams = std::move(a.streams);
    if (row.min_ns == INT64_MAX) row.min_ns = 0;
    row.share_pct = kt.total_ns > 0 ? 100.0 * static_cast<double>(row.total_ns) / kt.total_ns : 0;
    if (tax) {
      KernelClass kc = tax->classify(row.full_name, row.cpu_op);
      row.category = kc.category;
      row.family = kc.family;
      row.rule_id = kc.rule_id;
    } else {
      row.category = "other";
      row.family = "unknown";
    }
    // A memcpy/memset record is that by construction, whatever its name says.
    if (row.kind == GpuOpKind::Memcpy) row.category = "memcpy";
    if (row.kind == GpuOpKind::Memset) row.category = "memset";
  }
  // Sort rows by time, keeping op_row consistent.
  std::vector<int32_t> order(kt.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (kt.rows[a].total_ns != kt.rows[b].total_ns) return kt.rows[a].total_ns > kt.rows[b].total_ns;
    return kt.rows[a].name < kt.rows[b].name;
  });
  std::vector<int32_t> remap(order.size());
  std::vector<KernelTableRow> sorted;
  sorted.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    remap[order[i]] = static_cast<int32_t>(i);
    sorted.push_back(std::move(kt.rows[order[i]]));
  }
  kt.rows = std::move(sorted);
  for (auto& r : kt.op_row)
    if (r >= 0) r = remap[r];
  kt.attributed_cpu_op = la.with_cpu_op;
  kt.attributed_python = la.with_python;
  return kt;
}

}  // namespace goblin::analysis
