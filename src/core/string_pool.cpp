#include "core/string_pool.h"

#include <cstring>

namespace goblin {

namespace {
constexpr size_t kBlockSize = 256 * 1024;
}

size_t StringPool::Hash::operator()(std::string_view s) const noexcept {
  // FNV-1a over 8-byte words: names are long and similar (templated kernels), so hash every byte.
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  for (; i < s.size(); ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
  return static_cast<size_t>(h ^ (h >> 32));
}

StringPool::StringPool() {
  strings_.emplace_back();
  index_.emplace(std::string_view{}, kNoStr);
}

const char* StringPool::store(std::string_view s) {
  if (s.size() > kBlockSize / 4) {  // big strings get their own block
    blocks_.emplace_back(new char[s.size()]);
    std::memcpy(blocks_.back().get(), s.data(), s.size());
    arena_bytes_ += s.size();
    const char* p = blocks_.back().get();
    // keep the current small-string block at the back
    if (blocks_.size() >= 2 && block_cap_ != 0) std::swap(blocks_[blocks_.size() - 1], blocks_[blocks_.size() - 2]);
    return p;
  }
  if (block_used_ + s.size() > block_cap_) {
    blocks_.emplace_back(new char[kBlockSize]);
    block_used_ = 0;
    block_cap_ = kBlockSize;
  }
  char* p = blocks_.back().get() + block_used_;
  std::memcpy(p, s.data(), s.size());
  block_used_ += s.size();
  arena_bytes_ += s.size();
  return p;
}

StrId StringPool::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  std::string_view stored(store(s), s.size());
  auto id = static_cast<StrId>(strings_.size());
  strings_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StrId StringPool::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNoStr : it->second;
}

}  // namespace goblin
