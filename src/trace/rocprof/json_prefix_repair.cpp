#include "trace/rocprof/json_prefix_repair.h"

#include <vector>

namespace goblin::trace::rocprof {

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

namespace {
KeyedArrayRead parse_once(const simdjson::padded_string& buf, std::string_view key,
                          const std::function<void(simdjson::ondemand::object)>& on_element) {
  namespace od = simdjson::ondemand;
  KeyedArrayRead out;
  od::parser parser;
  const char* where = nullptr;
  try {
    od::document doc = parser.iterate(buf);
    try {
      od::object root = doc.get_object();
      for (od::field f : root) {
        if (f.unescaped_key().value() != key) continue;
        out.found = true;
        od::array items = f.value().get_array();
        for (od::value v : items) on_element(v.get_object());
      }
    } catch (const simdjson::simdjson_error&) {
      const char* loc = nullptr;
      if (!doc.current_location().get(loc)) where = loc;
      throw;
    }
  } catch (const simdjson::simdjson_error& e) {
    out.ok = false;
    out.what = e.what();
    out.offset = where ? static_cast<int64_t>(where - buf.data()) : -1;
  }
  return out;
}
}  // namespace

KeyedArrayRead read_keyed_array(const simdjson::padded_string& buf, std::string_view key,
                                const std::function<void(simdjson::ondemand::object)>& on_element,
                                const std::function<bool()>& nothing_read, const std::function<void()>& restart) {
  KeyedArrayRead out = parse_once(buf, key, on_element);
  if (!out.ok && nothing_read()) {
    if (auto fixed = close_truncated_json(std::string_view(buf.data(), buf.size()))) {
      simdjson::padded_string prefix(fixed->text);
      restart();
      KeyedArrayRead again = parse_once(prefix, key, on_element);
      if (again.ok) out.offset = static_cast<int64_t>(fixed->cut);
      out.found = out.found || again.found;
    }
  }
  return out;
}

}  // namespace goblin::trace::rocprof
