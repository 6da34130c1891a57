#include "model/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "core/limits.h"
#include "core/phases.h"

namespace goblin {

const char* format_name(Format f) {
  switch (f) {
    case Format::Kineto:
      return "kineto";
    case Format::RocprofV3Csv:
      return "rocprofv3-csv";
    case Format::RocprofV3Json:
      return "rocprofv3-json";
    case Format::RocprofV1:
      return "rocprof-v1";
    case Format::Rocpd:
      return "rocpd";
    case Format::RocprofCompute:
      return "rocprof-compute";
    case Format::Jax:
      return "jax";
    case Format::NsysSqlite:
      return "nsys-sqlite";
    case Format::NcuCsv:
      return "ncu-csv";
    case Format::NvidiaSmi:
      return "nvidia-smi";
    case Format::AmdSmi:
      return "amd-smi";
    case Format::RocmSmi:
      return "rocm-smi";
    case Format::Unknown:
      break;
  }
  return "unknown";
}

const char* copy_kind_name(CopyKind k) {
  switch (k) {
    case CopyKind::HtoD:
      return "HtoD";
    case CopyKind::DtoH:
      return "DtoH";
    case CopyKind::DtoD:
      return "DtoD";
    case CopyKind::HtoH:
      return "HtoH";
    case CopyKind::PtoP:
      return "PtoP";
    case CopyKind::Unknown:
      break;
  }
  return "unknown";
}

const char* gpu_op_kind_name(GpuOpKind k) {
  switch (k) {
    case GpuOpKind::Kernel:
      return "kernel";
    case GpuOpKind::Memcpy:
      return "memcpy";
    case GpuOpKind::Memset:
      return "memset";
  }
  return "kernel";
}

const char* clock_domain_name(ClockDomain d) {
  switch (d) {
    case ClockDomain::Epoch:
      return "epoch";
    case ClockDomain::KinetoTrace:
      return "kineto";
    case ClockDomain::BootTime:
      return "boottime";
    case ClockDomain::NsysSession:
      return "nsys-session";
    case ClockDomain::SampleIndex:
      return "sample-index";
    case ClockDomain::JaxTrace:
      return "jax";
    case ClockDomain::Unknown:
      break;
  }
  return "unknown";
}

void Timeline::warn(WarningId id, std::string message, std::string file, int64_t byte_offset, int64_t line) {
  std::string key = file + '\x1f' + message;
  auto it = warning_index_.find(key);
  if (it != warning_index_.end()) {
    ++warnings[it->second].count;
    return;
  }
  warning_index_.emplace(std::move(key), warnings.size());
  warnings.push_back(Diagnostic{std::move(message), std::move(file), byte_offset, line, 1, id});
}

namespace {
// Copies src's rows after dst's; src is then emptied: freed, or (keep) cleared with its capacity
// kept for reuse.
template <class T>
void append_col(Column<T>& dst, Column<T>& src, ColumnKind kind, const std::vector<StrId>& remap, bool keep) {
  if constexpr (std::is_same_v<T, StrId>) {
    if (kind == ColumnKind::String) {
      // Geometric growth: reserving exactly size + src.size() would make every later block's
      // append reallocate and copy the whole column again (quadratic in the number of blocks)
      // whenever the first block's row mix underestimated this table.
      if (dst.capacity() < dst.size() + src.size())
        dst.reserve(std::max(dst.size() + src.size(), dst.capacity() + dst.capacity() / 2));
      const size_t at = dst.size();
      dst.resize(at + src.size());
      StrId* out = dst.data() + at;
      for (size_t i = 0; i < src.size(); ++i) out[i] = remap[src[i]];
      if (keep)
        src.clear();
      else
        Column<StrId>().swap(src);
      return;
    }
  }
  dst.insert(dst.end(), src.begin(), src.end());
  if (keep)
    src.clear();
  else
    Column<T>().swap(src);
}
template <class Table>
void append_table(Table& dst, Table& src, const std::vector<StrId>& remap, bool keep = false) {
  dst.for_each_column_pair(
      src, [&](const char*, auto& d, auto& s, ColumnKind kind) { append_col(d, s, kind, remap, keep); });
}
}  // namespace

void Timeline::append_and_clear(Timeline& o, std::vector<StrId>& m) {
  for (size_t i = m.size(); i < o.strings.size(); ++i)
    m.push_back(strings.intern(o.strings.view(static_cast<StrId>(i))));
  append_tables(o, m, /*keep=*/true, /*two_threads=*/false);
  fold_warnings(o);
}

void Timeline::fold_warnings(Timeline& o) {
  for (auto& w : o.warnings) {
    std::string key = w.file + '\x1f' + w.message;
    auto it = warning_index_.find(key);
    if (it != warning_index_.end()) {
      warnings[it->second].count += w.count;
      continue;
    }
    warning_index_.emplace(std::move(key), warnings.size());
    warnings.push_back(std::move(w));
  }
  o.warnings.clear();
  o.warning_index_.clear();
}

void Timeline::append(Timeline&& o, bool two_threads) {
  std::vector<StrId> m(o.strings.size());
  for (size_t i = 0; i < m.size(); ++i) m[i] = strings.intern(o.strings.view(static_cast<StrId>(i)));
  append_tables(o, m, /*keep=*/false, two_threads);
  fold_warnings(o);
}

void Timeline::append_tables(Timeline& o, const std::vector<StrId>& m, bool keep, bool two_threads) {
  // Tables are independent once the remap exists: CPU ops (the largest table) on a helper
  // thread when asked, everything else here.
  std::thread helper;
  // python_frames rows point at cpu_ops rows: shift the appended ones past ours.
  const size_t cpu_op_base = cpu_ops.size(), frames_before = python_frames.size(), gpu_before = gpu_ops.size();
  append_table(python_frames, o.python_frames, m, keep);
  for (size_t i = frames_before; i < python_frames.size(); ++i)
    python_frames.cpu_op[i] += static_cast<int64_t>(cpu_op_base);
  if (two_threads)
    helper = std::thread([&] { append_table(cpu_ops, o.cpu_ops, m, keep); });
  else
    append_table(cpu_ops, o.cpu_ops, m, keep);
  append_table(gpu_ops, o.gpu_ops, m, keep);
  append_table(runtime, o.runtime, m, keep);
  append_table(annotations, o.annotations, m, keep);
  append_table(flows, o.flows, m, keep);
  append_table(samples, o.samples, m, keep);
  append_table(counters, o.counters, m, keep);
  append_table(rules, o.rules, m, keep);
  append_table(collectives, o.collectives, m, keep);
  append_table(memory_events, o.memory_events, m, keep);
  if (helper.joinable()) helper.join();
  // Track ids are derived from the whole table: stale until the next finish(). Only a table that
  // had tracks holds ids to clear; otherwise the rows before ours are already kNone, and clearing
  // them again on each of a block reader's thousands of merges made the merge quadratic.
  const size_t stale_from = tracks.size() > 0 ? 0 : gpu_before;
  tracks = TrackTable{};
  std::fill(gpu_ops.track.begin() + static_cast<std::ptrdiff_t>(stale_from), gpu_ops.track.end(),
            static_cast<int32_t>(kNone));
}

std::string Timeline::column_mismatch() const {
  std::string bad;
  for_each_table([&](const char* table, const auto& t) {
    const size_t n = t.size();
    t.for_each_column([&](const char* column, const auto& col, ColumnKind) {
      if (bad.empty() && col.size() != n)
        bad = fmt::format("{}.{} has {} rows, the table {}", table, column, col.size(), n);
    });
  });
  return bad;
}

namespace {
// Widens [s.first, s.second] to cover every [start, start+dur) row of a table (any table with
// start_ns/dur_ns columns: GPU ops, runtime calls, CPU ops, annotations).
template <class T>
void extend(std::pair<int64_t, int64_t>& s, bool& any, const T& c) {
  for (size_t i = 0; i < c.size(); ++i) {
    int64_t a = c.start_ns[i], b = c.start_ns[i] + c.dur_ns[i];
    if (!any) {
      s = {a, b};
      any = true;
    } else {
      s.first = std::min(s.first, a);
      s.second = std::max(s.second, b);
    }
  }
}
}  // namespace

std::pair<int64_t, int64_t> Timeline::gpu_span() const {
  std::pair<int64_t, int64_t> s{0, 0};
  bool any = false;
  extend(s, any, gpu_ops);
  return s;
}

std::pair<int64_t, int64_t> Timeline::span() const {
  std::pair<int64_t, int64_t> s{0, 0};
  bool any = false;
  extend(s, any, gpu_ops);
  extend(s, any, runtime);
  extend(s, any, cpu_ops);
  extend(s, any, annotations);
  // Telemetry joins the trace's span only on the trace's clock (converted explicitly), never
  // as raw numbers of another clock; alone, it gives the span on its own clock.
  const std::optional<int64_t> off = any ? samples_to_trace_offset() : std::optional<int64_t>(0);
  if (!off) return s;
  for (size_t i = 0; i < samples.size(); ++i) {
    const int64_t t = samples.ts_ns[i] + *off;
    if (!any) {
      s = {t, t};
      any = true;
    }
    s.first = std::min(s.first, t);
    s.second = std::max(s.second, t);
  }
  return s;
}

void Timeline::build_indexes() const {
  std::lock_guard<std::mutex> lock(idx_.p->mu);
  rebuild_indexes_locked();
}

void Timeline::rebuild_indexes_locked() const {
  Indexes& ix = *idx_.p;
  ix.runtime_rows.store(SIZE_MAX, std::memory_order_release);
  ix.runtime_by_corr.clear();
  ix.cpu_op_by_ext.clear();
  ix.runtime_by_corr.reserve(runtime.size());
  for (size_t i = 0; i < runtime.size(); ++i) {
    if (runtime.correlation[i] != kNone) ix.runtime_by_corr.emplace(runtime.correlation[i], i);
  }
  ix.cpu_op_by_ext.reserve(cpu_ops.size());
  for (size_t i = 0; i < cpu_ops.size(); ++i) {
    if (cpu_ops.external_id[i] != kNone && cpu_ops.kind[i] == CpuOpKind::Op) {
      ix.cpu_op_by_ext.emplace(cpu_ops.external_id[i], i);
    }
  }
  ix.cpu_op_rows.store(cpu_ops.size(), std::memory_order_release);
  ix.runtime_rows.store(runtime.size(), std::memory_order_release);
}

const Timeline::Indexes& Timeline::indexes() const {
  Indexes& ix = *idx_.p;
  auto stale = [&] {
    return ix.runtime_rows.load(std::memory_order_acquire) != runtime.size() ||
           ix.cpu_op_rows.load(std::memory_order_acquire) != cpu_ops.size();
  };
  if (stale()) {
    // Checked again under the lock: of two threads that found the indexes stale, only the first
    // rebuilds, so the second never clears maps the first is already reading.
    std::lock_guard<std::mutex> lock(ix.mu);
    if (stale()) rebuild_indexes_locked();
  }
  return ix;
}

std::optional<size_t> Timeline::runtime_by_correlation(int64_t corr) const {
  const auto& m = indexes().runtime_by_corr;
  auto it = m.find(corr);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> Timeline::cpu_op_by_external_id(int64_t ext) const {
  const auto& m = indexes().cpu_op_by_ext;
  auto it = m.find(ext);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

void Timeline::release_spare_capacity() {
  for_each_table([](const char*, auto& table) {
    table.for_each_column([](const char*, auto& col, ColumnKind) {
      using T = typename std::decay_t<decltype(col)>::value_type;
      big_alloc::release_tail(col.data(), col.size() * sizeof(T), col.capacity() * sizeof(T));
    });
  });
}

void Timeline::check_shared_ids(const std::string& src) {
  // One launch starts one kernel, and one CPU op has its own External id. When most rows share a
  // single id the ids are damaged (a converter that wrote a constant), and every kernel would be
  // attributed to one launch / op. A CUDA/HIP graph launch legitimately starts many kernels under
  // one correlation id, so graph kernels and graph-launch calls are left out.
  // The id held by more than half the kept rows, if any: Boyer-Moore majority vote, then a count.
  // Two passes and no memory (a hash map of every id cost ~50 MB at the peak of a GB-scale read).
  auto dominant = [](const auto& ids, auto keep) -> std::pair<int64_t, int64_t> {  // {id, rows}
    int64_t cand = kNone, votes = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] == kNone || !keep(i)) continue;
      if (votes == 0) cand = ids[i];
      votes += ids[i] == cand ? 1 : -1;
    }
    int64_t total = 0, rows = 0;
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i] != kNone && keep(i)) ++total, rows += ids[i] == cand ? 1 : 0;
    return {cand, 2 * rows > total ? rows : 0};
  };
  auto [corr, kn] = dominant(gpu_ops.correlation, [&](size_t i) {
    return gpu_ops.kind[i] == GpuOpKind::Kernel && gpu_ops.graph_id[i] == kNone;
  });
  if (kn >= 10) {
    bool graph = false;
    for (size_t r = 0; r < runtime.size() && !graph; ++r)
      if (runtime.correlation[r] == corr && str(runtime.name[r]).find("Graph") != std::string_view::npos) graph = true;
    if (!graph)
      warn(W::shared_correlation_id,
           fmt::format("{} of {} kernels share correlation id {} (one launch starts one kernel): the ids are "
                       "damaged, so kernel-to-launch and kernel-to-op attribution is unreliable",
                       kn, gpu_ops.count(GpuOpKind::Kernel), corr),
           src);
  }
  auto [ext, cn] = dominant(cpu_ops.external_id, [&](size_t i) { return cpu_ops.kind[i] == CpuOpKind::Op; });
  if (cn >= 10)
    warn(W::shared_external_id,
         fmt::format("{} CPU ops share External id {}: the ids are damaged, so kernel-to-op attribution is unreliable",
                     cn, ext),
         src);
}

