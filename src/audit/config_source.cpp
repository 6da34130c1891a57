// Positional scanners for YAML, JSON, Python and env files (see config_source.h).
#include "audit/config_source.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "core/text.h"

namespace goblin::audit {

int64_t line_of(const std::string& text, int64_t offset) {
  offset = std::clamp<int64_t>(offset, 0, static_cast<int64_t>(text.size()));
  return 1 + std::count(text.begin(), text.begin() + offset, '\n');
}

std::string field_for_key(const std::vector<std::string>& path, const std::string& context) {
  if (path.empty()) return "";
  const std::string k = ascii_lower(path.back());
  const std::string parent = path.size() >= 2 ? ascii_lower(path[path.size() - 2]) : "";
  const std::string root = ascii_lower(path[0]);
  if (path.size() == 2 && (root == "env" || root == "environment" || root == "env_vars" || root == "envs"))
    return "env." + path.back();
  if (path.size() >= 2 && (root == "env" || root == "environment" || root == "env_vars")) return "";
  if (k == "__call") {
    if (context == "compile") return "torch_compile.call";
    if (context == "gradient_checkpointing_enable") return "gradient_checkpointing.call";
    if (context == "profile") return "profiler_enabled.call";
    return "";
  }
  if (context == "from_pretrained") {
    if (k == "__arg0" || k == "pretrained_model_name_or_path") return "model_name";
    if (k == "attn_implementation") return "attention_impl";
    return "";
  }
  if (context == "LoraConfig") return k == "r" ? "lora_rank" : "";
  if (context == "AdamW" || context == "Adam" || context == "SGD" || context == "Adafactor" || context == "Lion") {
    if (k == "__name") return "optimizer";
    if (k == "fused") return "optimizer.fused";
    if (k == "lr") return "lr";
    return "";
  }
  if (context == "autocast") return k == "dtype" ? "precision" : "";
  if (context == "set_float32_matmul_precision") return k == "__arg0" ? "tf32" : "";
  if (context == "set_detect_anomaly") return k == "__arg0" || k == "mode" ? "anomaly_detection" : "";
  if (context == "profile") return "";
  if (context == "allow_tf32") return "tf32";
  if (context == "DataLoader") {
    if (k == "num_workers") return "dataloader_workers";
    if (k == "pin_memory") return "dataloader_pin_memory";
    if (k == "prefetch_factor") return "dataloader_prefetch_factor";
    if (k == "persistent_workers") return "dataloader_persistent_workers";
    if (k == "batch_size") return "batch_size";
    return "";
  }
  if (context == "compile" || context == "gradient_checkpointing_enable") return "";
  // HF TrainingArguments keys and their common spellings (flat or in nested blocks).
  if (k == "per_device_train_batch_size" || k == "train_batch_size" || k == "micro_batch_size" ||
      (k == "batch_size" && parent != "eval"))
    return "batch_size";
  if (k == "gradient_accumulation_steps" || k == "grad_accum_steps" || k == "gradient_accumulation")
    return "grad_accum_steps";
  if (k == "max_seq_length" || k == "max_seq_len" || k == "seq_len" || k == "seq_length" || k == "block_size" ||
      k == "sequence_len" || k == "max_length")
    return "seq_len";
  if (k == "optim" || k == "optimizer") return "optimizer";
  if (k == "attn_implementation" || k == "attention_impl" || k == "attention_implementation") return "attention_impl";
  if (k == "gradient_checkpointing") return "gradient_checkpointing";
  if (k == "lora_r" || k == "lora_rank" ||
      (k == "r" && (parent == "lora" || parent == "peft" || parent == "lora_config")))
    return "lora_rank";
  if (k == "dataloader_num_workers" || (k == "num_workers" && parent != "eval")) return "dataloader_workers";
  if (k == "dataloader_pin_memory" || k == "pin_memory") return "dataloader_pin_memory";
  if (k == "dataloader_prefetch_factor" || k == "prefetch_factor") return "dataloader_prefetch_factor";
  if (k == "dataloader_persistent_workers" || k == "persistent_workers") return "dataloader_persistent_workers";
  if (k == "torch_compile" || (k == "compile" && parent != "model_kwargs")) return "torch_compile";
  if (k == "learning_rate" || k == "lr") return "lr";
  if (k == "warmup_steps") return "warmup_steps";
  if (k == "model_name_or_path" || k == "model_name" || k == "model_id" || k == "pretrained_model_name_or_path" ||
      (parent == "model" && (k == "name" || k == "path" || k == "id")) || (k == "model" && path.size() == 1))
    return "model_name";
  if (k == "tf32" || k == "allow_tf32") return "tf32";
  if (k == "bf16") return "precision.bf16";
  if (k == "fp16") return "precision.fp16";
  if (k == "precision" || k == "mixed_precision" || k == "amp_dtype") return "precision";
  if (k == "mode" || k == "task") return "mode";
  if (k == "detect_anomaly" || k == "anomaly_detection") return "anomaly_detection";
  if (k == "profiler_enabled" || k == "profile" || k == "torch_profiler") return "profiler_enabled";
  if (k == "world_size" || k == "nproc_per_node" || k == "num_gpus") return "world_size";
  return "";
}

// ---- YAML ---------------------------------------------------------------------------------------

namespace {

std::vector<int64_t> line_starts(const std::string& text) {
  std::vector<int64_t> s{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') s.push_back(static_cast<int64_t>(i + 1));
  return s;
}

int64_t line_end(const std::string& text, int64_t off) {
  size_t e = text.find('\n', static_cast<size_t>(off));
  return e == std::string::npos ? static_cast<int64_t>(text.size()) : static_cast<int64_t>(e);
}

// End of a YAML scalar that starts at `b`: matching quote, else up to " #" or end of line.
int64_t yaml_scalar_end(const std::string& text, int64_t b) {
  int64_t le = line_end(text, b);
  if (b < le && (text[b] == '"' || text[b] == '\'')) {
    char q = text[b];
    for (int64_t i = b + 1; i < le; ++i) {
      if (q == '"' && text[i] == '\\') {
        ++i;
        continue;
      }
      if (text[i] == q) {
        if (q == '\'' && i + 1 < le && text[i + 1] == '\'') {
          ++i;
          continue;
        }
        return i + 1;
      }
    }
    return le;
  }
  int64_t e = le;
  for (int64_t i = b; i < le; ++i)
    if (text[i] == '#' && i > b && (text[i - 1] == ' ' || text[i - 1] == '\t')) {
      e = i;
      break;
    }
  while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r')) --e;
  return e;
}

Json yaml_scalar_value(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: a string
  std::string l = ascii_lower(s);
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  if (l == "null" || l == "~" || l.empty()) return nullptr;
  try {
    size_t pos = 0;
    long long v = std::stoll(s, &pos);
    if (pos == s.size()) return static_cast<int64_t>(v);
  } catch (...) {
  }
  try {
    size_t pos = 0;
    double v = std::stod(s, &pos);
    if (pos == s.size()) return v;
  } catch (...) {
  }
  return s;
}

struct YamlScanner {
  const std::string& text;
  std::vector<int64_t> starts;
  SourceScan& out;

  int64_t offset(const YAML::Mark& m) const {
    if (m.line < 0 || static_cast<size_t>(m.line) >= starts.size()) return -1;
    return starts[m.line] + m.column;
  }

  // Returns the last line (1-based) covered by the node.
  int64_t walk(const YAML::Node& n, std::vector<std::string>& path) {
    int64_t last = n.Mark().line + 1;
    if (n.IsMap()) {
      SourceAnchor a;
      a.kind = "yaml_block";
      a.path = path;
      int64_t off = offset(n.Mark());
      a.flow = off >= 0 && off < static_cast<int64_t>(text.size()) && text[off] == '{';
      a.indent = -1;
      for (auto it = n.begin(); it != n.end(); ++it) {
        std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
        if (a.indent < 0) a.indent = it->first.Mark().column;
        path.push_back(key);
        last = std::max(last, static_cast<int64_t>(it->first.Mark().line + 1));
        last = std::max(last, walk(it->second, path));
        path.pop_back();
      }
      if (a.indent < 0) a.indent = static_cast<int>(path.size()) * 2;
      a.line = last;
      a.insert_at = last - 1 < static_cast<int64_t>(starts.size()) ? line_end(text, starts[last - 1]) : text.size();
      out.anchors.push_back(a);
    } else if (n.IsSequence()) {
      int i = 0;
      for (auto it = n.begin(); it != n.end(); ++it, ++i) {
        path.push_back(std::to_string(i));
        last = std::max(last, walk(*it, path));
        path.pop_back();
      }
    } else if (n.IsScalar() || n.IsNull()) {
      if (path.empty()) return last;
      SourceEntry e;
      e.path = path;
      e.value = n.IsNull() ? Json() : yaml_scalar_value(n);
      e.begin = offset(n.Mark());
      e.line = n.Mark().line + 1;
      if (e.begin >= 0 && n.IsScalar()) {
        char c0 = e.begin < static_cast<int64_t>(text.size()) ? text[e.begin] : '\n';
        if (c0 == '|' || c0 == '>') {  // block scalar: not editable in place
          e.end = e.begin;
          e.literal = true;
        } else {
          e.end = yaml_scalar_end(text, e.begin);
        }
      } else if (e.begin >= 0) {
        e.end = e.begin;
      }
      e.raw = e.begin >= 0 && e.end >= e.begin ? text.substr(e.begin, e.end - e.begin) : n.Scalar();
      e.context = "yaml";
      out.entries.push_back(std::move(e));
    }
    return last;
  }
};

}  // namespace

static Result<SourceScan> scan_yaml(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Yaml;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, "YAML: " + e.msg, file, -1, e.mark.line >= 0 ? e.mark.line + 1 : -1);
  }
  if (root.IsNull()) return out;
  if (!root.IsMap())
    return make_error(ErrorKind::Malformed, "expected a mapping of config keys at the top level", file, -1,
                      root.Mark().line + 1);
  YamlScanner s{text, line_starts(text), out};
  std::vector<std::string> path;
  s.walk(root, path);
  // The root block inserts at end of file.
  for (auto& a : out.anchors)
    if (a.path.empty()) {
      a.insert_at = static_cast<int64_t>(text.size());
      a.indent = 0;
    }
  return out;
}

