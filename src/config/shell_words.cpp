// The shell tokenizer of shell_words.h: one linear pass, words with their raw byte spans.
#include "config/shell_words.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "config/config_source.h"
#include "core/limits.h"

namespace goblin::config {

namespace {

bool is_operator(char c) { return c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')'; }

class Lexer {
 public:
  Lexer(const std::string& text, size_t begin, size_t end, ShellDialect d, const std::string& file,
        const LineIndex& lines)
      : s_(text), i_(begin), end_(end), dialect_(d), file_(file), lines_(lines) {}

  Status run(std::vector<ShellCommand>& out) {
    while (i_ < end_) {
      const char c = s_[i_];
      if (c == '\\' && i_ + 1 < end_ && (s_[i_ + 1] == '\n' || (s_[i_ + 1] == '\r' && next_is_lf(i_ + 2)))) {
        finish_word();
        i_ += s_[i_ + 1] == '\n' ? 2 : 3;
        cmd_.continued = true;
        const size_t b = i_;
        while (i_ < end_ && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
        cmd_.continuation_indent = s_.substr(b, i_ - b);
        continue;
      }
      if (c == '\n') {
        finish_word();
        finish_command(out);
        ++i_;
        if (!heredoc_.empty()) skip_heredoc();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        finish_word();
        ++i_;
        continue;
      }
      if (c == '#' && !in_word_) {  // a comment runs to the end of the line
        while (i_ < end_ && s_[i_] != '\n') ++i_;
        continue;
      }
      if (is_operator(c)) {
        // `2>&1`: a word of digits right before a redirection is its file descriptor.
        if ((c == '<' || c == '>') && in_word_ && !word_.quoted &&
            std::all_of(word_.text.begin(), word_.text.end(),
                        [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }))
          in_word_ = false;
        finish_word();
        if (c == '<' && i_ + 1 < end_ && s_[i_ + 1] == '<') {
          RETURN_IF_ERROR(read_heredoc_delimiter());
          continue;
        }
        finish_command(out);
        ++i_;
        continue;
      }
      RETURN_IF_ERROR(word_char());
    }
    finish_word();
    finish_command(out);
    if (!heredoc_.empty()) heredoc_.clear();  // a heredoc body running to the end of the text
    return Status::Ok();
  }

 private:
  bool next_is_lf(size_t k) const { return k < end_ && s_[k] == '\n'; }

  Error error(const std::string& what, size_t at) const {
    return make_error(ErrorKind::Malformed, what, file_, static_cast<int64_t>(at),
                      lines_.line(static_cast<int64_t>(at)));
  }

  void start_word() {
    if (in_word_) return;
    in_word_ = true;
    word_ = ShellWord{};
    word_.begin = static_cast<int64_t>(i_);
    word_.line = lines_.line(word_.begin);
  }

  Status append(char c) {
    if (word_.text.size() >= limits::kMaxNameBytes)
      return error(fmt::format("a shell word longer than {} bytes: not a command line", limits::kMaxNameBytes),
                   static_cast<size_t>(word_.begin));
    word_.text += c;
    return Status::Ok();
  }

  // $( ... ) and ${ ... } up to the matching close (nested ones counted, quotes inside skipped).
  Status expansion() {
    const size_t at = i_;
    const char open = s_[i_ + 1], close = open == '(' ? ')' : '}';
    int depth = 0;
    char quote = 0;
    for (; i_ < end_; ++i_) {
      const char c = s_[i_];
      RETURN_IF_ERROR(append(c));
      if (quote) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      if (c == open) ++depth;
      if (c == close && --depth == 0) {
        ++i_;
        return Status::Ok();
      }
    }
    return error(fmt::format("unterminated ${} (no matching '{}')", open, close), at);
  }

  Status word_char() {
    start_word();
    const char c = s_[i_];
    if (c == '\'') {
      const size_t close = s_.find('\'', i_ + 1);
      if (close == std::string::npos || close >= end_) return error("unterminated single quote", i_);
      for (size_t k = i_ + 1; k < close; ++k) RETURN_IF_ERROR(append(s_[k]));
      word_.quoted = true;
      i_ = close + 1;
      return Status::Ok();
    }
    if (c == '"') {
      const size_t at = i_;
      word_.quoted = true;
      for (++i_; i_ < end_; ++i_) {
        const char d = s_[i_];
        if (d == '"') {
          ++i_;
          return Status::Ok();
        }
        if (d == '\\' && i_ + 1 < end_ && std::string_view("$`\"\\\n").find(s_[i_ + 1]) != std::string_view::npos) {
          if (s_[i_ + 1] != '\n') RETURN_IF_ERROR(append(s_[i_ + 1]));
          ++i_;
          continue;
        }
        if (d == '$' || d == '`') word_.expands = true;
        RETURN_IF_ERROR(append(d));
      }
      return error("unterminated double quote", at);
    }
    if (c == '\\' && i_ + 1 < end_) {
      RETURN_IF_ERROR(append(s_[i_ + 1]));
      i_ += 2;
      return Status::Ok();
    }
    if (c == '$' && i_ + 1 < end_ && (s_[i_ + 1] == '(' || s_[i_ + 1] == '{')) {
      word_.expands = true;
      return expansion();
    }
    if (c == '`') {
      const size_t close = s_.find('`', i_ + 1);
      if (close == std::string::npos || close >= end_) return error("unterminated backquote", i_);
      for (size_t k = i_; k <= close; ++k) RETURN_IF_ERROR(append(s_[k]));
      word_.expands = true;
      i_ = close + 1;
      return Status::Ok();
    }
    if (c == '$') word_.expands = true;
    ++i_;
    return append(c);
  }

  void finish_word() {
    if (!in_word_) return;
    in_word_ = false;
    word_.end = static_cast<int64_t>(i_);
    if (cmd_.words.empty()) {
      cmd_.line = word_.line;
      if (dialect_ == ShellDialect::Makefile)
        while (!word_.text.empty() && (word_.text[0] == '@' || word_.text[0] == '-' || word_.text[0] == '+'))
          word_.text.erase(0, 1);
      if (dialect_ == ShellDialect::Markdown && word_.text == "$" && !word_.quoted) return;  // a prompt
    }
    cmd_.words.push_back(std::move(word_));
  }

  void finish_command(std::vector<ShellCommand>& out) {
    if (!cmd_.words.empty()) out.push_back(std::move(cmd_));
    cmd_ = ShellCommand{};
  }

  // `<<EOF`, `<<-EOF`, `<<'EOF'`: the body (from the next line to the delimiter line) is not shell.
  Status read_heredoc_delimiter() {
    i_ += 2;
    bool strip_tabs = false;
    if (i_ < end_ && s_[i_] == '-') strip_tabs = true, ++i_;
    while (i_ < end_ && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    std::string delim;
    while (i_ < end_ && !std::isspace(static_cast<unsigned char>(s_[i_])) && !is_operator(s_[i_])) {
      if (s_[i_] != '\'' && s_[i_] != '"' && s_[i_] != '\\') delim += s_[i_];
      ++i_;
    }
    if (delim.empty()) return error("a heredoc (<<) without its delimiter word", i_);
    heredoc_ = delim;
    heredoc_tabs_ = strip_tabs;
    return Status::Ok();
  }

  void skip_heredoc() {
    while (i_ < end_) {
      size_t nl = s_.find('\n', i_);
      if (nl == std::string::npos || nl > end_) nl = end_;
      std::string line = s_.substr(i_, nl - i_);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t tabs = 0;
      while (heredoc_tabs_ && tabs < line.size() && line[tabs] == '\t') ++tabs;
      line = line.substr(tabs);
      i_ = nl < end_ ? nl + 1 : end_;
      if (line == heredoc_) break;
    }
    heredoc_.clear();
  }

  const std::string& s_;
  size_t i_, end_;
  ShellDialect dialect_;
  const std::string& file_;
  const LineIndex& lines_;
  ShellWord word_;
  bool in_word_ = false;
  ShellCommand cmd_;
  std::string heredoc_;
  bool heredoc_tabs_ = false;
};

bool shell_fence_info(const std::string& info) {
  std::string i;
  for (char c : info)
    if (!std::isspace(static_cast<unsigned char>(c)))
      i += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return i.empty() || i == "bash" || i == "sh" || i == "shell" || i == "console" || i == "zsh" || i == "shellsession";
}

}  // namespace

Result<std::vector<ShellCommand>> shell_commands(const std::string& text, ShellDialect dialect,
                                                 const std::string& file) {
  std::vector<ShellCommand> out;
  const LineIndex lines(text);
  if (dialect != ShellDialect::Markdown) {
    Lexer lx(text, 0, text.size(), dialect, file, lines);
    RETURN_IF_ERROR(lx.run(out));
    return out;
  }
  // Markdown: the bodies of ``` / ~~~ fenced blocks in a shell language.
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const size_t ind = text.find_first_not_of(' ', pos);
    const bool fence =
        ind < nl && ind - pos <= 3 && (text.compare(ind, 3, "```") == 0 || text.compare(ind, 3, "~~~") == 0);
    if (!fence) {
      pos = nl + 1;
      continue;
    }
    const std::string marker = text.substr(ind, 3);
    const bool shell = shell_fence_info(text.substr(ind + 3, nl - ind - 3));
    const size_t body = std::min(nl + 1, text.size());
    size_t close = body, body_end = text.size();
    while (close < text.size()) {
      size_t cnl = text.find('\n', close);
      if (cnl == std::string::npos) cnl = text.size();
      const size_t ci = text.find_first_not_of(' ', close);
      if (ci < cnl && text.compare(ci, 3, marker) == 0) {
        body_end = close;
        break;
      }
      close = cnl + 1;
    }
    if (shell) {
      Lexer lx(text, body, body_end, dialect, file, lines);
      RETURN_IF_ERROR(lx.run(out));
    }
    if (body_end >= text.size()) break;
    const size_t after = text.find('\n', body_end);
    pos = after == std::string::npos ? text.size() : after + 1;
  }
  return out;
}

std::string shell_quote(const std::string& v) {
  const bool safe = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_-.,/:=+@%").find(c) != std::string_view::npos;
  });
  if (safe) return v;
  std::string out = "'";
  for (char c : v) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace goblin::config
