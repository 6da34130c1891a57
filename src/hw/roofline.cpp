// A trace's roofline: its FLOP ops joined to their kernels, priced by op_cost, grouped by op
// shape and by kernel; JSON and text renderings.
#include "hw/roofline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/phases.h"
#include "core/text.h"
#include "hw/flop_count.h"
#include "hw/roofline_tiers.h"
#include "model/warning_json.h"

namespace goblin::hw {

namespace {

// The dtype of FLOP ops recorded without Input type (Kineto before PyTorch 1.10, goblin's
// operator observer), from the name of the kernel that holds most of the op's time
// (data/op_models.yaml kernel_dtype_tokens: cuDNN's implicit_convolve_sgemm<float, ...>, cuBLAS's
// volta_sgemm_*). A helper kernel's name does not count: cuDNN's bf16 attention launches fp32
// conversion kernels. Ops whose main kernel names none (nvjet, cuDNN's fused attention) take the
// trace's dtype only when the ops whose main kernel names one agree and hold most of the FLOP ops'
// kernel time; otherwise the dtype stays unknown and the op unpriced.
struct KernelNamedDtypes {
  std::unordered_map<size_t, const OpModels::DtypeToken*> by_op;  // ops without Input type
  const OpModels::DtypeToken* trace = nullptr;

  void apply(size_t op, OpCostHints& h) const {
    auto it = by_op.find(op);
    if (it == by_op.end()) return;
    const OpModels::DtypeToken* t = it->second ? it->second : trace;
    if (!t) return;
    h.dtype = t->dtype;
    h.dtype_bytes = t->bytes;
    h.dtype_from = it->second ? "the name of its main kernel" : "the main kernels' names of the trace's other FLOP ops";
  }
};

KernelNamedDtypes kernel_named_dtypes(const Timeline& tl,
                                      const std::unordered_map<size_t, std::vector<size_t>>& op_kernels,
                                      const std::unordered_set<size_t>& composite, const OpModels& m) {
  KernelNamedDtypes out;
  bool agree = true;
  int64_t all_ns = 0, named_ns = 0;
  std::unordered_map<StrId, int64_t> ns_by_name;
  for (const auto& [oi, ks] : op_kernels) {
    const std::string_view types = tl.str(tl.cpu_ops.input_types[oi]);
    if (composite.count(oi) || !(types.empty() || types == "[]")) continue;
    ns_by_name.clear();
    int64_t op_ns = 0;
    for (size_t k : ks) {
      ns_by_name[tl.gpu_ops.name[k]] += tl.gpu_ops.dur_ns[k];
      op_ns += tl.gpu_ops.dur_ns[k];
    }
    StrId main = kNoStr;
    int64_t main_ns = -1;
    for (const auto& [name, ns] : ns_by_name)
      if (ns > main_ns || (ns == main_ns && name < main)) {
        main = name;
        main_ns = ns;
      }
    const OpModels::DtypeToken* t = kernel_dtype(m, tl.str(main));
    if (t && t->dtype.empty()) t = nullptr;
    out.by_op[oi] = t;
    all_ns += op_ns;
    if (!t) continue;
    named_ns += op_ns;
    if (out.trace && out.trace->dtype != t->dtype) agree = false;
    out.trace = t;
  }
  if (!agree || 2 * named_ns <= all_ns) out.trace = nullptr;
  return out;
}

// The cost cache's key part for what the hints add (empty without hints).
std::string hints_key(const OpCostHints& h) {
  if (h.empty()) return {};
  return fmt::format("{}|{}|{}|{}|{}", fmt::join(h.output, ","), fmt::join(h.arg0, ","), h.dtype, h.dtype_from,
                     h.output_from);
}

}  // namespace

RooflineReport roofline_from_trace(const Timeline& tl, const GpuSpec& gpu, const KernelEngineFn& engine_of) {
  return roofline_from_trace(tl, gpu, RooflineInputs{engine_of, {}, nullptr});
}

namespace {
// Every point above 100 % of its peak or of its roofline is flagged the one way (hw/ceiling.h).
void flag_above_peak(RooflineReport& rep) {
  int64_t flagged = 0;
  for (auto* list : {&rep.ops, &rep.kernels})
    for (RooflinePoint& p : *list) {
      const std::string peak = "the " + p.peak_key + " peak of " + rep.gpu.id;
      if (p.above_peak_pct)
        p.above_peak = above_physical_peak(*p.above_peak_pct, p.label + " achieved TFLOP/s", peak);
      else if (p.pct_of_peak)
        p.above_peak = above_physical_peak(*p.pct_of_peak, p.label + " achieved TFLOP/s", peak);
      if (!p.above_peak && p.pct_of_roofline)
        p.above_peak = above_physical_peak(*p.pct_of_roofline, p.label + " roofline time / measured time",
                                           "its roofline (" + p.source + " model on " + rep.gpu.id + ")");
      // Above the peak itself the existing note already names the first five.
      if (p.above_peak && !p.above_peak_pct && ++flagged <= 5) rep.notes.push_back(p.above_peak->message);
    }
  if (flagged > 5)
    rep.notes.push_back(fmt::format(
        "{} more point(s) above 100 % of their roofline, flagged the same way (above_physical_peak)", flagged - 5));
}

// The kernels each FLOP-family CPU op launched: the op whose time range on the launching thread
// holds the kernel's runtime call (by correlation), else the op with the kernel's external id.
std::unordered_map<size_t, std::vector<size_t>> kernels_by_flop_op(const Timeline& tl, const FlopOps& sel) {
  const auto& by_tid = sel.by_tid;
  const auto& ops = tl.cpu_ops;
  // External id → op, in row order (the first op with an id keeps it); is_flop_op once per name id.
  std::unordered_map<int64_t, size_t> by_ext;
  auto build_by_ext = [&] {
    std::vector<int8_t> flop_name(tl.strings.size(), -1);
    by_ext.reserve(sel.count);
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops.kind[i] != CpuOpKind::Op || ops.external_id[i] == kNone) continue;
      const StrId id = ops.name[i];
      bool flop;
      if (id >= flop_name.size()) {
        flop = is_flop_op(tl.str(id));
      } else {
        if (flop_name[id] < 0) flop_name[id] = is_flop_op(tl.str(id)) ? 1 : 0;
        flop = flop_name[id] == 1;
      }
      if (flop) by_ext.emplace(ops.external_id[i], i);
    }
  };
  // The two maps are independent: built side by side when the process may use two threads.
  std::thread helper;
  if (worker_threads() > 1 && ops.size() >= (1u << 16))
    helper = std::thread(build_by_ext);
  else
    build_by_ext();
  std::unordered_map<int64_t, size_t> rt_by_corr;
  rt_by_corr.reserve(tl.runtime.size());
  for (size_t i = 0; i < tl.runtime.size(); ++i)
    if (tl.runtime.correlation[i] != kNone) rt_by_corr.emplace(tl.runtime.correlation[i], i);
  if (helper.joinable()) helper.join();

