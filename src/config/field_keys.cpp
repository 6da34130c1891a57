// Which WorkloadConfig field a source key maps to: the checks of data/config_keys.yaml, run in
// the order its header describes.
#include <algorithm>

#include "config/config_source.h"
#include "config/knowledge.h"
#include "core/text.h"

namespace goblin::config {

namespace {
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

std::string ConfigKeys::field_for(const std::vector<std::string>& path, const std::string& context) const {
  if (path.empty()) return "";
  const std::string k = ascii_lower(path.back());
  const std::string parent = path.size() >= 2 ? ascii_lower(path[path.size() - 2]) : "";
  const std::string root = ascii_lower(path[0]);
  // 1. environment blocks
  if (path.size() == 2 && contains(env_variables, root)) return "env." + path.back();
  if (path.size() >= 2 && contains(env_hide_below, root)) return "";
  // 2. a call's own presence: only through that call's keys
  const auto call = calls.find(context);
  if (k == "__call") {
    if (call == calls.end()) return "";
    const auto it = call->second.keys.find(k);
    return it == call->second.keys.end() ? "" : it->second;
  }
  // 3. a known call's arguments
  if (call != calls.end()) {
    const auto it = call->second.keys.find(k);
    return it == call->second.keys.end() ? call->second.other : it->second;
  }
  // 4. every other source: the first rule that matches
  for (const Rule& r : rules) {
    if (!contains(r.keys, k)) continue;
    if (!r.parent_in.empty() && !contains(r.parent_in, parent)) continue;
    if (contains(r.parent_not, parent)) continue;
    if (r.depth != 0 && path.size() != r.depth) continue;
    return r.field;
  }
  return "";
}

std::string AttentionImpls::normalise(const std::string& spelling) const {
  const std::string v = ascii_lower(spelling);
  for (const Impl& i : impls)
    if (contains(i.aliases, v)) return i.name;
  return unknown;
}

bool AttentionImpls::fused(const std::string& name) const {
  for (const Impl& i : impls)
    if (i.name == name) return i.fused;
  return false;
}

std::string AttentionImpls::hf_name(const std::string& name) const {
  for (const Impl& i : impls)
    if (i.name == name) return i.hf_name.empty() ? name : i.hf_name;
  return name;
}

}  // namespace goblin::config
