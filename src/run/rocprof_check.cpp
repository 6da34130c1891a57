#include "run/rocprof_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include "core/fields.h"
#include "model/timeline.h"
#include "run/stats.h"
#include "trace/readers.h"

namespace fs = std::filesystem;

namespace goblin::fields {
template <>
struct List<run::RocprofFigures> {
  using F = run::RocprofFigures;
  static inline const auto fields =
      std::tuple{field("wrapped", &F::wrapped),
                 field("kernel_trace", &F::kernel_trace),
                 field("read", &F::read, Omit),
                 field("kernels", &F::kernels, Omit),
                 field("kernel_time_s", &F::kernel_time_s, Opt<Num>{Num{6}}, Omit),
                 field("kineto_kernels", &F::kineto_kernels, Omit),
                 field("kineto_kernel_time_s", &F::kineto_kernel_time_s, Opt<Num>{Num{6}}, Omit),
                 field("steps_ratio", &F::steps_ratio, Opt<Num>{Num{3}}, Omit),
                 field("expected_kernels", &F::expected_kernels, Omit),
                 field("expected_kernels_found", &F::expected_kernels_found, Omit),
                 field("coverage_pct", &F::coverage_pct, Opt<Num>{Num{2}}, Omit),
                 field("time_ratio", &F::time_ratio, Opt<Num>{Num{4}}, Omit),
                 field("meaning", &F::meaning, Omit),
                 field("agrees", &F::agrees, Omit),
                 field("note", &F::note, Omit)};
};

}  // namespace goblin::fields

namespace goblin::run {

Json RocprofCheck::json() const { return fields::to_json(figures); }
namespace {

struct PerName {
  int64_t n = 0, total_ns = 0;
};
struct KernelTally {
  std::map<std::string, PerName> by_name;
  int64_t n = 0, total_ns = 0;
  std::string error;
};

KernelTally tally(const std::string& path, KernelTally t = {}) {
  Timeline tl;
  Status st = trace::read_path(path, tl);
  if (!st.ok() && tl.gpu_ops.size() == 0) {
    t.error = st.error().message;
    return t;
  }
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    PerName& p = t.by_name[std::string(tl.str(tl.gpu_ops.name[i]))];
    ++p.n;
    p.total_ns += tl.gpu_ops.dur_ns[i];
    ++t.n;
    t.total_ns += tl.gpu_ops.dur_ns[i];
  }
  return t;
}

}  // namespace

RocprofCheck check_rocprof_kernels(const std::string& run_dir, const std::string& rocprof_dir,
                                   const std::string& kineto_trace) {
  RocprofCheck out;
  RocprofFigures& j = out.figures;
  // One file per profiled process: <pid>_results.db (rocpd, ROCm 7's default) or
  // <pid>_kernel_trace.csv (--output-format csv). A run that wrote both is read from rocpd alone,
  // so no dispatch is counted twice.
  std::vector<std::string> rocpd, csv;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(rocprof_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(ec)) continue;
    if (name.size() > 11 && name.ends_with("_results.db")) rocpd.push_back(it->path().string());
    if (name.size() > 17 && name.ends_with("_kernel_trace.csv")) csv.push_back(it->path().string());
  }
  std::vector<std::string> files = rocpd.empty() ? csv : rocpd;
  std::sort(files.begin(), files.end());
  for (const auto& f : files) j.kernel_trace.push_back(fs::relative(f, run_dir, ec).string());
  if (files.empty()) {
    j.read = false;
    out.disagreement = "rocprofv3 wrote no <pid>_results.db or <pid>_kernel_trace.csv under " + rocprof_dir +
                       " (did its tool library attach to the workload?): the kernels are from the Kineto trace alone";
    j.note = out.disagreement;
    return out;
  }
  KernelTally r;
  for (const auto& f : files) {
    r = tally(f, std::move(r));
    if (!r.error.empty()) {
      j.read = false;
      out.disagreement = "rocprofv3 kernel trace unreadable (" + r.error + "): " + f;
      j.note = out.disagreement;
      return out;
    }
  }
  j.read = true;
  j.kernels = r.n;
  j.kernel_time_s = static_cast<double>(r.total_ns) * 1e-9;
  KernelTally k = tally(kineto_trace);
  if (!k.error.empty() || k.n == 0) {
    j.note = "no Kineto kernels to compare with" + (k.error.empty() ? std::string() : " (" + k.error + ")");
    return out;
  }
  // Every kernel of the Kineto window should be among rocprofv3's, which saw the whole process:
  // the warm-up steps too, so each name appears about q times as often there, q the same for
  // every name of a training step (the median of the per-name ratios, at least 1). A lost record
  // leaves its name short of q x its Kineto count. The time rocprofv3 gives those kernels (its
  // mean per name) is compared with Kineto's.
  std::vector<double> ratios;
  for (const auto& [name, kp] : k.by_name) {
    auto it = r.by_name.find(name);
    ratios.push_back(it == r.by_name.end() ? 0.0 : static_cast<double>(it->second.n) / static_cast<double>(kp.n));
  }
  const double q = std::max(1.0, median(ratios));
  double expected = 0, found = 0, rocprof_ns = 0, kineto_ns = 0;
  for (const auto& [name, kp] : k.by_name) {
    const double want = std::round(static_cast<double>(kp.n) * q);
    expected += want;
    auto it = r.by_name.find(name);
    if (it == r.by_name.end()) continue;
    found += std::min(want, static_cast<double>(it->second.n));
    rocprof_ns +=
        static_cast<double>(kp.n) * static_cast<double>(it->second.total_ns) / static_cast<double>(it->second.n);
    kineto_ns += static_cast<double>(kp.total_ns);
  }
  const double coverage = expected > 0 ? found / expected : 0.0;
  const double ratio = kineto_ns > 0 ? rocprof_ns / kineto_ns : 0.0;
  j.kineto_kernels = k.n;
  j.kineto_kernel_time_s = static_cast<double>(k.total_ns) * 1e-9;
  j.steps_ratio = q;
  j.expected_kernels = static_cast<int64_t>(expected);
  j.expected_kernels_found = static_cast<int64_t>(found);
  j.coverage_pct = 100.0 * coverage;
  j.time_ratio = ratio;
  j.meaning =
      "steps_ratio: how many times more often rocprofv3 (whole process) saw a kernel name than the Kineto window "
      "(median over names); coverage_pct: share of the expected kernels (Kineto count x steps_ratio, per name) that "
      "rocprofv3 recorded; time_ratio: rocprofv3's mean duration of those kernels over Kineto's (1 = the same)";
  const bool agree = coverage >= 0.99 && std::fabs(ratio - 1.0) <= 0.10;
  j.agrees = agree;
  if (!agree) {
    out.disagreement = fmt::format(
        "rocprofv3 and the Kineto trace disagree: rocprofv3 recorded {:.0f} of the {:.0f} kernels expected from the "
        "Kineto window's {} ({:.1f} %) and times them at {:.2f}x Kineto's; one of the two lost records, so kernel "
        "counts and times of this run are in doubt ({})",
        found, expected, k.n, 100.0 * coverage, ratio, j.kernel_trace.front());
    j.note = out.disagreement;
  }
  return out;
}

}  // namespace goblin::run
