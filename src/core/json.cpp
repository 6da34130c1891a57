#include "core/json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace goblin {

namespace {
int64_t line_at(const std::string& text, int64_t byte) {
  const auto end = text.begin() + std::clamp<int64_t>(byte, 0, static_cast<int64_t>(text.size()));
  return 1 + std::count(text.begin(), end, '\n');
}
}  // namespace

int64_t json_depth_exceeded(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_str) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return static_cast<int64_t>(i);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return -1;
}

Result<Json> parse_json_text(const std::string& text, const std::string& file, const std::string& what, int max_depth) {
  if (const int64_t at = json_depth_exceeded(text, max_depth); at >= 0) {
    return make_error(ErrorKind::Malformed,
                      fmt::format("{}: nested deeper than {} levels of arrays/objects (goblin's limit, "
                                  "docs/robustness.md)",
                                  what, max_depth),

                      file, at, line_at(text, at));
  }
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte is 1-based (the byte after the last one read); report the offending byte itself.
    const int64_t byte = std::max<int64_t>(0, static_cast<int64_t>(e.byte) - 1);
    return make_error(ErrorKind::Malformed, what + ": " + e.what(), file, byte, line_at(text, byte));
  } catch (const Json::exception& e) {
    // out_of_range 406 names the number ("number overflow parsing '1e351...'") but not where it
    // is: find the first occurrence of that text.
    const std::string msg = e.what();
    int64_t byte = -1;
    if (auto a = msg.find("parsing '"); a != std::string::npos) {
      const std::string num = msg.substr(a + 9, msg.rfind('\'') - a - 9);
      if (auto at = text.find(num); !num.empty() && at != std::string::npos) byte = static_cast<int64_t>(at);
    }
    return make_error(ErrorKind::Malformed, what + ": " + msg, file, byte, byte < 0 ? -1 : line_at(text, byte));
  }
}

Json envelope_ok(Json result) {
  Json j;
  j["ok"] = true;
  j["result"] = std::move(result);
  j["error"] = nullptr;
  return j;
}

Json envelope_error(const Error& e, Json partial) {
  Json j;
  j["ok"] = false;
  j["result"] = std::move(partial);
  j["error"] = e.describe();
  j["error_detail"] = error_to_json(e);
  return j;
}

Json error_to_json(const Error& e) {
  Json j;
  j["kind"] = Error::kind_name(e.kind);
  j["message"] = e.message;
  if (!e.file.empty()) j["file"] = e.file;
  if (e.byte_offset >= 0) j["byte_offset"] = e.byte_offset;
  if (e.line >= 0) j["line"] = e.line;
  j["exit_code"] = e.exit_code();
  return j;
}

const char* json_type_name(const Json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

double round_to(double v, int digits) {
  if (!std::isfinite(v)) return 0.0;
  double p = std::pow(10.0, digits);
  return std::round(v * p) / p;
}

}  // namespace goblin
