// The config editor: writes field values into the user's own config file in its own format
// (YAML, JSON, Python, env file), in place, comments and layout kept: a value already in the file
// is replaced in its byte span, a missing key is inserted where its block or call is. The result
// is parsed back by the caller (parse_config_text) to check the edit round-trips.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "config/workload_config.h"

namespace goblin::config {

// Edits `text` (format of `cfg`) so that it sets `edits` (field → value). Fields that have no
// place in this format, or that goblin refuses to edit, are returned in `unplaced`; a refusal's
// reason (naming the line) in `refused`: an expression it would overwrite with a literal, a
// Python call that also takes **kwargs, two TrainingArguments calls.
Result<std::string> edit_config_text(const std::string& text, const WorkloadConfig& cfg,
                                     const std::map<std::string, Json>& edits, std::vector<std::string>* unplaced,
                                     std::map<std::string, std::string>* refused = nullptr);

}  // namespace goblin::config
