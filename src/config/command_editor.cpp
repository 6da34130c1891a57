// The command-line editor: edit_config_text for a launch command (scan_command.cpp). A flag on the
// line has its value word replaced (its quoting kept), a boolean switch is added or removed, a
// missing flag is added at the command's end (on a continuation line of its own when the command
// already spans lines), an environment variable goes before the program as `NAME=value`. A flag is
// only added where the launched script takes it: a script whose argparse declarations goblin read
// gets only the flags it declares, an HfArgumentParser script (or one goblin could not read) the
// TrainingArguments names.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "config/config_source.h"
#include "config/knowledge.h"
#include "config/shell_words.h"
#include "config/text_edits.h"

namespace goblin::config {

namespace {

// The TrainingArguments flag an HfArgumentParser script takes for a field
// (https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments).
std::string hf_flag(const std::string& field) {
  static const std::map<std::string, std::string> k = {
      {"batch_size", "per_device_train_batch_size"},
      {"grad_accum_steps", "gradient_accumulation_steps"},
      {"optimizer", "optim"},
      {"gradient_checkpointing", "gradient_checkpointing"},
      {"dataloader_workers", "dataloader_num_workers"},
      {"dataloader_pin_memory", "dataloader_pin_memory"},
      {"dataloader_prefetch_factor", "dataloader_prefetch_factor"},
      {"dataloader_persistent_workers", "dataloader_persistent_workers"},
      {"torch_compile", "torch_compile"},
      {"tf32", "tf32"},
      {"lr", "learning_rate"},
      {"warmup_steps", "warmup_steps"},
      {"bf16", "bf16"},
      {"fp16", "fp16"},
      {"log_interval", "logging_steps"},
  };
  auto it = k.find(field);
  return it == k.end() ? "" : it->second;
}

using Edit = TextEdit;

class CommandEditor {
 public:
  CommandEditor(const std::string& text, const SourceScan& scan, const ConfigKnowledge& kn)
      : text_(text), scan_(scan), kn_(kn), l_(scan.launch) {}

  const std::string& refusal() const { return why_; }

  bool set(const std::string& field, const Json& v) {
    why_.clear();
    if (field.rfind("env.", 0) == 0) return set_env(field.substr(4), v);
    if (field == "precision") return set_precision(v);
    Json out = v;
    if (field == "attention_impl" && v.is_string()) out = kn_.attention.hf_name(v.get<std::string>());
    return set_field(field, field, out);
  }

  std::string apply() const { return apply_text_edits(text_, edits_); }

 private:
  bool refuse(std::string why) {
    why_ = std::move(why);
    return false;
  }

  // The entries of the line (last one wins, as argparse takes the last) and the argparse default.
  const SourceEntry* on_line(const std::string& field) const {
    const SourceEntry* found = nullptr;
    for (const auto& e : scan_.entries)
      if (e.file.empty() && e.flag.begin >= 0 && kn_.keys.field_for(e.path, "") == field) found = &e;
    return found;
  }
  // The script's argparse declaration for a field (its flag name and default).
  const ArgparseArg* declared(const std::string& field) const {
    for (const auto& [key, a] : l_.args)
      if (kn_.keys.field_for({key}, "") == field) return &a;
    return nullptr;
  }
  const ArgparseArg* decl_of(const SourceEntry& e) const {
    auto it = l_.args.find(e.path.empty() ? "" : e.path[0]);
    return it == l_.args.end() ? nullptr : &it->second;
  }

  static std::string bool_text(bool b, const std::string& like) {
    const bool lower = !like.empty() && std::islower(static_cast<unsigned char>(like[0]));
    return b ? (lower ? "true" : "True") : (lower ? "false" : "False");
  }
  std::string render(const Json& v, const std::string& old_raw) const {
    if (v.is_boolean())
      return bool_text(v.get<bool>(),
                       old_raw.empty() || old_raw[0] == '\'' || old_raw[0] == '"' ? std::string("T") : old_raw);
    const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    if (!old_raw.empty() && old_raw[0] == '"' && s.find_first_of("\"$`\\") == std::string::npos) return "\"" + s + "\"";
    if (!old_raw.empty() && old_raw[0] == '\'' && s.find('\'') == std::string::npos) return "'" + s + "'";
    return shell_quote(s);
  }

