#include "analysis/triage_artifacts.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <tuple>

#include "analysis/knowledge.h"
#include "core/build_info.h"
#include "core/escape.h"
#include "core/io.h"
#include "core/phases.h"
#include "core/text.h"
#include "hw/gpu_specs.h"
#include "hw/roofline.h"
#include "model/warning_json.h"

namespace goblin::analysis {

namespace {
bool has(std::string_view h, std::string_view n) { return h.find(n) != std::string_view::npos; }
std::string ms(int64_t ns) { return format_fixed(ns / 1e6, 3); }
// `s` padded with spaces to `n` bytes, as printf's %-Ns pads (fmt's {:<N} counts display width).
std::string pad(std::string s, size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}
// A kernel or op name in a Markdown table: escaped (core/escape.h; names come from recordings and
// may hold HTML, Markdown or a `|`) and cut to `n` bytes.
std::string md_cell(const std::string& s, size_t n = 90) { return md_text(s, n); }
// The same name in the terminal's summary, which is not Markdown: as recorded, controls masked.
std::string term_cell(const std::string& s, size_t n = 90) { return plain_text(s, n); }

std::string norm_arch(std::string a) {
  a = ascii_lower(a);
  size_t c = a.find(':');
  if (c != std::string::npos) a = a.substr(0, c);
  while (!a.empty() && a.back() == ' ') a.pop_back();
  return a;
}
}  // namespace

namespace {
// Every GPU op priced by the roofline's op models (the costly part of triage's pricing): reads only
// the Timeline and the knowledge, so it may run beside the other analyses.
struct Priced {
  bool ok = false;  // op models loaded
  hw::GpuSpec gpu;
  bool gpu_known = false;
  hw::RooflineReport rep;
};
Priced price_gpu_ops(const Timeline& tl, const AnalysisKnowledge& k) {
  PhaseTimer pt("triage: roofline pricing");
  Priced p;
  if (!k.op_models.ok()) return p;
  p.ok = true;
  if (auto g = hw::gpu_for_timeline(k, tl); g.ok()) {
    p.gpu = *g;
    p.gpu_known = true;
  }
  hw::RooflineInputs in;
  in.engine_of = [&](std::string_view n) { return k.taxonomy.engine(n); };
  in.category_of = [&](std::string_view n) { return k.taxonomy.classify(n).category; };
  in.models = &*k.op_models;
  p.rep = hw::roofline_from_trace(tl, p.gpu, in);
  return p;
}

// The priced GPU ops summed per kernel-table row.
void price_kernel_rows(const Timeline& tl, const Priced& priced, TriageReport& r) {
  r.kernel_roof.assign(r.kernels.rows.size(), KernelRoof{});
  if (!priced.ok) return;
  const hw::GpuSpec& gpu = priced.gpu;
  if (priced.gpu_known) r.roofline_gpu = gpu.id;
  const hw::RooflineReport& rep = priced.rep;
  r.unmodelled_share = rep.coverage.unmodelled_share();
  const auto bw = gpu.bandwidth_bytes_per_s();
  const GpuOpTable& K = tl.gpu_ops;
  for (size_t i = 0; i < K.size() && i < r.kernels.op_row.size(); ++i) {
    const int32_t row = r.kernels.op_row[i];
    if (row < 0 || rep.op_flops[i] < 0) continue;
    KernelRoof& x = r.kernel_roof[row];
    x.flops += rep.op_flops[i];
    x.bytes += rep.op_bytes[i];
    x.modelled_ns += K.dur_ns[i];
    if (rep.op_peak_tflops[i] > 0 && bw) {
      const double c = rep.op_flops[i] / (rep.op_peak_tflops[i] * 1e12), m = rep.op_bytes[i] / *bw;
      x.roof_s += std::max(c, m);
      x.compute_s += c;
      x.memory_s += m;
      x.roofed_ns += K.dur_ns[i];
    }
  }
  // A row above 100 % of its roofline is flagged (hw/ceiling.h), never shown as a plain figure.
  for (size_t row = 0; row < r.kernel_roof.size(); ++row) {
    KernelRoof& x = r.kernel_roof[row];
    if (x.roofed_ns <= 0) continue;
    x.above_peak =
        hw::above_physical_peak(100.0 * x.roof_s / (x.roofed_ns * 1e-9), r.kernels.rows[row].name + " % of roofline",
                                "its roofline on " + (gpu.id.empty() ? std::string("an unknown GPU") : gpu.id));
  }
}
}  // namespace

Result<TriageReport> run_triage(const Timeline& tl, const TriageOptions& opt) {
  ASSIGN_OR_RETURN(auto k, analysis_knowledge());
  return run_triage(tl, *k, opt);
}

Result<TriageReport> run_triage(const Timeline& tl, const AnalysisKnowledge& k, const TriageOptions& opt) {
  TriageReport r;
  // Each analysis is one phase of --phase-times (docs/scale.md § Threads).
  auto timed = [](const char* name, auto&& fn) {
    PhaseTimer pt(name);
    fn();
  };
  const hw::VendorFinding vf = hw::vendor_of_timeline(k, tl);
  r.vendor = vf.vendor;
  // The roofline pricing (the longest analysis) runs on a thread of its own beside the other
  // analyses when the process may use more than one; it reads only the
  // Timeline and the knowledge (the taxonomy's memo is locked), so the report is the same bytes.
  std::future<Priced> pricing;
  // Small traces stay on one thread: nothing to win, and the performance gate's instruction counts
  // stay exact (two threads may both classify a kernel name before the memo holds it).
  const bool beside = worker_threads() > 1 && tl.gpu_ops.size() + tl.cpu_ops.size() >= (size_t{1} << 18);
  if (beside) pricing = std::async(std::launch::async, [&] { return price_gpu_ops(tl, k); });
  timed("triage: exposure", [&] { r.exposure = compute_exposure(tl); });
  timed("triage: launch attribution", [&] { r.attribution = attribute_launches(tl); });
  timed("triage: kernel table", [&] { r.kernels = build_kernel_table(tl, r.exposure, r.attribution, &k.taxonomy); });
  timed("triage: overlap table", [&] {
    r.overlap =
        build_overlap_table(tl, r.kernels, scopes_from_attribution(r.attribution), r.vendor, k.overlap, k.taxonomy);
  });
  timed("triage: fuse table", [&] { r.fuse = build_fuse_table(tl, r.kernels, r.attribution, k.fusion, r.vendor); });
  timed("triage: module attribution", [&] {
    r.module_attribution = attribute_modules(tl, r.attribution);
    r.modules = build_module_table(tl, r.attribution, r.module_attribution, r.kernels);
  });
  timed("triage: stages", [&] { r.stages = split_stages(tl, r.attribution, r.kernels, *k.stages); });
  {  // none of the tables above reads the pricing
    const Priced priced = pricing.valid() ? pricing.get() : price_gpu_ops(tl, k);
    timed("triage: roofline, per kernel row", [&] { price_kernel_rows(tl, priced, r); });
  }
  timed("triage: steps", [&] { r.steps = triage_steps(tl); });
  PhaseTimer rest("triage: metadata and notes");
  if (r.exposure.negative_duration_ops)
    r.notes.push_back(
        make_warning(W::triage_negative_duration_skipped,
                     fmt::format("{} GPU ops with negative duration skipped", r.exposure.negative_duration_ops)));
  if (r.kernels.ops == 0)
    r.notes.push_back(
        make_warning(W::triage_no_gpu_ops, "the input holds no GPU kernels, memcpys or memsets: every table is empty"));
  if (!r.attribution.has_python_frames)
    r.notes.push_back(make_warning(W::triage_no_python_frames,
                                   "no python_function frames (profile with with_stack=True for Python locations)"));

  // ---- profile_metadata.json ----
  Json m;
  auto extra = [&](const char* key) -> Json {
    auto it = tl.meta.extra.find(key);
    if (it == tl.meta.extra.end()) return nullptr;
    // Workload-written JSON: nested past the limit it stays text (a deep value costs recursion).
    if (json_depth_exceeded(it->second, limits::kMaxJsonDepth) >= 0) return Json(it->second);
    Json v = Json::parse(it->second, nullptr, false);
    return v.is_discarded() ? Json(it->second) : v;
  };
  Json sources;
  // The command line's linkage (--experiment / --trial) over what the trace's metadata says.
  for (const auto& [key, given, flag] : {std::tuple{"experiment_id", &opt.experiment_id, "--experiment"},
                                         std::tuple{"trial_id", &opt.trial_id, "--trial"}}) {
    m[key] = given->empty() ? extra(key) : Json(*given);
    if (!m[key].is_null()) sources[key] = given->empty() ? std::string("trace metadata ") + key : std::string(flag);
  }
  // Observed arch: the first device with GPU activity (else the first device listed).
  std::string observed;
  std::string how = "no device properties in the trace";
  std::vector<int32_t> active;
  for (const auto& d : r.exposure.devices)
    if (d.ops > 0 && d.device != kNone) active.push_back(d.device);
  const DeviceInfo* dev = nullptr;
  for (const auto& d : tl.meta.devices)
    if (!dev || (std::find(active.begin(), active.end(), d.id) != active.end() &&
                 std::find(active.begin(), active.end(), dev->id) == active.end()))
      dev = &d;
  Json devices = Json::array();
  for (const auto& d : tl.meta.devices) {
    hw::ObservedArch oa = hw::observe_arch(k, d, r.vendor);
    devices.push_back({{"id", d.id},
                       {"name", d.name},
                       {"observed_arch", oa.arch.empty() ? Json(nullptr) : Json(oa.arch)},
                       {"how", oa.how}});
  }
  if (dev) {
    hw::ObservedArch oa = hw::observe_arch(k, *dev, r.vendor);
    observed = oa.arch;
    how = oa.how;
  }
  hw::ArchMatch am = hw::match_arch(k, observed, opt.target_arch);
  m["observed_arch"] = observed.empty() ? Json(nullptr) : Json(observed);
  m["arch_match"] = am.match;
  m["hardware_relevance_reason"] = am.reason;
  m["target_arch"] = opt.target_arch.empty() ? Json(nullptr) : Json(norm_arch(opt.target_arch));
  sources["observed_arch"] = how;
  // rocm_version: a ROCm version the workload wrote, else HIP's runtime/driver version integer
  // decoded (HIP ships with, and is versioned as, its ROCm release: major.minor).
  Json rocm = nullptr;
  Json versions = Json::object();
  for (const auto& [k, v] : tl.meta.versions) versions[k] = v;
  for (const char* k : {"rocm", "rocm_version"})
    if (auto it = tl.meta.versions.find(k); it != tl.meta.versions.end()) {
      rocm = it->second;
      sources["rocm_version"] = std::string("trace metadata ") + k;
      break;
    }
  for (const char* k : {"hip_runtime", "hip_driver", "hip"}) {
    auto it = tl.meta.versions.find(k);
    if (it == tl.meta.versions.end()) continue;
    auto hip = hw::decode_hip_version(it->second);
    if (!hip) continue;
    versions[std::string(k) + "_decoded"] = *hip;
    if (rocm.is_null()) {
      rocm = hip->substr(0, hip->rfind('.'));
      sources["rocm_version"] = std::string(k) + "_version " + it->second + " = HIP " + *hip +
                                " (major*10^7 + minor*10^5 + patch); HIP is versioned with its ROCm release";
    }
  }
  m["rocm_version"] = rocm;
  m["versions"] = versions;
  m["base_image"] = extra("base_image");
  m["resource_class"] = extra("resource_class");
  Json ids = extra("gpu_device_ids");
  if (ids.is_null() && !active.empty()) {
    ids = active;
    sources["gpu_device_ids"] = "observed: device ids with GPU activity in the trace";
  }
  m["gpu_device_ids"] = ids;
  m["gpu_clocks_mhz"] = extra("gpu_clocks_mhz");
  m["preflight_passed"] = extra("preflight_passed");
  m["server_flags"] = extra("server_flags");
  m["benchmark_config_hash"] = extra("benchmark_config_hash");
  m["model_name"] = extra("model_name");
  Json stage = opt.stage.empty() ? Json(nullptr) : Json(opt.stage);
  if (opt.stage.empty() && !r.stages.profile_stage.empty()) {
    stage = r.stages.profile_stage;
    sources["profile_stage"] = r.stages.from_annotations
                                   ? "stage annotations (stage_table.json; data/serving_stages.yaml)"
                                   : "attention op names (data/serving_stages.yaml § attention_op_names)";
  } else if (opt.stage.empty()) {
    std::string fname = ascii_lower(std::filesystem::path(opt.source_path).filename().string());
    for (const char* s : {"prefill", "extend", "decode"})
      if (has(fname, s)) {
        stage = s;
        sources["profile_stage"] = "inferred from the file name";
        break;
      }
  } else {
    sources["profile_stage"] = "--stage";
  }
  m["profile_stage"] = stage;
  m["source_trace_path"] = opt.source_path;
  m["vendor"] = hw::vendor_name(r.vendor);
  sources["vendor"] = vf.decided_by.empty() ? Json("no signal in the trace names a vendor") : Json(vf.decided_by);
  m["vendor_evidence"] = vf.evidence;
  if (!vf.conflicts.empty())
    r.notes.push_back(
        make_warning(W::triage_vendor_signals_disagree, "vendor signals disagree: " + vf.conflicts.front()));
  m["devices"] = devices;
  Json fmts = Json::array();
  for (Format f : tl.meta.formats) fmts.push_back(format_name(f));
  m["trace_formats"] = fmts;
  if (tl.meta.distributed.rank != kNone) m["rank"] = tl.meta.distributed.rank;
  if (tl.meta.distributed.world_size != kNone) m["world_size"] = tl.meta.distributed.world_size;
  m["generated_by"] = std::string("goblin ") + GOBLIN_VERSION;
  m["goblin"] = build_info_json();
  m["field_sources"] = sources;
  m["null_means"] = "not recorded in the trace (never guessed); pass it through the workload's trace metadata";
  Json win = Json::array();
  for (const auto& d : r.exposure.devices)
    win.push_back({{"device", d.device},
                   {"window_us", round_to((d.window_end_ns - d.window_start_ns) / 1000.0, 3)},
                   {"busy_us", round_to(d.busy_ns / 1000.0, 3)},
                   {"multi_stream_us", round_to(d.multi_stream_ns / 1000.0, 3)},
                   {"peak_concurrency", d.peak_concurrency},
                   {"streams", d.streams}});
  m["gpu_window"] = win;
  m.update(triage_steps_json(r.steps));
  // The reader's warnings, then triage's own (model/warning_json.h: the one warning shape).
  m["warnings"] = warnings_to_json(tl.warnings);
  for (const auto& n : r.notes) m["warnings"].push_back(warning_to_json(n));
  r.metadata = std::move(m);

  // ---- profile_summary.md ----
  std::string s;
  s += "# GPU profile triage\n\n";
  s += "- Trace: " + md_code(opt.source_path) + "\n";
  s += "- Vendor: " + std::string(hw::vendor_name(r.vendor)) +
       "; observed arch: " + (observed.empty() ? "unknown" : observed) + " (" + how + ")\n";
  s += "- arch_match: **" + am.match + "**: " + am.reason + "\n";
  if (!stage.is_null()) s += "- Stage: " + stage.get<std::string>() + "\n";
  s += "\n## GPU time (window: first to last GPU op per device)\n\n";
  s += "| device | window ms | busy ms | busy % | idle ms | 2+ streams ms | peak concurrency "
       "|\n|---|---|---|---|---|---|---|\n";
  for (const auto& d : r.exposure.devices) {
    int64_t w = d.window_end_ns - d.window_start_ns;
    s += "| " + fmt::format("{}", d.device) + " | " + ms(w) + " | " + ms(d.busy_ns) + " | " +
         format_fixed(w > 0 ? 100.0 * d.busy_ns / w : 0, 1) + " | " + ms(w - d.busy_ns) + " | " +
         ms(d.multi_stream_ns) + " | " + fmt::format("{}", d.peak_concurrency) + " |\n";
  }
  s += "\nbusy = union of GPU ops over all streams; idle = window − busy; 2+ streams = time with ops in flight on at "
       "least two streams.\n";
  s += "\n## Kernel table (top " + fmt::format("{}", opt.top) + " of " + fmt::format("{}", r.kernels.rows.size()) +
       "; share = op time / summed GPU-op time " + ms(r.kernels.total_ns) + " ms)\n\n";
  s += "| kernel | category | family | time ms | share % | launches | mean us | exposed % | CPU op | Python |\n"
       "|---|---|---|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.kernels.rows.size() && static_cast<int>(i) < opt.top; ++i) {
    const auto& k = r.kernels.rows[i];
    s += "| " + md_cell(k.name, 70) + " | " + k.category + " | " + k.family + " | " + ms(k.total_ns) + " | " +
         format_fixed(k.share_pct, 2) + " | " + fmt::format("{}", k.launches) + " | " +
         format_fixed(k.mean_ns() / 1000, 1) + " | " +
         format_fixed(k.total_ns ? 100.0 * k.exposed_ns / k.total_ns : 0, 0) + " | " + md_cell(k.cpu_op, 40) + " | " +
         md_cell(k.python_location, 50) + " |\n";
  }
  s += "\nCPU op attributed for " + fmt::format("{}", r.attribution.with_cpu_op) + " of " +
       fmt::format("{}", r.kernels.ops) + " GPU ops; Python location for " +
       fmt::format("{}", r.attribution.with_python) + ".\n";
  s += "\n## Overlap opportunities (P1–P3)\n\n| priority | verdict | kernel | excl % | hid % | dep risk | share % | "
       "next step | recommendation |\n|---|---|---|---|---|---|---|---|---|\n";
  int shown = 0;
  std::map<std::string, double> next_share;
  for (const auto& o : r.overlap) {
    if (o.priority > Priority::P3) continue;
    next_share[o.next_step] += o.share_pct;
    if (shown++ >= opt.top) continue;
    s += "| " + std::string(priority_name(o.priority)) + " | " + o.verdict + " | " + md_cell(o.kernel, 60) + " | " +
         format_fixed(o.exclusive_pct, 0) + " | " + format_fixed(o.hidden_pct, 0) + " | " + o.dependency_risk + " | " +
         format_fixed(o.share_pct, 2) + " | " + o.next_step + " | " + md_cell(o.recommendation, 120) + " |\n";
  }
  if (!shown) s += "| – | no row with headroom above 1% share | | | | | | | |\n";
  s += "\nexcl % = exposed time (no other stream busy) / kernel time; headroom = excl ≥ 45% and ≥ 5 µs exposed; "
       "thresholds: data/overlap_heuristics.yaml.\n";
  s += "\n## Time by nn.Module (module_table.json; top " + fmt::format("{}", opt.top) + ")\n\n" +
       module_table_markdown(r.modules, opt.top);
  if (r.modules.available) s += "\n" + module_attribution_line(r.modules);
  if (r.modules.graph_replay_ops > 0)
    s += "\n" + fmt::format("{}", r.modules.graph_replay_ops) +
         " GPU ops ran in CUDA/HIP graph replays, attributed to their graph launch (the capture trace would give "
         "their modules).\n";
  s += "\n## Serving stages (stage_table.json)\n\n" + stage_split_markdown(r.stages, opt.top);
  s += "\n## Fuse opportunities\n\n| pattern | confidence | related ms | share % | occurrences | candidate | evidence "
       "|\n|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.fuse.size() && static_cast<int>(i) < opt.top; ++i) {
    const auto& f = r.fuse[i];
    s += "| " + f.pattern + " | " + f.confidence + " | " + ms(f.related_ns) + " | " + format_fixed(f.share_pct, 2) +
         " | " + fmt::format("{}", f.occurrences) + " | " + md_cell(f.candidate, 80) + " | " +
         md_cell(f.evidence, 140) + " |\n";
  }
  if (r.fuse.empty()) s += "| – | no pattern of data/fusion_patterns.yaml matched | | | | | |\n";
  // The triage skill's reviewer rule: what kind of work is next.
  s += "\n## Next step (reviewer rule)\n\n";
  if (next_share.empty()) {
    s += "No P1–P3 row: nothing with clear headroom; look at idle time and step structure (goblin metrics).\n";
  } else {
    std::vector<std::pair<double, std::string>> v;
    for (auto& [k, x] : next_share) v.push_back({x, k});
    std::sort(v.rbegin(), v.rend());
    for (auto& [x, k] : v) s += "- **" + k + "**: " + format_fixed(x, 1) + "% of GPU-op time in P1–P3 rows\n";
  }
  if (!r.notes.empty()) {
    s += "\n## Notes\n\n";
    for (const auto& n : r.notes) s += "- " + n.message + "\n";
  }
  // Every name above is md_text-escaped; the trace path, arch strings and notes are not Markdown
  // cells, so the file as a whole goes through terminal_text: no control character of a recording
  // reaches whoever runs `cat profile_summary.md`.
  r.summary_md = terminal_text(s);
  return r;
}

