// Formulas: see breakdown.h (and docs/metrics.md).
#include "analysis/breakdown.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/exposure.h"
#include "hw/fp32_gemm_peak.h"

namespace goblin::analysis {

namespace {

constexpr int64_t kShortKernelNs = 10'000;  // 10 µs

int64_t len_in(const IntervalSet& s, Interval w) { return total_length(clip(s, w)); }

double pct_of(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  size_t k = static_cast<size_t>(std::floor(q * static_cast<double>(v.size() - 1)));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

IntervalSet dataloader_spans(const Timeline& tl, const Taxonomy& tax) {
  std::vector<Interval> v;
  std::unordered_map<StrId, bool> is_loader;  // one taxonomy lookup per distinct name
  auto loader = [&](StrId n) {
    auto it = is_loader.find(n);
    if (it == is_loader.end()) it = is_loader.emplace(n, tax.is_dataloader_span(tl.str(n))).first;
    return it->second;
  };
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (!tl.annotations.on_gpu[i] && loader(tl.annotations.name[i]))
      v.push_back({tl.annotations.start_ns[i], tl.annotations.end_ns(i)});
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i)
    if (loader(tl.cpu_ops.name[i])) v.push_back({tl.cpu_ops.start_ns[i], tl.cpu_ops.end_ns(i)});
  return union_of(std::move(v));
}

namespace {
void set_tensor_core_speedup(PreparedTrace& p, const Timeline& tl, const Taxonomy& tax) {
  // s in precision_path: the trace's GPU's best 16-bit tensor path over the peak its plain fp32
  // GEMMs run at (dense bf16 / fp32, or / fp32_matrix on AMD CDNA, from data/gpus.yaml: 14.8 on an
  // H100 SXM, 8.0 on an MI300X, 16.0 on an MI355X), the recovery a bf16
  // autocast patch is bounded by; taxonomy.yaml's datasheet TF32 ratio when the GPU is unknown.
  p.tensor_core_speedup = tax.tensor_core_speedup();
  p.tensor_core_speedup_basis = "taxonomy.yaml simt_fp32_gemm.tensor_core_speedup (GPU not in the spec database)";
  p.gpu = hw::gpu_for_timeline(tl);
  if (const auto& g = p.gpu; g.ok()) {
    std::string key = "bf16";
    auto tensor = g->peak_tflops(key);
    if (!tensor) tensor = g->peak_tflops(key = "fp16");
    std::string simt_key;
    const auto simt = hw::fp32_gemm_peak_tflops(*g, &simt_key);
    if (tensor && simt && *simt > 0 && *tensor > *simt) {
      p.tensor_core_speedup = *tensor / *simt;
      p.tensor_core_speedup_basis = fmt::format("{} dense {} {:.1f} / {} {:.1f} TFLOPS = {:.2f} (data/gpus.yaml)",
                                                g->id, key, *tensor, simt_key, *simt, p.tensor_core_speedup);
    }
  }
}

// The host side: DataLoader and optimizer spans, and whether the trace has a CPU side at all.
void fill_host_spans(PreparedTrace& p, const Timeline& tl, const Taxonomy& tax) {
  p.loader = dataloader_spans(tl, tax);
  std::vector<Interval> v_opt;
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (!tl.annotations.on_gpu[i] && tax.is_optimizer_op(tl.str(tl.annotations.name[i])))
      v_opt.push_back({tl.annotations.start_ns[i], tl.annotations.end_ns(i)});
  p.optimizer_spans = union_of(std::move(v_opt));
  size_t cpu_annotations = 0;
  for (size_t i = 0; i < tl.annotations.size(); ++i) cpu_annotations += !tl.annotations.on_gpu[i];
  p.has_cpu_side = tl.cpu_ops.size() > 0 || cpu_annotations > 0;
}

void index_op_starts(PreparedTrace& p, const Timeline& tl) {
  // Gap attribution: GPU op starts (with correlation); runtime by correlation. The ops are in
  // start order already (Timeline::finish); ops starting together are put in correlation order,
  // the order the lookup below relies on.
  const GpuOpTable& ops = tl.gpu_ops;
  p.op_starts.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) p.op_starts.emplace_back(ops.start_ns[i], ops.correlation[i]);
  for (size_t a = 0; a < p.op_starts.size();) {
    size_t b = a + 1;
    while (b < p.op_starts.size() && p.op_starts[b].first == p.op_starts[a].first) ++b;
    if (b - a > 1)
      std::sort(p.op_starts.begin() + static_cast<std::ptrdiff_t>(a),
                p.op_starts.begin() + static_cast<std::ptrdiff_t>(b));
    a = b;
  }
  p.runtime_by_corr.reserve(tl.runtime.size());
  for (size_t r = 0; r < tl.runtime.size(); ++r)
    if (tl.runtime.correlation[r] != kNone) p.runtime_by_corr.emplace(tl.runtime.correlation[r], r);
  p.has_correlated_runtime = !p.runtime_by_corr.empty();
}
}  // namespace

PreparedTrace prepare_trace(const Timeline& tl, const Taxonomy& tax) {
  PreparedTrace p;
  p.tl = &tl;
  set_tensor_core_speedup(p, tl, tax);

  std::unordered_map<int, int> sms_by_device;
  for (const DeviceInfo& d : tl.meta.devices)
    if (d.num_sms > 0) sms_by_device[d.id] = d.num_sms;
  const double tiny = tax.tiny_grid_fraction_of_sms();

  std::unordered_map<uint64_t, uint16_t> cache;
  struct NameFacts {
    bool simt, shape;
  };
  std::unordered_map<StrId, NameFacts> facts;
  std::vector<Interval> v_all, v_comm, v_memcpy, v_htod, v_compute, v_gemm, v_simt, v_shape, v_fp32mem, v_eager_sm;
  // Per class (index into p.classes): bit 0 fp32 memory-bound, bit 1 eager attention softmax.
  std::vector<uint8_t> class_waste_flags;
  // By track (Timeline::tracks); a row with no track (a timeline built by hand, not finished)
  // by its own (device, stream).
  std::map<std::pair<int32_t, int64_t>, std::vector<Interval>> v_stream;
  auto stream_key = [&](size_t i) {
    const int32_t t = tl.gpu_ops.track[i];
    return t >= 0 && static_cast<size_t>(t) < tl.tracks.size()
               ? std::pair<int32_t, int64_t>{tl.tracks.device[t], tl.tracks.stream[t]}
               : std::pair<int32_t, int64_t>{tl.gpu_ops.device[i], tl.gpu_ops.stream[i]};
  };
  std::map<std::string, std::vector<Interval>> v_cat;
  const GpuOpTable& k = tl.gpu_ops;
  p.kernel_class.resize(k.size());  // memcpy and memset rows keep class 0, never read
  int64_t tiny_grid = 0;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.kind[i] != GpuOpKind::Kernel) continue;
    StrId cpu = kNoStr;
    if (k.external_id[i] != kNone) {
      // The launching CPU op's name, for taxonomy rules on it (the Timeline's External-id index).
      if (auto op = tl.cpu_op_by_external_id(k.external_id[i])) cpu = tl.cpu_ops.name[*op];
    }
    uint64_t key = (static_cast<uint64_t>(k.name[i]) << 32) | cpu;
    auto it = cache.find(key);
    uint16_t ci;
    if (it == cache.end()) {
      p.classes.push_back(tax.classify(tl.str(k.name[i]), tl.str(cpu)));
      const std::string& cat = p.classes.back().category;
      class_waste_flags.push_back(
          static_cast<uint8_t>((tax.is_fp32_memory_bound(tl.str(k.name[i]), cat, tl.str(cpu)) ? 1 : 0) |
                               (tax.is_eager_attention_softmax(cat, tl.str(cpu)) ? 2 : 0) |
                               (cat == "optimizer" || tax.is_optimizer_op(tl.str(cpu)) ? 4 : 0) |
                               (cat == "gemm" && tax.is_eager_attention_gemm_op(tl.str(cpu)) ? 8 : 0)));
      ci = static_cast<uint16_t>(std::min<size_t>(p.classes.size() - 1, 65535));
      cache.emplace(key, ci);
    } else {
      ci = it->second;
    }
    p.kernel_class[i] = ci;
    const KernelClass& kc = p.classes[ci];
    Interval iv{k.start_ns[i], k.end_ns(i)};
    v_all.push_back(iv);
    v_stream[stream_key(i)].push_back(iv);
    v_cat[kc.category].push_back(iv);
    if (kc.category == "attention") p.has_fused_attention = true;
    if (class_waste_flags[ci] & 1) v_fp32mem.push_back(iv);
    if (class_waste_flags[ci] & 2) v_eager_sm.push_back(iv);
    if (kc.category == "communication") {
      v_comm.push_back(iv);
    } else if (kc.category == "memcpy") {
      v_memcpy.push_back(iv);
    } else {
      v_compute.push_back(iv);
    }
    if (kc.category == "gemm") {
      v_gemm.push_back(iv);
      auto f = facts.find(k.name[i]);
      if (f == facts.end())
        f = facts
                .emplace(k.name[i], NameFacts{tax.is_simt_fp32_gemm(tl.str(k.name[i])),
                                              tax.is_shape_suspect_gemm(tl.str(k.name[i]))})
                .first;
      if (f->second.simt) v_simt.push_back(iv);
      bool shape = f->second.shape;
      auto sm = sms_by_device.find(k.device[i]);
      uint64_t blocks = static_cast<uint64_t>(k.grid[i][0]) * k.grid[i][1] * k.grid[i][2];
      if (!shape && sm != sms_by_device.end() && blocks > 0 && tiny > 0 &&
          static_cast<double>(blocks) < tiny * sm->second) {
        shape = true;
        ++tiny_grid;
      }
      if (shape) v_shape.push_back(iv);
    }
  }
  if (!v_simt.empty())
    p.notes.push_back("precision_path: fp32 SIMT GEMM time x (1 - 1/s), s = " + p.tensor_core_speedup_basis);
  if (tiny_grid > 0)
    p.notes.push_back(
        fmt::format("{} GEMM launch(es) with fewer thread blocks than {:f} x SMs (kernel_shape)", tiny_grid, tiny));
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Memcpy) continue;
    Interval iv{tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i)};
    v_all.push_back(iv);
    v_memcpy.push_back(iv);
    if (tl.gpu_ops.copy_kind[i] == CopyKind::HtoD) v_htod.push_back(iv);
    v_stream[stream_key(i)].push_back(iv);
    v_cat["memcpy"].push_back(iv);
  }
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Memset) continue;
    Interval iv{tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i)};
    v_all.push_back(iv);
    v_compute.push_back(iv);
    v_stream[stream_key(i)].push_back(iv);
    v_cat["memset"].push_back(iv);
  }
  p.all = union_of(std::move(v_all));
  p.comm = union_of(std::move(v_comm));
  p.memcpy = union_of(std::move(v_memcpy));
  p.htod = union_of(std::move(v_htod));
  p.compute = union_of(std::move(v_compute));
  p.gemm = union_of(std::move(v_gemm));
  p.simt = union_of(std::move(v_simt));
  p.shape = union_of(std::move(v_shape));
  p.fp32_memory_bound = union_of(std::move(v_fp32mem));
  p.eager_softmax = union_of(std::move(v_eager_sm));
  p.class_flags = class_waste_flags;
  p.fp32_bytes_ratio = tax.fp32_bytes_ratio();
  p.fp32_min_simt_share = tax.fp32_min_simt_share();
  for (auto& [key, v] : v_stream) p.per_stream[key] = union_of(std::move(v));
  for (auto& [key, v] : v_cat) p.per_category[key] = union_of(std::move(v));

  fill_host_spans(p, tl, tax);
  index_op_starts(p, tl);
  return p;
}