// ---- JSON ---------------------------------------------------------------------------------------

namespace {

struct JsonScanner {
  const std::string& text;
  SourceScan& out;
  size_t i = 0;

  void ws() {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  }
  std::string string_lit() {  // at '"'; returns decoded
    size_t b = i++;
    while (i < text.size() && text[i] != '"') {
      if (text[i] == '\\') ++i;
      ++i;
    }
    ++i;
    try {
      return Json::parse(text.substr(b, i - b)).get<std::string>();
    } catch (...) {
      return text.substr(b + 1, i - b - 2);
    }
  }
  int indent_of(size_t off) {
    size_t ls = text.rfind('\n', off == 0 ? 0 : off - 1);
    ls = ls == std::string::npos ? 0 : ls + 1;
    int n = 0;
    while (ls + n < text.size() && text[ls + n] == ' ') ++n;
    return n;
  }
  void value(std::vector<std::string>& path) {
    ws();
    if (i >= text.size()) return;
    char c = text[i];
    if (c == '{') {
      SourceAnchor a;
      a.kind = "json_object";
      a.path = path;
      a.insert_at = static_cast<int64_t>(i + 1);
      a.line = line_of(text, static_cast<int64_t>(i));
      ++i;
      ws();
      a.empty = i < text.size() && text[i] == '}';
      a.indent = indent_of(i) > indent_of(a.insert_at - 1) ? indent_of(i) : indent_of(a.insert_at - 1) + 2;
      if (a.line == line_of(text, static_cast<int64_t>(i))) a.indent = indent_of(a.insert_at - 1) + 2;
      out.anchors.push_back(a);
      while (i < text.size() && text[i] != '}') {
        ws();
        if (text[i] != '"') return;
        std::string key = string_lit();
        ws();
        if (i < text.size() && text[i] == ':') ++i;
        path.push_back(key);
        value(path);
        path.pop_back();
        ws();
        if (i < text.size() && text[i] == ',') ++i;
        ws();
      }
      ++i;
    } else if (c == '[') {
      ++i;
      int idx = 0;
      ws();
      while (i < text.size() && text[i] != ']') {
        path.push_back(std::to_string(idx++));
        value(path);
        path.pop_back();
        ws();
        if (i < text.size() && text[i] == ',') ++i;
        ws();
      }
      ++i;
    } else {
      size_t b = i;
      Json v;
      if (c == '"') {
        v = string_lit();
      } else {
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) && text[i] != ',' &&
               text[i] != '}' && text[i] != ']')
          ++i;
        try {
          v = Json::parse(text.substr(b, i - b));
        } catch (...) {
        }
      }
      if (path.empty()) return;
      SourceEntry e;
      e.path = path;
      e.value = v;
      e.begin = static_cast<int64_t>(b);
      e.end = static_cast<int64_t>(i);
      e.raw = text.substr(b, i - b);
      e.line = line_of(text, e.begin);
      e.context = "json";
      out.entries.push_back(std::move(e));
    }
  }
};

}  // namespace