Json kernel_table_to_json(const KernelTableResult& kt, const std::vector<KernelRoof>* roof) {
  Json a = Json::array();
  for (size_t ri = 0; ri < kt.rows.size(); ++ri) {
    const auto& k = kt.rows[ri];
    Json j;
    j["kernel"] = k.name;
    j["full_name"] = k.full_name;
    j["distinct_full_names"] = k.distinct_full_names;
    j["kind"] = gpu_op_kind_name(k.kind);
    j["category"] = k.category;
    j["family"] = k.family;
    j["taxonomy_rule"] = k.rule_id.empty() ? Json(nullptr) : Json(k.rule_id);
    j["time_us"] = round_to(k.total_ns / 1000.0, 3);
    j["share_pct"] = round_to(k.share_pct, 4);
    j["launches"] = k.launches;
    j["mean_us"] = round_to(k.mean_ns() / 1000.0, 3);
    j["min_us"] = round_to(k.min_ns / 1000.0, 3);
    j["max_us"] = round_to(k.max_ns / 1000.0, 3);
    j["exposed_us"] = round_to(k.exposed_ns / 1000.0, 3);
    j["hidden_us"] = round_to(k.hidden_ns / 1000.0, 3);
    j["cpu_op"] = k.cpu_op.empty() ? Json(nullptr) : Json(k.cpu_op);
    j["cpu_op_agreement"] = round_to(k.cpu_op_agreement, 3);
    j["python_location"] = k.python_location.empty() ? Json(nullptr) : Json(k.python_location);
    j["devices"] = k.devices;
    j["streams"] = k.streams;
    if (roof && ri < roof->size()) {
      const KernelRoof& x = (*roof)[ri];
      const bool m = x.modelled_ns > 0;
      j["modelled_share"] = k.total_ns ? round_to(static_cast<double>(x.modelled_ns) / k.total_ns, 4) : 0.0;
      j["flops"] = m ? Json(x.flops) : Json(nullptr);
      j["bytes"] = m ? Json(x.bytes) : Json(nullptr);
      j["achieved_tflops"] = m ? Json(round_to(x.flops / (x.modelled_ns * 1e-9) / 1e12, 3)) : Json(nullptr);
      j["achieved_gbs"] = m ? Json(round_to(x.bytes / (x.modelled_ns * 1e-9) / 1e9, 1)) : Json(nullptr);
      j["pct_of_roofline"] =
          x.roofed_ns > 0 ? Json(round_to(100.0 * x.roof_s / (x.roofed_ns * 1e-9), 2)) : Json(nullptr);
      j["bound"] = x.roofed_ns > 0 ? Json(x.compute_s > x.memory_s ? "compute" : "memory") : Json(nullptr);
      j["above_physical_peak"] = hw::above_peak_json(x.above_peak);
    }
    a.push_back(std::move(j));
  }
  return a;
}

