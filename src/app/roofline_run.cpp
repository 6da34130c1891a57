#include "app/roofline_run.h"

#include <fmt/format.h>

#include "analysis/knowledge.h"
#include "app/capture_load.h"
#include "core/io.h"
#include "core/verb_result.h"
#include "hw/gpu_specs.h"
#include "hw/ncu_analysis.h"
#include "hw/rocprof_compute_map.h"
#include "hw/roofline.h"
#include "model/warning_json.h"
#include "trace/load.h"

namespace goblin::app {

namespace {

bool has_format(const Timeline& tl, Format f) {
  for (auto x : tl.meta.formats)
    if (x == f) return true;
  return false;
}

}  // namespace

namespace {
// What a roofline mode writes: the result JSON, the text and the SVG plot.
struct RooflineOutput {
  Json res;
  std::string h;
  std::string svg;
};

// Counters mode: Nsight Compute / rocprofiler-compute / rocprof counters, one point per kernel.
std::optional<Error> counters_roofline(const RooflineRequest& a, const Timeline& tl,
                                       const analysis::AnalysisKnowledge& knowledge,
                                       const std::optional<hw::GpuSpec>& gpu, const std::optional<Error>& gpu_err,
                                       bool amd_compute, RooflineOutput& o) {
  Json& res = o.res;
  std::string& h = o.h;
  std::string& svg = o.svg;
  auto out = std::back_inserter(h);
  const auto& rules = knowledge.ncu_rules;
  if (!rules.ok()) return rules.error();
  bool ncu = has_format(tl, Format::NcuCsv) || amd_compute;
  res["mode"] = amd_compute ? "rocprof_compute_counters" : ncu ? "nsight_compute_counters" : "rocprof_counters";
  const hw::RocprofComputeMap* amd_map = knowledge.rocprof_compute_map.ok() ? &*knowledge.rocprof_compute_map : nullptr;
  res["gpu"] = gpu ? Json(gpu->id) : Json(nullptr);
  Json ks = Json::array();
  std::vector<hw::SvgPoint> pts;
  fmt::format_to(out, "{} — {}\n",
                 amd_compute ? "rocprofiler-compute metrics, speed-of-light classification"
                 : ncu       ? "Nsight Compute speed-of-light classification"
                             : "rocprof counter roofline",
                 a.path);
  if (ncu)
    fmt::format_to(out, "{:>5} {:<54} {:>8} {:>8} {:>6} {:<14}\n", "id", "kernel", "SM %", "mem %", "waves", "class");
  for (auto& k : hw::counter_kernels(tl)) {
    if (ncu) {
      auto c = hw::classify_ncu_kernel(k, *rules);
      ks.push_back(hw::ncu_classification_json(c));
      std::string kn = c.kernel.size() > 54 ? c.kernel.substr(0, 51) + "..." : c.kernel;
      // "%f" cut to six characters, as these columns were first written.
      auto f = [](const std::optional<double>& v) {
        return v ? fmt::format("{:f}", *v).substr(0, 6) : std::string("-");
      };
      fmt::format_to(out, "{:>5} {:<54} {:>8} {:>8} {:>6} {:<14}\n      {}\n", c.key, kn, f(c.compute_pct),
                     f(c.memory_pct), f(c.waves), c.bound, c.reason);
      if (amd_compute && amd_map) {
        if (auto p = hw::rocprof_compute_point(k, *amd_map)) {
          Json& kj = ks.back();
          kj["flops_per_s"] = p->flops_per_s;
          kj["hbm_bytes_per_s"] = p->hbm_bytes_per_s;
          kj["intensity_flop_per_hbm_byte"] = round_to(p->flops_per_s / p->hbm_bytes_per_s, 6);
          pts.push_back({c.kernel, p->flops_per_s / p->hbm_bytes_per_s, p->flops_per_s / 1e12,
                         c.bound == "memory_bound" ? "memory" : (c.bound == "compute_bound" ? "compute" : "unknown")});
        }
      }
      if (c.flops && c.dram_bytes && c.duration_ns && *c.dram_bytes > 0 && *c.duration_ns > 0)
        pts.push_back({c.kernel, *c.flops / *c.dram_bytes, *c.flops / (*c.duration_ns * 1e-9) / 1e12,
                       c.bound == "memory_bound" ? "memory" : (c.bound == "compute_bound" ? "compute" : "unknown")});
    } else {
      auto rr = hw::rocprof_roofline(k);
      Json j = {{"id", k.key}, {"kernel", k.name}};
      j["valu_flops"] = rr.valu_flops ? Json(*rr.valu_flops) : Json(nullptr);
      j["mfma_flops"] = rr.mfma_flops ? Json(*rr.mfma_flops) : Json(nullptr);
      j["hbm_bytes"] = rr.hbm_bytes ? Json(*rr.hbm_bytes) : Json(nullptr);
      j["missing_counters"] = rr.missing;
      double fl = rr.valu_flops.value_or(0) + rr.mfma_flops.value_or(0);
      if ((rr.valu_flops || rr.mfma_flops) && rr.hbm_bytes && *rr.hbm_bytes > 0) {
        j["intensity_flop_per_hbm_byte"] = round_to(fl / *rr.hbm_bytes, 4);
        if (auto* d = k.get("DURATION")) {
          if (*d > 0) pts.push_back({k.name, fl / *rr.hbm_bytes, fl / (*d * 1e-9) / 1e12, "unknown"});
        }
      }
      ks.push_back(j);
      fmt::format_to(out, "{} {}: FLOPs {}, HBM bytes {}", k.key, k.name.substr(0, 60),
                     rr.valu_flops || rr.mfma_flops ? fmt::format("{:f}", fl) : "n/a",
                     rr.hbm_bytes ? fmt::format("{:f}", *rr.hbm_bytes) : "n/a");
      if (!rr.missing.empty())
        fmt::format_to(out, " (missing: {}{})", rr.missing.front(), rr.missing.size() > 1 ? ", ..." : "");
      h += "\n";
    }
  }
  res["kernels"] = ks;
  res["rules_source"] = rules->sol_source;
  std::optional<hw::EmpiricalRoofline> measured;
  if (amd_compute && amd_map) {
    auto it = tl.meta.extra.find("rocprof_compute_roofline_bench");
    if (it != tl.meta.extra.end()) measured = hw::empirical_roofline(it->second, *amd_map);
  }
  if (measured) {
    std::vector<hw::SvgRoof> roofs;
    Json jr = Json::object();
    for (const auto& [label, tf] : measured->roofs_tflops) {
      roofs.push_back({label, tf});
      jr[label] = tf;
    }
    res["empirical_roofline"] = {{"hbm_gb_per_s", measured->hbm_gbps}, {"peaks_tflops", jr}};
    fmt::format_to(out, "empirical roofline (rocprofiler-compute benchmark): HBM {:.1f} GB/s", measured->hbm_gbps);
    for (const auto& [label, tf] : measured->roofs_tflops) fmt::format_to(out, ", {} {:.1f} TFLOP/s", label, tf);
    h += "\n";
    svg =
        hw::roofline_svg("Empirical roofline (rocprofiler-compute): FLOPs / HBM bytes", measured->hbm_gbps, roofs, pts);
  } else if (gpu) {
    std::vector<hw::SvgRoof> roofs;
    for (const char* k : {"fp32", "bf16"})
      if (auto p = gpu->peak_tflops(k)) roofs.push_back({k, *p});
    auto bw = gpu->bandwidth_bytes_per_s();
    svg = hw::roofline_svg("Counter roofline (SIMT FLOPs / DRAM bytes): " + gpu->name, bw ? *bw / 1e9 : 0, roofs, pts);
  } else if (gpu_err) {
    h += "note: no roofline plot: " + gpu_err->message + "\n";
  }
  return std::nullopt;
}

// Trace mode: ops priced from their recorded shapes (and the capture trace's signatures).
std::optional<Error> trace_roofline(const RooflineRequest& a, const Timeline& tl,
                                    const analysis::AnalysisKnowledge& knowledge, const std::optional<hw::GpuSpec>& gpu,
                                    const std::optional<Error>& gpu_err, const std::optional<trace::LoadedTrace>& cin,
                                    Json capture_json, RooflineOutput& o) {
  const analysis::Taxonomy& tax = knowledge.taxonomy;
  Json& res = o.res;
  std::string& h = o.h;
  std::string& svg = o.svg;
  if (!gpu) return *gpu_err;
  hw::RooflineInputs rin;
  rin.engine_of = [&](std::string_view k) { return tax.engine(k); };
  rin.category_of = [&](std::string_view k) { return tax.classify(k).category; };
  if (knowledge.op_models.ok()) rin.models = &*knowledge.op_models;
  hw::KernelSignatures capture;
  if (!a.capture.empty()) {
    if (!rin.models) {
      return make_error(ErrorKind::Malformed,
                        "--capture needs the op models: " + knowledge.op_models.error().describe());
    }
    if (cin->damage) {  // a partial capture still prices what it holds; the result says so
      h += "warning: capture trace partly read: " + cin->damage->describe() + "\n";
    }
    hw::RooflineInputs cap = rin;
    cap.export_signatures = true;
    // The capture's kernels priced against this trace's GPU: its peaks are the roofs here.
    capture = hw::roofline_from_trace(cin->timeline, *gpu, cap).signatures;
    rin.capture = &capture;
  }
  auto rep = hw::roofline_from_trace(tl, *gpu, rin);
  if (!knowledge.op_models.ok())
    rep.notes.push_back("op models not loaded (only GEMM/attention/convolution priced): " +
                        knowledge.op_models.error().describe());
  res = hw::roofline_to_json(rep);
  res["input"] = a.path;
  res["mode"] = "trace_shapes";
  if (!a.capture.empty()) {
    capture_json["shape_priced_signatures"] = capture.size();
    res["capture"] = capture_json;
  }
  h += hw::roofline_human(rep, a.top);
  svg = hw::roofline_svg(rep);
  return std::nullopt;
}
}  // namespace

VerbResult run_roofline(const RooflineRequest& a, const analysis::AnalysisKnowledge& knowledge) {
  VerbResult r;
  auto in = trace::load_trace(a.path, trace::kNeedKernels | trace::kNeedCounters);
  if (!in) {
    r.error = in.error();
    return r;
  }
  // The capture trace is read once: its ops join this trace's graph replays here, and its own
  // kernels are priced below (the capture tier). No GPU activity is needed to read it (nothing
  // runs while a graph is captured), so a capture that cannot be read fails as triage's does.
  Json capture_json;
  std::optional<trace::LoadedTrace> cin;
  if (!a.capture.empty()) {
    auto c = trace::load_trace(a.capture, 0);
    if (!c) {
      r.error = c.error();
      return r;
    }
    cin = std::move(*c);
    capture_json = attach_capture(in->timeline, cin->timeline, a.capture);
  }
  const Timeline& tl = in->timeline;
  auto choice = hw::choose_gpu(knowledge, a.gpu, tl);
  if (!choice.ok()) {
    r.error = choice.error();
    return r;
  }
  const std::optional<hw::GpuSpec>& gpu = choice->gpu;
  const std::optional<Error>& gpu_err = choice->why_none;
  std::string h;
  Json res;
  res["input"] = a.path;
  if (!capture_json.is_null()) res["capture"] = capture_json;
  // A rocprofiler-compute database carries both dispatches and per-kernel metrics: its metrics,
  // mapped onto the Nsight Compute schema (data/rocprof_compute_metrics.yaml), are classified as
  // Nsight Compute's are, and plotted on the roofline rocprofiler-compute measured.
  const bool amd_compute = has_format(tl, Format::RocprofCompute);
  bool counters_mode = tl.counters.size() > 0 &&
                       (has_format(tl, Format::NcuCsv) || amd_compute || tl.gpu_ops.count(GpuOpKind::Kernel) == 0);
  RooflineOutput o{std::move(res), std::move(h), {}};
  std::optional<Error> failed = counters_mode ? counters_roofline(a, tl, knowledge, gpu, gpu_err, amd_compute, o)
                                              : trace_roofline(a, tl, knowledge, gpu, gpu_err, cin, capture_json, o);
  if (failed) {
    r.error = *failed;
    if (!counters_mode && !gpu) r.result = {{"input", a.path}};
    return r;
  }
  res = std::move(o.res);
  h = std::move(o.h);
  std::string svg = std::move(o.svg);
  if (!a.svg.empty()) {
    if (svg.empty()) {
      r.error = make_error(ErrorKind::NotFound, "no SVG: the GPU is unknown (pass --gpu ID)");
    } else {
      auto ws = write_file(a.svg, svg);
      if (!ws.ok())
        r.error = ws.error();
      else {
        res["svg"] = a.svg;
        h += "roofline plot written to " + a.svg + "\n";
      }
    }
  }
  if (!tl.warnings.empty()) res["input_warnings"] = warnings_to_json(tl.warnings);
  if (in->damage && !r.error) {
    r.error = in->damage;  // partial results kept in r.result
    h += "warning: input partly read: " + in->damage->describe() + "\n";
  }
  r.result = res;
  r.human = std::move(h);
  return r;
}

}  // namespace goblin::app
