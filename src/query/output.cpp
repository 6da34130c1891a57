#include "query/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "core/escape.h"

#if GOBLIN_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>

#include <cstdlib>
#endif

namespace goblin::query {

namespace {
constexpr size_t kWidthRows = 1000;  // rows the aligned table sizes its columns from

// One table cell for a terminal: a name from a recording holds no escape sequence that reaches
// the terminal (terminal_text) and no line break or tab that would break the row.
std::string cell_text(std::string_view s) {
  std::string one_line;
  one_line.reserve(s.size());
  for (char c : s) {
    if (c == '\n')
      one_line += "\\n";
    else if (c == '\t')
      one_line += "\\t";
    else
      one_line += c;
  }
  return terminal_text(one_line);
}

bool is_number(const Value& v) { return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v); }
}  // namespace

std::string value_text(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return "NULL";
  if (const auto* i = std::get_if<int64_t>(&v)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return std::get<std::string>(v);
}

// ---- aligned table ----

TableSink::~TableSink() { finish(); }

void TableSink::columns(const std::vector<std::string>& names) {
  finish();
  names_.clear();
  for (const auto& n : names) names_.push_back(cell_text(n));
  width_.assign(names.size(), 0);
  numeric_.assign(names.size(), false);
  for (size_t c = 0; c < names_.size(); ++c) width_[c] = names_[c].size();
  buf_.clear();
  widths_fixed_ = false;
  finished_ = false;
  rows_ = 0;
}

bool TableSink::row(const std::vector<Value>& values) {
  std::vector<std::string> cells;
  cells.reserve(values.size());
  for (size_t c = 0; c < values.size(); ++c) {
    cells.push_back(is_number(values[c]) ? value_text(values[c]) : cell_text(value_text(values[c])));
    if (!widths_fixed_) {
      width_[c] = std::max(width_[c], std::min<size_t>(cells.back().size(), 80));
      if (is_number(values[c])) numeric_[c] = true;
    }
  }
  ++rows_;
  buf_.push_back(std::move(cells));
  if (!widths_fixed_ && buf_.size() >= kWidthRows) widths_fixed_ = true;
  if (widths_fixed_) flush_buffer();
  return true;
}

void TableSink::flush_buffer() {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c) out += "  ";
      if (numeric_[c])
        fmt::format_to(std::back_inserter(out), "{:>{}}", cells[c], width_[c]);
      else if (c + 1 < cells.size())
        fmt::format_to(std::back_inserter(out), "{:<{}}", cells[c], width_[c]);
      else
        out += cells[c];
    }
    out += '\n';
  };
  if (!names_.empty() && (rows_ <= static_cast<int64_t>(buf_.size()))) {  // the header, once
    line(names_);
    std::vector<std::string> rule;
    for (size_t w : width_) rule.emplace_back(w, '-');
    line(rule);
  }
  for (const auto& r : buf_) line(r);
  buf_.clear();
  out_(out);
}

void TableSink::finish() {
  if (finished_) return;
  finished_ = true;
  if (!buf_.empty() || rows_ == 0) flush_buffer();
  out_(fmt::format("({} row{})\n", rows_, rows_ == 1 ? "" : "s"));
}

// ---- CSV ----

namespace {
void csv_field(std::string& line, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    line += s;
    return;
  }
  line += '"';
  for (char ch : s) {
    if (ch == '"') line += '"';
    line += ch;
  }
  line += '"';
}
}  // namespace

void CsvSink::columns(const std::vector<std::string>& names) {
  line_.clear();
  for (size_t c = 0; c < names.size(); ++c) {
    if (c) line_ += ',';
    csv_field(line_, csv_text(names[c]));
  }
  line_ += '\n';
  out_(line_);
}

bool CsvSink::row(const std::vector<Value>& values) {
  line_.clear();
  for (size_t c = 0; c < values.size(); ++c) {
    if (c) line_ += ',';
    // Text that a spreadsheet would run as a formula (=HYPERLINK(...), +cmd, @SUM) is written with
    // a leading ' (CWE-1236); numbers are numbers, a negative one stays as it is.
    if (const auto* text = std::get_if<std::string>(&values[c]))
      csv_field(line_, csv_text(*text));
    else if (!std::holds_alternative<std::monostate>(values[c]))
      csv_field(line_, value_text(values[c]));
  }
  line_ += '\n';
  out_(line_);
  return true;
}

// ---- JSON ----

void JsonSink::columns(const std::vector<std::string>& names) {
  columns_ = Json::array();
  for (const auto& n : names) columns_.push_back(n);
  rows_ = Json::array();
  truncated_ = false;
  bytes_ = 0;
  note_.clear();
}

bool JsonSink::row(const std::vector<Value>& values) {
  if (static_cast<int64_t>(rows_.size()) >= cap_) {
    truncated_ = true;
    note_ = fmt::format("cut at {} rows (max_rows)", cap_);
    return false;
  }
  int64_t size = 0;
  for (const Value& v : values) {
    const auto* s = std::get_if<std::string>(&v);
    size += s ? static_cast<int64_t>(s->size()) : 8;
  }
  if (bytes_ + size > max_bytes_) {
    truncated_ = true;
    note_ = fmt::format(
        "cut after {} rows: the values passed {} bytes, the most a JSON result holds (the CLI's "
        "--format csv streams every row)",
        rows_.size(), max_bytes_);
    return false;
  }
  bytes_ += size;
  Json r = Json::array();
  for (const Value& v : values) {
    if (const auto* i = std::get_if<int64_t>(&v))
      r.push_back(*i);
    else if (const auto* d = std::get_if<double>(&v))
      r.push_back(*d);
    else if (const auto* s = std::get_if<std::string>(&v))
      r.push_back(*s);
    else
      r.push_back(nullptr);
  }
  rows_.push_back(std::move(r));
  return true;
}

Json JsonSink::result() const {
  if (!truncated_)
    return Json{{"columns", columns_}, {"rows", rows_}, {"row_count", rows_.size()}, {"truncated", false}};
  return Json{{"columns", columns_},
              {"rows", rows_},
              {"row_count", rows_.size()},
              {"truncated", true},
              {"truncated_note", note_}};
}

// ---- the shell ----

namespace {
bool read_line(const char* prompt, std::string& out) {
#if GOBLIN_HAVE_READLINE
  char* l = readline(prompt);
  if (!l) return false;
  out = l;
  if (*l) add_history(l);
  std::free(l);
  return true;
#else
  std::cout << prompt << std::flush;
  return static_cast<bool>(std::getline(std::cin, out));
#endif
}
}  // namespace

void run_shell(const std::function<void(const std::string& sql)>& run_one, const Emit& os) {
  os("goblin query: SQL over the trace tables; end a statement with ';'. .tables, .schema, .quit\n");
  std::string stmt, line;
  while (read_line(stmt.empty() ? "goblin> " : "   ...> ", line)) {
    if (stmt.empty() && (line == ".quit" || line == ".exit")) break;
    if (stmt.empty() && line == ".tables") {
      for (const TableInfo& t : table_infos()) os(fmt::format("{:<14} {}\n", t.name, t.doc));
      continue;
    }
    if (stmt.empty() && line == ".schema") {
      os(schema_markdown());
      continue;
    }
    stmt += line;
    stmt += '\n';
    const auto last = line.find_last_not_of(" \t");
    if (last != std::string::npos && line[last] == ';') {
      run_one(stmt);
      stmt.clear();
    }
  }
  if (stmt.find_first_not_of(" \t\n") != std::string::npos) run_one(stmt);
}

}  // namespace goblin::query
