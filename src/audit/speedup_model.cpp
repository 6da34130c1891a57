// Speedup models: docs/metrics.md § Speedup models. Bounds and their sources are stated in each
// class's `basis` so the report can quote them.
#include "audit/speedup_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "core/fields.h"
#include "hw/fp32_gemm_peak.h"
#include "hw/gpu_specs.h"

namespace goblin::audit {
namespace {

// `note` only when there is one.
struct NoteIfAny {
  Json write(const std::string& s) const { return s.empty() ? Json() : Json(s); }
  Status read(const Json& j, std::string& s, const std::string& at) const { return fields::Str{}.read(j, s, at); }
};
// step_after_s: {fast, slow}.
struct StepAfter {
  void write(const SpeedupPrediction& p, Json& o) const {
    o["step_after_s"] = {{"fast", round_to(p.step_after_fast, 6)}, {"slow", round_to(p.step_after_slow, 6)}};
  }
  Status read(const Json& o, SpeedupPrediction& p, const std::string& at) const {
    auto it = o.find("step_after_s");
    if (it == o.end()) return Status::Ok();
    const std::string here = fields::at_key(at, "step_after_s");
    if (!it->is_object()) return fields::type_error(here, "object", *it);
    if (auto f = it->find("fast"); f != it->end())
      RETURN_IF_ERROR(fields::Num{}.read(*f, p.step_after_fast, fields::at_key(here, "fast")));
    if (auto f = it->find("slow"); f != it->end())
      RETURN_IF_ERROR(fields::Num{}.read(*f, p.step_after_slow, fields::at_key(here, "slow")));
    return Status::Ok();
  }
  bool names(std::string_view k) const { return k == "step_after_s"; }
};
// low / high: rounded to 3 decimals when predicted, null otherwise.
struct Bound {
  const char* key;
  double SpeedupPrediction::*member;
  void write(const SpeedupPrediction& p, Json& o) const {
    o[key] = p.predicted ? Json(round_to(p.*member, 3)) : Json();
  }
  Status read(const Json& o, SpeedupPrediction& p, const std::string& at) const {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return Status::Ok();
    return fields::Num{}.read(*it, p.*member, fields::at_key(at, key));
  }
  bool names(std::string_view k) const { return k == key; }
};

}  // namespace
}  // namespace goblin::audit

namespace goblin::fields {
using namespace goblin::audit;

template <>
struct List<ClassPrediction> {
  using C = ClassPrediction;
  static inline const auto fields = std::tuple{field("class", &C::name),
                                               field("bucket", &C::bucket),
                                               field("before_s", &C::before, Num{6}),
                                               field("after_fast_s", &C::after_fast, Num{6}),
                                               field("after_slow_s", &C::after_slow, Num{6}),
                                               field("models", &C::models),
                                               field("basis", &C::basis)};
};
template <>
struct List<CorrectedClass> {
  using C = CorrectedClass;
  static inline const auto fields =
      std::tuple{field("class", &C::name), field("profiled_s", &C::profiled, Num{6}),
                 field("removed_s", &C::removed, Num{6}), field("corrected_s", &C::corrected, Num{6})};
};
template <>
struct List<ProfilerCorrection> {
  using C = ProfilerCorrection;
  static inline const auto fields = std::tuple{field("applied", &C::applied),
                                               field("profiled_step_s", &C::profiled_step_s, Opt<Num>{{6}}),
                                               field("unprofiled_step_s", &C::unprofiled_step_s, Opt<Num>{{6}}),
                                               field("excess_s", &C::excess_s, Opt<Num>{{6}}),
                                               field("removed_s", &C::removed_s, Opt<Num>{{6}}),
                                               field("source", &C::source),
                                               field("classes", &C::classes),
                                               field("note", &C::note)};
};
template <>
struct List<SpeedupPrediction> {
  using P = SpeedupPrediction;
  static inline const auto fields = std::tuple{
      field("predicted", &P::predicted),
      field("note", &P::note, NoteIfAny{}, Omit),
      field("step_before_s", &P::step_before, Num{6}),
      StepAfter{},
      field("tokens_per_step_scale", &P::tokens_scale),
      Bound{"low", &P::low},
      Bound{"high", &P::high},
      field("classes", &P::classes),
      field("models", &P::model_fields),
      field("notes", &P::notes),
      field("profiler_correction", &P::profiler_correction),
      Const<P>{"composition",
               "classes are disjoint (each kernel in one class, idle partitioned by the waste budget); each model "
               "re-prices its classes; step after = sum of classes (batch x k scales the per-sample part); speedup "
               "low = step_before / slow sum, high = step_before / fast sum (x tokens-per-step scale)"},
      field("unpriced_rules", &P::unpriced_rules, Omit)};
};

}  // namespace goblin::fields

