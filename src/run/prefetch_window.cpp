#include "run/prefetch_window.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace goblin::run {
namespace {

// A config field as a whole number: JSON numbers and numeric strings ("4"); anything else none.
std::optional<long long> whole_number(const Json& j) {
  if (j.is_number_integer()) return j.get<long long>();
  if (j.is_number()) return static_cast<long long>(j.get<double>());
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    try {
      size_t used = 0;
      long long v = std::stoll(s, &used);
      if (used == s.size()) return v;
    } catch (...) {
    }
  }
  return std::nullopt;
}

}  // namespace

Json prefetch_window(const config::WorkloadConfig& cfg, int warmup_steps, int measured_steps) {
  const auto workers = whole_number(cfg.get("dataloader_workers"));
  if (!workers || *workers <= 0 || measured_steps <= 0) return nullptr;
  const auto pf_cfg = whole_number(cfg.get("dataloader_prefetch_factor"));
  const long long pf = pf_cfg && *pf_cfg > 0 ? *pf_cfg : 2;  // PyTorch's default with workers
  const long long accum = std::max(1LL, whole_number(cfg.get("grad_accum_steps")).value_or(1));
  const long long buffered = *workers * pf;
  const long long first = std::max(0, warmup_steps) + 1, last = first + measured_steps - 1;
  // Step k consumes batches (k-1)*accum+1 .. k*accum: ready before the first step when k*accum
  // <= buffered. The workers also refill while steps run, so this is a lower bound.
  const long long last_buffered_step = buffered / accum;
  const long long on_buffer = std::max(0LL, std::min(last, last_buffered_step) - first + 1);
  Json j;
  j["workers"] = *workers;
  j["prefetch_factor"] = pf;
  j["prefetch_factor_from"] = pf_cfg && *pf_cfg > 0 ? "config" : "PyTorch default";
  j["grad_accum_steps"] = accum;
  j["buffered_batches"] = buffered;
  j["window_first_step"] = first;
  j["window_last_step"] = last;
  j["steps_on_buffered_batches"] = on_buffer;
  j["window_inside_buffer"] = on_buffer == measured_steps;
  std::string note;
  const std::string loader =
      fmt::format("{} batches the DataLoader had ready before the first step ({} workers x prefetch_factor {})",
                  buffered, *workers, pf);
  const std::string fix = fmt::format("; to measure past them, use --warmup {} or more", last_buffered_step);
  if (on_buffer == measured_steps)
    note = fmt::format(
        "all {} measured steps ({}-{}) ran on the {}: a data-loading bottleneck cannot show in this "
        "window{}",
        measured_steps, first, last, loader, fix);
  else if (on_buffer > 0)
    note = fmt::format(
        "the first {} of the {} measured steps ran on the {}: a data-loading bottleneck shows in the "
        "other {} at most{}",
        on_buffer, measured_steps, loader, measured_steps - on_buffer, fix);

  j["note"] = note;
  return j;
}

}  // namespace goblin::run
