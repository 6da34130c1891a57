#include "kernel/integrity.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/text.h"
#include "hw/ncu_analysis.h"
#include "kernel/proc.h"
#include "trace/readers.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

namespace {

Json problem(const std::string& check, const std::string& message) {
  return Json{{"check", check}, {"message", message}};
}

double metric_sum(const std::vector<hw::CounterKernel>& ks, const char* name, bool* found) {
  double s = 0;
  for (const auto& k : ks)
    if (const double* v = k.get(name)) {
      s += *v;
      *found = true;
    }
  return s;
}

}  // namespace

Json bench_integrity(const Json& raw, const Config& cfg, const double* median_ms, const IntegrityLimits& lim) {
  Json problems = Json::array();
  const bool harness_checks = raw.contains("integrity") && raw["integrity"].is_object();
  if (harness_checks && raw["integrity"].contains("problems"))
    for (const auto& p : raw["integrity"]["problems"])
      if (p.is_object()) problems.push_back(p);
  if (median_ms && *median_ms > 0) {
    // The timer's resolution is added to the median: a few-microsecond kernel is not refused for
    // the timer's granularity (data/kernel/integrity.yaml).
    const double sec = (*median_ms + lim.timer_resolution_ms) * 1e-3;
    const double gbs = cfg.roof.bytes / sec / 1e9, tflops = cfg.roof.flops / sec / 1e12;
    double bw = cfg.roof.bw_gbs, peak = cfg.roof.peak_tflops;
    if (cfg.roof.target_metric == "GB/s") bw = std::max(bw, cfg.roof.ceiling);
    if (cfg.roof.target_metric == "TFLOP/s") peak = std::max(peak, cfg.roof.ceiling);
    std::string causes;
    for (const auto& c : lim.likely_causes) causes += fmt::format("{} {}", causes.empty() ? ":" : ";", c);
    if (bw > 0 && gbs > bw * (1 + lim.tolerance))
      problems.push_back(problem(
          "physical_limit",
          fmt::format("{:.1f} GB/s is above the {:.1f} GB/s DRAM bandwidth of {} (+{:.0f} % tolerance): no kernel "
                      "moves the formula's {:.4g} bytes that fast. Likely causes{}",
                      gbs, bw, cfg.platform, 100 * lim.tolerance, cfg.roof.bytes, causes)));
    if (peak > 0 && tflops > peak * (1 + lim.tolerance))
      problems.push_back(problem(
          "physical_limit",
          fmt::format("{:.1f} TFLOP/s is above the {:.1f} TFLOP/s dense {} peak of {} (+{:.0f} % tolerance): no kernel "
                      "does the formula's {:.4g} FLOPs that fast. Likely causes{}",
                      tflops, peak, cfg.roof.peak_key, cfg.platform, 100 * lim.tolerance, cfg.roof.flops, causes)));
  }
  Json out = {{"passed", problems.empty()}, {"problems", problems}, {"harness_checks", harness_checks}};
  if (harness_checks)
    for (const char* k : {"input_sets", "set_bytes", "l2_bytes", "sets_exceed_l2", "rounds", "outputs_checked"})
      if (raw["integrity"].contains(k)) out[k] = raw["integrity"][k];
  return out;
}

std::string integrity_human(const Json& s) {
  if (!s.contains("integrity")) return "";
  const Json& in = s["integrity"];
  std::string h;
  const Json& c = s["correctness"];
  if (!c.value("passed", false) && c.contains("message"))
    fmt::format_to(std::back_inserter(h), "correctness: {}\n", c["message"].get<std::string>());
  if (in.value("harness_checks", false) && in.contains("input_sets"))
    fmt::format_to(std::back_inserter(h),
                   "integrity: {} input sets of {:.4g} MB rotated ({} than L2), {} outputs checked, {} rounds\n",
                   in["input_sets"].get<int>(), in.value("set_bytes", 0.0) / 1e6,
                   in.value("sets_exceed_l2", false) ? "more" : "less", in.value("outputs_checked", 0),
                   in.value("rounds", 0));
  for (const auto& p : in["problems"])
    fmt::format_to(std::back_inserter(h), "REFUSED [{}]: {}\n", p.value("check", std::string("?")),
                   p.value("message", std::string()));
  if (s.contains("held_out")) {
    const Json& ho = s["held_out"];
    fmt::format_to(std::back_inserter(h), "held-out shapes and seeds: {}\n",
                   ho.value("passed", false) ? "passed" : "FAILED");
    for (const auto& c : ho.value("cases", Json::array()))
      if (!c.value("passed", false))
        fmt::format_to(std::back_inserter(h), "  {} seed {}: {}\n", c["shape"].dump(), c.value("seed", 0),
                       c.value("message", std::string()));
  }
  return h;
}

