#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/io.h"
#include "core/process.h"
#include "core/text.h"
#include "hw/diagnose.h"
#include "hw/knowledge.h"
#include "hw/ncu_analysis.h"
#include "kernel/integrity.h"
#include "kernel/loop.h"
#include "kernel/memory.h"
#include "kernel/proc.h"
#include "trace/readers.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

namespace {

// Metrics the diagnosis reads beyond the schema's (launch geometry, occupancy limits, time).
// The sections bring NCU's own speed-of-light and launch numbers into the raw page as well.
const char* const kSections[] = {"SpeedOfLight",           "LaunchStats",    "Occupancy",
                                 "MemoryWorkloadAnalysis", "WarpStateStats", "ComputeWorkloadAnalysis"};
const char* const kExtraMetrics[] = {
    "gpu__time_duration.sum", "launch__waves_per_multiprocessor", "launch__occupancy_limit_warps",
    "sm__inst_executed_pipe_tensor.sum",
    // SIMT FP32 FLOPs for the work-done check (kernel/integrity.h)
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    // every other instruction class a formula's operations run on:
    // half-precision FMA/add/mul, the XU pipe (exp, rsqrt, divide:
    // MUFU), the ALU pipe (max/min, compares, integer)
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "smsp__inst_executed_pipe_xu.sum",
    "smsp__inst_executed_pipe_alu.sum"};

// rocprofv3 counters for rocprofiler-compute's roofline formulas (hw/ncu_analysis.h).
const char* const kRocCounters[] = {"SQ_INSTS_VALU_ADD_F32",
                                    "SQ_INSTS_VALU_MUL_F32",
                                    "SQ_INSTS_VALU_FMA_F32",
                                    "SQ_INSTS_VALU_MFMA_MOPS_BF16",
                                    "TCC_EA0_RDREQ",
                                    "TCC_EA0_WRREQ",
                                    "TCC_BUBBLE",
                                    "TCC_EA0_RDREQ_32B",
                                    "TCC_EA0_WRREQ_64B",
                                    "GRBM_GUI_ACTIVE"};

std::string harness_profile_args(const Config& cfg, const RunOptions& o, const std::string& harness,
                                 std::vector<std::string>& argv) {
  // The harness runs in the workspace (cwd): its paths are absolute.
  argv.insert(argv.end(), {o.python, harness, "profile", "--kernel",
                           fs::absolute(fs::path(cfg.dir) / "kernel.py").lexically_normal().string(), "--shape",
                           cfg.shape.dump(), "--launches", fmt::format("{}", o.launches)});
  return "";
}

Json amd_diagnosis(const hw::CounterKernel& k, const Config& cfg) {
  auto rf = hw::rocprof_roofline(k);
  Json j = {{"kernel", k.name}, {"id", k.key}, {"vendor", "amd"}};
  double flops = rf.valu_flops.value_or(0) + rf.mfma_flops.value_or(0);
  if (rf.valu_flops || rf.mfma_flops) j["flops"] = flops;
  if (rf.hbm_bytes) j["hbm_bytes"] = *rf.hbm_bytes;
  j["missing_counters"] = rf.missing;
  Json b = Json::array();
  if (rf.hbm_bytes && *rf.hbm_bytes > 0 && (rf.valu_flops || rf.mfma_flops)) {
    double ai = flops / *rf.hbm_bytes;
    bool mem = ai < cfg.roof.ridge;
    j["bound"] = mem ? "memory_bound" : "compute_bound";
    j["reason"] = "counter arithmetic intensity " + format_fixed(ai, 3) + " FLOP/byte vs ridge " +
                  format_fixed(cfg.roof.ridge, 1) + " (rocprofiler-compute roofline formulas)";
    b.push_back({{"category", mem ? "memory" : "compute"},
                 {"summary", mem ? "HBM traffic bounds the kernel" : "math throughput bounds the kernel"},
                 {"reasoning", j["reason"]},
                 {"root_causes",
                  {{{"cause", mem ? "bytes per FLOP above the ridge" : "FLOPs per byte above the ridge"},
                    {"evidence",
                     {{{"metric", "hbm_bytes"}, {"value", *rf.hbm_bytes}, {"interpretation", "TCC EA requests x size"}},
                      {{"metric", "flops"}, {"value", flops}, {"interpretation", "VALU + MFMA FLOPs"}}}},
                    {"fixes", Json::array()}}}}});
  } else {
    j["bound"] = "unknown";
    j["reason"] = "the counters for FLOPs and HBM bytes were not all collected";
  }
  j["bottlenecks"] = b;
  return j;
}

}  // namespace

Result<std::vector<std::string>> ncu_command(const Config& cfg, const RunOptions& o, const std::string& harness,
                                             const std::string& log_path) {
  return ncu_command(*hw::hw_knowledge(), cfg, o, harness, log_path);
}

