// goblin ranks: one rank's Timeline → RankProfile (steps, per-step figures, collectives with their
// pre-arrival windows). Definitions: ranks.h and docs/metrics.md § ranks.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "analysis/diff.h"
#include "analysis/gpu_op_names.h"
#include "analysis/intervals.h"
#include "analysis/kernel_table.h"
#include "analysis/opportunities.h"
#include "analysis/ranks.h"
#include "analysis/steps.h"
#include "core/text.h"
#include "hw/knowledge.h"
#include "hw/vendor.h"

namespace goblin::analysis {

namespace {

int64_t measure(const IntervalSet& s, Interval w) { return total_length(clip(s, w)); }

// Per distinct name (StrId) a cached value (references stay valid: node-based map).
template <class T, class F>
const T& cached(std::unordered_map<StrId, T>& cache, StrId id, F&& make) {
  auto it = cache.find(id);
  if (it == cache.end()) it = cache.emplace(id, make()).first;
  return it->second;
}

}  // namespace

GpuOpNames gpu_op_names(const Timeline& tl, const Taxonomy& tax) {
  GpuOpNames n;
  n.slot.assign(tl.strings.size(), GpuOpNames::kNoSlot);
  std::unordered_map<std::string, uint32_t> cat_index;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    const StrId id = tl.gpu_ops.name[i];
    if (n.slot[id] != GpuOpNames::kNoSlot) continue;
    const std::string_view name = tl.str(id);
    std::string cat = tax.classify(name).category;
    auto [it, added] = cat_index.try_emplace(cat, static_cast<uint32_t>(n.categories.size()));
    if (added) n.categories.push_back(std::move(cat));
    n.slot[id] = static_cast<uint32_t>(n.names.size());
    n.names.push_back({it->second, canonical_kernel_name(name)});
  }
  return n;
}

RankProfile rank_profile(const Timeline& tl, const Taxonomy& tax, const CollectiveKnowledge& ck) {
  return rank_profile(tl, tax, ck, gpu_op_names(tl, tax), *hw::hw_knowledge());
}

