#include "core/string_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

#include "core/limits.h"
#include "core/text.h"

namespace goblin {

namespace {
constexpr size_t kBlockSize = 256 * 1024;
}

namespace {
inline uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline uint64_t load4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}
// 64x64 -> 128-bit multiply, folded: every input bit reaches every output bit.
inline uint64_t fold_mul(uint64_t a, uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}
constexpr uint64_t kK0 = 0xa0761d6478bd642full, kK1 = 0xe7037ed1a0b428dbull, kK2 = 0x8ebc6af09c88c6e3ull;
}  // namespace

// 16 bytes per multiply, every byte hashed (kernel names are long and differ late: templated
// kernels share their first hundred bytes). One 128-bit multiply per step keeps the dependency
// chain short; the old byte-serial FNV was ~4x slower on 150-byte names.
uint64_t StringPool::hash(std::string_view s) noexcept {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = kK0 ^ (n * kK1);
  for (; n > 16; n -= 16, p += 16) h = fold_mul(load8(p) ^ kK1, load8(p + 8) ^ h);
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = load8(p);
    b = load8(p + n - 8);
  } else if (n >= 4) {
    a = load4(p);
    b = load4(p + n - 4);
  } else if (n > 0) {
    a = (static_cast<uint64_t>(static_cast<unsigned char>(p[0])) << 16) |
        (static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8) | static_cast<unsigned char>(p[n - 1]);
  }
  h = fold_mul(a ^ kK1, b ^ h ^ n);
  return fold_mul(h ^ kK2, kK0);
}

StringPool::StringPool() : index_(1024) { strings_.emplace_back(); }

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

size_t StringPool::probe(std::string_view s, uint64_t h) const {
  const size_t mask = index_.size() - 1;
  const auto tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const Slot& slot = index_[i];
    if (slot.id_plus_1 == 0 || (slot.tag == tag && strings_[slot.id_plus_1 - 1] == s)) return i;
  }
}

void StringPool::grow() {
  std::vector<Slot> old(index_.size() * 2);
  old.swap(index_);
  for (const Slot& o : old) {
    if (o.id_plus_1 == 0) continue;
    const std::string_view v = strings_[o.id_plus_1 - 1];
    index_[probe(v, hash(v))] = o;
  }
}

StrId StringPool::intern(std::string_view s) {
  if (s.empty()) return kNoStr;
  if (index_.empty()) index_.resize(1024);  // a moved-from pool, used again
  const uint64_t h = hash(s);
  Slot& slot = index_[probe(s, h)];
  if (slot.id_plus_1 != 0) return slot.id_plus_1 - 1;
  // A new string: checked once here, never again on the hot path of repeated names. Unsafe text is
  // stored in its safe form (so its raw form misses the index each time; such names are rare).
  if (s.size() > limits::kMaxNameBytes || first_invalid_utf8(s)) {
    std::string safe(s.substr(0, std::min(s.size(), limits::kMaxNameBytes)));
    if (s.size() > limits::kMaxNameBytes) {
      ++truncated_;
      while (!safe.empty() && (static_cast<unsigned char>(safe.back()) & 0xC0) == 0x80) safe.pop_back();
      if (!safe.empty() && static_cast<unsigned char>(safe.back()) >= 0xC0) safe.pop_back();  // a cut lead byte
      fmt::format_to(std::back_inserter(safe), "...[{} more bytes cut]", s.size() - safe.size());
    }
    if (first_invalid_utf8(safe)) {
      ++invalid_utf8_;
      safe = to_valid_utf8(safe);
    }
    // The safe form is stored as it is (a cut name with its note may be a little past the limit).
    const uint64_t hs = hash(safe);
    Slot& at = index_[probe(safe, hs)];
    return at.id_plus_1 != 0 ? at.id_plus_1 - 1 : insert_at(at, safe, hs);
  }
  return insert_at(slot, s, h);
}

StrId StringPool::insert_at(Slot& slot, std::string_view s, uint64_t h) {
  std::string_view stored(store(s), s.size());
  auto id = static_cast<StrId>(strings_.size());
  strings_.push_back(stored);
  slot = Slot{static_cast<uint32_t>(h >> 32), id + 1};
  // The empty string (id 0) is never in the index, so it holds size() - 1 strings.
  if (2 * strings_.size() > index_.size()) grow();
  return id;
}

StrId StringPool::find(std::string_view s) const {
  if (s.empty() || index_.empty()) return kNoStr;
  const Slot& slot = index_[probe(s, hash(s))];
  return slot.id_plus_1 == 0 ? kNoStr : slot.id_plus_1 - 1;
}

}  // namespace goblin
