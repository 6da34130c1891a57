// The tool groups of `goblin mcp --tools` (data/mcp/tool_groups.yaml, docs/mcp.md § Tool groups):
// a tools/list of every tool is too large for an agent's context, so a server lists the groups its
// operator chose (the default ones without --tools, every group with `all`).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::mcp {

struct ToolGroup {
  std::string name, summary;
  std::vector<std::string> tools;
};

struct ToolGroups {
  std::vector<ToolGroup> groups;
  std::vector<std::string> default_groups;
  const ToolGroup* find(const std::string& name) const;
  // The group a tool is in; empty when none.
  std::string group_of(const std::string& tool) const;
  // "audit, triage, ..." for messages.
  std::string names() const;
};

// The groups file, read once per process and data directory; its errors name the file.
Result<std::shared_ptr<const ToolGroups>> tool_groups();

// The group names a --tools value means: empty → the default groups, "all" → every group, else a
// comma-separated list of group names; an unknown name is a Usage error that lists the groups.
Result<std::vector<std::string>> select_groups(const std::string& spec);

}  // namespace goblin::mcp
