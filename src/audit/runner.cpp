// The Runner's default measure of the unprofiled step (docs/audit.md § Profiler correction).
#include "audit/runner.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/io.h"

namespace goblin::audit {

std::optional<UnprofiledStep> Runner::last_unprofiled_step() const {
  // A `goblin profile` run directory (the live runner's last_trace()): its run.json says what the
  // hook timed unrecorded just before the window, in the same process.
  const std::string dir = last_trace();
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return std::nullopt;
  const std::string run = (std::filesystem::path(dir) / "run.json").string();
  if (!std::filesystem::exists(run, ec)) return std::nullopt;
  auto text = read_all(run);
  if (!text) return std::nullopt;
  const Json j = Json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("profiled") || !j["profiled"].is_object()) return std::nullopt;
  const Json& p = j["profiled"];
  if (!p.contains("untraced_step_time_s") || !p["untraced_step_time_s"].is_number()) return std::nullopt;
  const double s = p["untraced_step_time_s"].get<double>();
  if (!(s > 0)) return std::nullopt;
  return UnprofiledStep{s, fmt::format("the same run's {} untraced steps just before the recorded window ({})",
                                       p.value("untraced_steps", 0), run)};
}

}  // namespace goblin::audit