  std::unordered_map<size_t, std::vector<size_t>> op_kernels;
  const GpuOpTable& K = tl.gpu_ops;
  for (size_t k = 0; k < K.size(); ++k) {
    if (K.kind[k] != GpuOpKind::Kernel) continue;
    std::optional<size_t> op;
    auto rt = K.correlation[k] != kNone ? rt_by_corr.find(K.correlation[k]) : rt_by_corr.end();
    if (rt != rt_by_corr.end()) {
      int64_t ts = tl.runtime.start_ns[rt->second];
      auto it = by_tid.find(tl.runtime.tid[rt->second]);
      if (it != by_tid.end()) {
        const auto& v = it->second;
        auto ub =
            std::upper_bound(v.begin(), v.end(), ts, [&](int64_t t, size_t idx) { return t < ops.start_ns[idx]; });
        int steps = 0;
        while (ub != v.begin() && steps++ < 16) {
          --ub;
          if (ops.start_ns[*ub] <= ts && ts <= ops.end_ns(*ub)) {
            op = *ub;
            break;
          }
        }
      }
    }
    if (!op && K.external_id[k] != kNone) {
      auto e = by_ext.find(K.external_id[k]);
      if (e != by_ext.end()) op = e->second;
    }
    if (op) op_kernels[*op].push_back(k);
  }
  return op_kernels;
}

