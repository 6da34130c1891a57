#include "config/config_editor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include "config/command_line.h"
#include "config/config_source.h"
#include "config/knowledge.h"
#include "config/text_edits.h"

namespace goblin::config {

namespace {

using Edit = TextEdit;

// The key each format writes for a field (HF TrainingArguments names).
std::string hf_key(const std::string& f) {
  static const std::map<std::string, std::string> k = {
      {"batch_size", "per_device_train_batch_size"},
      {"grad_accum_steps", "gradient_accumulation_steps"},
      {"seq_len", "max_seq_length"},
      {"optimizer", "optim"},
      {"attention_impl", "attn_implementation"},
      {"lora_rank", "lora_r"},
      {"dataloader_workers", "dataloader_num_workers"},
      {"lr", "learning_rate"},
      {"model_name", "model_name_or_path"},
      {"anomaly_detection", "detect_anomaly"},
      {"log_interval", "logging_steps"},
  };
  auto it = k.find(f);
  return it == k.end() ? f : it->second;
}

// Short key inside a nested block (dataloader: {num_workers: ...}).
std::string block_key(const std::string& f, const std::string& block) {
  if (block == "dataloader") {
    if (f == "dataloader_workers") return "num_workers";
    if (f == "dataloader_pin_memory") return "pin_memory";
    if (f == "dataloader_prefetch_factor") return "prefetch_factor";
    if (f == "dataloader_persistent_workers") return "persistent_workers";
  }
  if (block == "model") {
    if (f == "attention_impl") return "attn_implementation";
    if (f == "model_name") return "name";
  }
  if (block == "lora" && f == "lora_rank") return "r";
  return hf_key(f);
}

// The value a patch writes: an attention implementation as attn_implementation names it
// (data/attention.yaml hf_name).
Json hf_value(const AttentionImpls& attention, const std::string& f, const Json& v) {
  if (f == "attention_impl" && v.is_string()) return attention.hf_name(v.get<std::string>());
  return v;
}

std::string render(const Json& v, ConfigFormat fmt) {
  if (fmt == ConfigFormat::Python) {
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    if (v.is_null()) return "None";
    return v.dump();
  }
  if (fmt == ConfigFormat::Yaml && v.is_string()) {
    const std::string s = v;
    bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/';
    });
    static const std::set<std::string> reserved = {"true", "false", "yes", "no", "on", "off", "null", "~"};
    bool numeric = !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '.');
    if (plain && !reserved.count(s) && !numeric) return s;
    return v.dump();
  }
  if (fmt == ConfigFormat::Env) return v.is_string() ? v.get<std::string>() : v.dump();
  return v.dump();
}

const SourceAnchor* find_anchor(const SourceScan& s, const std::string& kind, const std::vector<std::string>& path) {
  for (const auto& a : s.anchors)
    if (a.kind == kind && a.path == path) return &a;
  return nullptr;
}

const SourceAnchor* find_call(const SourceScan& s, const std::set<std::string>& names) {
  for (const auto& a : s.anchors)
    if (a.kind == "python_call" && !a.path.empty() && names.count(a.path[0])) return &a;
  return nullptr;
}

const std::set<std::string> kHfCalls = {"TrainingArguments", "SFTConfig",  "Seq2SeqTrainingArguments",
                                        "DPOConfig",         "GRPOConfig", "ORPOConfig"};

class Editor {
 public:
  Editor(const std::string& text, const WorkloadConfig& cfg, const SourceScan& scan, const ConfigKnowledge& kn)
      : text_(text), cfg_(cfg), scan_(scan), kn_(kn) {
    // The block where most mapped keys live: additions go there (yaml/json).
    std::map<std::vector<std::string>, int> votes;
    for (const auto& e : scan.entries) {
      std::string f = kn.keys.field_for(e.path, e.context);
      if (f.empty() || f.rfind("env.", 0) == 0 || e.path.size() < 1) continue;
      std::vector<std::string> parent(e.path.begin(), e.path.end() - 1);
      if (!parent.empty() && (parent[0] == "dataloader" || parent[0] == "model" || parent[0] == "lora")) continue;
      votes[parent]++;
    }
    int best = -1;
    for (const auto& [p, n] : votes)
      if (n > best) best = n, home_ = p;
    for (const auto& a : scan.anchors)
      if (a.kind == "python_call" && !a.path.empty() && kHfCalls.count(a.path[0])) hf_call_lines_.push_back(a.line);
  }

