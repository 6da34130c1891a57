#include "core/status.h"

#include <fmt/format.h>

#include <iterator>

namespace goblin {

const char* Error::kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Internal:
      return "internal";
    case ErrorKind::NoGpuActivity:
      return "no_gpu_activity";
    case ErrorKind::Usage:
      return "usage";
    case ErrorKind::Io:
      return "io";
    case ErrorKind::UnknownFormat:
      return "unknown_format";
    case ErrorKind::Malformed:
      return "malformed";
    case ErrorKind::NotFound:
      return "not_found";
    case ErrorKind::Environment:
      return "environment";
    case ErrorKind::Workload:
      return "workload";
  }
  return "internal";
}

std::string Error::describe() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line >= 0) {
      fmt::format_to(std::back_inserter(out), ": line {}", line);
    } else if (byte_offset >= 0) {
      fmt::format_to(std::back_inserter(out), ": byte {}", byte_offset);
    }
    out += ": ";
  }
  out += message;
  return out;
}

}  // namespace goblin
