// Unified diff of two texts, as `diff -u` prints it: the patch verb shows the user what it changed
// in their file, and the report embeds it.
#pragma once
#include <string>

namespace goblin::config {

// LCS over lines, `context` lines around each change. Empty when the texts are equal.
std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_name,
                         const std::string& b_name, int context = 3);

}  // namespace goblin::config
