// What one command computes, for any front end: the machine-readable result (partial when error
// is set), the error, and readable text. The CLI prints it as the {ok, result, error} envelope
// (cli/verb.h); the MCP server returns it as a tool result. Library functions that do a verb's
// whole job (e.g. run_breakdown, run_diagnose) return one, so both front ends share them.
#pragma once
#include <optional>
#include <string>

#include "core/json.h"
#include "core/status.h"

namespace goblin {

struct VerbResult {
  Json result;                 // machine-readable result (partial when error is set)
  std::optional<Error> error;  // set on failure
  std::string human;           // readable text for the terminal

  VerbResult() = default;
  VerbResult(Json result_, std::optional<Error> error_ = std::nullopt, std::string human_ = {})
      : result(std::move(result_)), error(std::move(error_)), human(std::move(human_)) {}
  // An error and nothing else: lets RETURN_IF_ERROR / ASSIGN_OR_RETURN (core/status.h) work in a
  // function that returns a VerbResult, the way they do in one returning a Result or a Status.
  VerbResult(Error e) : error(std::move(e)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return !error; }
};

// A value and, possibly, the damage that made it partial: a truncated trace still yields its
// complete steps, a store that could not take a run still leaves the computed result. One type for
// "a result, and possibly an error with partial data" (simdjson's simdjson_result is the model),
// instead of a struct per reader with its own `damage` member. An Error alone converts to one, so
// RETURN_IF_ERROR / ASSIGN_OR_RETURN return it from a function that returns a Partial.
template <class T>
struct Partial {
  T value{};
  std::optional<Error> error;  // set: `value` is what could be computed before it

  Partial() = default;
  Partial(T v, std::optional<Error> damage = std::nullopt)  // NOLINT(google-explicit-constructor)
      : value(std::move(v)), error(std::move(damage)) {}
  Partial(Error e) : error(std::move(e)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return !error; }
};

}  // namespace goblin