// A point's achieved rates, peak, bound and share of its roofline; a point faster than the GPU can
// compute is refused as a figure, flagged and (the first five) named in the notes.
void finish_point(RooflinePoint& p, const GpuSpec& gpu, const std::optional<double>& bw,
                  std::map<std::string, double>& ridge, int64_t& impossible, RooflineReport& rep) {
  if (p.time_ns > 0) {
    p.achieved_tflops = p.flops / (p.time_ns * 1e-9) / 1e12;
    p.achieved_gbs = p.bytes / (p.time_ns * 1e-9) / 1e9;
  }
  p.intensity = p.bytes > 0 ? p.flops / p.bytes : 0;
  p.peak_key = peak_key_for(p.dtype, p.engine == "matrix");
  if (p.dtype == "fp32" && p.engine.empty()) p.peak_key = "fp32";
  p.peak_tflops = p.peak_key.empty() ? std::nullopt : gpu.peak_tflops(p.peak_key);
  if (p.peak_tflops && *p.peak_tflops > 0 && 100.0 * p.achieved_tflops / *p.peak_tflops > 100.0) {
    // Faster than the GPU can compute: the figure is refused, flagged and named once.
    p.above_peak_pct = 100.0 * p.achieved_tflops / *p.peak_tflops;
    p.bound = "impossible";
    if (++impossible <= 5)
      rep.notes.push_back(p.label + ": " + format_sig(p.achieved_tflops, 4) + " TFLOP/s is " +
                          format_sig(*p.above_peak_pct, 4) + " % of the " + p.peak_key + " peak (" +
                          format_sig(*p.peak_tflops, 4) +
                          " TFLOP/s): physically impossible (FLOPs, kernel time or the peak compared against is "
                          "wrong), not reported as achieved");
  } else if (p.peak_tflops && *p.peak_tflops > 0) {
    p.pct_of_peak = 100.0 * p.achieved_tflops / *p.peak_tflops;
    if (bw) {
      double r = *p.peak_tflops * 1e12 / *bw;
      ridge[p.peak_key] = r;
      p.attainable_tflops = std::min(*p.peak_tflops, p.intensity * *bw / 1e12);
      p.bound = p.intensity < r ? "memory" : "compute";
    }
  }
  if (p.bound.empty()) p.bound = "unknown";
  if (p.peak_tflops && *p.peak_tflops > 0 && bw && p.time_ns > 0) {
    double ideal = std::max(p.flops / (*p.peak_tflops * 1e12), p.bytes / *bw);
    p.pct_of_roofline = 100.0 * ideal / (p.time_ns * 1e-9);
  }
}

// Kernels and FLOPs accumulated under one roofline point (an op and its shapes, or a kernel name).
struct Acc {
  RooflinePoint p;
  std::map<std::string, int> engines;
  std::map<std::string, int64_t> kern_ns;
};

// An op's point: its engine (the majority of its kernels, by count, that say one) and its four
// longest kernels by name.
void name_engine_and_kernels(Acc& g) {
  int mat = g.engines["matrix"], vec = g.engines["vector"];
  g.p.engine = mat > vec ? "matrix" : (vec > 0 ? "vector" : "");
  std::vector<std::pair<int64_t, std::string>> ks;
  for (auto& [kn, ns] : g.kern_ns) ks.emplace_back(ns, kn);
  std::sort(ks.rbegin(), ks.rend());
  for (size_t i = 0; i < ks.size() && i < 4; ++i) g.p.kernels.push_back(ks[i].second);
}

// The report's closing notes and order: points by time, the ridges, what could not be modelled.
void finish_report(RooflineReport& rep, const std::map<std::string, double>& ridge, int64_t impossible) {
  flag_above_peak(rep);
  auto by_time = [](const RooflinePoint& a, const RooflinePoint& b) { return a.time_ns > b.time_ns; };
  std::sort(rep.ops.begin(), rep.ops.end(), by_time);
  std::sort(rep.kernels.begin(), rep.kernels.end(), by_time);
  if (impossible > 5)
    rep.notes.push_back(
        fmt::format("{} more point(s) above 100 % of their peak, flagged the same way", impossible - 5));
  for (const auto& [k, r] : ridge) rep.ridges.emplace_back(k, r);
  if (rep.flop_op_instances == 0)
    rep.notes.push_back("no GEMM/attention/convolution ops in the trace (record_shapes and CPU ops needed)");
  bool any_unknown_engine = false;
  for (const auto& p : rep.ops) any_unknown_engine |= p.dtype == "fp32" && p.engine.empty();
  if (any_unknown_engine)
    rep.notes.push_back(
        "fp32 ops whose kernel names do not say SIMT or tensor core are compared to the fp32 "
        "(non-tensor) peak");
}
}  // namespace

