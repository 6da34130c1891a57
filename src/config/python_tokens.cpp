// The Python tokenizer and literal evaluator behind scan_python.cpp (see python_tokens.h).
#include "config/python_tokens.h"

#include "config/config_source.h"

namespace goblin::config {

Result<std::vector<Token>> tokenize_python(const std::string& s, const std::string& file) {
  std::vector<Token> out;
  size_t i = 0;
  int64_t line = 1;
  int depth = 0;
  auto push = [&](Tk k, size_t b, size_t e, int64_t ln) {
    out.push_back({k, s.substr(b, e - b), static_cast<int64_t>(b), static_cast<int64_t>(e), ln, depth});
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      if (depth == 0) push(Tk::Newline, i, i + 1, line);
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += s[i + 1] == '\r' && i + 2 < s.size() && s[i + 2] == '\n' ? 3 : 2;
      ++line;
      continue;
    }
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    // string, with optional prefix (r, b, f, u, rb, br, fr, rf)
    size_t p = i;
    while (p < s.size() && p - i < 2 && std::string("rRbBfFuU").find(s[p]) != std::string::npos) ++p;
    if (p < s.size() && (s[p] == '"' || s[p] == '\'') &&
        (p == i || !std::isalnum(static_cast<unsigned char>(s[p - 1])) ||
         std::string("rRbBfFuU").find(s[p - 1]) != std::string::npos)) {
      char q = s[p];
      bool triple = p + 2 < s.size() && s[p + 1] == q && s[p + 2] == q;
      bool raw = false;
      for (size_t k = i; k < p; ++k) raw |= (s[k] == 'r' || s[k] == 'R');
      size_t b = i;
      int64_t start_line = line;
      size_t j = p + (triple ? 3 : 1);
      bool closed = false;
      while (j < s.size()) {
        if (s[j] == '\\' && !raw) {
          if (j + 1 < s.size() && s[j + 1] == '\n') ++line;
          j += 2;
          continue;
        }
        if (s[j] == '\\' && raw) {
          j += 2;
          continue;
        }
        if (s[j] == '\n') {
          if (!triple) break;
          ++line;
        }
        if (s[j] == q && (!triple || (j + 2 < s.size() && s[j + 1] == q && s[j + 2] == q))) {
          j += triple ? 3 : 1;
          closed = true;
          break;
        }
        ++j;
      }
      if (!closed)
        return make_error(ErrorKind::Malformed, "unterminated string literal", file, static_cast<int64_t>(b),
                          start_line);
      push(Tk::String, b, j, start_line);
      i = j;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80) {
      size_t b = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                              static_cast<unsigned char>(s[i]) >= 0x80))
        ++i;
      push(Tk::Name, b, i, line);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t b = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '_' ||
                              ((s[i] == '-' || s[i] == '+') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
        ++i;
      push(Tk::Number, b, i, line);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      push(Tk::Op, i, i + 1, line);
      ++depth;
      ++i;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0)
        return make_error(ErrorKind::Malformed, std::string("unbalanced '") + c + "'", file, static_cast<int64_t>(i),
                          line);
      --depth;
      push(Tk::Op, i, i + 1, line);
      ++i;
      continue;
    }
    // two-char operators that matter: ==, !=, <=, >=, **, //, ->, :=
    if (i + 1 < s.size() && std::string("=!<>*/-:").find(c) != std::string::npos &&
        (s[i + 1] == '=' || (c == '*' && s[i + 1] == '*') || (c == '/' && s[i + 1] == '/') ||
         (c == '-' && s[i + 1] == '>'))) {
      push(Tk::Op, i, i + 2, line);
      i += 2;
      continue;
    }
    push(Tk::Op, i, i + 1, line);
    ++i;
  }
  if (depth != 0) {
    int64_t ln = out.empty() ? line : out.back().line;
    return make_error(ErrorKind::Malformed, "unclosed bracket at end of file", file, static_cast<int64_t>(s.size()),
                      ln);
  }
  out.push_back({Tk::End, "", static_cast<int64_t>(s.size()), static_cast<int64_t>(s.size()), line, 0});
  return out;
}

Json python_string_value(const std::string& tok) {
  size_t p = 0;
  bool raw = false, fstr = false;
  while (p < tok.size() && tok[p] != '"' && tok[p] != '\'') {
    raw |= tok[p] == 'r' || tok[p] == 'R';
    fstr |= tok[p] == 'f' || tok[p] == 'F';
    ++p;
  }
  if (fstr) return nullptr;  // f-strings are expressions
  std::string body = tok.substr(p);
  size_t q = (body.size() >= 6 && body[1] == body[0] && body[2] == body[0]) ? 3 : 1;
  body = body.substr(q, body.size() - 2 * q);
  if (raw) return body;
  std::string r;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size()) {
      char n = body[++i];
      r += n == 'n' ? '\n' : n == 't' ? '\t' : n;
    } else {
      r += body[i];
    }
  }
  return r;
}

// Literal value of tokens [b, e): True/False/None, numbers (with unary minus), strings,
// dotted names such as torch.bfloat16 (kept as text), or a module-level constant.
Json python_literal(const std::vector<Token>& t, size_t b, size_t e, const std::map<std::string, SourceEntry>& consts,
                    bool* literal, const SourceEntry** via) {
  *literal = true;
  if (e == b + 1) {
    const Token& k = t[b];
    if (k.kind == Tk::String) {
      Json v = python_string_value(k.text);
      if (v.is_null()) *literal = false;
      return v;
    }
    if (k.kind == Tk::Number) {
      std::string n;
      for (char c : k.text)
        if (c != '_') n += c;
      try {
        size_t pos = 0;
        long long v = std::stoll(n, &pos, 0);
        if (pos == n.size()) return static_cast<int64_t>(v);
      } catch (...) {
      }
      try {
        return std::stod(n);
      } catch (...) {
      }
    }
    if (k.kind == Tk::Name) {
      if (k.text == "True") return true;
      if (k.text == "False") return false;
      if (k.text == "None") return nullptr;
      auto it = consts.find(k.text);
      if (it != consts.end()) {
        *via = &it->second;
        return it->second.value;
      }
    }
  }
  if (e == b + 2 && t[b].text == "-" && t[b + 1].kind == Tk::Number) {
    bool lit;
    const SourceEntry* v2 = nullptr;
    Json v = python_literal(t, b + 1, e, consts, &lit, &v2);
    if (v.is_number_integer()) return -v.get<int64_t>();
    if (v.is_number()) return -v.get<double>();
  }
  // dotted name: torch.bfloat16. A bare name that is not a module constant (USE_BF16, a variable,
  // a function argument) is an expression: its value is the script's to compute.
  bool dotted = (e - b) % 2 == 1 && e > b + 1;
  for (size_t k = b; k < e && dotted; ++k) dotted = ((k - b) % 2 == 0) ? t[k].kind == Tk::Name : t[k].text == ".";
  if (dotted && e > b) {
    std::string s;
    for (size_t k = b; k < e; ++k) s += t[k].text;
    return s;
  }
  *literal = false;
  return nullptr;
}

}  // namespace goblin::config