WindowBreakdown analyse_window(const PreparedTrace& p, const std::string& name, Interval w, bool partial) {
  const Timeline& tl = *p.tl;
  WindowBreakdown b;
  b.name = name;
  b.window = w;
  b.partial = partial;
  b.wall_ns = w.length();
  IntervalSet all = clip(p.all, w);
  IntervalSet compute = clip(p.compute, w);
  IntervalSet comm = clip(p.comm, w);
  IntervalSet mem = clip(p.memcpy, w);
  b.busy_ns = total_length(all);
  b.idle_ns = b.wall_ns - b.busy_ns;
  b.compute_ns = total_length(compute);
  b.comm_ns = total_length(comm);
  b.memcpy_ns = total_length(mem);
  IntervalSet e_comm = subtract(comm, compute);
  IntervalSet e_mem = subtract(subtract(mem, compute), comm);
  b.exposed_comm_ns = total_length(e_comm);
  b.exposed_memcpy_ns = total_length(e_mem);
  b.gemm_union_ns = len_in(p.gemm, w);
  for (const auto& [key, set] : p.per_stream) {
    int64_t busy = len_in(set, w);
    if (busy == 0) continue;
    b.streams.push_back(
        StreamUse{key.first, key.second, busy,
                  b.wall_ns > 0 ? 100.0 * static_cast<double>(busy) / static_cast<double>(b.wall_ns) : 0});
  }

  // ---- idle attribution ----
  IntervalSet idle = gaps(p.all, w);
  std::vector<Interval> hb, ll, so, un;
  for (const Interval& g : idle) {
    ++b.idle.gaps;
    auto it = std::lower_bound(p.op_starts.begin(), p.op_starts.end(), std::pair<int64_t, int64_t>{g.end, INT64_MIN});
    std::vector<Interval>* dst = &un;
    if (it != p.op_starts.end() && it->second != kNone) {
      auto r = p.runtime_by_corr.find(it->second);
      if (r != p.runtime_by_corr.end()) {
        int64_t rs = tl.runtime.start_ns[r->second], re = tl.runtime.end_ns(r->second);
        if (rs >= g.start) {
          dst = &hb;
        } else if (re > g.start) {
          dst = &ll;
        } else {
          dst = &so;
        }
      }
    }
    dst->push_back(g);
  }
  b.idle.host_bound = union_of(std::move(hb));
  b.idle.launch_latency = union_of(std::move(ll));
  b.idle.sync_other = union_of(std::move(so));
  b.idle.unknown = union_of(std::move(un));
  b.idle.host_bound_ns = total_length(b.idle.host_bound);
  b.idle.launch_latency_ns = total_length(b.idle.launch_latency);
  b.idle.sync_other_ns = total_length(b.idle.sync_other);
  b.idle.unknown_ns = total_length(b.idle.unknown);

  // ---- launch statistics (kernels starting in the window) ----
  std::vector<double> delays;
  int64_t short_time = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    int64_t s = tl.gpu_ops.start_ns[i];
    if (s < w.start || s >= w.end) continue;
    ++b.launches.kernels;
    int64_t d = tl.gpu_ops.dur_ns[i];
    b.launches.kernel_time_ns += d;
    if (d < kShortKernelNs) {
      ++b.launches.short_kernels;
      short_time += d;
    }
    auto r = p.runtime_by_corr.find(tl.gpu_ops.correlation[i]);
    if (tl.gpu_ops.correlation[i] != kNone && r != p.runtime_by_corr.end()) {
      ++b.launches.correlated;
      delays.push_back(static_cast<double>(s - tl.runtime.end_ns(r->second)) / 1e3);
    }
  }
  if (b.launches.kernels > 0) {
    b.launches.short_count_pct =
        100.0 * static_cast<double>(b.launches.short_kernels) / static_cast<double>(b.launches.kernels);
    if (b.launches.kernel_time_ns > 0)
      b.launches.short_time_pct =
          100.0 * static_cast<double>(short_time) / static_cast<double>(b.launches.kernel_time_ns);
  }
  if (!delays.empty()) {
    double sum = 0, mx = delays[0];
    for (double x : delays) {
      sum += x;
      mx = std::max(mx, x);
    }
    b.launches.delay_mean_us = sum / static_cast<double>(delays.size());
    b.launches.delay_max_us = mx;
    b.launches.delay_p50_us = pct_of(delays, 0.5);
    b.launches.delay_p90_us = pct_of(delays, 0.9);
  }

  // ---- waste budget: a partition of W ----
  WasteBudget& wb = b.waste;
  IntervalSet e_mem_htod = intersect(e_mem, clip(p.htod, w));
  IntervalSet S = intersect(clip(p.simt, w), compute);
  // kernel_shape: GEMMs with fallback names or tiny grids, plus eager attention's softmax when no
  // fused attention kernel ran (SDPA would not run it at all).
  IntervalSet K = subtract(intersect(clip(p.shape, w), compute), S);
  if (!p.has_fused_attention) K = unite(K, subtract(subtract(intersect(clip(p.eager_softmax, w), compute), S), K));
  // fp32 memory-bound kernels count as precision_path only when this window's model runs in fp32:
  // most of its GEMM time is on the SIMT fp32 path.
  const int64_t n_gemm = total_length(intersect(clip(p.gemm, w), compute));
  const bool fp32_model =
      n_gemm > 0 && static_cast<double>(total_length(S)) >= p.fp32_min_simt_share * static_cast<double>(n_gemm);
  IntervalSet M =
      fp32_model ? subtract(subtract(intersect(clip(p.fp32_memory_bound, w), compute), S), K) : IntervalSet{};
  IntervalSet R = subtract(subtract(subtract(compute, S), K), M);
  IntervalSet DW = intersect(idle, clip(p.loader, w));
  IntervalSet host = subtract(unite(b.idle.host_bound, b.idle.launch_latency), DW);
  const double s = p.tensor_core_speedup, bytes_ratio = p.fp32_bytes_ratio;
  auto sec = [](int64_t ns) { return static_cast<double>(ns) / 1e9; };
  int64_t n_S = total_length(S), n_idle = total_length(idle), n_dw = total_length(DW), n_host = total_length(host);
  int64_t n_emem_htod = total_length(e_mem_htod);
  wb.comm_excess = sec(b.exposed_comm_ns);
  const int64_t n_M = total_length(M);
  wb.precision_path = sec(n_S) * (1.0 - 1.0 / s) + sec(n_M) * (1.0 - 1.0 / bytes_ratio);
  wb.kernel_shape = sec(total_length(K));
  wb.useful_gpu = sec(total_length(R)) + sec(n_S) / s + sec(n_M) / bytes_ratio + sec(b.exposed_memcpy_ns - n_emem_htod);
  wb.data_wait = sec(n_dw + n_emem_htod);
  wb.host_gap = sec(n_host);
  wb.unattributed = sec(n_idle - n_dw - n_host);
  wb.memory_headroom = 0;
  wb.step_time_s = sec(b.wall_ns);
  wb.unobserved.push_back("memory_headroom");
  if (!p.has_cpu_side) {
    wb.unobserved.push_back("data_wait");
  }
  if (!p.has_correlated_runtime) {
    wb.unobserved.push_back("host_gap");
  }
  return b;
}

