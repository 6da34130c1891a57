// A tiny arithmetic evaluator for the FLOP/byte formulas of data/kernel/problems.yaml
// ("2*M*N*K", "(M*K + K*N + M*N)*E"): numbers, variables, + - * /, unary minus, parentheses.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace goblin::kernel {

// Malformed error naming the expression and the character offset; NotFound for an unknown variable.
Result<double> eval_expr(std::string_view expr, const std::map<std::string, double>& vars);

}  // namespace goblin::kernel