Result<std::vector<std::string>> ncu_command(const hw::HwKnowledge& hwk, const Config& cfg, const RunOptions& o,
                                             const std::string& harness, const std::string& log_path) {
  ASSIGN_OR_RETURN(auto schema, hwk.ncu_metric_schema);
  std::set<std::string> seen;
  std::string metrics;
  auto add = [&](const std::string& m) {
    if (m.find("__") == std::string::npos || !seen.insert(m).second) return;
    metrics += (metrics.empty() ? "" : ",") + m;
  };
  for (const auto& sec : schema)
    for (const auto& m : sec.metrics) add(m.key);
  for (const char* m : kExtraMetrics) add(m);
  std::vector<std::string> argv = {o.ncu,
                                   "--csv",
                                   "--page",
                                   "raw",
                                   "--nvtx",
                                   "--nvtx-include",
                                   "goblin_kernel/",
                                   "--launch-count",
                                   fmt::format("{}", o.launches),
                                   "--log-file",
                                   log_path};
  for (const char* s : kSections) argv.insert(argv.end(), {"--section", s});
  argv.insert(argv.end(), {"--metrics", metrics});
  if (!o.kernel_regex.empty()) argv.insert(argv.end(), {"-k", "regex:" + o.kernel_regex});
  harness_profile_args(cfg, o, harness, argv);
  return argv;
}

std::vector<std::string> rocprof_command(const Config& cfg, const RunOptions& o, const std::string& harness,
                                         const std::string& out_dir) {
  std::string pmc;
  for (const char* c : kRocCounters) pmc += (pmc.empty() ? "" : " ") + std::string(c);
  std::vector<std::string> argv = {o.rocprof, "--pmc", pmc, "--output-format", "csv", "-d", out_dir, "-o", "run"};
  if (!o.kernel_regex.empty()) argv.insert(argv.end(), {"--kernel-include-regex", o.kernel_regex});
  argv.push_back("--");
  harness_profile_args(cfg, o, harness, argv);
  return argv;
}

Result<Json> diagnose_profile(const std::string& csv, const Config& cfg) {
  return diagnose_profile(*hw::hw_knowledge(), csv, cfg);
}

Result<Json> diagnose_profile(const hw::HwKnowledge& hwk, const std::string& csv, const Config& cfg) {
  Timeline tl;
  auto st = trace::read_path(csv, tl);
  if (!st.ok() && tl.counters.size() == 0) return st.error();
  auto kernels = hw::counter_kernels(tl);
  if (kernels.empty()) return make_error(ErrorKind::Malformed, "no profiled kernels with metrics", csv);
  auto gpu = hwk.gpu(cfg.platform);
  int sms = gpu.ok() ? gpu->sm_count() : -1;
  Json arr = Json::array();
  size_t primary = 0;
  double longest = -1;
  ASSIGN_OR_RETURN(auto rules, hwk.ncu_rules);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    Json j;
    // rocprofiler-compute kernels carry the speed-of-light keys mapped from AMD's metrics
    // (data/rocprof_compute_metrics.yaml) and no Nsight Compute duration: diagnosed as NCU's are.
    const bool amd_sol = k.get("gpu__time_duration.sum") == nullptr &&
                         k.get("sm__throughput.avg.pct_of_peak_sustained_elapsed") != nullptr;
    if (!amd_sol && (cfg.vendor == "amd" || k.get("gpu__time_duration.sum") == nullptr)) {
      j = amd_diagnosis(k, cfg);
    } else {
      auto d = hw::diagnose_kernel(k, rules, sms, amd_sol ? std::string("amd") : cfg.vendor);
      j = hw::ncu_classification_json(d.cls);
      j["bound"] = d.cls.bound;  // the same key as the AMD path
      j["bottlenecks"] = hw::diagnosis_to_json(d);
    }
    const double* dur = k.get("gpu__time_duration.sum");
    if (dur && *dur > longest) {
      longest = *dur;
      primary = i;
    }
    arr.push_back(j);
  }
  return Json{{"profile", csv}, {"kernels", arr}, {"primary", primary}};
}

std::string diagnosis_human(const Json& d) {
  std::string h;
  const Json& k = d["kernels"][d["primary"].get<size_t>()];
  h += "kernel: " + k.value("kernel", std::string("?")).substr(0, 100) + "\n";
  h += "class: " + k.value("bound", std::string("?")) + " — " + k.value("reason", std::string("")) + "\n";
  int i = 1;
  for (const auto& b : k["bottlenecks"]) {
    h += fmt::format("  {}. [", i++) + b.value("category", std::string("?")) + "] " +
         b.value("summary", std::string("")) + "\n";
    for (const auto& rc : b.value("root_causes", Json::array())) {
      h += "     cause: " + rc.value("cause", std::string("")) + "\n";
      for (const auto& e : rc.value("evidence", Json::array()))
        h += "     evidence: " + e.value("metric", std::string("")) + " = " + e["value"].dump() + "\n";
      for (const auto& f : rc.value("fixes", Json::array())) h += "     fix: " + f.value("fix", std::string("")) + "\n";
    }
  }
  if (d["kernels"].size() > 1) h += fmt::format("({} kernels profiled; the longest shown)\n", d["kernels"].size());
  if (d.contains("work_done")) h += work_done_human(d["work_done"]);
  return h;
}

