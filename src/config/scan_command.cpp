// Command lines as a config: the launch command of a shell script, Slurm batch script, Makefile or
// README code block (shell_words.h finds the words), its flags mapped to WorkloadConfig fields by
// data/config_keys.yaml like any other key (`--per_device_train_batch_size 8` is the key
// per_device_train_batch_size), plus the argparse defaults of the launched script for the flags the
// line does not give (its add_argument calls, read with the Python tokenizer).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>

#include "config/command_line.h"
#include "config/config_source.h"
#include "config/knowledge.h"
#include "config/python_tokens.h"
#include "config/shell_words.h"
#include "core/io.h"
#include "core/limits.h"
#include "core/text.h"

namespace fs = std::filesystem;

namespace goblin::config {

namespace {

ShellDialect dialect_for(const std::string& path) {
  const std::string base = ascii_lower(fs::path(path).filename().string());
  const std::string ext = ascii_lower(fs::path(path).extension().string());
  if (base == "makefile" || base == "gnumakefile" || ext == ".mk") return ShellDialect::Makefile;
  if (ext == ".md" || ext == ".markdown") return ShellDialect::Markdown;
  return ShellDialect::Shell;
}

std::string base_name(const std::string& w) {
  const size_t s = w.find_last_of('/');
  return s == std::string::npos ? w : w.substr(s + 1);
}

bool is_python(const std::string& w) {
  static const std::regex re("python[0-9.]*|\\$\\{?PYTHON\\}?|\\$\\(PYTHON\\)");
  return std::regex_match(base_name(w), re);
}

bool ends_with_py(const std::string& w) { return w.size() > 3 && w.compare(w.size() - 3, 3, ".py") == 0; }

bool is_assignment(const ShellWord& w) {
  const size_t eq = w.text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  return std::all_of(w.text.begin(), w.text.begin() + eq,
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
         !std::isdigit(static_cast<unsigned char>(w.text[0]));
}

std::string flag_key(const std::string& name) {
  std::string k = ascii_lower(name);
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
}

// A flag's value as JSON: booleans in any case, integers, numbers, else text.
Json scalar(const std::string& s) {
  const std::string l = ascii_lower(s);
  if (l == "true") return true;
  if (l == "false") return false;
  static const std::regex integer("[-+]?[0-9]+"), number("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (s.size() < 20 && std::regex_match(s, integer)) return std::stoll(s);
  if (s.size() < 40 && std::regex_match(s, number)) return std::stod(s);
  return s;
}

bool looks_negative_number(const std::string& s) {
  return s.size() > 1 && s[0] == '-' && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
}

// Where the launch command's program and script are among its words.
struct Shape {
  size_t program = std::string::npos, script = std::string::npos;
  std::string launcher;
};

Shape launch_shape(const ShellCommand& c) {
  Shape sh;
  const auto& w = c.words;
  size_t k = 0;
  while (k < w.size() && is_assignment(w[k])) ++k;
  for (size_t p = k; p < w.size(); ++p) {
    const std::string b = base_name(w[p].text);
    if (p == k && ends_with_py(w[p].text) && b != "setup.py") {
      sh = {p, p, "direct"};
      return sh;
    }
    const bool py = is_python(w[p].text);
    if (!py && b != "torchrun" && b != "deepspeed" &&
        !(b == "accelerate" && p + 1 < w.size() && w[p + 1].text == "launch"))
      continue;
    sh.program = p;
    sh.launcher = py ? "python" : b;
    for (size_t s = p + 1; s < w.size(); ++s) {
      const std::string& t = w[s].text;
      if (py && sh.launcher == "python" && t == "-c") break;  // python -c "import torch; ...": no script
      if (py && t == "-m" && s + 1 < w.size()) {
        const std::string& mod = w[s + 1].text;
        static const std::set<std::string> tools = {"pip", "venv", "ensurepip", "virtualenv", "site", "json.tool"};
        if (tools.count(mod)) break;  // python -m pip install ...: a tool, not training
        if (mod == "torch.distributed.run" || mod == "torch.distributed.launch") {
          sh.launcher = "torchrun";
          ++s;
          continue;
        }
        if (sh.launcher == "python") {
          sh.script = s + 1;
          return sh;
        }
      }
      if (ends_with_py(t)) {
        if (base_name(t) == "setup.py") break;
        sh.script = s;
        return sh;
      }
      if (py && sh.launcher == "python" && !t.empty() && t[0] != '-') {
        sh.script = s;
        return sh;
      }
    }
    sh.program = std::string::npos;  // a launcher without a script: not a training launch
  }
  return sh;
}

// The add_argument calls of the launched script: flag → declaration.
void read_argparse(const std::string& path, CommandLaunch& l) {
  auto text = read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxConfigBytes});
  if (!text) return;
  if (text->find("HfArgumentParser") != std::string::npos || text->find("TrainingArguments") != std::string::npos)
    l.style = "hf";
  auto toks = tokenize_python(*text, path);
  if (!toks) return;
  const auto& t = *toks;
  const std::map<std::string, SourceEntry> no_consts;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind != Tk::Name || t[i].text != "add_argument" || t[i + 1].text != "(") continue;
    const int d = t[i + 1].depth + 1;
    ArgparseArg a;
    a.line = t[i].line;
    size_t j = i + 2;
    while (j < t.size() && t[j].kind != Tk::End && !(t[j].depth < d)) {
      size_t e = j;
      // An argument ends at a comma of the call's own depth or at its closing paren (whose depth is
      // the call's outside: the tokenizer counts a closing bracket after it).
      while (e < t.size() && t[e].kind != Tk::End && t[e].depth >= d && !(t[e].depth == d && t[e].text == ",")) ++e;
      if (e - j >= 3 && t[j].kind == Tk::Name && t[j + 1].text == "=") {
        const std::string kw = t[j].text;
        bool lit = true;
        const SourceEntry* via = nullptr;
        Json v = python_literal(t, j + 2, e, no_consts, &lit, &via);
        if (kw == "default") a.default_value = lit ? v : Json(), a.literal = lit;
        if (kw == "action" && v.is_string()) a.action = v.get<std::string>();
      } else if (e == j + 1 && t[j].kind == Tk::String) {
        Json s = python_string_value(t[j].text);
        if (s.is_string() && s.get<std::string>().rfind("--", 0) == 0 && a.spelled.empty()) a.spelled = s;
      }
      if (e >= t.size() || t[e].depth < d || t[e].kind == Tk::End) break;
      j = e + 1;
    }
    if (a.spelled.empty()) continue;
    if (a.action == "store_true" && a.default_value.is_null() && a.literal) a.default_value = false;
    if (a.action == "store_false" && a.default_value.is_null() && a.literal) a.default_value = true;
    l.style = "argparse";
    l.args[flag_key(a.spelled.substr(2))] = a;
  }
}

