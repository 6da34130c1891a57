// Python scanner: finds the calls, keyword arguments, module constants and environment writes a
// training script configures a workload with. A tokenizer-level scan, not an interpreter.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "config/config_source.h"
#include "config/python_tokens.h"
#include "core/limits.h"
#include "core/text.h"

namespace goblin::config {

Result<SourceScan> scan_python(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Python;
  ASSIGN_OR_RETURN(auto toks, tokenize_python(text, file));
  const auto& t = toks;
  std::map<std::string, SourceEntry> consts;
  std::map<std::string, size_t> call_of_target;  // `args` → the anchor of `args = TrainingArguments(...)`
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
  // Matching ")" of every "(" in one pass (the tokenizer has checked the brackets balance): a
  // scan forward from each call would be quadratic in deeply nested calls.
  std::vector<size_t> close_of(t.size(), t.size());
  {
    std::vector<size_t> open;
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k].kind != Tk::Op) continue;
      if (t[k].text == "(" || t[k].text == "[" || t[k].text == "{") {
        open.push_back(k);
      } else if (t[k].text == ")" || t[k].text == "]" || t[k].text == "}") {
        if (open.empty()) continue;
        close_of[open.back()] = k;
        open.pop_back();
      }
    }
  }
  for (size_t k = 0; k < t.size(); ++k) {
    // imports (top level, start of a line)
    if (t[k].kind == Tk::Name && t[k].depth == 0 && stmt_start(k) && (t[k].text == "import" || t[k].text == "from")) {
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
    // (an f-string key is an expression: its name is unknown, so the line is left alone)
    if (t[k].text == "environ" && k >= 2 && t[k - 1].text == "." && t[k - 2].text == "os" && k + 5 < t.size() &&
        t[k + 1].text == "[" && t[k + 2].kind == Tk::String && t[k + 3].text == "]" && t[k + 4].text == "=" &&
        python_string_value(t[k + 2].text).is_string()) {
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
    // args.bf16 = False after args = TrainingArguments(...): an attribute write to a configured
    // object overrides the keyword the call was given.
    if (t[k].kind == Tk::Name && stmt_start(k) && k + 4 < t.size() && t[k + 1].text == "." &&
        t[k + 2].kind == Tk::Name && t[k + 3].text == "=") {
      auto ti = call_of_target.find(t[k].text);
      const SourceAnchor* call = ti == call_of_target.end() ? nullptr : &out.anchors[ti->second];
      const int64_t idx = call ? static_cast<int64_t>(ti->second) : -1;
      if (call && !call->path.empty()) {
        size_t m = k + 4;
        while (m < t.size() && t[m].kind != Tk::Newline && t[m].kind != Tk::End) ++m;
        if (m > k + 4) {
          bool lit;
          const SourceEntry* via = nullptr;
          SourceEntry e;
          e.path = {t[k + 2].text};
          e.value = python_literal(t, k + 4, m, consts, &lit, &via);
          e.literal = lit;
          e.begin = via ? via->begin : t[k + 4].begin;
          e.end = via ? via->end : t[m - 1].end;
          e.line = t[k + 4].line;
          e.raw = text.substr(t[k + 4].begin, std::min<int64_t>(t[m - 1].end - t[k + 4].begin, 200));
          e.context = call->path[0];
          e.call_index = idx;
          e.overrides = true;
          out.entries.push_back(e);
        }
      }
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
    // torch.backends.cudnn.benchmark = X: cuDNN's autotuner (the assignment is named
    // cudnn_benchmark, which data/config_keys.yaml maps).
    if (t[k].text == "benchmark" && k + 2 < t.size() && t[k + 1].text == "=" && k >= 2 && t[k - 1].text == "." &&
        t[k - 2].text == "cudnn") {
      size_t m = k + 2;
      while (m < t.size() && t[m].kind != Tk::Newline && t[m].kind != Tk::End) ++m;
      bool lit;
      const SourceEntry* via = nullptr;
      SourceEntry e;
      e.value = python_literal(t, k + 2, m, consts, &lit, &via);
      e.path = {"cudnn_benchmark"};
      e.literal = lit;
      e.begin = t[k + 2].begin;
      e.end = t[m - 1].end;
      e.raw = text.substr(e.begin, e.end - e.begin);
      e.line = t[k + 2].line;
      e.context = "cudnn_benchmark";
      out.entries.push_back(e);
    }
    if (out.entries.size() + out.anchors.size() > limits::kMaxConfigNodes)
      return make_error(ErrorKind::Malformed,
                        fmt::format("script has more than {} calls and arguments goblin reads (its limit for a "
                                    "config file, docs/robustness.md)",
                                    limits::kMaxConfigNodes),
                        file, t[k].begin, t[k].line);
    // A trainer call (Trainer, SFTTrainer, Seq2SeqTrainer, ...): which arguments object it trains
    // with, `args=NAME` or the second positional argument, so parse-config can tell the training
    // arguments that train from a debug set built beside them.
    if (t[k].kind == Tk::Name && k + 1 < t.size() && t[k + 1].text == "(" && t[k].text.size() >= 7 &&
        t[k].text.compare(t[k].text.size() - 7, 7, "Trainer") == 0 && close_of[k + 1] < t.size()) {
      const size_t close = close_of[k + 1];
      const int inner = t[k + 1].depth + 1;
      int positional = 0;
      bool keywords = false;
      for (size_t m = k + 2; m < close; ++m) {
        if (t[m].depth != inner) continue;
        const bool arg_start = t[m - 1].text == "(" || (t[m - 1].text == "," && t[m - 1].depth == inner);
        if (!arg_start) continue;
        const bool is_kw = m + 1 < close && t[m + 1].text == "=" && t[m].kind == Tk::Name;
        keywords |= is_kw;
        const bool arg_end = m + 1 < close ? (t[m + 1].text == "," && t[m + 1].depth == inner) : true;
        if (is_kw && t[m].text == "args" && m + 2 < close && t[m + 2].kind == Tk::Name &&
            (m + 3 >= close || (t[m + 3].text == "," && t[m + 3].depth == inner))) {
          out.trainer_args = t[m + 2].text;
          out.trainer_args_line = t[m].line;
        } else if (!is_kw && !keywords && positional++ == 1 && t[m].kind == Tk::Name && arg_end) {
          out.trainer_args = t[m].text;
          out.trainer_args_line = t[m].line;
        }
      }
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
    size_t close = close_of[open];
    if (close >= t.size() || t[close].text != ")") continue;
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
    if (!a.target.empty()) call_of_target[a.target] = out.anchors.size();
    out.anchors.push_back(a);
    // arguments at depth d0+1
    size_t b = open + 1;
    int argi = 0;
    std::vector<SourceEntry> args;
    while (b < close) {
      size_t e = b;
      while (e < close && !(t[e].text == "," && t[e].depth == d0 + 1)) {
        if (close_of[e] < close) e = close_of[e];  // over a nested bracket in one step
        ++e;
      }
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
          if (t[b].text == "**")
            out.anchors[call_index].kwargs_unpack =
                text.substr(t[b].begin, std::min<int64_t>(t[e - 1].end - t[b].begin, 200));
        } else {
          en.path = {fmt::format("__arg{}", argi++)};
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
          // An expression's text is quoted in a warning only: keep it short (a nested call's
          // whole text per level would cost the square of the nesting).
          en.raw = text.substr(en.begin, std::min<int64_t>(en.end - en.begin, lit ? en.end - en.begin : 200));
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

}  // namespace goblin::config
