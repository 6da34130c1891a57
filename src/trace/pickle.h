// A reader of the data-only subset of Python's pickle format that PyTorch's memory snapshots use
// (torch.cuda.memory._dump_snapshot: pickle.dump of dicts, lists, tuples, strings, numbers, bools
// and None; protocols 2-5). It never runs anything: an opcode that would import a name or call
// one (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, EXT) is refused, so a
// hostile file is Malformed, never code. Bounded: values, stack and memo are capped
// (PickleLimits) and containers share memoised children instead of copying them, so a file of N
// bytes builds O(N) values. docs/memory.md.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace goblin::trace {

struct PickleLimits {
  uint64_t max_input_bytes = 1ull << 30;  // 1 GiB: a long snapshot history is ~100 MB
  size_t max_values = 64u << 20;          // values built (each opcode builds at most one)
  size_t max_stack = 1u << 20;            // depth of the unpickling stack, marks included
};

class PickleDoc {
 public:
  enum class Kind : uint8_t { None, Bool, Int, Float, Str, Bytes, List, Tuple, Dict };
  using Id = uint32_t;
  static constexpr Id kNoValue = UINT32_MAX;

  Kind kind(Id v) const { return values_[v].kind; }
  bool is(Id v, Kind k) const { return v != kNoValue && values_[v].kind == k; }
  // The number of an Int or Bool (0 for anything else); a Float as is, an Int converted.
  int64_t integer(Id v) const;
  double number(Id v) const;
  // The bytes of a Str or Bytes (a view into the document's input); empty for anything else.
  std::string_view str(Id v) const;
  // A List's or Tuple's items; a Dict's keys and values interleaved (k0, v0, k1, v1, ...).
  const std::vector<Id>& items(Id v) const;
  // A Dict's value for a string key (the last one set), kNoValue when absent or not a Dict.
  Id get(Id dict, std::string_view key) const;
  Id root() const { return root_; }
  size_t size() const { return values_.size(); }

 private:
  friend class PickleParser;
  struct Value {
    Kind kind = Kind::None;
    uint32_t children = UINT32_MAX;  // index into containers_ (List, Tuple, Dict)
    int64_t i = 0;                   // Int, Bool; Str/Bytes: offset into input_
    double f = 0;                    // Float
    uint64_t len = 0;                // Str/Bytes: length
  };
  std::string input_;
  std::vector<Value> values_;
  std::vector<std::vector<Id>> containers_;
  Id root_ = kNoValue;
};

// Parses `bytes` (the whole file). `path` names the file in errors, which give the byte offset of
// the opcode at fault. A file that ends before STOP is Malformed.
Result<PickleDoc> parse_pickle(std::string bytes, const std::string& path, const PickleLimits& limits = {});

}  // namespace goblin::trace