SourceScan command_scan() {
  SourceScan s;
  s.format = kCommandFormat;
  return s;
}

class CommandScanner {
 public:
  CommandScanner(const std::string& text, const std::string& file, const ConfigKeys& keys)
      : text_(text), file_(file), keys_(keys) {}

  // Every launch command is read; the one with the most training fields is the config (ties: the
  // first), and a warning names it, why, and the lines not read into the config.
  Result<SourceScan> run() {
    ASSIGN_OR_RETURN(auto cmds, shell_commands(text_, dialect_for(file_), file_));
    std::vector<SourceEntry> exports;
    std::vector<Candidate> cands;
    for (const auto& c : cmds) {
      if (!c.words.empty() && c.words[0].text == "export") {
        for (size_t i = 1; i < c.words.size(); ++i)
          if (is_assignment(c.words[i])) env_entry(c.words[i]);
        continue;
      }
      const Shape sh = launch_shape(c);
      if (sh.program == std::string::npos) continue;
      std::move(out_.entries.begin(), out_.entries.end(), std::back_inserter(exports));
      out_.entries.clear();
      out_.launch = CommandLaunch{};
      given_.clear();
      fields_.clear();
      launch(c, sh);
      cands.push_back({std::move(out_.launch), std::move(out_.entries), fields_.size(), c.line});
      out_.entries.clear();
    }
    if (error_) return *error_;
    std::move(out_.entries.begin(), out_.entries.end(), std::back_inserter(exports));
    out_.entries = std::move(exports);
    out_.launch = CommandLaunch{};
    if (cands.empty()) return std::move(out_);
    size_t best = 0;
    for (size_t i = 1; i < cands.size(); ++i)
      if (cands[i].fields > cands[best].fields) best = i;
    Candidate& chosen = cands[best];
    out_.launch = std::move(chosen.launch);
    std::move(chosen.entries.begin(), chosen.entries.end(), std::back_inserter(out_.entries));
    if (cands.size() > 1) {
      std::vector<std::string> others;
      for (size_t i = 0; i < cands.size(); ++i)
        if (i != best) {
          out_.launch.other_lines.push_back(cands[i].line);
          others.push_back(fmt::format("line {} ({} training field{})", cands[i].line, cands[i].fields,
                                       cands[i].fields == 1 ? "" : "s"));
        }
      Warning w = make_warning(
          W::config_several_yaml_documents,
          fmt::format("{} holds {} launch commands: the config is the one on line {} ({}: {} training field{} "
                      "read, {}); a patch edits that line only, not {}",
                      fs::path(file_).filename().string(), cands.size(), chosen.line, chosen_name(out_.launch),
                      chosen.fields, chosen.fields == 1 ? "" : "s",
                      best == 0 ? "the most of any, and first" : "the most of any", fmt::join(others, ", ")));
      w.line = chosen.line;
      out_.warnings.push_back(std::move(w));
    }
    return std::move(out_);
  }