Result<Json> run_profile(const std::string& ws, const RunOptions& o) {
  ASSIGN_OR_RETURN(auto k, knowledge());
  return run_profile(*k, ws, o);
}

Result<Json> run_profile(const Knowledge& kn, const std::string& ws, const RunOptions& o) {
  const hw::HwKnowledge& hwk = kn.hw();
  ASSIGN_OR_RETURN(auto setup, prepare_run(kn, ws, o));
  const Config& cfg = setup.cfg;
  const int n = setup.version;
  const std::string& harness = setup.harness;
  // Every path handed to the profiler is absolute: it runs in the workspace (cwd), and the
  // workspace may be named relative to the caller's directory.
  const fs::path dir = fs::absolute(setup.dir).lexically_normal();
  std::error_code ec;
  std::string csv;
  if (cfg.vendor == "amd") {
    std::string out_dir = (dir / "rocprof").string();
    ASSIGN_OR_RETURN(auto p, run_capture(rocprof_command(cfg, o, harness, out_dir), ws, o.timeout_s));
    if (p.code != 0) return make_error(ErrorKind::Workload, "rocprofv3 failed: " + p.err.substr(0, 3000), ws);
    for (const auto& e : fs::recursive_directory_iterator(out_dir, ec))
      if (e.path().filename().string().find("counter_collection.csv") != std::string::npos) csv = e.path().string();
    if (csv.empty()) return make_error(ErrorKind::Workload, "rocprofv3 wrote no counter_collection.csv", out_dir);
  } else {
    ASSIGN_OR_RETURN(auto argv, ncu_command(hwk, cfg, o, harness, (dir / "ncu.log").string()));
    // With --log-file, ncu writes its report (the CSV) and its ==PROF== lines there; the
    // program's own stdout goes to a scratch file.
    std::string log_path = (dir / "ncu.log").string(), raw = (dir / "ncu_stdout.tmp").string();
    auto p = run_capture(argv, ws, o.timeout_s, raw);
    fs::remove(raw, ec);
    if (!p.ok()) return p.error();
    auto text = read_all(log_path);
    std::string log = text.ok() ? *text : "";
    size_t at = log.find("\"ID\",");
    std::string head = log.substr(0, std::min<size_t>(at == std::string::npos ? log.size() : at, 1500));
    if (p->code != 0)
      return make_error(ErrorKind::Workload,
                        fmt::format("ncu failed (exit {}): ", p->code) + head + p->err.substr(0, 1500), log_path);
    if (at == std::string::npos)
      return make_error(ErrorKind::Workload, "ncu profiled no kernel in the NVTX range goblin_kernel: " + head,
                        log_path);
    csv = (dir / "ncu.csv").string();
    RETURN_IF_ERROR(write_file(csv, std::string_view(log).substr(at)));
    // Keep only ncu's own messages in the log.
    (void)write_file(log_path, head);
  }
  ASSIGN_OR_RETURN(auto d, diagnose_profile(hwk, csv, cfg));
  Json out = d;
  out["work_done"] = work_done(csv, cfg, o.launches, kn.integrity);
  out["profile"] = fs::relative(csv, ws, ec).string();
  out["version"] = n;
  if (o.prompt) {
    Timeline tl;
    (void)trace::read_path(csv, tl);
    auto kernels = hw::counter_kernels(tl);
    const auto& schema = hwk.ncu_metric_schema;
    auto gpu = hwk.gpu(cfg.platform);
    auto src = read_all((fs::path(ws) / "kernel.py").string());
    if (!kernels.empty() && schema.ok()) {
      const auto& k = kernels[out["primary"].get<size_t>()];
      auto jp =
          hw::build_judge_prompt(k, *schema, gpu.ok() ? &*gpu : nullptr, src.ok() ? *src : "",
                                 cfg.problem_op + " " + cfg.shape.dump() + " " + cfg.dtype + " on " + cfg.platform);
      (void)write_file((dir / "judge_system.txt").string(), jp.system);
      (void)write_file((dir / "judge_user.txt").string(), jp.user);
      out["judge_prompts"] = {fs::relative(dir / "judge_system.txt", ws, ec).string(),
                              fs::relative(dir / "judge_user.txt", ws, ec).string()};
    }
  }
  RETURN_IF_ERROR(write_file((dir / "diagnosis.json").string(), out.dump(1) + "\n"));
  return out;
}

}  // namespace goblin::kernel
