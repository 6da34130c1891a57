// The config knowledge (config/knowledge.h): data/config_keys.yaml and data/attention.yaml.
#include "config/knowledge.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/data.h"
#include "core/text.h"

namespace goblin::config {

namespace {

Error bad(const std::string& what, const std::string& origin, const YAML::Node& at) {
  return make_error(ErrorKind::Malformed, what, origin, -1, at.Mark().line + 1);
}

// A list of lower-case strings (`name` for the message).
Result<std::vector<std::string>> lower_list(const YAML::Node& n, const std::string& name, const std::string& origin) {
  if (!n.IsSequence() || n.size() == 0) return bad(fmt::format("{} must be a non-empty list", name), origin, n);
  std::vector<std::string> out;
  for (const auto& s : n) {
    if (!s.IsScalar() || s.Scalar().empty() || ascii_lower(s.Scalar()) != s.Scalar())
      return bad(fmt::format("{}: `{}` must be a lower-case name", name, s.IsScalar() ? s.Scalar() : "?"), origin, s);
    out.push_back(s.Scalar());
  }
  return out;
}

Result<ConfigKeys::Call> parse_call(const YAML::Node& n, const std::string& origin) {
  ConfigKeys::Call c;
  if (YAML::Node keys = n["keys"]) {
    if (!keys.IsMap()) return bad("config_keys: a call's `keys` must be a map", origin, keys);
    for (const auto& kv : keys) {
      const std::string k = kv.first.Scalar();
      if (k.empty() || ascii_lower(k) != k || !kv.second.IsScalar() || kv.second.Scalar().empty())
        return bad(fmt::format("config_keys: call argument `{}` must be lower-case and name a field", k), origin,
                   kv.first);
      c.keys[k] = kv.second.Scalar();
    }
  }
  if (YAML::Node o = n["other"]) {
    if (!o.IsScalar()) return bad("config_keys: a call's `other` must be a field name", origin, o);
    c.other = o.Scalar();
  }
  return c;
}

Result<ConfigKeys::Rule> parse_rule(const YAML::Node& n, const std::string& origin) {
  ConfigKeys::Rule r;
  if (!n.IsMap() || !n["field"] || !n["field"].IsScalar() || n["field"].Scalar().empty() || !n["keys"] || !n["source"])
    return bad("config_keys: each key rule needs `field`, `keys` and `source`", origin, n);
  r.field = n["field"].Scalar();
  ASSIGN_OR_RETURN(r.keys, lower_list(n["keys"], "config_keys: keys", origin));
  if (n["parent_in"]) {
    ASSIGN_OR_RETURN(r.parent_in, lower_list(n["parent_in"], "config_keys: parent_in", origin));
  }
  if (n["parent_not"]) {
    ASSIGN_OR_RETURN(r.parent_not, lower_list(n["parent_not"], "config_keys: parent_not", origin));
  }
  if (YAML::Node d = n["depth"]) {
    const int depth = d.as<int>();
    if (depth < 1) return bad("config_keys: `depth` must be at least 1", origin, d);
    r.depth = static_cast<size_t>(depth);
  }
  return r;
}

}  // namespace

Result<ConfigKeys> ConfigKeys::parse(const std::string& yaml_text, const std::string& origin) {
  ConfigKeys ck;
  try {
    YAML::Node root = YAML::Load(yaml_text);
    if (!root.IsMap()) return make_error(ErrorKind::Malformed, "config_keys: not a YAML map", origin);
    YAML::Node env = root["env_roots"];
    if (!env || !env.IsMap() || !env["variables"] || !env["hide_below"] || !env["source"])
      return bad("config_keys: `env_roots` needs `variables`, `hide_below` and `source`", origin, env ? env : root);
    ASSIGN_OR_RETURN(ck.env_variables, lower_list(env["variables"], "config_keys: env_roots.variables", origin));
    ASSIGN_OR_RETURN(ck.env_hide_below, lower_list(env["hide_below"], "config_keys: env_roots.hide_below", origin));
    YAML::Node calls = root["calls"];
    if (!calls || !calls.IsSequence()) return bad("config_keys: `calls` list missing", origin, root);
    for (const auto& n : calls) {
      if (!n.IsMap() || !n["names"] || !n["names"].IsSequence() || n["names"].size() == 0 || !n["source"])
        return bad("config_keys: each call needs `names` and `source`", origin, n);
      ASSIGN_OR_RETURN(auto call, parse_call(n, origin));
      for (const auto& name : n["names"]) {
        if (!name.IsScalar() || name.Scalar().empty() || ck.calls.count(name.Scalar()))
          return bad(
              fmt::format("config_keys: call name `{}` empty or listed twice", name.IsScalar() ? name.Scalar() : "?"),
              origin, name);
        ck.calls[name.Scalar()] = call;
      }
    }
    YAML::Node rules = root["keys"];
    if (!rules || !rules.IsSequence() || rules.size() == 0)
      return bad("config_keys: `keys` list missing or empty", origin, root);
    for (const auto& n : rules) {
      ASSIGN_OR_RETURN(auto r, parse_rule(n, origin));
      ck.rules.push_back(std::move(r));
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("config_keys: ") + e.what(), origin, -1, e.mark.line + 1);
  }
  return ck;
}

Result<AttentionImpls> AttentionImpls::parse(const std::string& yaml_text, const std::string& origin) {
  AttentionImpls a;
  try {
    YAML::Node root = YAML::Load(yaml_text);
    if (!root.IsMap()) return make_error(ErrorKind::Malformed, "attention: not a YAML map", origin);
    if (YAML::Node u = root["unknown"]) {
      if (!u.IsScalar() || u.Scalar().empty()) return bad("attention: `unknown` must be a name", origin, u);
      a.unknown = u.Scalar();
    }
    YAML::Node list = root["implementations"];
    if (!list || !list.IsSequence() || list.size() == 0)
      return bad("attention: `implementations` list missing or empty", origin, root);
    for (const auto& n : list) {
      if (!n.IsMap() || !n["name"] || !n["name"].IsScalar() || n["name"].Scalar().empty() || !n["fused"] ||
          !n["aliases"] || !n["source"])
        return bad("attention: each implementation needs `name`, `fused`, `aliases` and `source`", origin, n);
      Impl i;
      i.name = n["name"].Scalar();
      i.fused = n["fused"].as<bool>();
      if (n["hf_name"]) i.hf_name = n["hf_name"].Scalar();
      ASSIGN_OR_RETURN(i.aliases, lower_list(n["aliases"], "attention: aliases of " + i.name, origin));
      a.impls.push_back(std::move(i));
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("attention: ") + e.what(), origin, -1, e.mark.line + 1);
  }
  return a;
}

Result<ConfigKnowledge> ConfigKnowledge::load() {
  ConfigKnowledge k;
  ASSIGN_OR_RETURN(auto keys, load_data_file("config_keys.yaml"));
  ASSIGN_OR_RETURN(k.keys, ConfigKeys::parse(keys, data_file_origin("config_keys.yaml")));
  ASSIGN_OR_RETURN(auto attention, load_data_file("attention.yaml"));
  ASSIGN_OR_RETURN(k.attention, AttentionImpls::parse(attention, data_file_origin("attention.yaml")));
  return k;
}

Result<std::shared_ptr<const ConfigKnowledge>> config_knowledge() {
  static DataDirCache<ConfigKnowledge> cache;
  return cache.get(ConfigKnowledge::load);
}

}  // namespace goblin::config