RankProfile rank_profile(const Timeline& tl, const Taxonomy& tax, const CollectiveKnowledge& ck,
                         const GpuOpNames& names, const hw::HwKnowledge& hw) {
  RankProfile p;
  p.rank = tl.meta.distributed.rank;
  p.world_size = tl.meta.distributed.world_size;
  p.backend = tl.meta.distributed.backend;
  for (const auto& d : tl.meta.devices)
    if (!d.name.empty()) {
      p.gpu = d.name;
      break;
    }
  p.vendor = hw::vendor_name(hw::vendor_of_timeline(hw, tl).vendor);
  // Epoch base of the timestamps (the same-job check compares ranks on the wall clock).
  // Timestamps already past 2001 are epoch ns themselves (base 0); a boot clock stays below that.
  p.epoch_base_ns = tl.meta.clock_is_epoch && tl.meta.clock_base_ns > 0 ? tl.meta.clock_base_ns : 0;

  // ---- kernel classes and the interval sets ----
  // Categories by index (names.categories), with memcpy and memset rows' own names added: the
  // per-row passes below compare and sum small integers, not strings.
  std::vector<std::string> cats = names.categories;
  auto cat_index = [&](const char* c) {
    for (size_t i = 0; i < cats.size(); ++i)
      if (cats[i] == c) return static_cast<uint32_t>(i);
    cats.emplace_back(c);
    return static_cast<uint32_t>(cats.size() - 1);
  };
  const uint32_t kComm = cat_index("communication"), kMemcpy = cat_index("memcpy"), kMemset = cat_index("memset");
  auto cat_of_row = [&](size_t i) -> uint32_t {
    const GpuOpKind k = tl.gpu_ops.kind[i];
    return k == GpuOpKind::Kernel ? names.of(tl.gpu_ops.name[i]).cat : k == GpuOpKind::Memcpy ? kMemcpy : kMemset;
  };
  std::vector<Interval> v_all, v_compute, v_comm;
  v_all.reserve(tl.gpu_op_count());
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    const Interval iv{tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i)};
    v_all.push_back(iv);
    const uint32_t c = names.of(tl.gpu_ops.name[i]).cat;
    if (c == kComm)
      v_comm.push_back(iv);
    else if (c != kMemcpy)
      v_compute.push_back(iv);
  }
  for (const GpuOpNames::Name& n : names.names) p.kernel_names.push_back(kernel_base_name(n.canonical));
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
    if (tl.gpu_ops.kind[i] == GpuOpKind::Memcpy) v_all.push_back({tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i)});
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Memset) continue;
    v_all.push_back({tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i)});
    v_compute.push_back({tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i)});
  }
  std::sort(p.kernel_names.begin(), p.kernel_names.end());
  p.kernel_names.erase(std::unique(p.kernel_names.begin(), p.kernel_names.end()), p.kernel_names.end());
  const IntervalSet all = union_of(std::move(v_all)), compute = union_of(std::move(v_compute)),
                    comm = union_of(std::move(v_comm));
  const IntervalSet comm_exposed = subtract(comm, compute);
  IntervalSet loader;
  {
    std::unordered_map<StrId, bool> is_loader;
    auto loads = [&](StrId id) { return cached(is_loader, id, [&] { return tax.is_dataloader_span(tl.str(id)); }); };
    std::vector<Interval> v;
    for (size_t i = 0; i < tl.annotations.size(); ++i)
      if (!tl.annotations.on_gpu[i] && loads(tl.annotations.name[i]))
        v.push_back({tl.annotations.start_ns[i], tl.annotations.end_ns(i)});
    for (size_t i = 0; i < tl.cpu_ops.size(); ++i)
      if (loads(tl.cpu_ops.name[i])) v.push_back({tl.cpu_ops.start_ns[i], tl.cpu_ops.end_ns(i)});
    loader = union_of(std::move(v));
  }
  auto data_wait_in = [&](Interval w) { return total_length(intersect(gaps(all, w), clip(loader, w))); };

  // ---- steps ----
  StepDetection sd = find_steps(tl);
  p.step_method = sd.method;
  for (const auto& n : sd.notes) p.notes.push_back(n);
  std::map<std::string, int> seen;
  for (const Step& s : sd.steps) {
    RankStep r;
    r.name = s.name;
    const int k = seen[s.name]++;
    r.key = k == 0 ? s.name : s.name + "@" + fmt::to_string(k + 1);
    r.start_ns = s.start_ns;
    r.end_ns = s.end_ns;
    r.partial = s.partial;
    const Interval w{s.start_ns, s.end_ns};
    r.busy_ns = measure(all, w);
    r.compute_ns = measure(compute, w);
    r.comm_ns = measure(comm, w);
    r.exposed_comm_ns = measure(comm_exposed, w);
    r.data_wait_ns = data_wait_in(w);
    p.steps.push_back(std::move(r));
  }
  std::vector<Interval> windows;
  for (const auto& s : p.steps) windows.push_back({s.start_ns, s.end_ns});
  auto step_of = [&](int64_t t) -> int32_t {
    auto it =
        std::upper_bound(windows.begin(), windows.end(), t, [](int64_t x, const Interval& w) { return x < w.end; });
    if (it == windows.end() || it->start > t) return -1;
    return static_cast<int32_t>(it - windows.begin());
  };
  // Kernel time by category per step (clipped), summed by category index; a step lists the
  // categories it spent time in.
  if (!windows.empty()) {
    const size_t nc = cats.size();
    std::vector<int64_t> acc(windows.size() * nc, 0);
    for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
      const int64_t s = tl.gpu_ops.start_ns[i], e = tl.gpu_ops.end_ns(i);
      const uint32_t c = cat_of_row(i);
      auto it =
          std::upper_bound(windows.begin(), windows.end(), s, [](int64_t x, const Interval& w) { return x < w.end; });
      for (; it != windows.end() && it->start < e; ++it) {
        const int64_t d = std::min(e, it->end) - std::max(s, it->start);
        if (d > 0) acc[static_cast<size_t>(it - windows.begin()) * nc + c] += d;
      }
    }
    for (size_t w = 0; w < windows.size(); ++w)
      for (size_t c = 0; c < nc; ++c)
        if (acc[w * nc + c] > 0) p.steps[w].category_ns[cats[c]] = acc[w * nc + c];
  }

  // ---- collectives ----
  // Metadata rows: kernels' own (by correlation, else start) and CPU ops' (by External id).
  const CollectiveTable& ct = tl.collectives;
  std::unordered_map<int64_t, size_t> gpu_by_corr, gpu_by_start, cpu_by_ext;
  for (size_t i = 0; i < ct.size(); ++i) {
    if (ct.on_gpu[i]) {
      if (ct.correlation[i] != kNone)
        gpu_by_corr.emplace(ct.correlation[i], i);
      else
        gpu_by_start.emplace(ct.start_ns[i], i);
    } else if (ct.external_id[i] != kNone) {
      cpu_by_ext.emplace(ct.external_id[i], i);
    }
  }
  auto bytes_of = [&](size_t i) -> int64_t {
    const int64_t n = std::max(ct.in_nelems[i], ct.out_nelems[i]);
    if (n < 0 || ct.dtype[i] == kNoStr) return kNone;
    auto it = ck.dtype_bytes.find(ascii_lower(tl.str(ct.dtype[i])));
    return it == ck.dtype_bytes.end() ? kNone : n * it->second;
  };
  // The launching runtime row of each communication kernel's correlation id, first row of an id
  // as Timeline::runtime_by_correlation gives it, made only when a kernel needs one: that index
  // over every runtime row (135,000 on the 284.5 MB bench rank) was ~2 % of goblin summarize.
  std::optional<std::unordered_map<int64_t, size_t>> comm_launch;
  auto launch_of = [&](int64_t corr) -> std::optional<size_t> {
    if (!comm_launch) {
      comm_launch.emplace();
      for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
        if (tl.gpu_ops.kind[i] == GpuOpKind::Kernel && tl.gpu_ops.correlation[i] != kNone &&
            names.of(tl.gpu_ops.name[i]).cat == kComm)
          comm_launch->emplace(tl.gpu_ops.correlation[i], SIZE_MAX);
      for (size_t r = 0; r < tl.runtime.size(); ++r)
        if (auto it = comm_launch->find(tl.runtime.correlation[r]); it != comm_launch->end() && it->second == SIZE_MAX)
          it->second = r;
    }
    auto it = comm_launch->find(corr);
    if (it == comm_launch->end() || it->second == SIZE_MAX) return std::nullopt;
    return it->second;
  };
  std::vector<std::string> unknown_dtypes;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    if (names.of(tl.gpu_ops.name[i]).cat != kComm) continue;
    RankCollective c;
    c.start_ns = tl.gpu_ops.start_ns[i];
    c.end_ns = tl.gpu_ops.end_ns(i);
    std::optional<size_t> meta;
    const int64_t corr = tl.gpu_ops.correlation[i];
    if (corr != kNone) {
      if (auto it = gpu_by_corr.find(corr); it != gpu_by_corr.end()) meta = it->second;
    } else if (auto it = gpu_by_start.find(c.start_ns); it != gpu_by_start.end()) {
      meta = it->second;
    }
    if (!meta && !cpu_by_ext.empty()) {
      int64_t ext = tl.gpu_ops.external_id[i];
      if (corr != kNone)
        if (auto rt = launch_of(corr)) ext = tl.runtime.external_id[*rt];
      if (auto it = cpu_by_ext.find(ext); ext != kNone && it != cpu_by_ext.end()) meta = it->second;
    }
    if (meta) {
      const size_t m = *meta;
      p.collective_metadata = true;
      c.name = std::string(tl.str(ct.collective[m]));
      c.group = ct.group_name[m] != kNoStr ? std::string(tl.str(ct.group_name[m]))
                                           : (ct.group_desc[m] != kNoStr ? std::string(tl.str(ct.group_desc[m])) : "");
      c.seq = ct.seq[m];
      c.group_size = ct.group_size[m];
      c.bytes = bytes_of(m);
      if (c.bytes == kNone && ct.dtype[m] != kNoStr) unknown_dtypes.emplace_back(tl.str(ct.dtype[m]));
    } else {
      c.name = names.of(tl.gpu_ops.name[i]).canonical;
    }
    const CollectiveKnowledge::Type* t = ck.type_of(c.name);
    if (!t && meta) t = ck.type_of(tl.str(tl.gpu_ops.name[i]));
    c.type = t ? t->type : "other";
    c.synchronizes = t && t->synchronizes;
    if (c.group_size == kNone) c.group_size = p.world_size;
    c.step = step_of(c.start_ns);
    p.collectives.push_back(std::move(c));
  }
  std::sort(p.collectives.begin(), p.collectives.end(),
            [](const RankCollective& a, const RankCollective& b) { return a.start_ns < b.start_ns; });
  if (!unknown_dtypes.empty()) {
    std::sort(unknown_dtypes.begin(), unknown_dtypes.end());
    unknown_dtypes.erase(std::unique(unknown_dtypes.begin(), unknown_dtypes.end()), unknown_dtypes.end());
    std::string l;
    for (const auto& d : unknown_dtypes) l += (l.empty() ? "" : ", ") + d;
    p.notes.push_back("collective dtype(s) not in data/collectives.yaml dtype_bytes, sizes unknown: " + l);
  }
  // Pre-arrival windows: from the previous synchronising collective's end (else the previous
  // collective's, else the rank's first GPU work).
  const int64_t first = all.empty() ? 0 : all.front().start;
  int64_t prev_sync = INT64_MIN, prev_any = INT64_MIN;
  for (RankCollective& c : p.collectives) {
    const int64_t from = prev_sync != INT64_MIN ? prev_sync : (prev_any != INT64_MIN ? prev_any : first);
    const Interval w{std::min(from, c.start_ns), c.start_ns};
    const int64_t busy = measure(all, w);
    c.pre.compute_ns = measure(compute, w);
    c.pre.other_gpu_ns = busy - c.pre.compute_ns;
    c.pre.data_wait_ns = data_wait_in(w);
    c.pre.host_gap_ns = w.length() - busy - c.pre.data_wait_ns;
    prev_any = std::max(prev_any, c.end_ns);
    if (c.synchronizes) prev_sync = std::max(prev_sync, c.end_ns);
  }
  return p;
}

}  // namespace goblin::analysis