Json overlap_table_to_json(const std::vector<OverlapRow>& rows) {
  Json a = Json::array();
  for (const auto& r : rows) a.push_back(overlap_row_to_json(r));
  return a;
}

Json fuse_table_to_json(const std::vector<FuseRow>& rows) {
  Json a = Json::array();
  for (const auto& r : rows) a.push_back(fuse_row_to_json(r));
  return a;
}

const std::vector<std::string>& triage_artifact_names() {
  static const std::vector<std::string> names = {
      "profile_summary.md",      "profile_metadata.json", "kernel_table.json", "overlap_opportunities.json",
      "fuse_opportunities.json", "module_table.json",     "stage_table.json"};
  return names;
}

Status write_triage_artifacts(const TriageReport& r, const std::string& dir) {
  PhaseTimer pt("triage: write artifacts");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create output directory: " + ec.message(), dir);
  auto put = [&](const char* name, const std::string& content) -> Status {
    return write_file((std::filesystem::path(dir) / name).string(), content);
  };
  for (auto [name, content] : std::initializer_list<std::pair<const char*, std::string>>{
           {"profile_summary.md", r.summary_md},
           {"profile_metadata.json", r.metadata.dump(2) + "\n"},
           {"kernel_table.json", kernel_table_to_json(r.kernels, &r.kernel_roof).dump(1) + "\n"},
           {"overlap_opportunities.json", overlap_table_to_json(r.overlap).dump(1) + "\n"},
           {"fuse_opportunities.json", fuse_table_to_json(r.fuse).dump(1) + "\n"},
           {"module_table.json", module_rows_to_json(r.modules).dump(1) + "\n"},
           {"stage_table.json", stage_split_to_json(r.stages).dump(1) + "\n"}}) {
    Status s = put(name, content);
    if (!s) return s;
  }
  return Status::Ok();
}