RooflineReport roofline_from_trace(const Timeline& tl, const GpuSpec& gpu, const RooflineInputs& in) {
  const KernelEngineFn& engine_of = in.engine_of;
  RooflineReport rep;
  rep.gpu = gpu;
  auto bw = gpu.bandwidth_bytes_per_s();
  rep.bandwidth_gbs = bw ? *bw / 1e9 : 0;
  if (!bw) rep.notes.push_back(gpu.id + ": peak bandwidth unknown; memory roof and bound classification omitted");

  // FLOP-family CPU ops per thread and the composites among them: the selection MFU uses too.
  const FlopOps sel = select_flop_ops(tl);
  const auto& composite = sel.composite;
  const auto& ops = tl.cpu_ops;
  rep.flop_op_instances = static_cast<int64_t>(sel.count);
  // kernel → op
  const GpuOpTable& K = tl.gpu_ops;
  std::unordered_map<size_t, std::vector<size_t>> op_kernels = kernels_by_flop_op(tl, sel);

  std::map<std::string, Acc> groups;
  std::map<std::string, Acc> kgroups;
  std::map<std::string, int> why_counts;
  std::unordered_map<StrId, std::string> engine_by_name;
  std::map<std::tuple<StrId, StrId, StrId, StrId, std::string>, std::pair<std::optional<OpCost>, std::string>>
      cost_cache;
  int64_t composite_kernels = 0;
  // GPU-op rows the FLOP ops priced (the other tiers take the rest) and their FLOPs / bytes.
  std::vector<uint8_t> priced(in.models ? K.size() : 0, 0);
  TraceSignatures sigs;  // the priced kernels by (name, grid, block): the signature tier
  if (in.models) {
    rep.op_flops.assign(K.size(), -1);
    rep.op_bytes.assign(K.size(), -1);
    rep.op_peak_tflops.assign(K.size(), 0);
  }
  // Ops recorded without Input type (Kineto before PyTorch 1.10): the dtype their kernels name.
  const auto kernel_dtypes =
      in.models ? kernel_named_dtypes(tl, op_kernels, composite, *in.models) : KernelNamedDtypes{};
  for (auto& [oi, ks] : op_kernels) {
    if (composite.count(oi)) {
      composite_kernels += static_cast<int64_t>(ks.size());
      continue;
    }
    ++rep.instances_with_kernels;
    std::string why;
    std::string_view nm = tl.str(ops.name[oi]);
    OpCostHints hints;
    if (auto h = sel.hints.find(oi); h != sel.hints.end()) hints = h->second;
    kernel_dtypes.apply(oi, hints);
    // op_cost parses the shapes' JSON: once per distinct (op, dims, types, concrete inputs, hints)
    const auto ckey = std::make_tuple(ops.name[oi], ops.input_dims[oi], ops.input_types[oi], ops.concrete_inputs[oi],
                                      hints_key(hints));
    auto cit = cost_cache.find(ckey);
    if (cit == cost_cache.end()) {
      auto c = op_cost(nm, tl.str(ops.input_dims[oi]), tl.str(ops.input_types[oi]), tl.str(ops.concrete_inputs[oi]),
                       hints, &why);
      cit = cost_cache.emplace(ckey, std::make_pair(std::move(c), why)).first;
    }
    const std::optional<OpCost>& cost = cit->second.first;
    why = cit->second.second;
    if (!cost) {
      ++rep.instances_without_shapes;
      ++why_counts[std::string(nm) + ": " + why];
      continue;
    }
    int64_t t = 0;
    for (auto k : ks) t += K.dur_ns[k];
    std::string shapes(tl.str(ops.input_dims[oi]));
    std::string key = std::string(nm) + "|" + shapes + "|" + cost->dtype;
    auto& g = groups[key];
    if (g.p.count == 0) {
      g.p.label = std::string(nm) + " " + shapes;
      g.p.kind = cost->kind;
      g.p.dtype = cost->dtype;
      g.p.shapes = shapes;
      g.p.formula = cost->formula;
    }
    if (g.p.estimate.empty()) g.p.estimate = cost->estimate;
    g.p.count++;
    g.p.time_ns += t;
    g.p.flops += cost->flops;
    g.p.bytes += cost->bytes;
    for (auto k : ks) {
      std::string kn(tl.str(K.name[k]));
      // the engine by name id: the taxonomy's patterns once per distinct kernel name
      auto [eit, fresh] = engine_by_name.try_emplace(K.name[k]);
      if (fresh && engine_of) eit->second = engine_of(kn);
      const std::string& engine = eit->second;
      g.engines[engine]++;
      g.kern_ns[kn] += K.dur_ns[k];
      auto& kg = kgroups[kn];
      if (kg.p.count == 0) {
        kg.p.label = kn;
        kg.p.kind = "kernel";
        kg.p.dtype = cost->dtype;
        kg.p.engine = engine;
      }
      if (kg.p.estimate.empty()) kg.p.estimate = cost->estimate;
      kg.p.count++;
      kg.p.time_ns += K.dur_ns[k];
      double share = t > 0 ? static_cast<double>(K.dur_ns[k]) / t : 1.0 / ks.size();
      kg.p.flops += cost->flops * share;
      kg.p.bytes += cost->bytes * share;
      if (in.models) {
        // 2: priced with a shape or dtype taken from elsewhere in the trace; 3: by a bound
        priced[k] = cost->estimate.empty() ? 1 : (cost->estimate == "inferred" ? 2 : 3);
        rep.op_flops[k] = cost->flops * share;
        rep.op_bytes[k] = cost->bytes * share;
        std::string key = peak_key_for(cost->dtype, engine == "matrix");
        if (cost->dtype == "fp32" && engine.empty()) key = "fp32";
        rep.op_peak_tflops[k] = key.empty() ? 0 : gpu.peak_tflops(key).value_or(0);
        SignatureCost& sc = sigs[SigKey{K.name[k], K.grid[k], K.block[k]}];
        if (sc.variants.empty()) {
          sc.cls = cost->kind;
          sc.dtype = cost->dtype;
          sc.engine = engine;
          sc.peak_tflops = rep.op_peak_tflops[k];
          sc.grid_known = K.grid[k][0] > 0;
        }
        sc.add(rep.op_flops[k], rep.op_bytes[k], K.dur_ns[k], cost->formula);
      }
    }
  }
  if (composite_kernels)
    rep.notes.push_back(fmt::format("{}", composite_kernels) +
                        " kernel(s) launched directly by composite ops (matmul/linear/attention wrappers around an "
                        "inner GEMM/attention op: copies, reshapes) carry no FLOPs and are not in the table");
  for (auto& [w, n] : why_counts) rep.notes.push_back(fmt::format("{} op instance(s) not modelled: {}", n, w));

  std::map<std::string, double> ridge;
  int64_t impossible = 0;  // points above 100 % of their peak; the first five are named
  auto finish = [&](RooflinePoint& p) { finish_point(p, gpu, bw, ridge, impossible, rep); };
  for (auto& [key, g] : groups) {
    name_engine_and_kernels(g);
    finish(g.p);
    rep.ops.push_back(g.p);
  }
  for (auto& [kn, g] : kgroups) {
    finish(g.p);
    rep.kernels.push_back(g.p);
  }
  if (in.models) {
    price_other_gpu_ops(tl, gpu, in, priced, sigs, rep);
    if (in.export_signatures) rep.signatures = export_signatures(tl, sigs);
  }
  finish_report(rep, ridge, impossible);
  return rep;
}

