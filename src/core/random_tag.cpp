#include "core/random_tag.h"

#include <algorithm>
#include <random>

namespace goblin {

std::string random_hex_tag(size_t chars) {
  // Drawn from the kernel each call (getrandom): a generator seeded once would hand a forked
  // child (the MCP server runs tools in one, mcp/isolate.h) its parent's next "random" name.
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  std::string tag(std::min<size_t>(chars, 16), '0');
  for (size_t i = tag.size(); i-- > 0; v >>= 4) tag[i] = kHex[v & 0xF];
  return tag;
}

}  // namespace goblin