  // Why the last set() placed nothing although the file has a place (empty: it has none).
  const std::string& refusal() const { return why_; }

  bool set(const std::string& field, const Json& v) {
    why_.clear();
    ConfigFormat fmt = cfg_.format;
    if (field == "precision") return set_precision(v);
    if (field.rfind("env.", 0) == 0) return set_env(field.substr(4), v);
    auto it = cfg_.origins.find(field);
    // python: fused AdamW is a kwarg on the optimizer call
    if (fmt == ConfigFormat::Python && field == "optimizer" && it != cfg_.origins.end() && it->second.context != "" &&
        !kHfCalls.count(it->second.context)) {
      std::string s = v.is_string() ? v.get<std::string>() : "";
      bool fused = s.find("fused") != std::string::npos;
      auto fo = cfg_.origins.find("optimizer.fused");
      if (fo != cfg_.origins.end() && fo->second.begin >= 0)
        return replace(fo->second, fused ? Json(true) : Json(false));
      if (!fused) return false;
      for (const auto& a : scan_.anchors)
        if (a.kind == "python_call" && a.line <= it->second.line + 1 && !a.path.empty() &&
            a.path[0] == it->second.context)
          return insert_kwarg(a, "fused", true);
      return false;
    }
    if (it != cfg_.origins.end() && it->second.begin >= 0 && it->second.end > it->second.begin) {
      if (fmt == ConfigFormat::Python && field == "torch_compile" && it->second.context == "compile")
        return v == Json(true);
      if (fmt == ConfigFormat::Python && field == "gradient_checkpointing" &&
          it->second.context == "gradient_checkpointing_enable")
        return v == Json(true);
      Json out = v;
      if (fmt == ConfigFormat::Python && field == "tf32" && it->second.context == "set_float32_matmul_precision")
        out = v == Json(true) ? Json("high") : Json("highest");
      else if (fmt != ConfigFormat::Env)
        out = hf_value(kn_.attention, field, v);
      return replace(it->second, out);
    }
    return add(field, v);
  }

  std::string apply() const { return apply_text_edits(text_, edits_); }

 private:
  bool refuse(std::string why) {
    why_ = std::move(why);
    return false;
  }

  // Two TrainingArguments-like calls (a debug one and the real one): which trains is the script's
  // logic, so goblin edits neither.
  bool hf_calls_ambiguous() const { return cfg_.format == ConfigFormat::Python && hf_call_lines_.size() > 1; }
  std::string hf_calls_refusal() const {
    std::string lines;
    for (int64_t l : hf_call_lines_) fmt::format_to(std::back_inserter(lines), "{}{}", lines.empty() ? "" : ", ", l);
    return "lines " + lines + " each build training arguments; goblin cannot tell which one trains, so it edits none";
  }

  bool replace(const Origin& o, const Json& v) {
    if (!o.expression.empty())
      return refuse(fmt::format(
          "line {} sets {} = `{}`, an expression goblin does not evaluate; it does not overwrite it with a literal",
          o.line, o.key, o.expression));
    if (hf_calls_ambiguous() && kHfCalls.count(o.context)) return refuse(hf_calls_refusal());
    const std::string rendered = render(v, cfg_.format);
    edits_.push_back({o.begin, o.end, rendered, seq_++});
    flag_comment(o, rendered);
    return true;
  }

