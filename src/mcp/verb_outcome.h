// A verb's library result (VerbResult: result, error, readable text) as a tool outcome: the text
// block keeps the first lines of the readable text, the structured result stays whole.
#pragma once
#include "core/verb_result.h"
#include "mcp/tools.h"

namespace goblin::mcp {

inline ToolOutcome from_verb(VerbResult r, size_t max_text = 600) {
  ToolOutcome o;
  o.result = std::move(r.result);
  o.error = std::move(r.error);
  std::string t = r.human;
  while (!t.empty() && (t.front() == '\n' || t.front() == ' ')) t.erase(0, 1);
  if (t.size() > max_text) t = t.substr(0, max_text) + " ... (full result in structuredContent)";
  o.text = t;
  return o;
}

}  // namespace goblin::mcp
