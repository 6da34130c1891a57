// What an audit leaves in its output directory: report.json/.md/.html (when the audit finished),
// trajectory.json, live_runs.json (live audits), the patched config and patch.json. Shared by
// `goblin audit` and the MCP server so both write the same directory.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "audit/audit_flow.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::audit {

// `live_log` may be empty (replay). Paths written are appended to `written` in order.
Status write_audit_directory(const std::string& dir, const std::string& config_path, const AuditOutcome& outcome,
                             const std::function<Json()>& live_log, std::vector<std::string>* written);

}  // namespace goblin::audit