  // A comment on the line of a value goblin replaced was written for the old value
  // (`optim: adamw_torch_fused  # unfused AdamW`, issue #34): goblin cannot tell whether it still
  // holds, so it says so at the comment's end, where the diff shows it, rather than leave a
  // statement its own change may have made false. YAML, Python and env files (JSON has no
  // comments); a `#` inside quotes is not a comment.
  void flag_comment(const Origin& o, const std::string& rendered) {
    if (cfg_.format == ConfigFormat::Json || o.end < 0 || o.end > static_cast<int64_t>(text_.size())) return;
    const std::string old = text_.substr(o.begin, o.end - o.begin);
    if (old == rendered) return;
    size_t eol = text_.find('\n', o.end);
    if (eol == std::string::npos) eol = text_.size();
    size_t end = eol;
    if (end > static_cast<size_t>(o.end) && text_[end - 1] == '\r') --end;
    char quote = 0;
    for (size_t i = o.end; i < end; ++i) {
      const char c = text_[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#') {
        insert(static_cast<int64_t>(end), fmt::format(" (goblin changed this value from {}: check this comment)", old));
        return;
      }
    }
  }
  void insert(int64_t at, std::string t) { edits_.push_back({at, at, std::move(t), seq_++}); }

  // Keyword arguments go last (a keyword before a positional argument is a SyntaxError).
  bool insert_kwarg(const SourceAnchor& a, const std::string& key, const Json& v) {
    if (!a.kwargs_unpack.empty())
      return refuse(
          fmt::format("line {}: {}(...) also takes {}, which may already set {} (Python would raise 'got "
                      "multiple values for keyword argument')",
                      a.line, a.path[0], a.kwargs_unpack, key));
    if (hf_calls_ambiguous() && kHfCalls.count(a.path[0])) return refuse(hf_calls_refusal());
    std::string t = key + "=" + render(v, ConfigFormat::Python);
    int64_t close = a.stmt_end - 1;
    if (a.empty) {
      insert(close, t);
      return true;
    }
    int64_t k = close - 1;
    while (k > 0 && std::isspace(static_cast<unsigned char>(text_[k]))) --k;
    insert(close, text_[k] == ',' ? t + ", " : ", " + t);
    return true;
  }

  // A new top-level python statement after the imports, on a line of its own. Statements added
  // at one place keep the order of the calls (an import before the line that needs it).
  void python_statement(const std::string& stmt) {
    const int64_t at = scan_.after_imports;
    const bool line_start = at == 0 || text_[at - 1] == '\n';
    insert(at, line_start ? stmt + "\n" : "\n" + stmt);
  }

  // Where a new top-level YAML line goes: the end of the document that was parsed (the first of
  // several), after a newline.
  void yaml_append_top(const std::string& lines) {
    const SourceAnchor* root = find_anchor(scan_, "yaml_block", {});
    const int64_t at = root ? root->insert_at : static_cast<int64_t>(text_.size());
    std::string pre = (at > 0 && text_[at - 1] != '\n') ? "\n" : "";
    insert(at, pre + lines);
  }

  bool yaml_add(const std::vector<std::string>& block, const std::string& key, const Json& v) {
    const SourceAnchor* a = find_anchor(scan_, "yaml_block", block);
    if (!a || a->flow) a = find_anchor(scan_, "yaml_block", {});
    std::string line = std::string(a ? a->indent : 0, ' ') + key + ": " + render(v, ConfigFormat::Yaml);
    if (!a || a->path.empty()) {
      yaml_append_top(line + "\n");
    } else {
      insert(a->insert_at, "\n" + line);
    }
    return true;
  }

  bool json_add(const std::vector<std::string>& block, const std::string& key, const Json& v) {
    const SourceAnchor* a = find_anchor(scan_, "json_object", block);
    if (!a) a = find_anchor(scan_, "json_object", {});
    if (!a) return false;
    insert(a->insert_at,
           "\n" + std::string(a->indent, ' ') + Json(key).dump() + ": " + v.dump() + (a->empty ? "" : ","));
    return true;
  }