namespace {
Json point_json(const RooflinePoint& p) {
  Json j;
  j["label"] = p.label;
  j["kind"] = p.kind;
  j["dtype"] = p.dtype;
  if (!p.shapes.empty()) j["input_dims"] = p.shapes;
  j["engine"] = p.engine.empty() ? Json(nullptr) : Json(p.engine);
  j["count"] = p.count;
  j["kernel_time_us"] = round_to(p.time_ns / 1e3, 3);
  j["flops"] = p.flops;
  j["bytes_min"] = p.bytes;
  j["achieved_tflops"] = round_to(p.achieved_tflops, 3);
  j["achieved_gbs"] = round_to(p.achieved_gbs, 1);
  j["arithmetic_intensity"] = round_to(p.intensity, 2);
  j["peak_key"] = p.peak_key;
  j["peak_tflops"] = p.peak_tflops ? Json(*p.peak_tflops) : Json(nullptr);
  j["pct_of_peak"] = p.pct_of_peak ? Json(round_to(*p.pct_of_peak, 2)) : Json(nullptr);
  if (p.above_peak_pct) j["above_peak_pct"] = round_to(*p.above_peak_pct, 2);  // only when flagged
  j["above_physical_peak"] = above_peak_json(p.above_peak);
  j["attainable_tflops"] = p.attainable_tflops ? Json(round_to(*p.attainable_tflops, 2)) : Json(nullptr);
  j["bound"] = p.bound;
  if (!p.formula.empty()) j["formula"] = p.formula;
  if (!p.kernels.empty()) j["kernels"] = p.kernels;
  j["pct_of_roofline"] = p.pct_of_roofline ? Json(round_to(*p.pct_of_roofline, 2)) : Json(nullptr);
  j["model_source"] = p.source;
  j["estimate"] = p.estimate.empty() ? Json(nullptr) : Json(p.estimate);
  if (!p.citation.empty()) j["citation"] = p.citation;
  if (p.busbw_gbs) j["busbw_gbs"] = round_to(*p.busbw_gbs, 1);
  return j;
}
}  // namespace