std::string triage_human_summary(const TriageReport& r, int top, bool by_module) {
  std::string s;
  const Json& m = r.metadata;
  s += "vendor " + m["vendor"].get<std::string>() + ", observed arch " +
       (m["observed_arch"].is_null() ? std::string("unknown") : m["observed_arch"].get<std::string>()) +
       ", arch_match " + m["arch_match"].get<std::string>() + ": " + m["hardware_relevance_reason"].get<std::string>() +
       "\n";
  if (r.stages.from_annotations) {
    s += "stages (" + (r.stages.profile_stage.empty() ? std::string("unknown") : r.stages.profile_stage) + "):";
    for (const auto& st : r.stages.stages)
      s += " " + st.stage + " " + fmt::format("{}", st.batches) + " batch(es) " + ms(st.op_time_ns) + " ms;";
    s += "\n";
  }
  if (by_module) {
    s += "\nGPU time by nn.Module (share of " + ms(r.modules.total_ns) + " ms summed GPU-op time):\n";
    if (!r.modules.available) s += "  (no nn.Module frames: profile with with_stack=True)\n";
    for (size_t i = 0; i < r.modules.rows.size() && static_cast<int>(i) < top; ++i) {
      const auto& row = r.modules.rows[i];
      fmt::format_to(std::back_inserter(s), "  {:>6.2f}%  {:>9.3f} ms  {:>6} ops  {} {}\n", row.share_pct,
                     row.time_ns / 1e6, static_cast<long long>(row.ops), pad(term_cell(row.module, 34), 34),
                     term_cell(row.path, 90));
    }
    if (r.modules.available) s += "  " + module_attribution_line(r.modules);
    s += "\n";
  }
  for (const auto& d : r.exposure.devices) {
    int64_t w = d.window_end_ns - d.window_start_ns;
    s += "device " + fmt::format("{}", d.device) + ": window " + ms(w) + " ms, busy " + ms(d.busy_ns) + " ms (" +
         format_fixed(w > 0 ? 100.0 * d.busy_ns / w : 0, 1) + "%), idle " + ms(w - d.busy_ns) + " ms, 2+ streams " +
         ms(d.multi_stream_ns) + " ms\n";
  }
  s += "\ntop kernels (share of " + ms(r.kernels.total_ns) + " ms summed GPU-op time; roof: % of the roofline" +
       (r.roofline_gpu.empty() ? ", GPU not in the spec database" : " on " + r.roofline_gpu) +
       fmt::format(", {:.1f} % of GPU-op time without a cost model):\n", 100 * r.unmodelled_share);
  for (size_t i = 0; i < r.kernels.rows.size() && static_cast<int>(i) < top; ++i) {
    const auto& k = r.kernels.rows[i];
    std::string roof = "-";
    if (i < r.kernel_roof.size() && r.kernel_roof[i].roofed_ns > 0)
      roof = fmt::format("{:.0f}%{}", 100.0 * r.kernel_roof[i].roof_s / (r.kernel_roof[i].roofed_ns * 1e-9),
                         r.kernel_roof[i].compute_s > r.kernel_roof[i].memory_s ? "c" : "m") +
             (r.kernel_roof[i].above_peak ? std::string(hw::kAbovePeakMarker) : "");
    fmt::format_to(std::back_inserter(s), "  {:>6.2f}%  {:>9.3f} ms  {:>6} x  exp {:>3.0f}%  roof {:>5}  {} {}  {}\n",
                   k.share_pct, k.total_ns / 1e6, static_cast<long long>(k.launches),
                   k.total_ns ? 100.0 * k.exposed_ns / k.total_ns : 0.0, roof, pad(k.category, 13),
                   pad(term_cell(k.name, 60), 60), term_cell(k.cpu_op, 30));
  }
  for (size_t i = 0, shown = 0; i < r.kernel_roof.size() && shown < 3; ++i)
    if (r.kernel_roof[i].above_peak) {
      s += "  " + std::string(hw::kAbovePeakMarker) + " " + r.kernel_roof[i].above_peak->message + "\n";
      ++shown;
    }
  s += "\ntop overlap opportunities:\n";
  int n = 0;
  for (const auto& o : r.overlap) {
    if (o.priority > Priority::P3 || n++ >= 8) continue;
    s += "  " + std::string(priority_name(o.priority)) + "  " + o.verdict + "  " + term_cell(o.kernel, 60) + "  excl " +
         format_fixed(o.exclusive_pct, 0) + "%  share " + format_fixed(o.share_pct, 2) + "%  dep " + o.dependency_risk +
         "  → " + o.next_step + "\n";
  }
  if (!n) s += "  (none above 1% share with headroom)\n";
  s += "\nfuse opportunities:\n";
  for (size_t i = 0; i < r.fuse.size() && i < 8; ++i) {
    const auto& f = r.fuse[i];
    s += "  " + f.pattern + " [" + f.confidence + "]  " + ms(f.related_ns) + " ms (" + format_fixed(f.share_pct, 2) +
         "%), " + fmt::format("{}", f.occurrences) + "x  → " + term_cell(f.candidate, 90) + "\n";
  }
  if (r.fuse.empty()) s += "  (none matched)\n";
  for (const auto& note : r.notes) s += "note: " + note.message + "\n";
  return s;
}

}  // namespace goblin::analysis
