#include "core/json.h"

#include <cmath>

namespace goblin {

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

double round_to(double v, int digits) {
  if (!std::isfinite(v)) return 0.0;
  double p = std::pow(10.0, digits);
  return std::round(v * p) / p;
}

}  // namespace goblin