static Result<SourceScan> scan_json(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Json;
  auto parsed_or = parse_json_text(text, file);
  if (!parsed_or) return parsed_or.error();
  const Json& parsed = *parsed_or;
  if (!parsed.is_object()) return make_error(ErrorKind::Malformed, "expected a JSON object of config keys", file, 0, 1);
  JsonScanner s{text, out};
  std::vector<std::string> path;
  s.value(path);
  return out;
}

// ---- Python -------------------------------------------------------------------------------------

namespace {

enum class Tk { Name, Number, String, Op, Newline, End };
struct Token {
  Tk kind;
  std::string text;
  int64_t begin, end, line;
  int depth;  // bracket depth before this token
};

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
  // dotted name: torch.bfloat16
  bool dotted = (e - b) % 2 == 1;
  for (size_t k = b; k < e && dotted; ++k) dotted = ((k - b) % 2 == 0) ? t[k].kind == Tk::Name : t[k].text == ".";
  if (dotted && e > b) {
    std::string s;
    for (size_t k = b; k < e; ++k) s += t[k].text;
    return s;
  }
  *literal = false;
  return nullptr;
}

}  // namespace

static Result<SourceScan> scan_python(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Python;
  auto toks = tokenize_python(text, file);
  if (!toks) return toks.error();
  const auto& t = *toks;
  std::map<std::string, SourceEntry> consts;
  static const std::set<std::string> kCalls = {"TrainingArguments",
                                               "SFTConfig",
                                               "Seq2SeqTrainingArguments",
                                               "DPOConfig",
                                               "GRPOConfig",
                                               "ORPOConfig",
                                               "DataLoader",
                                               "from_pretrained",
                                               "LoraConfig",
                                               "compile",
                                               "AdamW",
                                               "Adam",
                                               "SGD",
                                               "Adafactor",
                                               "Lion",
                                               "autocast",
                                               "set_float32_matmul_precision",
                                               "gradient_checkpointing_enable",
                                               "setdefault",
                                               "set_detect_anomaly",
                                               "profile"};
  auto stmt_start = [&](size_t k) { return k == 0 || t[k - 1].kind == Tk::Newline; };
  for (size_t k = 0; k < t.size(); ++k) {
    // imports (top level, start of a line)
    if (t[k].kind == Tk::Name && t[k].depth == 0 && stmt_start(k) && line_of(text, t[k].begin) > 0 &&
        (t[k].text == "import" || t[k].text == "from")) {
      bool indented = t[k].begin > 0 && text[t[k].begin - 1] != '\n';
      size_t m = k;
      while (m < t.size() && t[m].kind != Tk::Newline && t[m].kind != Tk::End) {
        if (t[m].text == "os" && (m == k + 1)) out.imports_os |= t[k].text == "import";
        if (t[m].text == "torch" && m == k + 1) out.imports_torch = true;
        ++m;
      }
      if (!indented) out.after_imports = m < t.size() ? t[m].end : static_cast<int64_t>(text.size());
    }
    // module-level constants: NAME = literal NEWLINE
    if (t[k].kind == Tk::Name && t[k].depth == 0 && stmt_start(k) && k + 2 < t.size() && t[k + 1].text == "=") {
      size_t m = k + 2;
      while (m < t.size() && t[m].kind != Tk::Newline && t[m].kind != Tk::End) ++m;
      bool lit;
      const SourceEntry* via = nullptr;
      Json v = python_literal(t, k + 2, m, consts, &lit, &via);
      if (lit && m > k + 2 && !via) {
        SourceEntry e;
        e.path = {t[k].text};
        e.value = v;
        e.begin = t[k + 2].begin;
        e.end = t[m - 1].end;
        e.raw = text.substr(e.begin, e.end - e.begin);
        e.line = t[k + 2].line;
        consts[t[k].text] = e;
      }
    }
    // os.environ["X"] = "v"
    if (t[k].text == "environ" && k >= 2 && t[k - 1].text == "." && t[k - 2].text == "os" && k + 5 < t.size() &&
        t[k + 1].text == "[" && t[k + 2].kind == Tk::String && t[k + 3].text == "]" && t[k + 4].text == "=") {
      size_t m = k + 5;
      while (m < t.size() && t[m].kind != Tk::Newline && t[m].kind != Tk::End) ++m;
      bool lit;
      const SourceEntry* via = nullptr;
      Json v = python_literal(t, k + 5, m, consts, &lit, &via);
      SourceEntry e;
      e.path = {"env", python_string_value(t[k + 2].text).get<std::string>()};
      e.value = v.is_string() ? v : v.is_null() ? Json() : Json(v.dump());
      e.literal = lit;
      e.begin = t[k + 5].begin;
      e.end = t[m - 1].end;
      e.raw = text.substr(e.begin, e.end - e.begin);
      e.line = t[k + 5].line;
      e.context = "os.environ";
      out.entries.push_back(e);
    }
    // torch.backends.cuda.matmul.allow_tf32 = X ; torch.backends.cudnn.allow_tf32 = X
    if (t[k].text == "allow_tf32" && k + 2 < t.size() && t[k + 1].text == "=" && k >= 2 && t[k - 1].text == ".") {
      bool matmul = t[k - 2].text == "matmul";
      size_t m = k + 2;
      while (m < t.size() && t[m].kind != Tk::Newline && t[m].kind != Tk::End) ++m;
      bool lit;
      const SourceEntry* via = nullptr;
      Json v = python_literal(t, k + 2, m, consts, &lit, &via);
      SourceEntry e;
      e.path = {matmul ? "allow_tf32" : "cudnn_allow_tf32"};
      e.value = v;
      e.literal = lit;
      e.begin = t[k + 2].begin;
      e.end = t[m - 1].end;
      e.raw = text.substr(e.begin, e.end - e.begin);
      e.line = t[k + 2].line;
      e.context = matmul ? "allow_tf32" : "torch.backends.cudnn";
      out.entries.push_back(e);
    }
    // calls
    if (t[k].kind != Tk::Name || k + 1 >= t.size() || t[k + 1].text != "(" || !kCalls.count(t[k].text)) continue;
    std::string name = t[k].text;
    // dotted prefix
    size_t first = k;
    while (first >= 2 && t[first - 1].text == "." && t[first - 2].kind == Tk::Name) first -= 2;
    std::string dotted;
    for (size_t m = first; m <= k; ++m) dotted += t[m].text;
    if (name == "setdefault" && dotted != "os.environ.setdefault") continue;
    if (name == "compile" && dotted != "torch.compile") continue;
    if (name == "profile" && dotted.find("profiler.profile") == std::string::npos) continue;
    // matching paren
    size_t open = k + 1;
    int d0 = t[open].depth;
    size_t close = open + 1;
    while (close < t.size() && !(t[close].text == ")" && t[close].depth == d0)) ++close;
    if (close >= t.size()) continue;
    SourceAnchor a;
    a.kind = "python_call";
    a.path = {name};
    a.insert_at = t[open].end;
    a.line = t[open].line;
    a.empty = close == open + 1;
    a.stmt_end = t[close].end;
    if (first >= 2 && t[first - 1].text == "=" && t[first - 2].kind == Tk::Name && stmt_start(first - 2))
      a.target = t[first - 2].text;
    int64_t call_index = static_cast<int64_t>(out.anchors.size());
    out.anchors.push_back(a);
    // arguments at depth d0+1
    size_t b = open + 1;
    int argi = 0;
    std::vector<SourceEntry> args;
    while (b < close) {
      size_t e = b;
      while (e < close && !(t[e].text == "," && t[e].depth == d0 + 1)) ++e;
      if (e > b) {
        SourceEntry en;
        en.context = name;
        en.call_index = call_index;
        size_t vb = b;
        if (e > b + 2 && t[b].kind == Tk::Name && t[b + 1].text == "=") {
          en.path = {t[b].text};
          vb = b + 2;
        } else if (t[b].text == "*" || t[b].text == "**") {
          en.path = {};
        } else {
          en.path = {"__arg" + std::to_string(argi++)};
        }
        if (!en.path.empty()) {
          bool lit;
          const SourceEntry* via = nullptr;
          en.value = python_literal(t, vb, e, consts, &lit, &via);
          en.literal = lit;
          if (via) {  // edit the constant's definition
            en.begin = via->begin;
            en.end = via->end;
            en.line = via->line;
          } else {
            en.begin = t[vb].begin;
            en.end = t[e - 1].end;
            en.line = t[vb].line;
          }
          en.raw = text.substr(en.begin, en.end - en.begin);
          args.push_back(en);
        }
      }
      b = e + 1;
    }
    if (name == "setdefault") {
      if (args.size() >= 2 && args[0].value.is_string()) {
        SourceEntry e = args[1];
        e.path = {"env", args[0].value.get<std::string>()};
        e.context = "os.environ";
        out.entries.push_back(e);
      }
      continue;
    }
    if (name == "AdamW" || name == "Adam" || name == "SGD" || name == "Adafactor" || name == "Lion") {
      SourceEntry e;
      e.path = {"__name"};
      e.value = ascii_lower(name) == "adamw"  ? "adamw_torch"
                : ascii_lower(name) == "adam" ? "adam_torch"
                                              : ascii_lower(name);
      e.raw = dotted;
      e.line = t[k].line;
      e.begin = t[k].begin;
      e.end = t[k].end;
      e.context = name;
      e.call_index = call_index;
      out.entries.push_back(e);
    }
    if (name == "compile" || name == "gradient_checkpointing_enable" || name == "profile") {
      SourceEntry e;
      e.path = {"__call"};
      e.value = true;
      e.raw = dotted;
      e.line = t[k].line;
      e.begin = t[first].begin;
      e.end = t[close].end;
      e.context = name;
      e.call_index = call_index;
      out.entries.push_back(e);
    }
    for (auto& en : args) out.entries.push_back(en);
  }
  return out;
}