 private:
  struct Candidate {
    CommandLaunch launch;
    std::vector<SourceEntry> entries;
    size_t fields = 0;
    int64_t line = -1;
  };

  static std::string chosen_name(const CommandLaunch& l) {
    return l.script.empty() ? l.launcher : fmt::format("{} {}", l.launcher, l.script);
  }

  void env_entry(const ShellWord& w) {
    SourceEntry e;
    const size_t eq = w.text.find('=');
    e.path = {"env", w.text.substr(0, eq)};
    const std::string raw = text_.substr(w.begin, w.end - w.begin);
    const size_t req = raw.find('=');
    e.begin = w.begin + static_cast<int64_t>(req == std::string::npos ? 0 : req + 1);
    e.end = w.end;
    e.raw = text_.substr(e.begin, e.end - e.begin);
    e.value = w.text.substr(eq + 1);
    e.literal = !w.expands;
    if (w.expands) e.value = nullptr;
    e.line = w.line;
    out_.entries.push_back(std::move(e));
  }

  void launch(const ShellCommand& c, const Shape& sh) {
    CommandLaunch& l = out_.launch;
    l.found = true;
    l.line = c.line;
    l.begin = c.words.front().begin;
    l.end = c.words.back().end;
    l.program_begin = c.words[sh.program].begin;
    l.continued = c.continued;
    l.continuation_indent = c.continuation_indent;
    l.launcher = sh.launcher;
    for (size_t i = 0; i < sh.program; ++i)
      if (is_assignment(c.words[i])) env_entry(c.words[i]);
    if (sh.script != std::string::npos && ends_with_py(c.words[sh.script].text)) {
      l.script = c.words[sh.script].text;
      std::error_code ec;
      for (const fs::path& base : {fs::path(file_).parent_path(), fs::current_path(ec)}) {
        const fs::path p = fs::path(l.script).is_absolute() ? fs::path(l.script) : base / l.script;
        if (fs::is_regular_file(p, ec)) {
          l.script_path = p.lexically_normal().string();
          break;
        }
      }
      if (!l.script_path.empty()) read_argparse(l.script_path, l);
    }
    const size_t script = sh.script == std::string::npos ? c.words.size() : sh.script;
    flags(c, sh.program + 1, script, false);
    if (script < c.words.size()) flags(c, script + 1, c.words.size(), true);
    // A script goblin did not read whose line speaks TrainingArguments (run_clm.py without its
    // source at hand): an HfArgumentParser script, which takes every TrainingArguments flag.
    static const std::set<std::string> hf_names = {"per_device_train_batch_size",
                                                   "gradient_accumulation_steps",
                                                   "bf16",
                                                   "fp16",
                                                   "tf32",
                                                   "optim",
                                                   "torch_compile",
                                                   "dataloader_num_workers",
                                                   "gradient_checkpointing",
                                                   "learning_rate",
                                                   "output_dir",
                                                   "num_train_epochs",
                                                   "max_steps",
                                                   "do_train"};
    if (l.style.empty() && l.script_path.empty())
      for (const auto& k : given_)
        if (hf_names.count(k)) l.style = "hf";
    deepspeed_json();
    defaults();
  }

