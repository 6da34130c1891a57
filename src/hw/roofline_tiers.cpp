// The roofline's tiers beyond the FLOP ops (hw/roofline_tiers.h; the tiers and their sources are
// data/op_models.yaml's header).
#include "hw/roofline_tiers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/text.h"
#include "hw/roofline_annotation.h"
#include "hw/tile_kernels.h"

namespace goblin::hw {

namespace {

struct Acc {
  RooflinePoint p;
};

void add_to(Acc& g, const std::string& label, const ModelCost& c, const std::string& source, int64_t ns, double flops,
            double bytes) {
  if (g.p.count == 0) {
    g.p.label = label;
    g.p.kind = c.cls;
    g.p.dtype = c.dtype;
    g.p.engine = c.engine;
    g.p.formula = c.formula;
    g.p.source = source;
    g.p.estimate = c.estimate;
    g.p.citation = c.source;
  }
  g.p.count++;
  g.p.time_ns += ns;
  g.p.flops += flops;
  g.p.bytes += bytes;
}

// Achieved rates, the roof and the bound of a point of these tiers: FLOPs against the matrix peak
// of the dtype for matrix classes and the vector fp32 peak otherwise, bytes against the memory
// bandwidth; the roofline time is the larger of the two.
void finish(RooflinePoint& p, const GpuSpec& gpu, bool has_roof) {
  const auto bw = gpu.bandwidth_bytes_per_s();
  if (p.time_ns > 0) {
    p.achieved_tflops = p.flops / (p.time_ns * 1e-9) / 1e12;
    p.achieved_gbs = p.bytes / (p.time_ns * 1e-9) / 1e9;
  }
  p.intensity = p.bytes > 0 ? p.flops / p.bytes : 0;
  if (!has_roof) {
    if (p.bound.empty()) p.bound = "unknown";
    return;
  }
  p.peak_key = p.engine == "matrix" ? peak_key_for(p.dtype, true) : "fp32";
  if (p.source == "signature" || p.source == "capture") {  // the roof its shape-priced twin had
    p.peak_key = peak_key_for(p.dtype, p.engine == "matrix");
    if (p.peak_key.empty() || (p.dtype == "fp32" && p.engine.empty())) p.peak_key = "fp32";
  }
  p.peak_tflops = p.peak_key.empty() ? std::nullopt : gpu.peak_tflops(p.peak_key);
  double t_flops = p.peak_tflops && *p.peak_tflops > 0 ? p.flops / (*p.peak_tflops * 1e12) : 0;
  double t_bytes = bw ? p.bytes / *bw : 0;
  if (p.peak_tflops && *p.peak_tflops > 0) p.pct_of_peak = 100.0 * p.achieved_tflops / *p.peak_tflops;
  if (bw && p.peak_tflops && *p.peak_tflops > 0)
    p.attainable_tflops = std::min(*p.peak_tflops, p.intensity * *bw / 1e12);
  if (p.time_ns > 0 && (t_flops > 0 || t_bytes > 0)) {
    p.pct_of_roofline = 100.0 * std::max(t_flops, t_bytes) / (p.time_ns * 1e-9);
    p.bound = t_flops > t_bytes ? "compute" : "memory";
  }
  if (p.bound.empty()) p.bound = "unknown";
}

const char* copy_label(CopyKind k) {
  switch (k) {
    case CopyKind::HtoD:
      return "Memcpy HtoD";
    case CopyKind::DtoH:
      return "Memcpy DtoH";
    case CopyKind::DtoD:
      return "Memcpy DtoD";
    case CopyKind::HtoH:
      return "Memcpy HtoH";
    case CopyKind::PtoP:
      return "Memcpy PtoP";
    default:
      return "Memcpy";
  }
}

}  // namespace

double RooflineCoverage::unmodelled_share() const {
  if (gpu_op_ns <= 0) return 0;
  int64_t u = 0;
  for (const auto& [why, ns] : unmodelled_ns) u += ns;
  return static_cast<double>(u) / static_cast<double>(gpu_op_ns);
}

namespace {
// The kernel_tile tier, after the signature tiers (a shape-priced twin is exact, a tile bound is
// not): GEMM and implicit-GEMM convolution kernels still without a model, priced from the macro
// tile in their name and their grid (data/tile_kernels.yaml); the rest stays in `left`.
template <class Price>
void price_by_tile(const Timeline& tl, const OpModels& m, std::vector<std::pair<size_t, std::string>>& left,
                   Price&& price) {
  if (left.empty()) return;
  auto tk = tile_kernels();
  if (!tk.ok()) return;
  const GpuOpTable& K = tl.gpu_ops;
  std::vector<std::pair<size_t, std::string>> still;
  for (auto& [k, why] : left) {
    std::optional<ModelCost> c;
    if (K.kind[k] == GpuOpKind::Kernel) c = model_tile_kernel(**tk, m, tl.str(K.name[k]), K.grid[k]);
    if (c) {
      price(k, *c);
      continue;
    }
    still.emplace_back(k, std::move(why));
  }
  left = std::move(still);
}
}  // namespace

void price_other_gpu_ops(const Timeline& tl, const GpuSpec& gpu, const RooflineInputs& in,
                         const std::vector<uint8_t>& priced, TraceSignatures& sigs, RooflineReport& rep) {
  const OpModels& m = *in.models;
  const GpuOpTable& K = tl.gpu_ops;
  const CpuOpTable& ops = tl.cpu_ops;
  rep.all_ops = true;
  auto& cov = rep.coverage;

  // Op rule by name id, and External id → op row for ops that have one.
  std::unordered_map<StrId, const OpClassRule*> rule_of;
  std::unordered_map<int64_t, size_t> op_by_ext;
  op_by_ext.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != CpuOpKind::Op || ops.external_id[i] == kNone) continue;
    auto [it, fresh] = rule_of.try_emplace(ops.name[i], nullptr);
    if (fresh) it->second = m.rule(tl.str(ops.name[i]));
    if (it->second) op_by_ext.emplace(ops.external_id[i], i);
  }
  // Runtime launch correlation → External id, for kernels without an External id of their own
  // (rare in Kineto): built on first need.
  std::unordered_map<int64_t, int64_t> ext_by_corr;
  bool ext_by_corr_built = false;
  auto ext_of_launch = [&](int64_t corr) -> int64_t {
    if (!ext_by_corr_built) {
      ext_by_corr_built = true;
      ext_by_corr.reserve(tl.runtime.size());
      for (size_t i = 0; i < tl.runtime.size(); ++i)
        if (tl.runtime.correlation[i] != kNone && tl.runtime.external_id[i] != kNone)
          ext_by_corr.emplace(tl.runtime.correlation[i], tl.runtime.external_id[i]);
    }
    auto e = ext_by_corr.find(corr);
    return e == ext_by_corr.end() ? kNone : e->second;
  };
  std::unordered_map<int64_t, size_t> coll_by_corr;
  for (size_t i = 0; i < tl.collectives.size(); ++i)
    if (tl.collectives.on_gpu[i] && tl.collectives.correlation[i] != kNone)
      coll_by_corr.emplace(tl.collectives.correlation[i], i);
  // c10d ops by thread, in start order: the launching op of an NCCL kernel without collective
  // metadata (data/op_models.yaml c10d_ops). Runtime launches by correlation, built on first need.
  std::unordered_map<int64_t, std::vector<size_t>> c10d_by_tid;
  if (!m.c10d_ops.empty())
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops.kind[i] == CpuOpKind::Op && tl.str(ops.name[i]).starts_with("c10d::") && m.c10d_op(tl.str(ops.name[i])))
        c10d_by_tid[ops.tid[i]].push_back(i);
  std::unordered_map<int64_t, size_t> launch_by_corr;
  auto c10d_launcher = [&](int64_t corr) -> std::optional<size_t> {
    if (c10d_by_tid.empty() || corr == kNone) return std::nullopt;
    if (launch_by_corr.empty())
      for (size_t i = 0; i < tl.runtime.size(); ++i)
        if (tl.runtime.correlation[i] != kNone) launch_by_corr.emplace(tl.runtime.correlation[i], i);
    auto rt = launch_by_corr.find(corr);
    if (rt == launch_by_corr.end()) return std::nullopt;
    auto v = c10d_by_tid.find(tl.runtime.tid[rt->second]);
    if (v == c10d_by_tid.end()) return std::nullopt;
    const int64_t ts = tl.runtime.start_ns[rt->second];
    std::optional<size_t> inner;
    for (size_t i : v->second) {
      if (ops.start_ns[i] > ts) break;
      if (ts <= ops.end_ns(i)) inner = i;  // the latest-starting enclosing op is the innermost
    }
    return inner;
  };
  std::unordered_map<StrId, std::string> category;
  auto category_of = [&](StrId name) -> const std::string& {
    auto [it, fresh] = category.try_emplace(name);
    if (fresh && in.category_of) it->second = in.category_of(tl.str(name));
    return it->second;
  };

  // Groups keyed by ids, not strings (this runs on every GPU op of a 1 GB trace): kernels by name
  // id, memcpys by -2 - copy kind, memsets by -1; ops by (name, dims, types).
  enum Tier { kShapes, kBytes, kCollective, kAnnotation, kGrid, kSignature, kCapture, kTile, kTiers };
  static const char* const kTierName[kTiers] = {"shapes",      "gpu_op_bytes", "collective", "collective_annotation",
                                                "kernel_grid", "signature",    "capture",    "kernel_tile"};
  int64_t tier_ns[kTiers] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::unordered_map<int64_t, Acc> kernel_groups;
  std::unordered_map<int64_t, bool> kernel_has_roof;
  std::map<std::tuple<StrId, StrId, StrId>, Acc> op_groups;
  // Kernels priced by an identical launch (signature, capture tiers) are grouped apart from the
  // same name's kernels priced by their own op (negative keys below the copy kinds').
  auto group_key = [&](size_t k, Tier tier) -> int64_t {
    if (K.kind[k] == GpuOpKind::Memcpy) return -2 - static_cast<int64_t>(K.copy_kind[k]);
    if (K.kind[k] == GpuOpKind::Memset) return -1;
    if (tier == kSignature || tier == kCapture) return -100 - static_cast<int64_t>(K.name[k]);
    if (tier == kAnnotation) return -(int64_t{1} << 33) - static_cast<int64_t>(K.name[k]);  // below those
    return static_cast<int64_t>(K.name[k]);
  };
  auto price_kernel = [&](size_t k, const ModelCost& c, double flops, double bytes, Tier tier, bool roof) {
    rep.op_flops[k] = flops;
    rep.op_bytes[k] = bytes;
    if (roof) {
      const std::string key = c.engine == "matrix" ? peak_key_for(c.dtype, true) : "fp32";
      rep.op_peak_tflops[k] = key.empty() ? 0 : gpu.peak_tflops(key).value_or(0);
    }
    tier_ns[tier] += K.dur_ns[k];
    if (c.estimate == "inferred")
      cov.inferred_ns += K.dur_ns[k];
    else if (!c.estimate.empty())
      cov.estimated_ns += K.dur_ns[k];
    if (tier == kShapes && K.kind[k] == GpuOpKind::Kernel) {
      SignatureCost& sc = sigs[SigKey{K.name[k], K.grid[k], K.block[k]}];
      if (sc.variants.empty()) {
        sc.cls = c.cls;
        sc.dtype = c.dtype;
        sc.engine = c.engine;
        sc.peak_tflops = rep.op_peak_tflops[k];
        sc.grid_known = K.grid[k][0] > 0;
      }
      sc.add(flops, bytes, K.dur_ns[k], c.formula);
    }
    auto& g = kernel_groups[group_key(k, tier)];
    if (g.p.count == 0) {
      const std::string label = K.kind[k] == GpuOpKind::Memcpy   ? copy_label(K.copy_kind[k])
                                : K.kind[k] == GpuOpKind::Memset ? std::string("Memset")
                                                                 : std::string(tl.str(K.name[k]));
      add_to(g, label, c, kTierName[tier], K.dur_ns[k], flops, bytes);
      kernel_has_roof[group_key(k, tier)] = roof;
    } else {
      g.p.count++;
      g.p.time_ns += K.dur_ns[k];
      g.p.flops += flops;
      g.p.bytes += bytes;
    }
  };
  // A collective kernel's bus bandwidth into its group's: the time-weighted mean over its calls,
  // none once one member's group size is unknown.
  std::unordered_set<int64_t> no_busbw;  // kernel groups with a member whose group size is unknown
  auto add_busbw = [&](size_t k, Tier tier, const CollectiveModel& cm, bool ranks_known) {
    const int64_t key = group_key(k, tier);
    auto& p = kernel_groups[key].p;
    if (!ranks_known || no_busbw.count(key)) {
      no_busbw.insert(key);
      p.busbw_gbs.reset();
      return;
    }
    const double busbw = K.dur_ns[k] > 0 ? cm.size_bytes * cm.busbw_factor / (K.dur_ns[k] * 1e-9) / 1e9 : 0;
    p.busbw_gbs = p.count > 1 && p.busbw_gbs ? (*p.busbw_gbs * (p.time_ns - K.dur_ns[k]) + busbw * K.dur_ns[k]) /
                                                   std::max<int64_t>(p.time_ns, 1)
                                             : busbw;
  };
  // An NCCL kernel without collective metadata: its launching c10d op's tensors give S.
  auto price_by_c10d = [&](size_t k) -> bool {
    if (c10d_by_tid.empty() || category_of(K.name[k]) != "communication") return false;
    const auto op = c10d_launcher(K.correlation[k]);
    if (!op) return false;
    const OpModels::C10dOp& rule = *m.c10d_op(tl.str(ops.name[*op]));
    const auto dims = parse_input_dims(tl.str(ops.input_dims[*op]));
    const auto types = parse_string_list(tl.str(ops.input_types[*op]));
    auto bytes_of = [&](int arg) -> double {
      if (arg < 0 || !dims || !types || static_cast<size_t>(arg) >= dims->size() ||
          static_cast<size_t>(arg) >= types->size() || (*dims)[arg].empty())
        return 0;
      double n = 1;
      for (int64_t d : (*dims)[arg]) n *= static_cast<double>(d);
      return n * dtype_bytes((*types)[arg]);
    };
    const double in_b = bytes_of(rule.input_arg), out_b = bytes_of(rule.output_arg);
    int64_t ranks = kNone;
    const double num = rule.ranks == "output_over_input" ? out_b : in_b,
                 den = rule.ranks == "output_over_input" ? in_b : out_b;
    if (!rule.ranks.empty() && den > 0 && num >= 2 * den && num / den < 1e6 && std::fmod(num, den) == 0)
      ranks = static_cast<int64_t>(num / den);
    // Without the group size, a reduce_scatter's S is its input (n x output), not output x n.
    auto cm = model_collective(m, rule.collective, in_b, ranks == kNone ? 0 : out_b, ranks == kNone ? 0 : ranks);
    if (!cm || cm->size_bytes <= 0) return false;
    ModelCost c;
    c.cls = "collective";
    c.dtype = types && rule.input_arg >= 0 && static_cast<size_t>(rule.input_arg) < types->size()
                  ? normalize_dtype((*types)[rule.input_arg])
                  : "";
    c.formula = fmt::format(
        "S from {} (the c10d op that launched the kernel, which carries no collective metadata); {}",
        tl.str(ops.name[*op]),
        ranks == kNone
            ? fmt::format("S = {} bytes; group size not recorded: algBw = S/t only, no busBw", cm->size_bytes)
            : cm->formula);
    c.source = m.cite(m.c10d_source) + "; " + m.cite(m.collectives_source);
    price_kernel(k, c, 0, cm->size_bytes, kCollective, false);
    add_busbw(k, kCollective, *cm, ranks != kNone);
    return true;
  };
  // Without either: the nccl:<collective> annotation around the launch (collective_annotation).
  std::optional<NcclAnnotations> annotated;
  auto price_by_annotation = [&](size_t k) -> bool {
    if (m.nccl_annotations.empty() || category_of(K.name[k]) != "communication") return false;
    if (!annotated) annotated.emplace(tl, m);
    const auto a = annotated->price(K.correlation[k]);
    if (!a) return false;
    ModelCost c;
    c.cls = "collective";
    c.dtype = a->dtype;
    c.formula = a->formula;
    c.source = m.cite(m.nccl_annotations_source) + "; " + m.cite(m.collectives_source);
    if (a->ranks > 0) c.source += "; " + m.cite(m.param_comms_source);
    price_kernel(k, c, 0, a->model.size_bytes, kAnnotation, false);
    add_busbw(k, kAnnotation, a->model, a->ranks > 0);
    return true;
  };
  // The kernel_grid tier: multi_tensor_apply by name, else the taxonomy category's grid class.
  auto price_by_grid = [&](size_t k) -> bool {
    auto c = model_multi_tensor_kernel(m, tl.str(K.name[k]), K.grid[k]);
    if (!c) c = model_grid_kernel(m, category_of(K.name[k]), tl.str(K.name[k]), K.grid[k], K.block[k]);
    if (!c) return false;
    price_kernel(k, *c, c->flops, c->bytes, kGrid, true);
    return true;
  };
  // Left without a model by the tiers above: the signature and capture tiers get a last try.
  std::vector<std::pair<size_t, std::string>> left;
  auto unmodelled = [&](size_t k, const std::string& why) { left.emplace_back(k, why); };

  // Kernels of ops with a model: op row per kernel, and per op its kernels' time.
  std::vector<int64_t> kernel_op(K.size(), -1);
  struct OpTime {
    int64_t ns = 0;
    bool grouped = false;
  };
  std::unordered_map<size_t, OpTime> op_time;
  op_time.reserve(K.size() / 2);
  for (size_t k = 0; k < K.size(); ++k) {
    cov.gpu_op_ns += K.dur_ns[k];
    if (priced[k]) {
      tier_ns[kShapes] += K.dur_ns[k];
      if (priced[k] == 2) cov.inferred_shapes_ns += K.dur_ns[k];
      if (priced[k] == 3) cov.estimated_ns += K.dur_ns[k];
      continue;
    }
    if (K.kind[k] != GpuOpKind::Kernel) {
      if (K.bytes[k] == kNone || K.bytes[k] < 0) {
        // No byte count (ROCm Kineto): the launching op's shapes price it, where it has a model.
        auto op = K.external_id[k] != kNone ? op_by_ext.find(K.external_id[k]) : op_by_ext.end();
        if (op != op_by_ext.end()) {
          kernel_op[k] = static_cast<int64_t>(op->second);
          op_time[op->second].ns += K.dur_ns[k];
        } else {
          unmodelled(k, K.kind[k] == GpuOpKind::Memcpy ? "memcpy without a byte count" : "memset without a byte count");
        }
        continue;
      }
      ModelCost c;
      const bool d2d = K.kind[k] == GpuOpKind::Memcpy && K.copy_kind[k] == CopyKind::DtoD;
      c.cls = K.kind[k] == GpuOpKind::Memcpy ? "memcpy" : "memset";
      c.formula = d2d ? "bytes = 2 x the copied size (read and written in device memory)"
                      : (K.kind[k] == GpuOpKind::Memset ? "bytes = the size set (written once)"
                                                        : "bytes = the copied size (over the host or peer link)");
      c.source = "the byte count the trace records for the GPU op";
      // Host and peer copies cross a link whose bandwidth the spec database does not hold.
      price_kernel(k, c, 0, static_cast<double>(K.bytes[k]) * (d2d ? 2 : 1), kBytes,
                   d2d || K.kind[k] == GpuOpKind::Memset);
      continue;
    }
    if (auto co = K.correlation[k] != kNone ? coll_by_corr.find(K.correlation[k]) : coll_by_corr.end();
        co != coll_by_corr.end()) {
      const auto& C = tl.collectives;
      size_t r = co->second;
      int eb = dtype_bytes(tl.str(C.dtype[r]));
      if (!eb)
        if (const auto* t = kernel_dtype(m, tl.str(C.dtype[r]))) eb = t->bytes;
      double in_b = C.in_nelems[r] != kNone ? static_cast<double>(C.in_nelems[r]) * eb : 0;
      double out_b = C.out_nelems[r] != kNone ? static_cast<double>(C.out_nelems[r]) * eb : 0;
      auto cm = eb ? model_collective(m, tl.str(C.collective[r]), in_b, out_b, C.group_size[r]) : std::nullopt;
      if (cm && cm->size_bytes > 0) {
        ModelCost c;
        c.cls = "collective";
        c.dtype = normalize_dtype(tl.str(C.dtype[r]));
        c.formula = cm->formula;
        c.source = m.cite(m.collectives_source);
        price_kernel(k, c, 0, cm->size_bytes, kCollective, false);
        add_busbw(k, kCollective, *cm, true);
        continue;
      }
    }
    if (price_by_c10d(k) || price_by_annotation(k)) continue;
    int64_t ext = K.external_id[k];
    if (ext == kNone && K.correlation[k] != kNone) ext = ext_of_launch(K.correlation[k]);
    auto op = ext != kNone ? op_by_ext.find(ext) : op_by_ext.end();
    if (op != op_by_ext.end()) {
      kernel_op[k] = static_cast<int64_t>(op->second);
      op_time[op->second].ns += K.dur_ns[k];
      continue;
    }
    if (!price_by_grid(k)) {
      const std::string& cat = category_of(K.name[k]);
      unmodelled(k, cat.empty() ? std::string("kernel") : cat);
    }
  }

  // Ops priced by their shapes, cached by (name, dims, types, concrete inputs); each kernel gets
  // its op's cost by its share of the op's kernel time.
  std::map<std::tuple<StrId, StrId, StrId, StrId>, std::optional<ModelCost>> cache;
  std::map<std::string, int64_t> why_count;  // "op: why" → distinct shapes
  std::map<std::tuple<StrId, StrId, StrId>, std::unordered_map<StrId, int64_t>> group_kernel_ns;
  for (size_t k = 0; k < K.size(); ++k) {
    if (kernel_op[k] < 0) continue;
    const auto oi = static_cast<size_t>(kernel_op[k]);
    const OpClassRule& rule = *rule_of[ops.name[oi]];
    const auto key = std::make_tuple(ops.name[oi], ops.input_dims[oi], ops.input_types[oi], ops.concrete_inputs[oi]);
    auto it = cache.find(key);
    if (it == cache.end()) {
      const auto* dt = kernel_dtype(m, tl.str(K.name[k]));
      std::string why;
      auto c = model_op(m, rule, tl.str(ops.input_dims[oi]), tl.str(ops.input_types[oi]),
                        tl.str(ops.concrete_inputs[oi]), dt ? dt->bytes : 0, &why);
      if (!c) ++why_count[std::string(tl.str(ops.name[oi])) + ": " + why];
      it = cache.emplace(key, std::move(c)).first;
    }
    if (!it->second) {
      if (K.kind[k] != GpuOpKind::Kernel || !price_by_grid(k)) unmodelled(k, "op without shapes (" + rule.cls + ")");
      continue;
    }
    const ModelCost& c = *it->second;
    OpTime& ot = op_time[oi];
    const auto gkey = std::make_tuple(ops.name[oi], ops.input_dims[oi], ops.input_types[oi]);
    auto& g = op_groups[gkey];
    if (!ot.grouped) {  // the op instance, once
      ot.grouped = true;
      if (g.p.count == 0) {
        add_to(g, fmt::format("{} {}", tl.str(ops.name[oi]), tl.str(ops.input_dims[oi])), c, "shapes", ot.ns, c.flops,
               c.bytes);
        g.p.shapes = std::string(tl.str(ops.input_dims[oi]));
      } else {
        g.p.count++;
        g.p.time_ns += ot.ns;
        g.p.flops += c.flops;
        g.p.bytes += c.bytes;
      }
    }
    const double share = ot.ns > 0 ? static_cast<double>(K.dur_ns[k]) / ot.ns : 1.0;
    price_kernel(k, c, c.flops * share, c.bytes * share, kShapes, true);
    group_kernel_ns[gkey][K.name[k]] += K.dur_ns[k];
  }
  for (auto& [w, n] : why_count)
    rep.notes.push_back(fmt::format("{} distinct op shape(s) not priced by their shapes: {}", n, w));
  price_by_signature(tl, in.capture, sigs, left,
                     [&](size_t k, const SignatureCost& sc, const SignatureCost::Variant& v, bool capture) {
                       ModelCost c;
                       c.cls = sc.cls;
                       c.dtype = sc.dtype;
                       c.engine = sc.engine;
                       c.estimate = "inferred";
                       c.formula = fmt::format(
                           "{} identical launch(es) (name, grid, block; duration {:.1f}-{:.1f} us) priced by their "
                           "op's shapes{}: {}",
                           v.count, v.min_ns / 1e3, v.max_ns / 1e3, capture ? " in the capture trace" : "", v.formula);
                       c.source = "the kernel's twin launches priced by shapes (data/op_models.yaml: signature tier)";
                       price_kernel(k, c, v.mean_flops(), v.mean_bytes(), capture ? kCapture : kSignature, false);
                       rep.op_peak_tflops[k] = sc.peak_tflops;
                       kernel_has_roof[group_key(k, capture ? kCapture : kSignature)] = true;
                     });
  // A tile kernel whose dtype the name does not tell has no peak to be compared with: no roof.
  price_by_tile(tl, m, left,
                [&](size_t k, const ModelCost& c) { price_kernel(k, c, c.flops, c.bytes, kTile, !c.dtype.empty()); });
  // What stays unmodelled, and the kernels with the most of that time.
  std::unordered_map<int64_t, std::pair<std::string, RooflineCoverage::Unmodelled>> left_by_name;
  for (const auto& [k, why] : left) {
    cov.unmodelled_ns[why] += K.dur_ns[k];
    auto& [w, u] = left_by_name[group_key(k, kShapes)];
    if (u.count++ == 0) {
      w = why;
      u.kernel = K.kind[k] == GpuOpKind::Memcpy   ? copy_label(K.copy_kind[k])
                 : K.kind[k] == GpuOpKind::Memset ? std::string("Memset")
                                                  : demangle_kernel_name(tl.str(K.name[k]));
      u.why = why;
    }
    u.ns += K.dur_ns[k];
  }
  for (auto& [key, wu] : left_by_name) cov.top_unmodelled.push_back(std::move(wu.second));
  std::sort(cov.top_unmodelled.begin(), cov.top_unmodelled.end(),
            [](const auto& a, const auto& b) { return a.ns != b.ns ? a.ns > b.ns : a.kernel < b.kernel; });
  if (cov.top_unmodelled.size() > 10) cov.top_unmodelled.resize(10);
  for (int t = 0; t < kTiers; ++t)
    if (tier_ns[t]) cov.modelled_ns[kTierName[t]] += tier_ns[t];

  for (auto& [key, g] : op_groups) {
    std::vector<std::pair<int64_t, std::string>> ks;
    for (auto& [kn, ns] : group_kernel_ns[key]) ks.emplace_back(ns, std::string(tl.str(kn)));
    std::sort(ks.rbegin(), ks.rend());
    for (size_t i = 0; i < ks.size() && i < 4; ++i) g.p.kernels.push_back(ks[i].second);
    finish(g.p, gpu, true);
    rep.ops.push_back(std::move(g.p));
  }
  // kernel groups in label order (the unordered map's order would change run to run)
  std::vector<std::pair<std::string, int64_t>> labels;
  for (auto& [key, g] : kernel_groups) labels.emplace_back(g.p.label, key);
  std::sort(labels.begin(), labels.end());
  for (auto& [label, key] : labels) {
    auto& g = kernel_groups[key];
    finish(g.p, gpu, kernel_has_roof[key]);
    if (g.p.source == "collective" || g.p.source == "collective_annotation") g.p.bound = "communication";
    if (g.p.source == "gpu_op_bytes" && !kernel_has_roof[key]) g.p.bound = "host_link";
    rep.kernels.push_back(std::move(g.p));
  }
  if (cov.inferred_ns > 0)
    rep.notes.push_back(fmt::format(
        "{:.1f} % of GPU-op time is kernels with no model of their own (no launching op, or one without shapes) "
        "priced like an identical launch (same kernel name, grid and block, a duration that fits) that its op's "
        "shapes priced, in this trace ({:.1f} %) or the capture trace ({:.1f} %): estimate 'inferred'",
        cov.gpu_op_ns ? 100.0 * cov.inferred_ns / cov.gpu_op_ns : 0.0,
        cov.gpu_op_ns ? 100.0 * tier_ns[kSignature] / cov.gpu_op_ns : 0.0,
        cov.gpu_op_ns ? 100.0 * tier_ns[kCapture] / cov.gpu_op_ns : 0.0));
  if (cov.inferred_shapes_ns > 0)
    rep.notes.push_back(fmt::format(
        "{:.1f} % of GPU-op time is GEMM / convolution ops whose record lacks a shape or the dtype (Kineto before "
        "PyTorch 1.10: no Input type or Concrete Inputs), priced with the value the trace shows elsewhere (the "
        "output dims from the backward's grad_output or the next op, the dtype from the kernel names): estimate "
        "'inferred', the source in each formula",
        cov.gpu_op_ns ? 100.0 * cov.inferred_shapes_ns / cov.gpu_op_ns : 0.0));
  if (cov.estimated_ns > 0)
    rep.notes.push_back(fmt::format(
        "{:.1f} % of GPU-op time is priced by bounds (kernel grid: lower bounds on bytes for elementwise-class "
        "kernels, upper bounds for multi_tensor_apply; kernel tile: lower bounds on the work GEMM and convolution "
        "kernels without shapes issue, from the tile in their name and their grid, K unknown; varlen attention "
        "FLOPs at the maximum key length): estimate column",
        cov.gpu_op_ns ? 100.0 * cov.estimated_ns / cov.gpu_op_ns : 0.0));
}

}  // namespace goblin::hw