std::string integrity_error(const Json& integrity) {
  std::string m = "the bench failed its integrity checks, so its timing is not reported as a result:";
  for (const auto& p : integrity["problems"])
    fmt::format_to(std::back_inserter(m), " [{}] {}", p.value("check", std::string("?")),
                   p.value("message", std::string()));
  return m;
}

Result<std::vector<std::string>> check_recordable(const std::string& ws, const Json& bench, const Json& summary,
                                                  bool own_bench) {
  std::vector<std::string> notes;
  const Json& in = summary.contains("integrity") ? summary["integrity"] : Json(nullptr);
  if (in.is_object() && !in.value("passed", true)) {
    return make_error(ErrorKind::Workload, fmt::format("not recorded, nothing committed: {}", integrity_error(in)));
  }
  if (bench.contains("held_out")) {
    const Json& ho = bench["held_out"];
    if (!ho.value("passed", false)) {
      std::string failed;
      for (const auto& c : ho.value("cases", Json::array()))
        if (!c.value("passed", false))
          fmt::format_to(std::back_inserter(failed), " shape {} seed {}: {};", c["shape"].dump(), c.value("seed", 0),
                         c.value("message", std::string()));
      return make_error(ErrorKind::Workload,
                        fmt::format("not recorded, nothing committed: the kernel is wrong on held-out shapes or "
                                    "seeds (correct only at the bench shape is not correct):{}",
                                    failed));
    }
  } else if (bench.value("harness", std::string("goblin kernel_harness 1")) == "goblin kernel_harness 1") {
    notes.emplace_back(
        "bench from kernel_harness 1: input rotation, synchronisation and held-out shapes were not checked");
  } else if (bench.contains("samples_ms")) {
    return make_error(ErrorKind::Malformed, "the bench result lacks its held-out shape check (\"held_out\")");
  }
  if (own_bench && bench.contains("kernel_blob")) {
    ASSIGN_OR_RETURN(auto h, git(ws, {"hash-object", "kernel.py"}));
    std::string now(trim_blanks(h.out.substr(0, h.out.find('\n'))));
    if (h.code == 0 && now != bench["kernel_blob"].get<std::string>())
      return make_error(ErrorKind::Usage,
                        "kernel.py changed after it was benched: run `goblin kernel bench` again before recording",
                        (fs::path(ws) / "kernel.py").string());
  }
  return notes;
}

