// Kernel signatures: the roofline's signature and capture tiers (hw/roofline_signature.h).
#include "hw/roofline_signature.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

namespace goblin::hw {

namespace {
bool close(double a, double b) { return std::abs(a - b) <= 0.01 * std::max(std::abs(a), std::abs(b)); }
void join(SignatureCost::Variant& v, const SignatureCost::Variant& o) {
  v.flops += o.flops;
  v.bytes += o.bytes;
  v.min_ns = std::min(v.min_ns, o.min_ns);
  v.max_ns = std::max(v.max_ns, o.max_ns);
  v.sum_ns += o.sum_ns;
  v.count += o.count;
}
void add_variant(std::vector<SignatureCost::Variant>& vs, const SignatureCost::Variant& n) {
  const double f = n.mean_flops(), b = n.mean_bytes();
  SignatureCost::Variant* nearest = nullptr;
  for (auto& v : vs) {
    if (close(v.mean_flops(), f) && close(v.mean_bytes(), b)) {
      join(v, n);
      return;
    }
    auto dist = [&](const SignatureCost::Variant& x) {
      return std::abs(x.mean_flops() - f) + std::abs(x.mean_bytes() - b);
    };
    if (!nearest || dist(v) < dist(*nearest)) nearest = &v;
  }
  if (vs.size() < SignatureCost::kMaxVariants || !nearest)
    vs.push_back(n);
  else
    join(*nearest, n);
}
}  // namespace

void SignatureCost::add(double f, double b, int64_t ns, const std::string& formula) {
  add_variant(variants, Variant{f, b, 1, ns, ns, static_cast<double>(ns), formula});
}

void SignatureCost::merge(const SignatureCost& o) {
  for (const auto& v : o.variants) add_variant(variants, v);
}

const SignatureCost::Variant* SignatureCost::pick(int64_t ns) const {
  if (!grid_known && variants.size() != 1) return nullptr;
  const double t = static_cast<double>(ns);
  const Variant* best = nullptr;
  double best_d = 0;
  for (const auto& v : variants) {
    if (t < 0.75 * static_cast<double>(v.min_ns) - 2000 || t > 1.33 * static_cast<double>(v.max_ns) + 2000) continue;
    const double mean = v.sum_ns / static_cast<double>(v.count);
    const double d = std::abs(std::log(std::max(t, 1.0) / std::max(mean, 1.0)));
    if (!best || d < best_d) {
      best = &v;
      best_d = d;
    }
  }
  return best;
}

size_t SigKeyHash::operator()(const SigKey& k) const {
  size_t h = std::hash<uint64_t>()(static_cast<uint64_t>(k.name));
  auto mix = [&](uint32_t v) { h ^= std::hash<uint32_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (uint32_t v : k.grid) mix(v);
  for (uint32_t v : k.block) mix(v);
  return h;
}

std::string demangle_kernel_name(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::string(name);
  const std::string s(name);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : s;
}

std::string signature_text(std::string_view kernel_name, const Dim3& grid, const Dim3& block) {
  return fmt::format("{}|{},{},{}|{},{},{}", demangle_kernel_name(kernel_name), grid[0], grid[1], grid[2], block[0],
                     block[1], block[2]);
}

KernelSignatures export_signatures(const Timeline& tl, const TraceSignatures& sigs) {
  KernelSignatures out;
  out.reserve(sigs.size());
  for (const auto& [key, cost] : sigs) {
    auto [it, fresh] = out.try_emplace(signature_text(tl.str(key.name), key.grid, key.block), cost);
    if (!fresh) it->second.merge(cost);  // two name ids that demangle to one name
  }
  return out;
}

void price_by_signature(
    const Timeline& tl, const KernelSignatures* capture, const TraceSignatures& sigs,
    std::vector<std::pair<size_t, std::string>>& left,
    const std::function<void(size_t, const SignatureCost&, const SignatureCost::Variant&, bool)>& price) {
  if (left.empty() || (sigs.empty() && (!capture || capture->empty()))) return;
  const GpuOpTable& K = tl.gpu_ops;
  std::unordered_map<SigKey, const SignatureCost*, SigKeyHash> from_capture;  // by name id: one lookup each
  std::vector<std::pair<size_t, std::string>> still;
  for (auto& [k, why] : left) {
    if (K.kind[k] != GpuOpKind::Kernel) {
      still.emplace_back(k, std::move(why));
      continue;
    }
    const SigKey key{K.name[k], K.grid[k], K.block[k]};
    if (auto it = sigs.find(key); it != sigs.end()) {
      if (const auto* v = it->second.pick(K.dur_ns[k])) {
        price(k, it->second, *v, false);
        continue;
      }
    }
    if (capture) {
      auto [ct, fresh] = from_capture.try_emplace(key, nullptr);
      if (fresh) {
        auto c = capture->find(signature_text(tl.str(key.name), key.grid, key.block));
        if (c != capture->end()) ct->second = &c->second;
      }
      if (const auto* v = ct->second ? ct->second->pick(K.dur_ns[k]) : nullptr) {
        price(k, *ct->second, *v, true);
        continue;
      }
    }
    still.emplace_back(k, std::move(why));
  }
  left = std::move(still);
}

}  // namespace goblin::hw