  void add_words(const std::string& words) {
    if (l_.continued)
      edits_.push_back({l_.end, l_.end, " \\\n" + l_.continuation_indent + words, seq_++});
    else
      edits_.push_back({l_.end, l_.end, " " + words, seq_++});
  }

  // Removes a flag word (and the blank before it).
  void remove_flag(const SourceEntry& e) {
    int64_t b = e.flag.begin;
    while (b > 0 && (text_[b - 1] == ' ' || text_[b - 1] == '\t')) --b;
    edits_.push_back({b, e.flag.end, "", seq_++});
  }

  bool set_bool_on_line(const SourceEntry& e, bool want) {
    if (!e.literal) return refuse_expression(e);
    if (e.value == Json(want)) return true;
    if (e.flag.bare) {
      // The switch goes: without it the default runs (False for HF's and store_true flags, True
      // for `--no_<field>` and store_false ones), unless the script declares another default.
      const ArgparseArg* d = decl_of(e);
      if (d && d->default_value.is_boolean() && d->default_value.get<bool>() != want)
        return refuse(fmt::format("line {}: removing {} would leave {}'s default {}, not {}", e.line, e.flag.spelled,
                                  l_.script_path, d->default_value.dump(), want));
      remove_flag(e);
      return true;
    }
    if (e.flag.equals) {
      edits_.push_back({e.flag.begin, e.flag.end, e.flag.spelled + "=" + bool_text(want, e.raw), seq_++});
      return true;
    }
    edits_.push_back({e.begin, e.end, bool_text(want, e.raw), seq_++});
    return true;
  }

  bool refuse_expression(const SourceEntry& e) {
    return refuse(fmt::format("line {} sets {} to `{}`, which the shell expands; goblin does not overwrite it", e.line,
                              e.flag.spelled, e.raw));
  }

  // A flag that is not on the line: the declared one, else (an HF script, or one goblin could not
  // read) the TrainingArguments name.
  bool add_flag(const std::string& field, const std::string& hf_field, const Json& v) {
    std::string spelled;
    const ArgparseArg* d = declared(field);
    if (d) {
      spelled = d->spelled;
      if (d->literal && d->default_value == v) return true;  // the script's default already is the value
    } else if (l_.style == "argparse") {
      return refuse(
          fmt::format("{} declares no flag for {}; goblin does not add one it would reject", l_.script_path, field));
    } else if (std::string hf = hf_flag(hf_field); !hf.empty() && l_.style == "hf") {
      spelled = "--" + hf;
    } else if (!hf.empty()) {
      return refuse(fmt::format("line {}: goblin could not read which flags {} takes, so it adds none", l_.line,
                                l_.script.empty() ? std::string("the launched program") : l_.script));
    } else {
      return false;
    }
    if (v.is_boolean()) {
      if (d && d->action == "store_true") {
        if (v.get<bool>()) add_words(spelled);
        return v.get<bool>();
      }
      if (d && d->action == "store_false") {
        if (!v.get<bool>()) add_words(spelled);
        return !v.get<bool>();
      }
      if (!d && v.get<bool>()) {  // HfArgumentParser: a bare boolean flag is True
        add_words(spelled);
        return true;
      }
    }
    add_words(spelled + " " + render(v, ""));
    return true;
  }

