// One error style for all of goblin: an Error says what went wrong in words a user can act on,
// where (file, byte offset or line), and which documented exit code the CLI returns for it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace goblin {

// Exit codes are part of the CLI contract (documented in `goblin --help`).
enum class ErrorKind : int {
  Internal = 1,       // a bug in goblin
  Usage = 2,          // bad command line
  Io = 3,             // missing or unreadable input / unwritable output
  UnknownFormat = 4,  // input is not any format goblin reads
  Malformed = 5,      // input recognised but damaged (partial results may still be reported)
  NotFound = 6,       // a named thing (GPU id, rule id, kernel) does not exist
  Environment = 7,    // the machine lacks something needed (GPU, profiler, python)
  Workload = 8,       // the user's workload crashed, hung or ran out of memory
  NoGpuActivity = 9,  // a trace was read but holds no GPU op (docs/metrics.md § No GPU activity)
};

struct Error {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
  std::string file;          // empty when not about a file
  int64_t byte_offset = -1;  // offset in the (decompressed) input, -1 when unknown
  int64_t line = -1;         // 1-based line, -1 when unknown

  int exit_code() const { return static_cast<int>(kind); }
  // "file: line 12: message" / "file: byte 4096: message" / "message".
  std::string describe() const;
  static const char* kind_name(ErrorKind k);
};

inline Error make_error(ErrorKind kind, std::string message, std::string file = {}, int64_t byte_offset = -1,
                        int64_t line = -1) {
  return Error{kind, std::move(message), std::move(file), byte_offset, line};
}

// Minimal expected<T, Error> (std::expected is C++23).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void> equivalent.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : err_(std::move(e)), has_(true) {}  // NOLINT(google-explicit-constructor)
  static Status Ok() { return {}; }
  bool ok() const { return !has_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return err_; }

 private:
  Error err_;
  bool has_ = false;
};

}  // namespace goblin

// The error plumbing, written once. Both work in any function returning a Status or a Result<T>
// (an Error converts to either).
//
//   RETURN_IF_ERROR(write_file(path, text));          // a Status or a Result whose value is unused
//   ASSIGN_OR_RETURN(auto cfg, load_config(ws));      // cfg is the value, moved out of the Result
//   ASSIGN_OR_RETURN(const Json j, read_json(path));
#define GOBLIN_STATUS_CONCAT_INNER_(a, b) a##b
#define GOBLIN_STATUS_CONCAT_(a, b) GOBLIN_STATUS_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                                                              \
  do {                                                                                     \
    if (auto goblin_status_ = (expr); !goblin_status_.ok()) return goblin_status_.error(); \
  } while (false)

#define ASSIGN_OR_RETURN(lhs, expr) \
  GOBLIN_ASSIGN_OR_RETURN_IMPL_(GOBLIN_STATUS_CONCAT_(goblin_result_, __LINE__), lhs, expr)
#define GOBLIN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.error();                  \
  lhs = std::move(tmp).value()
