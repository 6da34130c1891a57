#include "mcp/budget.h"

#include <fmt/format.h>

namespace goblin::mcp {

std::optional<Error> Budget::take(const std::string& tool) {
  if (used_ >= limit_)
    return make_error(ErrorKind::Usage,
                      fmt::format("call budget spent: this audit session allows at most {} audit-tool calls "
                                  "(this server's budget), and {} would be call {}. Finish with what you have (the "
                                  "analysis tools do not count against the budget), or ask the user for a new "
                                  "session.",
                                  limit_, tool, used_ + 1));

  ++used_;
  return std::nullopt;
}

}  // namespace goblin::mcp