Json roofline_to_json(const RooflineReport& r) {
  Json j;
  j["gpu"] = r.gpu.id;
  j["bandwidth_gbs"] = r.bandwidth_gbs;
  if (auto* b = r.gpu.spec("memory_bandwidth")) j["bandwidth_source"] = b->citation();
  Json ridges = Json::object(), peaks = Json::object(), psrc = Json::object();
  for (auto& [k, v] : r.ridges) {
    ridges[k] = round_to(v, 2);
    peaks[k] = r.gpu.peak_tflops(k) ? Json(*r.gpu.peak_tflops(k)) : Json(nullptr);
    if (auto* p = r.gpu.peak(k)) psrc[k] = p->citation();
  }
  j["ridge_flop_per_byte"] = ridges;
  j["peaks_tflops"] = peaks;
  j["peak_sources"] = psrc;
  j["flop_op_instances"] = r.flop_op_instances;
  j["instances_with_kernels"] = r.instances_with_kernels;
  j["instances_not_modelled"] = r.instances_without_shapes;
  Json ops = Json::array(), ks = Json::array();
  for (auto& p : r.ops) ops.push_back(point_json(p));
  for (auto& p : r.kernels) ks.push_back(point_json(p));
  j["ops"] = ops;
  j["kernels"] = ks;
  j["notes"] = r.notes;
  if (r.all_ops) {
    const auto& c = r.coverage;
    j["unmodelled_share"] = round_to(c.unmodelled_share(), 4);
    Json cov;
    cov["gpu_op_time_us"] = round_to(c.gpu_op_ns / 1e3, 3);
    Json by = Json::object(), un = Json::object();
    for (const auto& [tier, ns] : c.modelled_ns) by[tier] = round_to(ns / 1e3, 3);
    for (const auto& [why, ns] : c.unmodelled_ns) un[why] = round_to(ns / 1e3, 3);
    cov["modelled_us_by_source"] = by;
    cov["unmodelled_us_by_category"] = un;
    cov["estimated_share"] = c.gpu_op_ns ? round_to(static_cast<double>(c.estimated_ns) / c.gpu_op_ns, 4) : 0.0;
    if (c.inferred_ns > 0) cov["inferred_share"] = round_to(static_cast<double>(c.inferred_ns) / c.gpu_op_ns, 4);
    if (c.inferred_shapes_ns > 0)
      cov["inferred_shapes_share"] = round_to(static_cast<double>(c.inferred_shapes_ns) / c.gpu_op_ns, 4);
    Json top = Json::array();
    for (const auto& u : c.top_unmodelled)
      top.push_back({{"kernel", u.kernel.size() > 200 ? u.kernel.substr(0, 197) + "..." : u.kernel},
                     {"why", u.why},
                     {"time_us", round_to(u.ns / 1e3, 3)},
                     {"count", u.count}});
    cov["unmodelled_top"] = top;
    cov["models"] = "data/op_models.yaml";
    j["coverage"] = cov;
  }
  j["method"] =
      "FLOPs from Input Dims (GEMM 2MNK; attention 2BHLS(E+Ev), causal x0.5, backward x2.5); bytes = each "
      "input/output tensor once (lower bound); kernel time = kernels launched inside the op; peak by dtype and "
      "engine (fp32 SIMT -> fp32, fp32 on tensor cores -> tf32, bf16/fp16/fp8 -> matrix peak)";
  return j;
}