Json window_breakdown_to_json(const WindowBreakdown& b) {
  auto s = [](int64_t ns) { return round_to(static_cast<double>(ns) / 1e9, 9); };
  auto pct = [&](int64_t x) { return b.wall_ns > 0 ? round_to(100.0 * x / static_cast<double>(b.wall_ns), 3) : 0.0; };
  Json j;
  j["name"] = b.name;
  j["partial"] = b.partial;
  j["start_ns"] = b.window.start;
  j["end_ns"] = b.window.end;
  j["wall_s"] = s(b.wall_ns);
  j["busy_s"] = s(b.busy_ns);
  j["idle_s"] = s(b.idle_ns);
  j["busy_pct"] = pct(b.busy_ns);
  j["compute_s"] = s(b.compute_ns);
  j["communication_s"] = s(b.comm_ns);
  j["memcpy_s"] = s(b.memcpy_ns);
  j["exposed_communication_s"] = s(b.exposed_comm_ns);
  j["exposed_memcpy_s"] = s(b.exposed_memcpy_ns);
  j["gemm_union_s"] = s(b.gemm_union_ns);
  j["gemm_pct_of_busy"] = b.busy_ns > 0 ? round_to(100.0 * b.gemm_union_ns / static_cast<double>(b.busy_ns), 3) : 0.0;
  Json streams = Json::array();
  for (const StreamUse& u : b.streams)
    streams.push_back(
        {{"device", u.device}, {"stream", u.stream}, {"busy_s", s(u.busy_ns)}, {"util_pct", round_to(u.util_pct, 3)}});
  j["streams"] = streams;
  j["idle_attribution"] = {{"gaps", b.idle.gaps},
                           {"host_bound_s", s(b.idle.host_bound_ns)},
                           {"launch_latency_s", s(b.idle.launch_latency_ns)},
                           {"sync_other_s", s(b.idle.sync_other_ns)},
                           {"unknown_s", s(b.idle.unknown_ns)}};
  j["launches"] = {{"kernels", b.launches.kernels},
                   {"correlated", b.launches.correlated},
                   {"launch_delay_us",
                    {{"mean", round_to(b.launches.delay_mean_us, 3)},
                     {"p50", round_to(b.launches.delay_p50_us, 3)},
                     {"p90", round_to(b.launches.delay_p90_us, 3)},
                     {"max", round_to(b.launches.delay_max_us, 3)}}},
                   {"short_kernels_lt_10us", b.launches.short_kernels},
                   {"short_kernel_count_pct", round_to(b.launches.short_count_pct, 3)},
                   {"short_kernel_time_pct", round_to(b.launches.short_time_pct, 3)}};
  return j;
}

}  // namespace goblin::analysis
