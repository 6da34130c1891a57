// Interns strings once; tables store 4-byte ids. Kernel names repeat thousands of times in a
// trace, so a kernel row costs an id, not a copy of a 300-byte templated C++ name.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace goblin {

using StrId = uint32_t;
inline constexpr StrId kNoStr = 0;  // id 0 is always the empty string

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  // Text is stored as valid UTF-8 of at most limits::kMaxNameBytes: a name with invalid bytes is
  // stored with U+FFFD in their place, a longer one is cut (both counted, for the reader's one
  // warning), so every name is safe to write into JSON, Markdown or SQL output.
  StrId intern(std::string_view s);
  // Id of s if already interned, kNoStr otherwise (does not insert).
  StrId find(std::string_view s) const;
  std::string_view view(StrId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  size_t bytes_used() const { return arena_bytes_; }
  size_t invalid_utf8_replaced() const { return invalid_utf8_; }  // names with bytes replaced
  size_t truncated() const { return truncated_; }                 // names cut to kMaxNameBytes

 private:
  // One slot of the open-addressing index: the high half of the string's hash (checked before
  // the bytes are compared) and its id + 1 (0: empty). A flat array probed linearly: a lookup
  // is one cache line in the common case, where a node-based map chased two pointers.
  struct Slot {
    uint32_t tag = 0;
    uint32_t id_plus_1 = 0;
  };
  static uint64_t hash(std::string_view s) noexcept;
  const char* store(std::string_view s);
  // The index of the slot holding s (hash h), or of the empty slot where it would go.
  size_t probe(std::string_view s, uint64_t h) const;
  void grow();
  StrId insert_at(Slot& slot, std::string_view s, uint64_t h);  // s is new: store it, fill `slot`

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_cap_ = 0;
  size_t arena_bytes_ = 0;
  std::vector<std::string_view> strings_;
  std::vector<Slot> index_;  // power-of-two size, at most half full
  size_t invalid_utf8_ = 0;
  size_t truncated_ = 0;
};

}  // namespace goblin
