#include "core/random_tag.h"

#include <algorithm>
#include <random>

namespace goblin {

std::string random_hex_tag(size_t chars) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t v = rng();
  std::string tag(std::min<size_t>(chars, 16), '0');
  for (size_t i = tag.size(); i-- > 0; v >>= 4) tag[i] = kHex[v & 0xF];
  return tag;
}

}  // namespace goblin
