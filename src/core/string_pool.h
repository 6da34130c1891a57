// Interns strings once; tables store 4-byte ids. Kernel names repeat thousands of times in a
// trace, so a kernel row costs an id, not a copy of a 300-byte templated C++ name.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
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

  StrId intern(std::string_view s);
  // Id of s if already interned, kNoStr otherwise (does not insert).
  StrId find(std::string_view s) const;
  std::string_view view(StrId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  size_t bytes_used() const { return arena_bytes_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept;
  };
  const char* store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_cap_ = 0;
  size_t arena_bytes_ = 0;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, StrId, Hash, std::equal_to<>> index_;
};

}  // namespace goblin