namespace goblin::audit {
namespace {

std::string num(double v, int sig = 3) { return fmt::format("{:.{}g}", v, sig); }

std::string str_field(const config::WorkloadConfig& c, const char* f) {
  Json v = c.get(f);
  return v.is_string() ? v.get<std::string>() : "";
}
bool bool_field(const config::WorkloadConfig& c, const char* f) {
  Json v = c.get(f);
  return v.is_boolean() && v.get<bool>();
}
double num_field(const config::WorkloadConfig& c, const char* f, double dflt) {
  Json v = c.get(f);
  return v.is_number() ? v.get<double>() : dflt;
}
bool fused_optimizer(const std::string& o) { return o.find("fused") != std::string::npos; }

// Throughput of a GEMM path after the patch: [slow, fast] TFLOP/s.
struct Rate {
  double slow = 0, fast = 0;
  std::string basis;
};

// GEMMs at `dtype` on this GPU: the measured torch.matmul ceiling (best as the fast end, a
// fraction of the median as the slow end: small and skinny GEMMs of a real model reach less than
// an 8192^3 matmul) or, without a measurement, fractions of the datasheet dense peak. Factors:
// data/speedup_model.yaml.
Rate gemm_rate(const hw::GpuSpec* g, const hw::MeasuredCeilings& mc, const std::string& dtype,
               const SpeedupFactors& sf) {
  Rate r;
  auto it = mc.gemm.find(dtype);
  if (it != mc.gemm.end() && it->second.median > 0) {
    r.fast = it->second.best;
    r.slow = sf.gemm_measured_slow_of_median * it->second.median;
    const double h = sf.gemm_measured_slow_of_median;
    r.basis = dtype + " GEMM at " + num(r.slow) + "-" + num(r.fast) + " TFLOP/s (measured torch.matmul ceiling " +
              num(it->second.median) + " median, " + num(it->second.best) + " best, " + mc.file + "; slow end " +
              (h == 0.5 ? std::string("half") : "x" + num(h) + " of") + " the median)";
    return r;
  }
  auto p = g ? g->peak_tflops(dtype) : std::nullopt;
  if (p && *p > 0) {
    r.fast = sf.gemm_datasheet_fast * *p;
    r.slow = sf.gemm_datasheet_slow * *p;
    r.basis = dtype + " GEMM at " + num(r.slow) + "-" + num(r.fast) + " TFLOP/s (" + num(sf.gemm_datasheet_slow) + "-" +
              num(sf.gemm_datasheet_fast) + " of the " + g->id + " dense peak " + num(*p) +
              ", data/gpus.yaml; no measured ceiling)";
  }
  return r;
}

// The host class `name` of a cost profile (data_wait | host_gap | unattributed: the classes
// data/speedup_model.yaml's profiler_correction may list), or null for any other class.
template <class Profile>  // analysis::CostProfile, const or not
auto host_class(Profile& c, std::string_view name) -> decltype(&c.host_gap_s) {
  if (name == "data_wait") return &c.data_wait_s;
  if (name == "host_gap") return &c.host_gap_s;
  if (name == "unattributed") return &c.unattributed_s;
  return nullptr;
}

// The profiler correction (docs/audit.md § Profiler correction). The GPU runs the same kernels
// watched or not; what a profiler adds is host time (per launch, per recorded op), and on a step
// whose GPU idle is host-caused the GPU waits for it: the profiled step minus the unprofiled one
// is the profiler's host time the step shows as idle. It is taken out of the host classes in
// data/speedup_model.yaml's order, none below zero; an excess the host idle cannot hold is not the
// profiler's host time alone and is not corrected (said so).
analysis::CostProfile correct_for_profiler(const analysis::CostProfile& in, const std::optional<UnprofiledStep>& u,
                                           const SpeedupFactors& sf, ProfilerCorrection& pc) {
  analysis::CostProfile c = in;
  if (!u || !(u->step_s > 0)) {
    pc.note =
        "no unprofiled measurement of this config (no untraced steps in the recording, no unprofiled bench): the "
        "host classes are the profiled run's, profiler time included";
    return c;
  }
  pc.profiled_step_s = round_to(in.step_s, 6);
  pc.unprofiled_step_s = round_to(u->step_s, 6);
  pc.source = u->source;
  const double excess = in.step_s - u->step_s;
  pc.excess_s = round_to(excess, 6);
  if (excess <= 0) {
    pc.note = fmt::format(
        "the profiled step ({} ms) is not longer than the unprofiled one ({} ms): no profiler time "
        "to take out",
        num(in.step_s * 1e3, 4), num(u->step_s * 1e3, 4));
    return c;
  }
  if (sf.profiler_correction_order.empty()) {
    pc.note = "data/speedup_model.yaml has no profiler_correction section: not corrected";
    return c;
  }
  // More excess than the step has host idle is not the profiler's host time alone (the two runs
  // differ, or the profiler slowed the GPU): nothing is taken out.
  double idle = 0;
  for (const auto& name : sf.profiler_correction_order)
    if (const double* cls = host_class(c, name)) idle += std::max(0.0, *cls);
  if (excess > idle + 1e-9) {
    pc.note = fmt::format(
        "the profiled step ({} ms) is {} ms longer than the unprofiled one ({} ms, {}), more than its "
        "{} ms of host idle: not the profiler's host time alone (the runs differ, or the GPU was "
        "slowed), so not corrected",
        num(in.step_s * 1e3, 4), num(excess * 1e3), num(u->step_s * 1e3, 4), u->source, num(idle * 1e3));
    return c;
  }
  double left = excess, removed = 0;
  for (const auto& name : sf.profiler_correction_order) {
    double* cls = host_class(c, name);
    if (!cls) continue;
    const double take = std::min(left, std::max(0.0, *cls));
    if (take <= 0) continue;
    pc.classes.push_back(CorrectedClass{name, round_to(*cls, 6), round_to(take, 6), round_to(*cls - take, 6)});
    *cls -= take;
    left -= take;
    removed += take;
    if (left <= 0) break;
  }
  c.step_s = in.step_s - removed;
  pc.removed_s = round_to(removed, 6);
  pc.applied = removed > 0;
  std::string from;
  for (const auto& x : pc.classes)
    from += fmt::format("{}{} {} ms", from.empty() ? "" : ", ", x.name, num(x.removed * 1e3));
  pc.note = fmt::format(
      "the profiled step is {} ms, {} ms unprofiled ({}): the {} ms more is the profiler's host time, which the GPU "
      "waited for as host-caused idle; removed {} ms ({}), none below zero, GPU classes untouched",
      num(in.step_s * 1e3, 4), num(u->step_s * 1e3, 4), u->source, num(excess * 1e3), num(removed * 1e3),
      from.empty() ? "no host idle to take it from" : from);
  return c;
}

}  // namespace

SpeedupPrediction predict_speedup(const analysis::RunMetrics& m, const config::WorkloadConfig& oc,
                                  const config::WorkloadConfig& nc, const std::optional<UnprofiledStep>& unprofiled) {
  auto k = knowledge();
  if (!k) {
    SpeedupPrediction p;
    p.note = "no knowledge context: " + k.error().message;
    return p;
  }
  return predict_speedup(**k, m, oc, nc, unprofiled);
}

SpeedupPrediction predict_speedup(const Knowledge& kn, const analysis::RunMetrics& m, const config::WorkloadConfig& oc,
                                  const config::WorkloadConfig& nc, const std::optional<UnprofiledStep>& unprofiled) {
  const SpeedupFactors& sf = kn.speedup;
  SpeedupPrediction p;
  if (!m.cost) {
    p.note = "the profile has no cost profile (no complete steps, or metrics from an older goblin): no model";
    return p;
  }
  if (m.cost->step_s <= 0) {
    p.note = "the profile's steps have no length";
    return p;
  }
  // The models price the step nobody watches: the profiler's measured host time is taken out of
  // the host classes first (GPU classes untouched); every figure below reads the corrected profile.
  const analysis::CostProfile c = correct_for_profiler(*m.cost, unprofiled, sf, p.profiler_correction);
  p.step_before = c.step_s;
  std::optional<hw::GpuSpec> gpu;
  if (!m.gpu_name.empty())
    if (auto g = kn.analysis().gpu(m.gpu_name); g.ok()) gpu = *g;
  const hw::GpuSpec* g = gpu ? &*gpu : nullptr;
  hw::MeasuredCeilings mc = g ? kn.analysis().measured(*g) : hw::MeasuredCeilings{};

  // Old and new knobs (unset precision: PyTorch's fp32).
  auto prec = [](const config::WorkloadConfig& x) {
    std::string s = str_field(x, "precision");
    return s.empty() ? std::string("fp32") : s;
  };
  const std::string p0 = prec(oc), p1 = prec(nc);
  const bool to16 = p0 == "fp32" && (p1 == "bf16" || p1 == "fp16");
  const bool to_tf32 = p0 == "fp32" && p1 == "fp32" && !bool_field(oc, "tf32") && bool_field(nc, "tf32");
  // eager -> a fused implementation (data/attention.yaml `fused`)
  const bool attn = !kn.attention().fused(str_field(oc, "attention_impl")) &&
                    kn.attention().fused(str_field(nc, "attention_impl")) &&
                    (c.attn_bmm_s + c.attn_softmax_s + c.attn_score_s) > 0;
  const bool optim = !fused_optimizer(str_field(oc, "optimizer")) && fused_optimizer(str_field(nc, "optimizer"));
  const bool compile = !bool_field(oc, "torch_compile") && bool_field(nc, "torch_compile");
  const double w0 = num_field(oc, "dataloader_workers", 0), w1 = num_field(nc, "dataloader_workers", 0);
  const bool workers = w0 == 0 && w1 > 0;
  const bool pin = !bool_field(oc, "dataloader_pin_memory") && bool_field(nc, "dataloader_pin_memory");
  const double b0 = num_field(oc, "batch_size", 0), b1 = num_field(nc, "batch_size", 0);
  const double k = (b0 > 0 && b1 > b0) ? b1 / b0 : 1.0;
  if (to16) p.model_fields["precision"].push_back("precision " + p0 + " -> " + p1);
  if (to_tf32) p.model_fields["precision"].push_back("tf32 false -> true");
  if (attn) p.model_fields["attention"].push_back("attention_impl -> " + str_field(nc, "attention_impl"));
  if (optim) p.model_fields["fused_optimizer"].push_back("optimizer -> " + str_field(nc, "optimizer"));
  if (compile) p.model_fields["compile"].push_back("torch_compile false -> true");
  if (workers) p.model_fields["data"].push_back("dataloader_workers 0 -> " + num(w1));
  if (pin) p.model_fields["data"].push_back("dataloader_pin_memory -> true");
  if (k > 1) p.model_fields["batch"].push_back("batch_size " + num(b0) + " -> " + num(b1));

  p.classes.reserve(16);  // references returned by add() stay valid
  auto add = [&](const std::string& name, const std::string& bucket, double before) -> ClassPrediction& {
    p.classes.push_back(ClassPrediction{name, bucket, before, before, before, {}, "unchanged by the patch"});
    return p.classes.back();
  };

  // ---- GEMMs (outside attention) ----
  const std::string d16 = p1 == "fp16" ? "fp16" : "bf16";
  {
    ClassPrediction& cl =
        add("gemm", c.gemm_simt_s > c.gemm_tensor_s ? "precision_path" : "useful_gpu", c.gemm_simt_s + c.gemm_tensor_s);
    std::string target = to16 ? d16 : (to_tf32 ? "tf32" : "");
    double t = to16 ? cl.before : c.gemm_simt_s;  // TF32 re-times only the SIMT fp32 GEMMs
    if (!target.empty() && t > 0) {
      Rate r = gemm_rate(g, mc, target, sf);
      if (c.gemm_flops > 0 && r.fast > 0) {
        double f = c.gemm_flops * (to16 ? 1.0 : (c.gemm_simt_s / std::max(1e-12, cl.before)));
        double keep = cl.before - t;
        cl.after_fast = keep + f / (r.fast * 1e12);
        cl.after_slow = std::min(cl.before, keep + f / (r.slow * 1e12));
        cl.basis = num(f, 4) + " GEMM FLOP/step re-timed: " + r.basis;
      } else if (g && hw::fp32_gemm_peak_tflops(*g) && g->peak_tflops(target)) {
        double ratio = *hw::fp32_gemm_peak_tflops(*g) / *g->peak_tflops(target);
        cl.after_fast = cl.before - t + t * ratio;
        cl.after_slow = cl.before - t + std::min(1.0, sf.gemm_peak_ratio_slow_multiplier * ratio) * t;
        cl.basis = "no FLOPs in the trace (record_shapes off): SIMT time x fp32/" + target + " dense peak ratio " +
                   num(ratio) + " (x" + num(sf.gemm_peak_ratio_slow_multiplier) + " for the slow end)";
      } else {
        cl.after_slow = cl.before;
        cl.after_fast = 0;
        cl.basis = "GPU not in the spec database: the GEMM time may shrink to nothing or stay";
      }
      cl.models.push_back("precision");
    }
  }
  // ---- fp32 memory-bound kernels: the byte ratio ----
  {
    ClassPrediction& cl = add("fp32_membound", "precision_path", c.fp32_membound_s);
    if (to16 && cl.before > 0) {
      const double b = kn.taxonomy().fp32_bytes_ratio();  // 4-byte vs 2-byte elements
      cl.after_fast = cl.before / b;
      cl.after_slow = cl.before * (1 + 1 / b) / 2;
      cl.basis = "memory-bound: time x 1/" + num(b) +
                 " (fp32 -> 16-bit bytes) at best; half that saving at the slow end (autocast keeps its fp32 ops and "
                 "adds casts)";
      cl.models.push_back("precision");
    }
    if (compile && cl.before > 0) {
      cl.after_fast *= sf.compile_membound_fast;
      cl.after_slow *= sf.compile_membound_slow;
      cl.basis += "; then x" + num(sf.compile_membound_fast) + "-" + num(sf.compile_membound_slow) +
                  " by Inductor fusion (compile model)";
      cl.models.push_back("compile");
    }
  }
  // ---- eager attention -> a fused kernel's cost model ----
  {
    ClassPrediction& cl = add("attention", c.attn_softmax_s > 0 ? "kernel_shape" : "useful_gpu",
                              c.attn_bmm_s + c.attn_softmax_s + c.attn_score_s + c.attn_fused_s);
    if (attn) {
      const std::string dt = (p1 == "bf16" || p1 == "fp16") ? p1 : "fp32";
      auto peak = g ? g->peak_tflops(dt) : std::nullopt;
      if (c.attn_bmm_flops > 0 && peak && *peak > 0) {
        double f_lo = sf.attention_flops_fast * c.attn_bmm_flops, f_hi = sf.attention_flops_slow * c.attn_bmm_flops;
        cl.after_fast = c.attn_fused_s + f_lo / (sf.attention_peak_fast * *peak * 1e12);
        cl.after_slow = std::min(cl.before, c.attn_fused_s + f_hi / (sf.attention_peak_slow * *peak * 1e12));
        cl.basis = "eager QK^T/PV GEMMs, softmax and score-matrix kernels (" +
                   num((c.attn_bmm_s + c.attn_softmax_s + c.attn_score_s) * 1e3) +
                   " ms) replaced by a fused kernel: " + num(c.attn_bmm_flops, 4) + " eager FLOP/step x " +
                   num(sf.attention_flops_fast) + " (causal tiles skipped) .. x" + num(sf.attention_flops_slow) +
                   " (backward recomputes QK^T) at " + num(sf.attention_peak_slow) + "-" + num(sf.attention_peak_fast) +
                   " of the " + dt + " dense peak " + num(*peak) + " TFLOPS";
      } else {
        cl.after_fast = c.attn_fused_s;
        cl.after_slow = cl.before;
        cl.basis = "no attention FLOPs or GPU peak: the eager attention time may vanish or stay";
      }
      cl.models.push_back("attention");
    } else if (to16 && c.attn_bmm_s > 0) {
      Rate r = gemm_rate(g, mc, d16, sf);
      if (c.attn_bmm_flops > 0 && r.fast > 0) {
        cl.after_fast = cl.before - c.attn_bmm_s + c.attn_bmm_flops / (r.fast * 1e12);
        cl.after_slow = std::min(cl.before, cl.before - c.attn_bmm_s + c.attn_bmm_flops / (r.slow * 1e12));
        cl.basis = "eager attention's bmm re-timed: " + r.basis;
        cl.models.push_back("precision");
      }
    }
  }
  // ---- the optimizer step ----
  {
    ClassPrediction& cl = add("optimizer", "useful_gpu", c.optimizer_s);
    if (optim && cl.before > 0) {
      cl.after_fast = sf.fused_optimizer_fast * cl.before;
      cl.after_slow = sf.fused_optimizer_slow * cl.before;
      cl.basis = num(c.optimizer_kernels, 4) + " optimizer launches/step (" + num(cl.before * 1e3) +
                 " ms): one fused pass (read param, grad, 2 moments; write 3) against foreach's ~8 _foreach_ ops "
                 "x 2-3 tensors each (torch/optim/adamw.py): x" +
                 num(sf.fused_optimizer_fast) + "-" + num(sf.fused_optimizer_slow);
      cl.models.push_back("fused_optimizer");
    }
  }
  // ---- other fusible memory-bound work (elementwise, reduction, norm, softmax) ----
  {
    ClassPrediction& cl = add("membound", "useful_gpu", c.membound_s);
    if (compile && cl.before > 0) {
      cl.after_fast = sf.compile_membound_fast * cl.before;
      cl.after_slow = sf.compile_membound_slow * cl.before;
      cl.basis =
          "Inductor fuses chains of pointwise/reduction kernels into one kernel each (fewer memory round "
          "trips): x" +
          num(sf.compile_membound_fast) + "-" + num(sf.compile_membound_slow) + " (docs/metrics.md)";
      cl.models.push_back("compile");
    }
  }
  add("other_gpu", "useful_gpu", c.other_gpu_s);

  // GPU time after, then idle.
  double gpu_fast = 0, gpu_slow = 0;
  for (const auto& cl : p.classes) gpu_fast += cl.after_fast, gpu_slow += cl.after_slow;
  {
    ClassPrediction& cl = add("data_wait", "data_wait", c.data_wait_s);
    if (workers && cl.before > 0) {
      // w workers each produce one batch per loader_cpu_s: a residual wait only when that exceeds
      // the new step's GPU time.
      double per = c.loader_cpu_s / w1;
      cl.after_fast = 0;
      cl.after_slow = std::min(cl.before, std::max(0.0, per - gpu_fast));
      cl.basis = "input pipeline off the main thread: " + num(c.loader_cpu_s * 1e3) + " ms of loader CPU/step over " +
                 num(w1) + " workers = " + num(per * 1e3) + " ms per batch, against the new step's GPU time";
      cl.models.push_back("data");
    } else if (pin && cl.before > 0) {
      cl.after_fast = sf.pin_memory_fast * cl.before;
      cl.after_slow = std::min(cl.before, sf.pin_memory_slow * cl.before);
      cl.basis = "pinned buffers let the H2D copies overlap: at most the copy share (x" + num(sf.pin_memory_fast) +
                 "-" + num(sf.pin_memory_slow) + ")";
      cl.models.push_back("data");
    }
  }
  {
    ClassPrediction& cl = add("host_gap", "host_gap", c.host_gap_s);
    if (compile && cl.before > 0) {
      cl.after_fast = sf.compile_host_gap_fast * cl.before;
      cl.after_slow = sf.compile_host_gap_slow * cl.before;
      cl.basis = "fewer launches after fusion (" + num(c.kernels, 4) + " kernels/step before): launch-bound idle x" +
                 num(sf.compile_host_gap_fast) + "-" + num(sf.compile_host_gap_slow);
      cl.models.push_back("compile");
    }
  }
  {
    ClassPrediction& cl = add("unattributed", "unattributed", c.unattributed_s);
    cl.after_fast = 0;
    cl.basis = "sync and unknown idle: may vanish or stay";
  }
  if (k > 1) {
    // Batch x k: per-sample work scales with k; the optimizer step and host idle are per step.
    double per_sample_gpu_fast = 0;  // GPU time that scales with the batch, before scaling
    for (auto& cl : p.classes)
      if (cl.name != "optimizer" && cl.name != "host_gap" && cl.name != "unattributed") {
        if (cl.name != "data_wait") per_sample_gpu_fast += cl.after_fast;
        cl.after_fast *= k;
        cl.after_slow *= k;
        cl.models.push_back("batch");
      }
    // Fast end: host idle in a launch-bound step is the GPU waiting for the host's next launch.
    // With k times the work per launch the GPU is busy longer while the host issues the same
    // launches, so up to (k-1) x the per-sample GPU time of that idle is hidden (step after
    // >= max(host, k x GPU)). Slow end: the idle stays.
    for (auto& cl : p.classes)
      if (cl.name == "host_gap" && cl.after_fast > 0) {
        cl.after_fast = std::max(0.0, cl.after_fast - (k - 1) * per_sample_gpu_fast);
        cl.models.push_back("batch");
        const std::string why =
            "batch x" + num(k) + ": host idle stays (slow) or hides under the longer GPU work (fast)";
        cl.basis = cl.basis == "unchanged by the patch" ? why : cl.basis + "; " + why;
      }
  }
  double fast = 0, slow = 0;
  for (const auto& cl : p.classes) {
    fast += cl.after_fast;
    slow += cl.after_slow;
  }
  if (k > 1) {
    p.tokens_scale = k;
    p.notes.push_back("batch x" + num(k) + ": per-sample time x" + num(k) +
                      ", optimizer step and host idle stay per step; speedup in tokens/s");
  }
  p.step_after_fast = fast;
  p.step_after_slow = slow;
  if (p.model_fields.empty()) {
    p.note = "no config change that a speedup model prices";
    return p;
  }
  if (fast <= 0 || slow <= 0) {
    p.note = "the modelled step has no time left";
    return p;
  }
  p.predicted = true;
  p.low = p.tokens_scale * c.step_s / slow;
  p.high = p.tokens_scale * c.step_s / fast;
  return p;
}

namespace {
// The realised time of a prediction class in the AFTER profile's cost profile `a` (same
// definitions). Memory-bound work that a 16-bit patch moves from fp32_membound to membound is
// counted where it came from: membound keeps at most its BEFORE time `b`, the rest is fp32's.
double realised(const std::string& cls, const analysis::CostProfile& a, const analysis::CostProfile& b) {
  if (cls == "gemm") return a.gemm_simt_s + a.gemm_tensor_s;
  if (cls == "fp32_membound") return a.fp32_membound_s + std::max(0.0, a.membound_s - b.membound_s);
  if (cls == "membound") return std::min(a.membound_s, b.membound_s);
  if (cls == "attention") return a.attn_bmm_s + a.attn_softmax_s + a.attn_score_s + a.attn_fused_s;
  if (cls == "optimizer") return a.optimizer_s;
  if (cls == "other_gpu") return a.other_gpu_s;
  if (const double* h = host_class(a, cls)) return *h;
  return 0;
}
}  // namespace

std::vector<BucketRecovery> recovery_by_bucket(const SpeedupPrediction& p, const analysis::RunMetrics& before,
                                               const analysis::RunMetrics* after) {
  // Per waste bucket: the measured budget before and after (the AFTER profile), and the recovery
  // the models predicted for the classes whose time sits in that bucket before the patch, against
  // the recovery the AFTER profile's cost profile realised for the same classes (seconds/step).
  std::vector<BucketRecovery> out;
  const analysis::CostProfile* ac = after && after->cost ? &*after->cost : nullptr;
  auto r6 = [](std::optional<double> v) { return v ? std::optional<double>(round_to(*v, 6)) : std::nullopt; };
  for (const auto& b : analysis::WasteBudget::kBuckets) {
    double lo = 0, hi = 0, real = 0;
    BucketRecovery row;
    row.bucket = b.name;
    for (const auto& cl : p.classes)
      if (cl.bucket == b.name) {
        row.classes.push_back(cl.name);
        lo += cl.before - cl.after_slow;
        hi += cl.before - cl.after_fast;
        // Realised: both profiles as measured (the BEFORE class before the profiler correction).
        if (ac && before.cost)
          real += realised(cl.name, *before.cost, *before.cost) - realised(cl.name, *ac, *before.cost);
      }
    row.before_s = r6(before.waste_budget.value_of(b.name));
    if (!row.classes.empty()) {
      row.predicted_recovery_low_s = round_to(lo, 6);
      row.predicted_recovery_high_s = round_to(hi, 6);
    }
    if (after) row.after_s.emplace(r6(after->waste_budget.value_of(b.name)));
    if (ac && !row.classes.empty()) {
      row.realised_recovery_s = round_to(real, 6);
      row.within_predicted = real >= lo - 1e-4 && real <= hi + 1e-4;
    }
    out.push_back(std::move(row));
  }
  return out;
}

Json speedup_prediction_to_json(const SpeedupPrediction& p) { return fields::to_json(p); }

Status speedup_prediction_from_json(const Json& j, SpeedupPrediction& p, const std::string& at) {
  return fields::read(j, p, at);
}

}  // namespace goblin::audit
