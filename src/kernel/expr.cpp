#include "kernel/expr.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

namespace goblin::kernel {

namespace {

// Recursive descent: expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
// unary := '-' unary | atom; atom := number | name | '(' expr ')'.
struct Parser {
  std::string_view s;
  const std::map<std::string, double>& vars;
  size_t i = 0;
  std::optional<Error> err;

  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  double fail(ErrorKind k, const std::string& what) {
    if (!err) err = make_error(k, "formula \"" + std::string(s) + "\": " + what + fmt::format(" at character {}", i));
    return 0;
  }
  double expr() {
    double v = term();
    for (skip(); !err && i < s.size() && (s[i] == '+' || s[i] == '-'); skip()) {
      char op = s[i++];
      double r = term();
      v = op == '+' ? v + r : v - r;
    }
    return v;
  }
  double term() {
    double v = unary();
    for (skip(); !err && i < s.size() && (s[i] == '*' || s[i] == '/'); skip()) {
      char op = s[i++];
      double r = unary();
      if (op == '/' && r == 0) return fail(ErrorKind::Malformed, "division by zero");
      v = op == '*' ? v * r : v / r;
    }
    return v;
  }
  double unary() {
    skip();
    if (i < s.size() && s[i] == '-') {
      ++i;
      return -unary();
    }
    return atom();
  }
  double atom() {
    skip();
    if (i >= s.size()) return fail(ErrorKind::Malformed, "unexpected end");
    if (s[i] == '(') {
      ++i;
      double v = expr();
      skip();
      if (i >= s.size() || s[i] != ')') return fail(ErrorKind::Malformed, "missing ')'");
      ++i;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.') {
      std::string num;
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == 'e'))
        num += s[i++];
      char* end = nullptr;
      double v = std::strtod(num.c_str(), &end);
      if (end != num.c_str() + num.size()) return fail(ErrorKind::Malformed, "bad number \"" + num + "\"");
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') {
      std::string name;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) name += s[i++];
      auto it = vars.find(name);
      if (it == vars.end()) return fail(ErrorKind::NotFound, "variable " + name + " is not set (pass it in --shape)");
      return it->second;
    }
    return fail(ErrorKind::Malformed, std::string("unexpected '") + s[i] + "'");
  }
};

}  // namespace

Result<double> eval_expr(std::string_view expr, const std::map<std::string, double>& vars) {
  Parser p{expr, vars, 0, std::nullopt};
  double v = p.expr();
  p.skip();
  if (!p.err && p.i != expr.size()) p.fail(ErrorKind::Malformed, "trailing text");
  if (p.err) return *p.err;
  return v;
}

}  // namespace goblin::kernel