  bool add(const std::string& field, const Json& v0) {
    Json v = hf_value(kn_.attention, field, v0);
    switch (cfg_.format) {
      case ConfigFormat::Yaml:
      case ConfigFormat::Json: {
        std::vector<std::string> block = home_;
        std::string key = hf_key(field);
        for (const char* b : {"dataloader", "model", "lora"}) {
          bool belongs = (std::string(b) == "dataloader" && field.rfind("dataloader_", 0) == 0) ||
                         (std::string(b) == "model" && (field == "attention_impl" || field == "model_name")) ||
                         (std::string(b) == "lora" && field == "lora_rank");
          if (belongs && find_anchor(scan_, cfg_.format == ConfigFormat::Yaml ? "yaml_block" : "json_object", {b})) {
            block = {b};
            key = block_key(field, b);
          }
        }
        return cfg_.format == ConfigFormat::Yaml ? yaml_add(block, key, v) : json_add(block, key, v);
      }
      case ConfigFormat::Python: {
        const SourceAnchor* hf = find_call(scan_, kHfCalls);
        if (field.rfind("dataloader_", 0) == 0) {
          if (const SourceAnchor* dl = find_call(scan_, {"DataLoader"})) {
            std::string k = block_key(field, "dataloader");
            return insert_kwarg(*dl, k, v);
          }
        }
        if (field == "attention_impl") {
          if (const SourceAnchor* fp = find_call(scan_, {"from_pretrained"}))
            return insert_kwarg(*fp, "attn_implementation", v);
        }
        // cuDNN's autotuner is a process-wide switch: a statement after the imports. channels_last
        // converts the model and its inputs, whose variables are the script's own: by hand.
        if (field == "cudnn_benchmark") {
          if (!scan_.imports_torch && !torch_added_) {
            python_statement("import torch");
            torch_added_ = true;
          }
          python_statement(std::string("torch.backends.cudnn.benchmark = ") + (v == Json(true) ? "True" : "False"));
          return true;
        }
        if (field == "channels_last") return false;
        if (hf) return insert_kwarg(*hf, hf_key(field), v);
        if (field == "torch_compile" && v == Json(true)) {
          for (const auto& a : scan_.anchors)
            if (a.kind == "python_call" && a.path[0] == "from_pretrained" && !a.target.empty()) {
              insert(a.stmt_end, "\n" + a.target + " = torch.compile(" + a.target + ")");
              return true;
            }
          return false;
        }
        if (field == "tf32") {
          if (!scan_.imports_torch && !torch_added_) {
            python_statement("import torch");
            torch_added_ = true;
          }
          python_statement(std::string("torch.backends.cuda.matmul.allow_tf32 = ") +
                           (v == Json(true) ? "True" : "False"));
          return true;
        }
        return false;
      }
      case ConfigFormat::Env:
        return false;
    }
    return false;
  }

  bool set_env(const std::string& name, const Json& v) {
    std::string val = v.is_string() ? v.get<std::string>() : v.dump();
    auto it = cfg_.origins.find("env." + name);
    if (it != cfg_.origins.end() && it->second.begin >= 0) {
      Json out = val;
      if (cfg_.format == ConfigFormat::Env) {
        std::string raw = text_.substr(it->second.begin, it->second.end - it->second.begin);
        bool quoted = !raw.empty() && (raw[0] == '"' || raw[0] == '\'');
        edits_.push_back({it->second.begin, it->second.end, quoted ? Json(val).dump() : val, seq_++});
        return true;
      }
      return replace(it->second, out);
    }
    switch (cfg_.format) {
      case ConfigFormat::Yaml: {
        for (const char* b : {"env", "environment", "env_vars"})
          if (const SourceAnchor* a = find_anchor(scan_, "yaml_block", {b}); a && !a->flow)
            return yaml_add({b}, name, Json(val));
        yaml_append_top("env:\n  " + name + ": " + Json(val).dump() + "\n");
        return true;
      }
      case ConfigFormat::Json: {
        for (const char* b : {"env", "environment", "env_vars"})
          if (find_anchor(scan_, "json_object", {b})) return json_add({b}, name, Json(val));
        const SourceAnchor* root = find_anchor(scan_, "json_object", {});
        if (!root) return false;
        insert(root->insert_at, "\n" + std::string(root->indent, ' ') + "\"env\": {" + Json(name).dump() + ": " +
                                    Json(val).dump() + "}" + (root->empty ? "" : ","));
        return true;
      }
      case ConfigFormat::Python:
        if (!scan_.imports_os && !os_added_) {
          python_statement("import os");
          os_added_ = true;
        }
        python_statement("os.environ[" + Json(name).dump() + "] = " + Json(val).dump());
        return true;
      case ConfigFormat::Env: {
        bool exp = text_.find("export ") != std::string::npos;
        std::string pre = (!text_.empty() && text_.back() != '\n') ? "\n" : "";
        insert(static_cast<int64_t>(text_.size()), pre + (exp ? "export " : "") + name + "=" + val + "\n");
        return true;
      }
    }
    return false;
  }