std::string roofline_human(const RooflineReport& r, size_t top) {
  std::string o =
      fmt::format("Roofline on {} [{}], bandwidth {} GB/s\n", r.gpu.name, r.gpu.id, format_sig(r.bandwidth_gbs, 5));
  auto out = std::back_inserter(o);
  for (auto& [k, v] : r.ridges)
    fmt::format_to(out, "  ridge {}: {} FLOP/B (peak {} TFLOPS)\n", k, format_sig(v, 4),
                   format_sig(*r.gpu.peak_tflops(k), 6));
  fmt::format_to(out, "  {} of {} GEMM/attention/conv op instances launched kernels; {} not modelled\n",
                 r.instances_with_kernels, r.flop_op_instances, r.instances_without_shapes);
  if (r.all_ops) {
    const auto& c = r.coverage;
    fmt::format_to(
        out, "  GPU-op time without a model: {:.1f} % (unmodelled_share {:.4f}); priced by bounds: {:.1f} %\n",
        100 * c.unmodelled_share(), c.unmodelled_share(), c.gpu_op_ns ? 100.0 * c.estimated_ns / c.gpu_op_ns : 0.0);
    std::vector<std::pair<int64_t, std::string>> un;
    for (const auto& [why, ns] : c.unmodelled_ns) un.emplace_back(ns, why);
    std::sort(un.rbegin(), un.rend());
    for (size_t i = 0; i < un.size() && i < 4; ++i)
      fmt::format_to(out, "    unmodelled {}: {:.1f} %\n", un[i].second,
                     c.gpu_op_ns ? 100.0 * un[i].first / c.gpu_op_ns : 0.0);
    for (size_t i = 0; i < c.top_unmodelled.size() && i < 3; ++i) {
      const auto& u = c.top_unmodelled[i];
      fmt::format_to(out, "      {:.1f} % {} ({})\n", c.gpu_op_ns ? 100.0 * u.ns / c.gpu_op_ns : 0.0,
                     u.kernel.size() > 80 ? u.kernel.substr(0, 77) + "..." : u.kernel, u.why);
    }
  }
  o += "\n";
  fmt::format_to(out, "{:<52} {:>5} {:>6} {:>10} {:>9} {:>8} {:>7} {:>6} {:>6} {:<7} {}\n", "op [input dims]", "n",
                 "dtype", "time_ms", "TFLOP/s", "GB/s", "AI", "%peak", "%roof", "bound", "peak");
  size_t i = 0;
  for (auto& p : r.ops) {
    if (i++ >= top) break;
    std::string lab = p.label.size() > 52 ? p.label.substr(0, 49) + "..." : p.label;
    fmt::format_to(out, "{:<52} {:>5} {:>6} {:>10.3f} {:>9.2f} {:>8.0f} {:>7.1f} {:>6} {:>6} {:<7} {}{}{}\n", lab,
                   p.count, p.dtype, p.time_ns / 1e6, p.achieved_tflops, p.achieved_gbs, p.intensity,
                   p.pct_of_peak ? format_sig(*p.pct_of_peak, 3) : "-",
                   p.pct_of_roofline ? format_sig(*p.pct_of_roofline, 3) + (p.above_peak ? "!!" : "") : "-", p.bound,
                   p.peak_key, p.engine.empty() ? "" : " (" + p.engine + ")",
                   p.estimate.empty() ? "" : " [" + p.estimate + "]");
  }
  if (r.ops.size() > top) fmt::format_to(out, "  ... {} more (--json for all)\n", r.ops.size() - top);
  for (auto& n : r.notes) fmt::format_to(out, "note: {}\n", n);
  return o;
}

}  // namespace goblin::hw