// ---- env files / shell exports ----------------------------------------------------------------

static Result<SourceScan> scan_env(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Env;
  size_t pos = 0;
  int64_t line = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    ++line;
    std::string l = text.substr(pos, nl - pos);
    size_t b = l.find_first_not_of(" \t");
    if (b != std::string::npos && l[b] != '#') {
      size_t s = b;
      if (l.compare(s, 7, "export ") == 0) s = l.find_first_not_of(" \t", s + 7);
      size_t eq = l.find('=', s);
      std::string name = eq == std::string::npos ? "" : l.substr(s, eq - s);
      bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      });
      if (ok) {
        size_t vb = eq + 1, ve = l.size();
        while (ve > vb && (l[ve - 1] == '\r' || l[ve - 1] == ' ')) --ve;
        std::string raw = l.substr(vb, ve - vb);
        std::string v = raw;
        if (!v.empty() && (v[0] == '"' || v[0] == '\'')) {
          size_t close = v.find(v[0], 1);
          if (close == std::string::npos)
            return make_error(ErrorKind::Malformed, "unterminated quote in value of " + name, file,
                              static_cast<int64_t>(pos + vb), line);
          ve = vb + close + 1;
          v = v.substr(1, close - 1);
        } else {
          size_t hash = v.find(" #");
          if (hash != std::string::npos) {
            v = v.substr(0, hash);
            ve = vb + hash;
          }
        }
        SourceEntry e;
        e.path = {"env", name};
        e.value = v;
        e.raw = l.substr(vb, ve - vb);
        e.begin = static_cast<int64_t>(pos + vb);
        e.end = static_cast<int64_t>(pos + ve);
        e.line = line;
        e.context = "env";
        out.entries.push_back(e);
      } else if (l.find("=") == std::string::npos && l.find_first_not_of(" \t\r") != std::string::npos &&
                 l.compare(b, 7, "export ") != 0 && l.compare(b, 4, "set ") != 0) {
        out.warnings.push_back(file + ": line " + std::to_string(line) + ": not a VAR=value line; ignored");
      }
    }
    pos = nl + 1;
  }
  SourceAnchor a;
  a.kind = "env_file";
  a.insert_at = static_cast<int64_t>(text.size());
  out.anchors.push_back(a);
  return out;
}

Result<SourceScan> scan_source(const std::string& text, ConfigFormat fmt, const std::string& file) {
  switch (fmt) {
    case ConfigFormat::Yaml:
      return scan_yaml(text, file);
    case ConfigFormat::Json:
      return scan_json(text, file);
    case ConfigFormat::Python:
      return scan_python(text, file);
    case ConfigFormat::Env:
      return scan_env(text, file);
  }
  return make_error(ErrorKind::Internal, "unknown config format");
}

}  // namespace goblin::audit