void Timeline::validate(int64_t overlap_tolerance_ns) {
  const std::string src = meta.sources.empty() ? std::string() : meta.sources.back();
  // Names the string pool had to make safe (core/string_pool.h): said once per read, not per name.
  if (strings.invalid_utf8_replaced() > names_fixed_reported_) {
    warn(W::names_not_utf8,
         fmt::format("{} name(s) held bytes that are not UTF-8; each such byte is shown as U+FFFD",
                     strings.invalid_utf8_replaced() - names_fixed_reported_),
         src);
    names_fixed_reported_ = strings.invalid_utf8_replaced();
  }
  if (strings.truncated() > names_cut_reported_) {
    warn(W::names_cut,
         fmt::format("{} name(s) longer than {} bytes were cut to that length",
                     strings.truncated() - names_cut_reported_, limits::kMaxNameBytes),
         src);
    names_cut_reported_ = strings.truncated();
  }
  // Times further than 2^62 ns from the clock's origin (a Kineto ts of 9e15 us is 9e18 ns): the
  // event's end, or the span from it to a real event, would overflow int64 and come out negative.
  // Clamped into range with duration 0 (an end past the range is cut to it), said once per read.
  int64_t out_of_range = 0;
  auto clamp_range = [&](auto& table) {
    // One ns inside the limit: the span from -L to +L is then 2^63 - 2 ns, which int64 holds.
    constexpr int64_t L = limits::kMaxAbsTimestampNs - 1;
    for (size_t i = 0; i < table.size(); ++i) {
      int64_t& s = table.start_ns[i];
      int64_t& d = table.dur_ns[i];
      if (s < -L || s > L) {
        s = std::clamp(s, -L, L);
        d = 0;
        ++out_of_range;
      } else if (d > L - s || d < -L - s) {  // s is in range, so neither bound overflows
        d = d > 0 ? L - s : 0;
        ++out_of_range;
      }
    }
  };
  clamp_range(gpu_ops);
  clamp_range(runtime);
  clamp_range(cpu_ops);
  clamp_range(annotations);
  clamp_range(collectives);
  if (out_of_range > 0)
    warn(W::timestamp_out_of_range,
         fmt::format("{} event(s) lie further than 2^62 ns (146 years) from the clock's origin (a damaged or edited "
                     "trace); each was clamped into that range with duration 0",
                     out_of_range),
         src);
  // End before start: a damaged or hand-edited row. Counted as 0 ns, so no category time or share
  // goes negative. One warning per kind, kernels first.
  std::array<int64_t, 3> negative{};
  for (size_t i = 0; i < gpu_ops.size(); ++i)
    if (gpu_ops.dur_ns[i] < 0) {
      gpu_ops.dur_ns[i] = 0;
      ++negative[static_cast<size_t>(gpu_ops.kind[i])];
    }
  static constexpr const char* kWhat[] = {"kernels", "memcpys", "memsets"};
  for (size_t k = 0; k < negative.size(); ++k)
    if (negative[k] > 0)
      warn(W::negative_duration,
           fmt::format("{} {} end before they start (negative duration: a damaged or edited trace); each is counted "
                       "as 0 ns",
                       negative[k], kWhat[k]),
           src);
  check_shared_ids(src);
  // Kernel rows per track, already in start order (finish()), looked at for overlaps. The
  // tracks are in (device, stream) order, as the warnings have always been.
  std::vector<std::vector<size_t>> by_track(tracks.size());
  int64_t zero = 0;
  for (size_t i = 0; i < gpu_ops.size(); ++i) {
    if (gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    if (gpu_ops.dur_ns[i] == 0) ++zero;
    by_track[static_cast<size_t>(gpu_ops.track[i])].push_back(i);
  }
  if (zero > 0) {
    warn(W::zero_duration_kernels,
         fmt::format("{} kernels have zero duration (the profiler could not time them)", zero), src);
  }
  for (size_t t = 0; t < by_track.size(); ++t) {
    const auto& rows = by_track[t];
    int64_t overlaps = 0, worst = 0;
    int64_t prev_end = std::numeric_limits<int64_t>::min();
    for (size_t r : rows) {
      int64_t s = gpu_ops.start_ns[r];
      // Kernels of one stream run one after another: an overlap past the tolerance, or one that
      // covers more than half of the kernel itself (kernels stacked at one timestamp), is wrong.
      const int64_t ov = prev_end == std::numeric_limits<int64_t>::min() ? 0 : prev_end - s;
      if (ov > overlap_tolerance_ns || (ov > 0 && 2 * ov > gpu_ops.dur_ns[r])) {
        ++overlaps;
        worst = std::max(worst, ov);
      }
      prev_end = std::max(prev_end, gpu_ops.end_ns(r));
    }
    if (overlaps > 0) {
      warn(W::stream_overlap,
           fmt::format("{} kernels overlap an earlier kernel on device {} stream {} (worst by {} ns), which one "
                       "stream cannot do; busy time uses interval unions, so it is not double counted, but times "
                       "summed per kernel or category count the overlap again",
                       overlaps, tracks.device[t], tracks.stream[t], worst),
           src);
    }
  }
}

namespace {
// Tables this large sort on the process's worker threads (core/phases.h, the CLI's --threads);
// smaller ones are not worth a thread's start.
constexpr size_t kParallelSortRows = 1u << 14;

// Runs fn(i) for every i in [0, n) on up to `threads` threads (this one included).
template <class F>
void parallel_for(size_t n, int threads, F&& fn) {
  const size_t t = std::min<size_t>(n, static_cast<size_t>(std::max(threads, 1)));
  if (t <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> ts;
  for (size_t i = 1; i < t; ++i) ts.emplace_back(loop);
  loop();
  for (auto& x : ts) x.join();
}

// std::stable_sort's result (a stable order is unique), computed as `threads` sorted runs merged
// pairwise: std::merge keeps equal elements of the left run first. Below four threads the tables
// sorting side by side already fill the cores, and the merge passes would only add work.
template <class Less>
void stable_sort_on(std::vector<uint32_t>& perm, const Less& less, int threads) {
  const size_t n = perm.size();
  if (threads < 4 || n < kParallelSortRows) {
    std::stable_sort(perm.begin(), perm.end(), less);
    return;
  }
  const size_t parts = static_cast<size_t>(threads);
  std::vector<size_t> b(parts + 1);
  for (size_t i = 0; i <= parts; ++i) b[i] = n * i / parts;
  parallel_for(parts, threads, [&](size_t i) { std::stable_sort(perm.begin() + b[i], perm.begin() + b[i + 1], less); });
  std::vector<uint32_t> tmp(n);
  for (size_t width = 1; width < parts; width *= 2) {
    const size_t pairs = (parts + 2 * width - 1) / (2 * width);
    parallel_for(pairs, threads, [&](size_t j) {
      const size_t lo = b[std::min(2 * j * width, parts)], mid = b[std::min((2 * j + 1) * width, parts)],
                   hi = b[std::min((2 * j + 2) * width, parts)];
      std::merge(perm.begin() + lo, perm.begin() + mid, perm.begin() + mid, perm.begin() + hi, tmp.begin() + lo, less);
    });
    perm.swap(tmp);
  }
}

// Reorders every column of `table` so that row i becomes old row perm[i], one column at a time:
// a column's copy is the only extra memory (permuting a table's columns side by side would hold a
// second copy of the whole table at once).
template <class Table>
void permute_rows(Table& table, const std::vector<uint32_t>& perm) {
  table.for_each_column([&](const char*, auto& col, ColumnKind) {
    std::decay_t<decltype(col)> out(col.size());
    for (size_t i = 0; i < perm.size(); ++i) out[i] = col[perm[i]];
    col.swap(out);
  });
}
// The stable order of `n` rows by `less`, or empty when they are in that order already.
template <class Less>
std::vector<uint32_t> sort_order(size_t n, Less&& less) {
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i) sorted = !less(static_cast<uint32_t>(i), static_cast<uint32_t>(i - 1));
  if (sorted) return {};
  std::vector<uint32_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = static_cast<uint32_t>(i);
  stable_sort_on(perm, less, worker_threads());
  return perm;
}
template <class Table>
void sort_timed(Table& t) {
  auto perm = sort_order(t.size(), [&](uint32_t a, uint32_t b) { return t.start_ns[a] < t.start_ns[b]; });
  if (!perm.empty()) permute_rows(t, perm);
}
}  // namespace

void Timeline::sort_by_start() {
  // The tables are independent: each sorts as one task (CPU ops with the python frames that
  // point at them), the tasks side by side when the process has worker threads.
  std::vector<std::function<void()>> tables;
  tables.emplace_back([this] {
    auto g = sort_order(gpu_ops.size(), [&](uint32_t a, uint32_t b) {
      if (gpu_ops.start_ns[a] != gpu_ops.start_ns[b]) return gpu_ops.start_ns[a] < gpu_ops.start_ns[b];
      return gpu_ops.kind[a] < gpu_ops.kind[b];
    });
    if (!g.empty()) permute_rows(gpu_ops, g);
  });
  // CPU ops are pointed at by python_frames.cpu_op: remap those rows, keeping frames in the
  // order of the ops they describe.
  tables.emplace_back([this] {
    auto c =
        sort_order(cpu_ops.size(), [&](uint32_t a, uint32_t b) { return cpu_ops.start_ns[a] < cpu_ops.start_ns[b]; });
    if (c.empty()) return;
    permute_rows(cpu_ops, c);
    std::vector<int64_t> new_row(c.size());
    for (size_t i = 0; i < c.size(); ++i) new_row[c[i]] = static_cast<int64_t>(i);
    for (auto& r : python_frames.cpu_op)
      if (r >= 0 && static_cast<size_t>(r) < new_row.size()) r = new_row[static_cast<size_t>(r)];
    auto f = sort_order(python_frames.size(),
                        [&](uint32_t a, uint32_t b) { return python_frames.cpu_op[a] < python_frames.cpu_op[b]; });
    if (!f.empty()) permute_rows(python_frames, f);
  });
  tables.emplace_back([this] { sort_timed(runtime); });
  tables.emplace_back([this] { sort_timed(annotations); });
  tables.emplace_back([this] { sort_timed(collectives); });
  tables.emplace_back([this] {
    auto s = sort_order(samples.size(), [&](uint32_t a, uint32_t b) { return samples.ts_ns[a] < samples.ts_ns[b]; });
    if (!s.empty()) permute_rows(samples, s);
  });
  tables.emplace_back([this] {
    auto me = sort_order(memory_events.size(),
                         [&](uint32_t a, uint32_t b) { return memory_events.ts_ns[a] < memory_events.ts_ns[b]; });
    if (!me.empty()) permute_rows(memory_events, me);
  });
  // flows (s/f halves keyed by id), counters and rules (keyed by the source's dispatch number)
  // are not timed rows and keep their read order.
  const size_t rows = gpu_ops.size() + cpu_ops.size() + runtime.size();
  parallel_for(tables.size(), rows >= kParallelSortRows ? worker_threads() : 1, [&](size_t i) { tables[i](); });
}

void Timeline::derive_tracks() {
  std::map<std::pair<int32_t, int64_t>, int32_t> ids;
  for (size_t i = 0; i < gpu_ops.size(); ++i)
    if (i == 0 || gpu_ops.device[i] != gpu_ops.device[i - 1] || gpu_ops.stream[i] != gpu_ops.stream[i - 1])
      ids.emplace(std::pair{gpu_ops.device[i], gpu_ops.stream[i]}, 0);
  tracks = TrackTable{};
  tracks.reserve(ids.size());
  for (auto& [key, id] : ids) {
    id = static_cast<int32_t>(tracks.size());
    tracks.push(TrackRow{key.first, key.second, meta.distributed.rank});
  }
  // Consecutive ops mostly share a stream: the last lookup answers them without the map.
  std::pair<int32_t, int64_t> last{};
  int32_t last_id = -1;
  for (size_t i = 0; i < gpu_ops.size(); ++i) {
    const std::pair<int32_t, int64_t> key{gpu_ops.device[i], gpu_ops.stream[i]};
    if (last_id < 0 || key != last) last = key, last_id = ids[key];
    gpu_ops.track[i] = last_id;
  }
}

void Timeline::finish(int64_t overlap_tolerance_ns) {
  {
    PhaseTimer pt("finish: sort tables by start");
    sort_by_start();
  }
  {
    PhaseTimer pt("finish: derive tracks");
    derive_tracks();
  }
  PhaseTimer pt("finish: validate");
  validate(overlap_tolerance_ns);
  // Telemetry beside a trace on another clock is converted only explicitly: say so once.
  if (samples.size() > 0 && gpu_ops.size() + runtime.size() + cpu_ops.size() > 0)
    if (auto off = samples_to_trace_offset(); off && *off != 0)
      warn(W::clocks_converted,
           std::string("telemetry on the ") + clock_domain_name(meta.sample_clock) + " clock placed on the trace's " +
               clock_domain_name(meta.trace_clock) + fmt::format(" clock ({} ns added)", *off),
           meta.sources.empty() ? std::string() : meta.sources.back());
}

std::string Timeline::unsorted_table() const {
  auto check = [](const auto& col) { return std::is_sorted(col.begin(), col.end()); };
  for (size_t i = 1; i < gpu_ops.size(); ++i)
    if (gpu_ops.start_ns[i] < gpu_ops.start_ns[i - 1] ||
        (gpu_ops.start_ns[i] == gpu_ops.start_ns[i - 1] && gpu_ops.kind[i] < gpu_ops.kind[i - 1]))
      return "gpu_ops";
  if (!check(cpu_ops.start_ns)) return "cpu_ops";
  if (!check(runtime.start_ns)) return "runtime";
  if (!check(annotations.start_ns)) return "annotations";
  if (!check(collectives.start_ns)) return "collectives";
  if (!check(samples.ts_ns)) return "samples";
  if (!check(memory_events.ts_ns)) return "memory_events";
  return {};
}

std::optional<int64_t> Timeline::samples_to_trace_offset() const {
  const ClockDomain t = meta.trace_clock, s = meta.sample_clock;
  if (s == ClockDomain::Unknown || t == ClockDomain::Unknown) return std::nullopt;
  if (s == t && s != ClockDomain::SampleIndex) return 0;
  // Epoch telemetry beside a trace whose epoch base is known: converted, not assumed.
  if (s == ClockDomain::Epoch && meta.clock_is_epoch && meta.clock_base_ns > 0) return -meta.clock_base_ns;
  return std::nullopt;
}

}  // namespace goblin