  bool set_precision(const Json& v) {
    std::string p = v.is_string() ? v.get<std::string>() : "";
    auto po = cfg_.origins.find("precision");
    if (po != cfg_.origins.end() && po->second.begin >= 0) {
      if (cfg_.format == ConfigFormat::Python) {
        std::string t = p == "bf16"   ? "torch.bfloat16"
                        : p == "fp16" ? "torch.float16"
                        : p == "fp32" ? "torch.float32"
                                      : "";
        if (t.empty()) return false;
        edits_.push_back({po->second.begin, po->second.end, t, seq_++});
        return true;
      }
      return replace(po->second, Json(p));
    }
    if (p == "fp8") return false;
    bool want_bf16 = p == "bf16", want_fp16 = p == "fp16";
    if (cfg_.format == ConfigFormat::Env) return false;
    if (cfg_.format == ConfigFormat::Python && !find_call(scan_, kHfCalls)) return false;
    auto set_flag = [&](const std::string& key, bool val, bool add_if_missing) {
      auto o = cfg_.origins.find("precision." + key);
      if (o != cfg_.origins.end() && o->second.begin >= 0) return replace(o->second, Json(val));
      if (!add_if_missing) return true;
      if (cfg_.format == ConfigFormat::Python) return insert_kwarg(*find_call(scan_, kHfCalls), key, val);
      return add_raw(key, Json(val));
    };
    bool ok = set_flag("bf16", want_bf16, want_bf16);
    ok = set_flag("fp16", want_fp16, want_fp16) && ok;
    return ok;
  }

  bool add_raw(const std::string& key, const Json& v) {
    return cfg_.format == ConfigFormat::Yaml ? yaml_add(home_, key, v) : json_add(home_, key, v);
  }

  const std::string& text_;
  const WorkloadConfig& cfg_;
  const SourceScan& scan_;
  const ConfigKnowledge& kn_;
  std::vector<Edit> edits_;
  std::vector<std::string> home_;
  std::vector<int64_t> hf_call_lines_;
  std::string why_;
  int seq_ = 0;
  bool os_added_ = false;
  bool torch_added_ = false;
};

}  // namespace

Result<std::string> edit_config_text(const std::string& text, const WorkloadConfig& cfg,
                                     const std::map<std::string, Json>& edits, std::vector<std::string>* unplaced,
                                     std::map<std::string, std::string>* refused) {
  // A byte-order mark: edit the text after it with offsets taken from there (parse_config_text
  // gives them in the file's bytes), and give the file its mark back.
  if (const size_t bom = utf8_bom_size(text)) {
    WorkloadConfig shifted = cfg;
    for (auto& [k, o] : shifted.origins) {
      if (o.begin >= 0) o.begin -= static_cast<int64_t>(bom);
      if (o.end >= 0) o.end -= static_cast<int64_t>(bom);
    }
    ASSIGN_OR_RETURN(auto body, edit_config_text(text.substr(bom), shifted, edits, unplaced, refused));
    return text.substr(0, bom) + body;
  }
  ASSIGN_OR_RETURN(auto kn, config_knowledge());
  ASSIGN_OR_RETURN(auto scan, scan_source(text, cfg.format, cfg.source_file));
  if (cfg.format == kCommandFormat) return edit_command_text(text, cfg, scan, *kn, edits, unplaced, refused);
  Editor ed(text, cfg, scan, *kn);
  for (const auto& [f, v] : edits) {
    if (ed.set(f, v)) continue;
    if (unplaced) unplaced->push_back(f);
    if (refused && !ed.refusal().empty()) (*refused)[f] = ed.refusal();
  }
  return ed.apply();
}

}  // namespace goblin::config
