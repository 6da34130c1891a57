// Wall-clock timestamps for what goblin writes (run directories, workspaces, reports).
#pragma once
#include <fmt/chrono.h>

#include <ctime>
#include <string>

namespace goblin {

// Now in UTC, ISO 8601 to the second: "2026-11-23T06:56:04Z".
inline std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", tm);
}

}  // namespace goblin
