#include "trace/pickle.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace goblin::trace {

namespace {
const std::vector<PickleDoc::Id> kNoItems;
}  // namespace

int64_t PickleDoc::integer(Id v) const {
  if (v == kNoValue) return 0;
  const Value& x = values_[v];
  if (x.kind == Kind::Int || x.kind == Kind::Bool) return x.i;
  if (x.kind == Kind::Float) return static_cast<int64_t>(x.f);
  return 0;
}

double PickleDoc::number(Id v) const {
  if (v == kNoValue) return 0;
  const Value& x = values_[v];
  if (x.kind == Kind::Float) return x.f;
  if (x.kind == Kind::Int || x.kind == Kind::Bool) return static_cast<double>(x.i);
  return 0;
}

std::string_view PickleDoc::str(Id v) const {
  if (v == kNoValue) return {};
  const Value& x = values_[v];
  if (x.kind != Kind::Str && x.kind != Kind::Bytes) return {};
  return std::string_view(input_).substr(static_cast<size_t>(x.i), x.len);
}

const std::vector<PickleDoc::Id>& PickleDoc::items(Id v) const {
  if (v == kNoValue || values_[v].children == UINT32_MAX) return kNoItems;
  return containers_[values_[v].children];
}

PickleDoc::Id PickleDoc::get(Id dict, std::string_view key) const {
  if (!is(dict, Kind::Dict)) return kNoValue;
  const auto& kv = items(dict);
  Id found = kNoValue;
  for (size_t i = 0; i + 1 < kv.size(); i += 2)
    if (is(kv[i], Kind::Str) && str(kv[i]) == key) found = kv[i + 1];
  return found;
}

// The unpickling machine over the subset: a stack of value ids with marks, and the memo.
class PickleParser {
 public:
  PickleParser(PickleDoc& doc, std::string bytes, const std::string& path, const PickleLimits& lim)
      : d_(doc), path_(path), lim_(lim) {
    d_.input_ = std::move(bytes);
  }