  // `--deepspeed ds.json`: the DeepSpeed config's keys are the run's too (micro batch, gradient
  // accumulation, bf16/fp16, ZeRO stage): read for the fields the line does not give, their
  // origin the JSON file (its line and span, where a patch edits them). "auto" is HF's: the
  // TrainingArguments value fills it, so it is not a value of its own.
  void deepspeed_json() {
    const SourceEntry* flag = nullptr;
    for (const auto& e : out_.entries)
      if (e.path.size() == 1 && e.path[0] == "deepspeed" && e.file.empty() && e.value.is_string()) flag = &e;
    if (!flag) return;
    const std::string name = flag->value.get<std::string>();
    if (name.size() < 6 || ascii_lower(name.substr(name.size() - 5)) != ".json") return;
    std::error_code ec;
    std::string path;
    for (const fs::path& base : {fs::path(file_).parent_path(), fs::current_path(ec)}) {
      const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : base / name;
      if (fs::is_regular_file(p, ec)) {
        path = p.lexically_normal().string();
        break;
      }
    }
    const int64_t line = flag->line;
    if (path.empty()) {
      out_.warnings.push_back(make_warning(
          W::config_invalid_value,
          fmt::format("line {}: --deepspeed {}: no such file beside the script or in the working directory; its "
                      "batch, precision and ZeRO settings are not read",
                      line, name)));
      return;
    }
    auto text = read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxConfigBytes});
    if (!text) {
      error_ = text.error();
      return;
    }
    auto ds = scan_json(*text, path);
    if (!ds) {
      error_ = ds.error();
      return;
    }
    out_.launch.deepspeed_json = path;
    bool micro = false;
    for (const auto& e : ds->entries)
      if (!e.path.empty() && e.path.back() == "train_micro_batch_size_per_gpu") micro = true;
    for (auto e : ds->entries) {
      if (e.value.is_string() && e.value.get<std::string>() == "auto") continue;
      // train_batch_size is the global batch: the micro batch is the per-GPU one when both are set.
      if (micro && e.path.size() == 1 && e.path[0] == "train_batch_size") continue;
      const std::string f = keys_.field_for(e.path, e.context);
      if (!f.empty() && fields_.count(f)) continue;  // the line's own flag wins
      if (!f.empty()) fields_.insert(f);
      e.file = path;
      out_.entries.push_back(std::move(e));
    }
  }

  void flags(const ShellCommand& c, size_t from, size_t to, bool script_args) {
    const auto& w = c.words;
    for (size_t i = from; i < to; ++i) {
      const std::string& t = w[i].text;
      if (t.size() < 3 || t.compare(0, 2, "--") != 0) continue;
      SourceEntry e;  // no context: the key rules map a flag like any top-level key
      e.line = w[i].line;
      e.flag.begin = w[i].begin;
      e.flag.end = w[i].end;
      const size_t eq = t.find('=');
      std::string name = t.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      e.flag.spelled = "--" + name;
      std::string key = flag_key(name);
      const auto decl = script_args ? out_.launch.args.find(key) : out_.launch.args.end();
      const bool switch_only = decl != out_.launch.args.end() &&
                               (decl->second.action == "store_true" || decl->second.action == "store_false");
      const ShellWord* value = nullptr;
      if (eq != std::string::npos) {
        e.flag.equals = true;
        const std::string raw = text_.substr(w[i].begin, w[i].end - w[i].begin);
        const size_t req = raw.find('=');
        e.begin = w[i].begin + static_cast<int64_t>(req == std::string::npos ? 0 : req + 1);
        e.end = w[i].end;
        e.value = scalar(t.substr(eq + 1));
        e.literal = !w[i].expands;
      } else if (!switch_only && i + 1 < to &&
                 (w[i + 1].text.empty() || w[i + 1].text[0] != '-' || looks_negative_number(w[i + 1].text))) {
        value = &w[++i];
        e.begin = value->begin;
        e.end = value->end;
        e.flag.end = value->end;
        e.value = scalar(value->text);
        e.literal = !value->expands;
      } else {
        e.flag.bare = true;
        e.begin = w[i].begin;
        e.end = w[i].end;
        e.value = !(switch_only && decl->second.action == "store_false");
        // HfArgumentParser's `--no_<field>` for a boolean field that defaults to True.
        if (key.rfind("no_", 0) == 0 && !switch_only) {
          key = key.substr(3);
          e.value = false;
        }
      }
      e.raw = text_.substr(e.begin, e.end - e.begin);
      if (!e.literal) e.value = nullptr;
      e.path = {key};
      given_.insert(key);
      if (std::string f = keys_.field_for(e.path, ""); !f.empty()) fields_.insert(f);
      out_.entries.push_back(std::move(e));
    }
  }

  // The script's argparse defaults for the fields the line does not set.
  void defaults() {
    for (const auto& [key, a] : out_.launch.args) {
      if (given_.count(key)) continue;
      const std::string f = keys_.field_for({key}, "");
      if (f.empty() || fields_.count(f)) continue;
      SourceEntry e;
      e.path = {key};
      e.context = "argparse_default";
      e.value = a.default_value;
      e.literal = a.literal;
      e.raw = a.literal ? a.default_value.dump() : "(expression)";
      e.line = a.line;
      e.file = out_.launch.script_path;
      e.flag.spelled = a.spelled;
      // No default (the script sets nothing), or one goblin does not evaluate (default=os.cpu_count()):
      // the field stays unset rather than guessed.
      if (a.default_value.is_null() || !a.literal) continue;
      fields_.insert(f);
      out_.entries.push_back(std::move(e));
    }
  }

  const std::string& text_;
  const std::string& file_;
  const ConfigKeys& keys_;
  SourceScan out_ = command_scan();
  std::set<std::string> given_, fields_;
  std::optional<Error> error_;  // a --deepspeed JSON that does not parse
};

}  // namespace

Result<SourceScan> scan_command(const std::string& text, const std::string& file) {
  ASSIGN_OR_RETURN(auto kn, config_knowledge());
  CommandScanner sc(text, file, kn->keys);
  ASSIGN_OR_RETURN(auto scan, sc.run());
  if (!scan.launch.found)
    return make_error(ErrorKind::Malformed,
                      "no launch command found (python SCRIPT.py, torchrun, accelerate launch or deepspeed with a "
                      "script)",
                      file);
  return scan;
}

Result<std::string> launch_command_text(const std::string& text, const std::string& file) {
  ASSIGN_OR_RETURN(auto scan, scan_command(text, file));
  return text.substr(scan.launch.begin, scan.launch.end - scan.launch.begin);
}

bool holds_launch_command(const std::string& path, const std::string& text) {
  auto cmds = shell_commands(text, dialect_for(path), path);
  if (!cmds) return false;
  for (const auto& c : *cmds)
    if (launch_shape(c).program != std::string::npos) return true;
  return false;
}

}  // namespace goblin::config