  // The DeepSpeed JSON's entry for a field the line does not give (`--deepspeed ds.json`).
  const SourceEntry* in_deepspeed(const std::string& field) const {
    if (l_.deepspeed_json.empty()) return nullptr;
    for (const auto& e : scan_.entries)
      if (e.file == l_.deepspeed_json && kn_.keys.field_for(e.path, e.context) == field) return &e;
    return nullptr;
  }
  // A flag on the line for a field the DeepSpeed JSON sets would not win: HF's DeepSpeed
  // integration refuses a TrainingArguments value that differs from the JSON's.
  bool refuse_deepspeed(const SourceEntry& e) {
    return refuse(fmt::format("{} sets {} on line {} (the launch line's --deepspeed config): edit it there",
                              l_.deepspeed_json, join_path(e.path), e.line));
  }
  static std::string join_path(const std::vector<std::string>& p) {
    std::string out;
    for (const auto& k : p) out += (out.empty() ? "" : ".") + k;
    return out;
  }

  bool set_field(const std::string& field, const std::string& hf_field, const Json& v) {
    if (const SourceEntry* ds = on_line(field) ? nullptr : in_deepspeed(field)) return refuse_deepspeed(*ds);
    if (const SourceEntry* e = on_line(field)) {
      if (!e->literal) return refuse_expression(*e);
      if (v.is_boolean()) return set_bool_on_line(*e, v.get<bool>());
      if (e->flag.bare) {
        edits_.push_back({e->flag.end, e->flag.end, " " + render(v, ""), seq_++});
        return true;
      }
      if (e->flag.equals) {
        edits_.push_back({e->flag.begin, e->flag.end, e->flag.spelled + "=" + render(v, ""), seq_++});
        return true;
      }
      edits_.push_back({e->begin, e->end, render(v, e->raw), seq_++});
      return true;
    }
    return add_flag(field, hf_field, v);
  }

  bool set_precision(const Json& v) {
    const std::string p = v.is_string() ? v.get<std::string>() : "";
    if (on_line("precision") || declared("precision")) return set_field("precision", "precision", Json(p));
    if (p != "bf16" && p != "fp16" && p != "fp32") return false;
    bool ok = true;
    for (const char* key : {"bf16", "fp16"}) {
      const std::string f = std::string("precision.") + key;
      if (const SourceEntry* ds = on_line(f) ? nullptr : in_deepspeed(f)) return refuse_deepspeed(*ds);
    }
    for (const char* key : {"bf16", "fp16"}) {
      const bool want = p == key;
      const std::string f = std::string("precision.") + key;
      if (const SourceEntry* e = on_line(f)) {
        ok = set_bool_on_line(*e, want) && ok;
      } else if (want || declared(f)) {
        ok = add_flag(f, key, Json(want)) && ok;
      }
    }
    return ok;
  }

  bool set_env(const std::string& name, const Json& v) {
    const std::string val = v.is_string() ? v.get<std::string>() : v.dump();
    const SourceEntry* found = nullptr;
    for (const auto& e : scan_.entries)
      if (e.path.size() == 2 && e.path[0] == "env" && e.path[1] == name) found = &e;
    if (found) {
      edits_.push_back({found->begin, found->end, render(Json(val), found->raw), seq_++});
      return true;
    }
    edits_.push_back({l_.program_begin, l_.program_begin, name + "=" + shell_quote(val) + " ", seq_++});
    return true;
  }

  const std::string& text_;
  const SourceScan& scan_;
  const ConfigKnowledge& kn_;
  const CommandLaunch& l_;
  std::vector<Edit> edits_;
  std::string why_;
  int seq_ = 0;
};

}  // namespace

Result<std::string> edit_command_text(const std::string& text, const WorkloadConfig&, const SourceScan& scan,
                                      const ConfigKnowledge& kn, const std::map<std::string, Json>& edits,
                                      std::vector<std::string>* unplaced, std::map<std::string, std::string>* refused) {
  CommandEditor ed(text, scan, kn);
  for (const auto& [f, v] : edits) {
    if (ed.set(f, v)) continue;
    if (unplaced) unplaced->push_back(f);
    if (refused && !ed.refusal().empty()) (*refused)[f] = ed.refusal();
  }
  return ed.apply();
}

}  // namespace goblin::config
