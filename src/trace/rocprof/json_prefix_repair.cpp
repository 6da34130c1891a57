#include "trace/rocprof/json_prefix_repair.h"

#include <vector>

namespace goblin::rocprof {

std::optional<RepairedJson> close_truncated_json(std::string_view text) {
  std::vector<char> stack, stack_at_cut;
  size_t cut = 0;
  bool in_string = false, escape = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      stack.push_back(c);
    } else if (c == '}' || c == ']') {
      if (stack.empty() || (c == '}') != (stack.back() == '{')) break;  // mismatched: damage here
      stack.pop_back();
      // A whole element of an array just ended: a safe place to stop.
      if (!stack.empty() && stack.back() == '[') {
        cut = i + 1;
        stack_at_cut = stack;
      }
    }
  }
  if (cut == 0) return std::nullopt;
  RepairedJson r;
  r.cut = cut;
  r.text.reserve(cut + stack_at_cut.size());
  r.text.append(text.substr(0, cut));
  for (auto it = stack_at_cut.rbegin(); it != stack_at_cut.rend(); ++it) r.text.push_back(*it == '{' ? '}' : ']');
  return r;
}

}  // namespace goblin::rocprof
