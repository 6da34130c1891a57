// Internal to the config module: a tokenizer for Python source good enough to find calls, keyword
// arguments and literals (strings with prefixes, numbers, names, brackets, line continuations),
// and the evaluation of a literal token run. Not an interpreter: expressions stay unevaluated.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "config/config_source.h"

namespace goblin::config {

enum class Tk { Name, Number, String, Op, Newline, End };
struct Token {
  Tk kind;
  std::string text;
  int64_t begin, end, line;
  int depth;  // bracket depth before this token
};

// Tokens of `s`, ending with one Tk::End; Newline only outside brackets. Fails on an unclosed
// bracket (with the file and line).
Result<std::vector<Token>> tokenize_python(const std::string& s, const std::string& file);

// Value of a string token (prefixes and escapes handled); null for an f-string.
Json python_string_value(const std::string& tok);

// Literal value of tokens [b, e): True/False/None, numbers (with unary minus), strings,
// dotted names such as torch.bfloat16 (kept as text), or a module-level constant (then *via
// points at the constant's definition). *literal is false for an expression.
Json python_literal(const std::vector<Token>& t, size_t b, size_t e, const std::map<std::string, SourceEntry>& consts,
                    bool* literal, const SourceEntry** via);

}  // namespace goblin::config
