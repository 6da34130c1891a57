#include "hw/ncu_analysis.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "core/text.h"
#include "hw/knowledge.h"

namespace goblin::hw {

namespace {
// rocprof counters can carry instance indexes ("TCC_EA0_RDREQ[3]") or a "_sum" suffix.
std::string base_counter(const std::string& n) {
  static const std::regex idx(R"(\[\d+\]$)");
  std::string b = std::regex_replace(n, idx, "");
  if (b.size() > 4 && b.compare(b.size() - 4, 4, "_sum") == 0) b = b.substr(0, b.size() - 4);
  return b;
}
}  // namespace

std::vector<CounterKernel> counter_kernels(const Timeline& tl) {
  std::map<int64_t, CounterKernel> by;
  const auto& c = tl.counters;
  for (size_t i = 0; i < c.size(); ++i) {
    auto& k = by[c.kernel_key[i]];
    k.key = c.kernel_key[i];
    if (k.name.empty()) k.name = std::string(tl.str(c.kernel_name[i]));
    std::string name(tl.str(c.counter[i]));
    if (name.find("__") == std::string::npos && name.find('[') != std::string::npos) {
      k.m[base_counter(name)] += c.value[i];  // rocprof per-instance counters: summed
    } else {
      k.m[name] = c.value[i];
    }
    if (c.unit[i] != kNoStr) k.unit[name] = std::string(tl.str(c.unit[i]));
  }
  // rocprofiler-compute kernels get goblin's schema keys derived from AMD's metrics
  // (data/rocprof_compute_metrics.yaml); other kernels are left as read.
  const auto kn = hw_knowledge();
  std::vector<CounterKernel> out;
  for (auto& [key, k] : by) {
    if (kn->rocprof_compute_map.ok()) add_schema_metrics(k, *kn->rocprof_compute_map);
    out.push_back(std::move(k));
  }
  return out;
}

const RemedyText* NcuRules::remedy(const std::string& id, const std::string& vendor) const {
  auto it = remedies.find(id);
  if (it == remedies.end()) return nullptr;
  for (const std::string& v : {vendor == "amd" ? vendor : std::string("nvidia"), std::string("any")})
    if (auto t = it->second.find(v); t != it->second.end()) return &t->second;
  return nullptr;
}

Result<NcuRules> load_ncu_rules() { return hw::hw_knowledge()->ncu_rules; }

Result<NcuRules> parse_ncu_rules(const std::string& text) {
  NcuRules r;
  try {
    YAML::Node n = YAML::Load(text);
    auto s = n["sol_bottleneck"];
    r.high_pct = s["high_throughput_pct"].as<double>();
    r.latency_pct = s["latency_pct"].as<double>();
    r.small_grid_waves = s["small_grid_waves"].as<double>();
    r.gap_pts = s["bound_gap_pts"].as<double>();
    r.sol_source = s["source"].as<std::string>();
    for (auto x : s["metrics"]["compute"]) r.compute_metrics.push_back(x.as<std::string>());
    for (auto x : s["metrics"]["memory"]) r.memory_metrics.push_back(x.as<std::string>());
    for (auto x : s["metrics"]["dram"]) r.dram_metrics.push_back(x.as<std::string>());
    for (auto x : s["metrics"]["waves"]) r.waves_metrics.push_back(x.as<std::string>());
    r.block_multiple = n["launch_configuration"]["block_multiple"].as<double>();
    r.occ_min_pct = n["theoretical_occupancy"]["min_pct_of_max"].as<double>();
    r.occ_gap_pts = n["achieved_occupancy"]["gap_pts"].as<double>();
    for (auto e : n["remedies"]) {
      const std::string id = e.first.as<std::string>();
      for (auto v : e.second) {
        const std::string vendor = v.first.as<std::string>();
        if (vendor != "nvidia" && vendor != "amd" && vendor != "any")
          return make_error(ErrorKind::Malformed,
                            "ncu_rules.yaml: remedies." + id + ": vendor '" + vendor + "' is not nvidia, amd or any",
                            "data/ncu_rules.yaml", -1, v.first.Mark().line + 1);
        RemedyText t{v.second["fix"].as<std::string>(""), v.second["rationale"].as<std::string>(""),
                     v.second["source"].as<std::string>("")};
        if (t.fix.empty() || t.rationale.empty() || t.source.empty())
          return make_error(ErrorKind::Malformed,
                            "ncu_rules.yaml: remedies." + id + "." + vendor + " needs fix, rationale and source",
                            "data/ncu_rules.yaml", -1, v.first.Mark().line + 1);
        r.remedies[id][vendor] = std::move(t);
      }
      const auto& m = r.remedies[id];
      if (!m.count("any") && !(m.count("nvidia") && m.count("amd")))
        return make_error(ErrorKind::Malformed, "ncu_rules.yaml: remedies." + id + " needs `any` or both `nvidia` and `amd`",
                          "data/ncu_rules.yaml", -1, e.first.Mark().line + 1);
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("cannot parse ncu_rules.yaml: ") + e.what(),
                      "data/ncu_rules.yaml");
  }
  return r;
}

NcuClassification classify_ncu_kernel(const CounterKernel& k, const NcuRules& R) {
  NcuClassification c;
  c.key = k.key;
  c.kernel = k.name;
  auto first = [&](const std::vector<std::string>& names, std::string* which) -> std::optional<double> {
    for (auto& n : names)
      if (auto* v = k.get(n)) {
        if (which) *which = n;
        return *v;
      }
    return std::nullopt;
  };
  std::string cm, mm, dm, wm;
  c.compute_pct = first(R.compute_metrics, &cm);
  c.memory_pct = first(R.memory_metrics, &mm);
  c.dram_pct = first(R.dram_metrics, &dm);
  c.waves = first(R.waves_metrics, &wm);
  if (auto* d = k.get("gpu__time_duration.sum")) c.duration_ns = *d;
  if (c.compute_pct) c.evidence.push_back({cm, *c.compute_pct, "%", "compute (SM) throughput, % of peak"});
  if (c.memory_pct) c.evidence.push_back({mm, *c.memory_pct, "%", "memory throughput, % of peak (max over units)"});
  if (c.dram_pct && dm != mm) c.evidence.push_back({dm, *c.dram_pct, "%", "DRAM throughput, % of peak"});
  if (c.waves) c.evidence.push_back({wm, *c.waves, "", "waves per SM (grid / concurrent blocks)"});
  // Roofline point from counters where possible.
  double fl = 0;
  bool any = false;
  auto add = [&](const char* n, double mult) {
    if (auto* v = k.get(n)) {
      fl += *v * mult;
      any = true;
    }
  };
  add("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 2);
  add("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1);
  add("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1);
  add("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 2);
  add("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 1);
  add("smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 1);
  add("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 4);
  add("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 2);
  add("smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 2);
  if (any) c.flops = fl;
  auto* rd = k.get("dram__bytes_read.sum");
  auto* wr = k.get("dram__bytes_write.sum");
  if (rd || wr) c.dram_bytes = (rd ? *rd : 0) + (wr ? *wr : 0);

  if (!c.compute_pct || !c.memory_pct) {
    c.bound = "unknown";
    c.reason = "speed-of-light metrics not collected (need " + R.compute_metrics.front() + " and " +
               R.memory_metrics.front() + "; ncu --section SpeedOfLight)";
    return c;
  }
  double sm = *c.compute_pct, mem = *c.memory_pct;
  // Speed-of-light values are shares of a peak: one outside 0..100 % (negative, or past the peak
  // by more than rounding) comes from a damaged or hand-edited CSV and classifies nothing.
  for (const auto& [what, v] : {std::pair{"compute", sm}, std::pair{"memory", mem}}) {
    if (!(v >= 0.0 && v <= 105.0)) {
      c.bound = "unknown";
      c.reason = std::string(what) + " throughput " + format_sig(v, 4) +
                 "% of peak is outside 0-100 %: the CSV is damaged or edited; not classified";
      return c;
    }
  }
  if (sm >= R.high_pct || mem >= R.high_pct) {
    c.bound = sm >= mem ? "compute_bound" : "memory_bound";
    c.reason = std::string(sm >= mem ? "compute" : "memory") + " throughput " + format_sig(std::max(sm, mem), 4) +
               "% >= " + format_sig(R.high_pct, 4) + "% of peak (NCU: high throughput; the " +
               (sm >= mem ? "SM pipelines" : "memory system") + " is the limiter)";
  } else if (sm < R.latency_pct && mem < R.latency_pct) {
    if (c.waves && *c.waves < R.small_grid_waves) {
      c.bound = "small_grid";
      c.reason = "compute " + format_sig(sm, 4) + "% and memory " + format_sig(mem, 4) + "% both < " +
                 format_sig(R.latency_pct, 4) + "% with " + format_sig(*c.waves, 4) + " waves per SM < " +
                 format_sig(R.small_grid_waves, 4) + ": the grid is too small to fill the GPU";
    } else {
      c.bound = "latency_bound";
      c.reason = "compute " + format_sig(sm, 4) + "% and memory " + format_sig(mem, 4) + "% both < " +
                 format_sig(R.latency_pct, 4) +
                 "% of peak: neither unit is busy, so latency (stalls, dependencies, too few warps) limits it";
    }
  } else if (sm - mem >= R.gap_pts) {
    c.bound = "compute_bound";
    c.reason = "compute " + format_sig(sm, 4) + "% exceeds memory " + format_sig(mem, 4) +
               "% by >= " + format_sig(R.gap_pts, 4) + " points (both < " + format_sig(R.high_pct, 4) +
               "%): compute-bound, below peak";
  } else if (mem - sm >= R.gap_pts) {
    c.bound = "memory_bound";
    c.reason = "memory " + format_sig(mem, 4) + "% exceeds compute " + format_sig(sm, 4) +
               "% by >= " + format_sig(R.gap_pts, 4) + " points (both < " + format_sig(R.high_pct, 4) +
               "%): memory-bound, below peak";
  } else {
    c.bound = "latency_bound";
    c.reason = "compute " + format_sig(sm, 4) + "% and memory " + format_sig(mem, 4) + "% are balanced and below " +
               format_sig(R.high_pct, 4) + "%: latency limits both";
  }
  return c;
}

std::vector<NcuClassification> classify_ncu(const Timeline& tl, const NcuRules& rules) {
  std::vector<NcuClassification> out;
  for (auto& k : counter_kernels(tl)) out.push_back(classify_ncu_kernel(k, rules));
  return out;
}

Json ncu_classification_json(const NcuClassification& c) {
  Json j;
  j["id"] = c.key;
  j["kernel"] = c.kernel;
  j["classification"] = c.bound;
  j["reason"] = c.reason;
  auto opt = [](const std::optional<double>& v) { return v ? Json(round_to(*v, 3)) : Json(nullptr); };
  j["compute_pct"] = opt(c.compute_pct);
  j["memory_pct"] = opt(c.memory_pct);
  j["dram_pct"] = opt(c.dram_pct);
  j["waves_per_sm"] = opt(c.waves);
  j["duration_ns"] = opt(c.duration_ns);
  Json ev = Json::array();
  for (auto& e : c.evidence)
    ev.push_back({{"metric", e.metric}, {"value", e.value}, {"unit", e.unit}, {"interpretation", e.interpretation}});
  j["evidence"] = ev;
  if (c.flops) j["simt_flops"] = *c.flops;
  if (c.dram_bytes) j["dram_bytes"] = *c.dram_bytes;
  if (c.flops && c.dram_bytes && *c.dram_bytes > 0)
    j["simt_intensity_flop_per_dram_byte"] = round_to(*c.flops / *c.dram_bytes, 4);
  return j;
}

RocprofRoofline rocprof_roofline(const CounterKernel& k) {
  RocprofRoofline r;
  auto get = [&](const std::string& n) -> std::optional<double> {
    if (auto* v = k.get(n)) return *v;
    return std::nullopt;
  };
  double valu = 0;
  bool any_valu = false;
  for (const char* dt : {"F16", "F32", "F64"}) {
    std::string p = std::string("SQ_INSTS_VALU_");
    auto add = get(p + "ADD_" + dt), mul = get(p + "MUL_" + dt), fma = get(p + "FMA_" + dt),
         tr = get(p + "TRANS_" + dt);
    if (add || mul || fma || tr) {
      any_valu = true;
      valu += 64 * (add.value_or(0) + mul.value_or(0) + 2 * fma.value_or(0) + tr.value_or(0));
    }
  }
  if (any_valu)
    r.valu_flops = valu;
  else
    r.missing.push_back("SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_{F16,F32,F64}");
  double mfma = 0;
  bool any_mfma = false;
  for (const char* dt : {"F8", "F16", "BF16", "F32", "F64", "I8"}) {
    if (auto v = get(std::string("SQ_INSTS_VALU_MFMA_MOPS_") + dt)) {
      any_mfma = true;
      mfma += 512 * *v;
    }
  }
  if (any_mfma)
    r.mfma_flops = mfma;
  else
    r.missing.push_back("SQ_INSTS_VALU_MFMA_MOPS_*");
  auto bubble = get("TCC_BUBBLE"), rd32 = get("TCC_EA0_RDREQ_32B"), rd = get("TCC_EA0_RDREQ"),
       wr = get("TCC_EA0_WRREQ"), wr64 = get("TCC_EA0_WRREQ_64B");
  if (rd && wr && rd32 && wr64) {
    double b = bubble.value_or(0);
    r.hbm_bytes = 128 * b + 32 * *rd32 + 64 * (*rd - b - *rd32) + 32 * (*wr - *wr64) + 64 * *wr64;
  } else {
    r.missing.push_back("TCC_EA0_RDREQ, TCC_EA0_RDREQ_32B, TCC_EA0_WRREQ, TCC_EA0_WRREQ_64B (+ TCC_BUBBLE on MI300)");
  }
  return r;
}

}  // namespace goblin::hw
