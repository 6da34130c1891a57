// Unpredictable name parts for files and folders goblin creates next to things an attacker may
// have planted (a temporary file beside the user's config, an MCP call's output folder): a
// predictable name lets a symlink be waiting for it.
#pragma once
#include <cstddef>
#include <string>

namespace goblin {

// `chars` lower-case hex digits (at most 16) from std::random_device, drawn fresh each call: safe
// from any thread and in a forked child.
std::string random_hex_tag(size_t chars = 16);

}  // namespace goblin
