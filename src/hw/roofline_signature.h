// Kernel signatures for the roofline's "signature" and "capture" tiers (data/op_models.yaml
// header): a kernel with no launching op (CUDA/HIP graph replays, a tracer-only trace, a launch
// before the recorded CPU window) is priced like an identical launch — same kernel name
// (demangled), grid and block — that its launching op's shapes priced, in the same trace or in a
// capture trace of the same workload (`goblin roofline --capture TRACE`).
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/timeline.h"

namespace goblin::hw {

// What the shape-priced launches of one signature cost. Launches of one signature may be different
// problems (a GEMM under the same tile grid with another K: the grid fixes M and N, not K), so
// their costs are kept apart: one variant per distinct cost (FLOPs and bytes within 1 %) with its
// launches' durations; a kernel takes the variant whose durations its own fits.
struct SignatureCost {
  struct Variant {
    double flops = 0, bytes = 0;  // sums over `count` launches
    int64_t count = 0, min_ns = 0, max_ns = 0;
    double sum_ns = 0;
    std::string formula;  // the first launch's op formula (with its shapes)
    double mean_flops() const { return flops / static_cast<double>(count); }
    double mean_bytes() const { return bytes / static_cast<double>(count); }
  };
  std::string cls, dtype, engine;
  double peak_tflops = 0;  // the compute roof its FLOPs are held to
  bool grid_known = false;
  std::vector<Variant> variants;  // at most kMaxVariants; beyond, a launch joins the nearest

  static constexpr size_t kMaxVariants = 16;
  void add(double flops, double bytes, int64_t ns, const std::string& formula);
  void merge(const SignatureCost& other);
  // The variant a launch of `ns` is: among those whose launches ran within -25 % / +33 % (and
  // 2 us) of it, the nearest in mean duration; nullptr when none is, and when the grid is unknown
  // (ROCm Kineto records none) and the name alone has several variants (ambiguous).
  const Variant* pick(int64_t ns) const;
};

// Signatures by name id within one trace (the per-kernel hot path: no strings).
struct SigKey {
  StrId name = 0;
  Dim3 grid{}, block{};
  bool operator==(const SigKey&) const = default;
};
struct SigKeyHash {
  size_t operator()(const SigKey& k) const;
};
using TraceSignatures = std::unordered_map<SigKey, SignatureCost, SigKeyHash>;

// Signatures across traces: keyed by signature_text (the demangled name, grid and block).
using KernelSignatures = std::unordered_map<std::string, SignatureCost>;

// "name|gx,gy,gz|bx,by,bz" with an Itanium-mangled name (CUPTI tracer) demangled, so it meets
// the demangled name Kineto records for the same kernel.
std::string signature_text(std::string_view kernel_name, const Dim3& grid, const Dim3& block);
std::string demangle_kernel_name(std::string_view name);

// The trace's signatures with text keys (for use as another trace's capture).
KernelSignatures export_signatures(const Timeline& tl, const TraceSignatures& sigs);

// Prices each kernel of `left` (gpu_ops row, why unmodelled) that has a shape-priced twin
// (SignatureCost::pick): in this trace's `sigs` first, else in `capture` (may be null);
// `price(row, signature, variant, from_capture)` is called for it and it leaves `left`.
void price_by_signature(
    const Timeline& tl, const KernelSignatures* capture, const TraceSignatures& sigs,
    std::vector<std::pair<size_t, std::string>>& left,
    const std::function<void(size_t, const SignatureCost&, const SignatureCost::Variant&, bool)>& price);

}  // namespace goblin::hw
