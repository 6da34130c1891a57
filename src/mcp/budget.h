// The audit call budget (docs/mcp.md): an audit session allows at most N audit-tool calls (parse_config,
// profile_run, query_kb, propose_patch, benchmark, compare_runs); every call counts, failed ones
// too, since each costs the agent a slot. The next one is refused with ok=false naming the budget.
#pragma once
#include <optional>
#include <string>

#include "core/status.h"

namespace goblin::mcp {

class Budget {
 public:
  explicit Budget(int limit) : limit_(limit) {}
  // Takes one slot for `tool`; an error (kind Usage) when the budget is spent.
  std::optional<Error> take(const std::string& tool);
  int used() const { return used_; }
  int limit() const { return limit_; }
  int left() const { return limit_ > used_ ? limit_ - used_ : 0; }

 private:
  int limit_ = 8;
  int used_ = 0;
};

}  // namespace goblin::mcp