Json work_done(const std::string& csv, const Config& cfg, int launches, const IntegrityLimits& l) {
  Timeline tl;
  (void)trace::read_path(csv, tl);
  auto ks = hw::counter_kernels(tl);
  bool rd = false, wr = false, ff = false, tensor_found = false;
  const double bytes = metric_sum(ks, "dram__bytes_read.sum", &rd) + metric_sum(ks, "dram__bytes_write.sum", &wr);
  if (!rd || ks.empty() || cfg.roof.bytes <= 0) return nullptr;
  const double calls = std::max(1, launches);
  const double per_call = bytes / calls, ratio = per_call / cfg.roof.bytes;
  Json flags = Json::array();
  if (ratio < l.skipped_below)
    flags.push_back(fmt::format(
        "ncu measured {:.4g} DRAM bytes per call, {:.2f}x the formula's minimum {:.4g}: the kernel moves far less "
        "than any correct kernel must (skipped work, or results served from a cache), or the bytes formula counts "
        "too much",
        per_call, ratio, cfg.roof.bytes));
  if (ratio > l.excess_above)
    flags.push_back(fmt::format(
        "ncu measured {:.4g} DRAM bytes per call, {:.2f}x the formula's {:.4g}: either the bytes formula is wrong "
        "(too small) or the kernel re-reads its data (no reuse through L2/shared memory)",
        per_call, ratio, cfg.roof.bytes));
  Json w = {{"dram_bytes_per_call", per_call},
            {"ideal_bytes", cfg.roof.bytes},
            {"ratio", round_to(ratio, 3)},
            {"kernels_profiled", static_cast<int>(ks.size())},
            {"calls", launches}};
  const double tensor = metric_sum(ks, "sm__inst_executed_pipe_tensor.sum", &tensor_found);
  const double ffma = metric_sum(ks, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", &ff);
  if (ff) {
    bool a = false, m = false;
    const double fp32 = (2 * ffma + metric_sum(ks, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", &a) +
                         metric_sum(ks, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", &m)) /
                        calls;
    w["fp32_flops_per_call"] = fp32;
    if (cfg.roof.flops > 0) w["fp32_flops_ratio"] = round_to(fp32 / cfg.roof.flops, 3);
    // A formula's operations run on more than the FP32 FMA pipe: exp, rsqrt and divide on the XU
    // (MUFU) pipe, max/min and compares on the ALU pipe, bf16/fp16 math as HFMA. All are counted
    // (warp instructions of XU and ALU as 32 thread operations each, an upper bound), and the
    // arithmetic shortfall is flagged only when the DRAM bytes fall short too: an honest library
    // kernel (torch.softmax: exp on XU, max on ALU) reads and writes its data.
    bool h = false, ha = false, hm = false, xu_found = false, alu_found = false;
    const double half = (2 * metric_sum(ks, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", &h) +
                         metric_sum(ks, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", &ha) +
                         metric_sum(ks, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", &hm)) /
                        calls;
    const double xu = metric_sum(ks, "smsp__inst_executed_pipe_xu.sum", &xu_found) / calls;
    const double alu = metric_sum(ks, "smsp__inst_executed_pipe_alu.sum", &alu_found) / calls;
    const double ops = fp32 + half + 32 * (xu + alu);
    w.update(Json{{"arithmetic_ops_per_call", ops},
                  {"instruction_classes",
                   {{"fp32_flops", fp32},
                    {"half_flops", half},
                    {"xu_warp_inst", xu},
                    {"alu_warp_inst", alu},
                    {"tensor_inst", tensor_found ? Json(tensor / calls) : Json(nullptr)}}}});
    if (cfg.roof.flops > 0) w.update(Json{{"arithmetic_ops_ratio", round_to(ops / cfg.roof.flops, 3)}});
    if (cfg.roof.flops > 0 && (!tensor_found || tensor == 0) && ops < l.fp32_flops_below * cfg.roof.flops &&
        ratio < l.skipped_below)
      flags.push_back(fmt::format(
          "ncu counted {:.4g} arithmetic operations per call (FP32 {:.4g}, half {:.4g}, XU and ALU pipes {:.4g}; no "
          "tensor-core work), {:.3f}x the formula's {:.4g} FLOPs, and {:.2f}x its bytes: the kernel does far less "
          "work than the problem needs (skipped work)",
          ops, fp32, half, 32 * (xu + alu), ops / cfg.roof.flops, cfg.roof.flops, ratio));
  }
  w["flags"] = flags;
  return w;
}

std::string work_done_human(const Json& w) {
  if (!w.is_object()) return "";
  std::string h =
      fmt::format("work done: {:.4g} DRAM bytes per call = {:.2f}x the formula's ideal {:.4g}\n",
                  w["dram_bytes_per_call"].get<double>(), w["ratio"].get<double>(), w["ideal_bytes"].get<double>());
  for (const auto& f : w["flags"]) fmt::format_to(std::back_inserter(h), "FLAG: {}\n", f.get<std::string>());
  return h;
}

}  // namespace goblin::kernel
