// The positional scan of a config file: one scanner per format (scan_yaml.cpp, scan_json.cpp,
// scan_python.cpp, scan_env.cpp, scan_command.cpp), picked here by format.
#include "config/config_source.h"

#include <algorithm>

#include "config/command_line.h"

namespace goblin::config {

int64_t line_of(const std::string& text, int64_t offset) {
  offset = std::clamp<int64_t>(offset, 0, static_cast<int64_t>(text.size()));
  return 1 + std::count(text.begin(), text.begin() + offset, '\n');
}

LineIndex::LineIndex(const std::string& text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(static_cast<int64_t>(i + 1));
}

int64_t LineIndex::line(int64_t offset) const {
  return std::upper_bound(starts_.begin(), starts_.end(), std::max<int64_t>(offset, 0)) - starts_.begin();
}

Result<SourceScan> scan_source(const std::string& text, ConfigFormat fmt, const std::string& file) {
  if (fmt == kCommandFormat) return scan_command(text, file);
  switch (fmt) {
    case ConfigFormat::Yaml:
      return scan_yaml(text, file);
    case ConfigFormat::Json:
      return scan_json(text, file);
    case ConfigFormat::Python:
      return scan_python(text, file);
    case ConfigFormat::Env:
      return scan_env(text, file);
  }
  return make_error(ErrorKind::Internal, "unknown config format");
}

}  // namespace goblin::config