  Status run() {
    const std::string& in = d_.input_;
    while (pos_ < in.size()) {
      op_at_ = pos_;
      const auto op = static_cast<uint8_t>(in[pos_++]);
      switch (op) {
        case 0x80:  // PROTO
          RETURN_IF_ERROR(take(1));
          break;
        case 0x95:  // FRAME: a length hint only
          RETURN_IF_ERROR(take(8));
          break;
        case '.':  // STOP
          if (stack_.empty()) return bad("STOP with an empty stack");
          d_.root_ = stack_.back();
          return Status::Ok();
        case 'N':
          RETURN_IF_ERROR(push_scalar(PickleDoc::Kind::None, 0));
          break;
        case 0x88:
        case 0x89:  // NEWTRUE, NEWFALSE
          RETURN_IF_ERROR(push_scalar(PickleDoc::Kind::Bool, op == 0x88 ? 1 : 0));
          break;
        case 'J': {  // BININT: 4-byte signed
          ASSIGN_OR_RETURN(uint64_t u, le(4));
          RETURN_IF_ERROR(push_scalar(PickleDoc::Kind::Int, static_cast<int32_t>(static_cast<uint32_t>(u))));
          break;
        }
        case 'K': {  // BININT1
          ASSIGN_OR_RETURN(uint64_t u, le(1));
          RETURN_IF_ERROR(push_scalar(PickleDoc::Kind::Int, static_cast<int64_t>(u)));
          break;
        }
        case 'M': {  // BININT2
          ASSIGN_OR_RETURN(uint64_t u, le(2));
          RETURN_IF_ERROR(push_scalar(PickleDoc::Kind::Int, static_cast<int64_t>(u)));
          break;
        }
        case 0x8a:
        case 0x8b: {  // LONG1, LONG4: little-endian two's complement of n bytes
          ASSIGN_OR_RETURN(uint64_t n, le(op == 0x8a ? 1 : 4));
          if (n > 8) return bad(fmt::format("an integer of {} bytes does not fit 64 bits", n));
          ASSIGN_OR_RETURN(uint64_t u, le(static_cast<int>(n)));
          int64_t v = 0;
          if (n > 0) {
            const int shift = 64 - 8 * static_cast<int>(n);
            v = shift == 0 ? static_cast<int64_t>(u) : static_cast<int64_t>(u << shift) >> shift;
          }
          RETURN_IF_ERROR(push_scalar(PickleDoc::Kind::Int, v));
          break;
        }
        case 'G': {  // BINFLOAT: 8-byte big-endian IEEE double
          RETURN_IF_ERROR(need(8));
          uint64_t u = 0;
          for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<uint8_t>(in[pos_ + static_cast<size_t>(i)]);
          pos_ += 8;
          ASSIGN_OR_RETURN(PickleDoc::Id id, add(PickleDoc::Kind::Float));
          d_.values_[id].f = std::bit_cast<double>(u);
          RETURN_IF_ERROR(push(id));
          break;
        }
        case 0x8c:  // SHORT_BINUNICODE
          RETURN_IF_ERROR(text(PickleDoc::Kind::Str, 1));
          break;
        case 'X':  // BINUNICODE
          RETURN_IF_ERROR(text(PickleDoc::Kind::Str, 4));
          break;
        case 0x8d:  // BINUNICODE8
          RETURN_IF_ERROR(text(PickleDoc::Kind::Str, 8));
          break;
        case 'C':  // SHORT_BINBYTES
          RETURN_IF_ERROR(text(PickleDoc::Kind::Bytes, 1));
          break;
        case 'B':  // BINBYTES
          RETURN_IF_ERROR(text(PickleDoc::Kind::Bytes, 4));
          break;
        case 0x8e:  // BINBYTES8
          RETURN_IF_ERROR(text(PickleDoc::Kind::Bytes, 8));
          break;
        case '}':
          RETURN_IF_ERROR(push_container(PickleDoc::Kind::Dict));
          break;
        case ']':
          RETURN_IF_ERROR(push_container(PickleDoc::Kind::List));
          break;
        case ')':
          RETURN_IF_ERROR(push_container(PickleDoc::Kind::Tuple));
          break;
        case 0x85:
        case 0x86:
        case 0x87:  // TUPLE1..3
          RETURN_IF_ERROR(tuple_of(static_cast<size_t>(op - 0x84)));
          break;
        case '(':  // MARK
          if (marks_.size() >= lim_.max_stack) return bad("too many marks");
          marks_.push_back(stack_.size());
          break;
        case 't': {  // TUPLE from the last mark
          ASSIGN_OR_RETURN(size_t m, pop_mark());
          RETURN_IF_ERROR(tuple_of(stack_.size() - m));
          break;
        }
        case 'l':
        case 'd': {  // LIST, DICT from the last mark
          ASSIGN_OR_RETURN(size_t m, pop_mark());
          const auto k = op == 'l' ? PickleDoc::Kind::List : PickleDoc::Kind::Dict;
          if (k == PickleDoc::Kind::Dict && (stack_.size() - m) % 2 != 0) return bad("DICT with an odd item count");
          ASSIGN_OR_RETURN(PickleDoc::Id id, container(k));
          auto& c = d_.containers_[d_.values_[id].children];
          c.assign(stack_.begin() + static_cast<ptrdiff_t>(m), stack_.end());
          stack_.resize(m);
          RETURN_IF_ERROR(push(id));
          break;
        }
        case 'a':  // APPEND
          RETURN_IF_ERROR(extend(stack_.size() >= 1 ? stack_.size() - 1 : 0, PickleDoc::Kind::List, 1));
          break;
        case 'e': {  // APPENDS
          ASSIGN_OR_RETURN(size_t m, pop_mark());
          RETURN_IF_ERROR(extend(m, PickleDoc::Kind::List, 1));
          break;
        }
        case 's':  // SETITEM
          RETURN_IF_ERROR(extend(stack_.size() >= 2 ? stack_.size() - 2 : 0, PickleDoc::Kind::Dict, 2));
          break;
        case 'u': {  // SETITEMS
          ASSIGN_OR_RETURN(size_t m, pop_mark());
          RETURN_IF_ERROR(extend(m, PickleDoc::Kind::Dict, 2));
          break;
        }
        case 0x94:  // MEMOIZE
          if (stack_.empty()) return bad("MEMOIZE with an empty stack");
          RETURN_IF_ERROR(memo_put(memo_.size()));
          break;
        case 'q': {  // BINPUT
          ASSIGN_OR_RETURN(uint64_t i, le(1));
          RETURN_IF_ERROR(memo_put(i));
          break;
        }
        case 'r': {  // LONG_BINPUT
          ASSIGN_OR_RETURN(uint64_t i, le(4));
          RETURN_IF_ERROR(memo_put(i));
          break;
        }
        case 'h':
        case 'j': {  // BINGET, LONG_BINGET: shares the memoised value, never copies it
          ASSIGN_OR_RETURN(uint64_t i, le(op == 'h' ? 1 : 4));
          if (i >= memo_.size() || memo_[i] == PickleDoc::kNoValue)
            return bad(fmt::format("memo entry {} was never stored", i));
          RETURN_IF_ERROR(push(memo_[i]));
          break;
        }
        case '0':  // POP
          if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size()))
            return bad("POP with nothing to pop");
          stack_.pop_back();
          break;
        case '1': {  // POP_MARK
          ASSIGN_OR_RETURN(size_t m, pop_mark());
          stack_.resize(m);
          break;
        }
        case '2':  // DUP
          if (stack_.empty()) return bad("DUP with an empty stack");
          RETURN_IF_ERROR(push(stack_.back()));
          break;
        default:
          return bad(fmt::format(
              "opcode 0x{:02x} is outside the data-only pickle subset of PyTorch memory snapshots (goblin never "
              "imports or calls anything a pickle names)",
              op));
      }
    }
    return bad("the file ends before the pickle's STOP opcode");
  }

 private:
  Error bad(std::string why) const {
    return make_error(ErrorKind::Malformed, "pickle: " + std::move(why), path_, static_cast<int64_t>(op_at_));
  }
  Status need(uint64_t n) const {
    if (n > d_.input_.size() - pos_) return bad("the file ends inside an opcode's argument");
    return Status::Ok();
  }
  Status take(uint64_t n) {
    RETURN_IF_ERROR(need(n));
    pos_ += n;
    return Status::Ok();
  }
  Result<uint64_t> le(int n) {
    RETURN_IF_ERROR(need(static_cast<uint64_t>(n)));
    uint64_t u = 0;
    for (int i = n - 1; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>(d_.input_[pos_ + static_cast<size_t>(i)]);
    pos_ += static_cast<size_t>(n);
    return u;
  }
  Result<PickleDoc::Id> add(PickleDoc::Kind k) {
    if (d_.values_.size() >= lim_.max_values)
      return bad(fmt::format("more than {} values (goblin's limit for one snapshot)", lim_.max_values));
    d_.values_.push_back(PickleDoc::Value{k});
    return static_cast<PickleDoc::Id>(d_.values_.size() - 1);
  }
  Result<PickleDoc::Id> container(PickleDoc::Kind k) {
    ASSIGN_OR_RETURN(PickleDoc::Id id, add(k));
    d_.values_[id].children = static_cast<uint32_t>(d_.containers_.size());
    d_.containers_.emplace_back();
    return id;
  }
  Status push(PickleDoc::Id id) {
    if (stack_.size() >= lim_.max_stack) return bad("the unpickling stack is too deep");
    stack_.push_back(id);
    return Status::Ok();
  }
  Status push_scalar(PickleDoc::Kind k, int64_t v) {
    ASSIGN_OR_RETURN(PickleDoc::Id id, add(k));
    d_.values_[id].i = v;
    return push(id);
  }
  Status push_container(PickleDoc::Kind k) {
    ASSIGN_OR_RETURN(PickleDoc::Id id, container(k));
    return push(id);
  }
  Status text(PickleDoc::Kind k, int width) {
    ASSIGN_OR_RETURN(uint64_t n, le(width));
    RETURN_IF_ERROR(need(n));
    ASSIGN_OR_RETURN(PickleDoc::Id id, add(k));
    d_.values_[id].i = static_cast<int64_t>(pos_);
    d_.values_[id].len = n;
    pos_ += n;
    return push(id);
  }
  Result<size_t> pop_mark() {
    if (marks_.empty()) return bad("an opcode needs a MARK and there is none");
    const size_t m = marks_.back();
    marks_.pop_back();
    if (m > stack_.size()) return bad("a MARK lies above the stack");
    return m;
  }
  // The items stack_[from..] become a tuple replacing them.
  Status tuple_of(size_t n) {
    if (n > stack_.size() || (!marks_.empty() && stack_.size() - n < marks_.back()))
      return bad("a TUPLE opcode has too few items");
    ASSIGN_OR_RETURN(PickleDoc::Id id, container(PickleDoc::Kind::Tuple));
    auto& c = d_.containers_[d_.values_[id].children];
    c.assign(stack_.end() - static_cast<ptrdiff_t>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    return push(id);
  }
  // APPEND(S)/SETITEM(S): the items stack_[from..] go into the container just below them.
  Status extend(size_t from, PickleDoc::Kind want, size_t group) {
    if (from == 0 || from > stack_.size() || (!marks_.empty() && from - 1 < marks_.back()))
      return bad("APPEND/SETITEM with nothing to add to");
    const PickleDoc::Id target = stack_[from - 1];
    if (!d_.is(target, want))
      return bad(want == PickleDoc::Kind::List ? "APPEND to something that is not a list"
                                               : "SETITEM to something that is not a dict");
    if ((stack_.size() - from) % group != 0) return bad("SETITEMS with an odd item count");
    auto& c = d_.containers_[d_.values_[target].children];
    if (c.size() + (stack_.size() - from) > lim_.max_values) return bad("a container holds too many items");
    c.insert(c.end(), stack_.begin() + static_cast<ptrdiff_t>(from), stack_.end());
    stack_.resize(from);
    return Status::Ok();
  }
  Status memo_put(uint64_t i) {
    if (stack_.empty()) return bad("PUT with an empty stack");
    if (i > lim_.max_values) return bad(fmt::format("memo index {} is too large", i));
    if (i >= memo_.size()) memo_.resize(i + 1, PickleDoc::kNoValue);
    memo_[i] = stack_.back();
    return Status::Ok();
  }

  PickleDoc& d_;
  const std::string& path_;
  const PickleLimits& lim_;
  size_t pos_ = 0, op_at_ = 0;
  std::vector<PickleDoc::Id> stack_, memo_;
  std::vector<size_t> marks_;
};

Result<PickleDoc> parse_pickle(std::string bytes, const std::string& path, const PickleLimits& limits) {
  if (bytes.size() > limits.max_input_bytes)
    return make_error(
        ErrorKind::Malformed,
        fmt::format("pickle: {} bytes is over goblin's limit of {}", bytes.size(), limits.max_input_bytes), path);
  PickleDoc doc;
  PickleParser p(doc, std::move(bytes), path, limits);
  RETURN_IF_ERROR(p.run());
  return doc;
}

}  // namespace goblin::trace
