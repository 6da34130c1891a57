// Edits to one text by byte span, shared by the config editors (config_editor.cpp for YAML, JSON,
// Python and .env; command_editor.cpp for launch command lines).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace goblin::config {

struct TextEdit {
  int64_t begin, end;  // replace [begin, end) (insertion when equal)
  std::string text;
  int seq;  // the order the edit was made in: of edits at one place, the earlier lands first
};

// `text` with every edit applied, from the end backwards so the spans of the others stay valid.
inline std::string apply_text_edits(std::string text, std::vector<TextEdit> edits) {
  std::sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) {
    return a.begin != b.begin ? a.begin > b.begin : a.seq > b.seq;
  });
  for (const auto& e : edits) text.replace(e.begin, e.end - e.begin, e.text);
  return text;
}

}  // namespace goblin::config
