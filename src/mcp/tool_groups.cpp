#include "mcp/tool_groups.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/data.h"

namespace goblin::mcp {

namespace {

constexpr const char* kFile = "mcp/tool_groups.yaml";

Error bad(const std::string& what) { return make_error(ErrorKind::Malformed, what, std::string("data/") + kFile); }

Result<std::vector<std::string>> names_of(const YAML::Node& n, const std::string& where) {
  if (!n || !n.IsSequence()) return bad(where + " must be a list of names");
  std::vector<std::string> out;
  for (const auto& x : n) out.push_back(x.as<std::string>());
  return out;
}

Result<ToolGroups> parse_groups(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return bad(fmt::format("not YAML: {} (line {})", e.msg, e.mark.line + 1));
  }
  ToolGroups g;
  if (!root["groups"] || !root["groups"].IsMap()) return bad("needs a `groups` map");
  try {
    for (const auto& kv : root["groups"]) {
      ToolGroup t;
      t.name = kv.first.as<std::string>();
      if (t.name == "all") return bad("`all` is not a group name: it means every group");
      t.summary = kv.second["summary"] ? kv.second["summary"].as<std::string>() : "";
      ASSIGN_OR_RETURN(t.tools, names_of(kv.second["tools"], "groups." + t.name + ".tools"));
      g.groups.push_back(std::move(t));
    }
    ASSIGN_OR_RETURN(g.default_groups, names_of(root["default"], "default"));
  } catch (const YAML::Exception& e) {
    return bad(fmt::format("{} (line {})", e.msg, e.mark.line + 1));
  }
  for (const auto& d : g.default_groups)
    if (!g.find(d)) return bad("default names an unknown group: " + d);
  return g;
}

}  // namespace

const ToolGroup* ToolGroups::find(const std::string& name) const {
  for (const auto& g : groups)
    if (g.name == name) return &g;
  return nullptr;
}

std::string ToolGroups::group_of(const std::string& tool) const {
  for (const auto& g : groups)
    if (std::find(g.tools.begin(), g.tools.end(), tool) != g.tools.end()) return g.name;
  return "";
}

std::string ToolGroups::names() const {
  std::string s;
  for (const auto& g : groups) s += (s.empty() ? "" : ", ") + g.name;
  return s;
}

Result<std::shared_ptr<const ToolGroups>> tool_groups() {
  static DataDirCache<ToolGroups> cache;
  return cache.get([]() -> Result<ToolGroups> {
    ASSIGN_OR_RETURN(auto text, load_data_file(kFile));
    return parse_groups(text);
  });
}

Result<std::vector<std::string>> select_groups(const std::string& spec) {
  ASSIGN_OR_RETURN(auto g, tool_groups());
  if (spec.empty()) return g->default_groups;
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= spec.size()) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    std::string name = spec.substr(at, end - at);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    at = end + 1;
    if (name == "all") {
      out.clear();
      for (const auto& x : g->groups) out.push_back(x.name);
      return out;
    }
    if (!g->find(name))
      return make_error(ErrorKind::Usage,
                        fmt::format("--tools: unknown tool group '{}' (the groups: {}, or all)", name, g->names()));
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace goblin::mcp
