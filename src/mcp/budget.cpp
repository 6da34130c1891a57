#include "mcp/budget.h"

namespace goblin::mcp {

std::optional<Error> Budget::take(const std::string& tool) {
  if (used_ >= limit_)
    return make_error(ErrorKind::Usage, "call budget spent: this audit session allows at most " +
                                            std::to_string(limit_) + " audit-tool calls (--budget " +
                                            std::to_string(limit_) + "; seed 000's cap), and " + tool +
                                            " would be call " + std::to_string(used_ + 1) +
                                            ". Finish with what you have, or start a new session.");
  ++used_;
  return std::nullopt;
}

}  // namespace goblin::mcp
