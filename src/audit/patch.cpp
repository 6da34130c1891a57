#include "audit/patch.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "audit/config_source.h"
#include "core/io.h"

namespace goblin::audit {

// ---- unified diff -----------------------------------------------------------------------------

static std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> v;
  size_t b = 0;
  while (b < s.size()) {
    size_t e = s.find('\n', b);
    if (e == std::string::npos) {
      v.push_back(s.substr(b));
      break;
    }
    v.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return v;
}

std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_name,
                         const std::string& b_name, int context) {
  if (a == b) return "";
  auto A = split_lines(a), B = split_lines(b);
  // Trim common prefix/suffix, LCS on the middle.
  size_t pre = 0;
  while (pre < A.size() && pre < B.size() && A[pre] == B[pre]) ++pre;
  size_t suf = 0;
  while (suf < A.size() - pre && suf < B.size() - pre && A[A.size() - 1 - suf] == B[B.size() - 1 - suf]) ++suf;
  size_t n = A.size() - pre - suf, m = B.size() - pre - suf;
  std::vector<std::vector<uint32_t>> L(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      L[i][j] = A[pre + i] == B[pre + j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
  // ops: ' ' keep, '-' delete, '+' insert, with indices into A / B
  struct Op {
    char k;
    size_t ai, bi;
  };
  std::vector<Op> ops;
  for (size_t i = 0; i < pre; ++i) ops.push_back({' ', i, i});
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && A[pre + i] == B[pre + j]) {
      ops.push_back({' ', pre + i, pre + j});
      ++i, ++j;
    } else if (j < m && (i == n || L[i][j + 1] > L[i + 1][j])) {
      ops.push_back({'+', pre + i, pre + j});
      ++j;
    } else {
      ops.push_back({'-', pre + i, pre + j});
      ++i;
    }
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({' ', A.size() - suf + k, B.size() - suf + k});
  std::ostringstream os;
  os << "--- " << a_name << "\n+++ " << b_name << "\n";
  size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].k == ' ') ++k;
    if (k >= ops.size()) break;
    size_t start = k >= static_cast<size_t>(context) ? k - context : 0;
    size_t end = k;
    // extend the hunk while changes are within 2*context of each other
    size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].k != ' ') last_change = end;
      if (end - last_change > static_cast<size_t>(2 * context)) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + context + 1);
    size_t a0 = ops[start].ai, b0 = ops[start].bi, ac = 0, bc = 0;
    for (size_t x = start; x < end; ++x) {
      if (ops[x].k != '+') ++ac;
      if (ops[x].k != '-') ++bc;
    }
    os << "@@ -" << (ac ? a0 + 1 : a0) << "," << ac << " +" << (bc ? b0 + 1 : b0) << "," << bc << " @@\n";
    for (size_t x = start; x < end; ++x) {
      const std::string& line = ops[x].k == '+' ? B[ops[x].bi] : A[ops[x].ai];
      os << ops[x].k << line << "\n";
    }
    k = end;
  }
  return os.str();
}

// ---- editing the user's file ------------------------------------------------------------------

namespace {

struct Edit {
  int64_t begin, end;  // replace [begin, end) (insertion when equal)
  std::string text;
  int seq;
};

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

Json hf_value(const std::string& f, const Json& v) {
  if (f == "attention_impl" && v.is_string()) {
    std::string s = v;
    if (s == "flash" || s == "flash_rocm") return "flash_attention_2";
  }
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
  Editor(const std::string& text, const WorkloadConfig& cfg, const SourceScan& scan)
      : text_(text), cfg_(cfg), scan_(scan) {
    // The block where most mapped keys live: additions go there (yaml/json).
    std::map<std::vector<std::string>, int> votes;
    for (const auto& e : scan.entries) {
      std::string f = field_for_key(e.path, e.context);
      if (f.empty() || f.rfind("env.", 0) == 0 || e.path.size() < 1) continue;
      std::vector<std::string> parent(e.path.begin(), e.path.end() - 1);
      if (!parent.empty() && (parent[0] == "dataloader" || parent[0] == "model" || parent[0] == "lora")) continue;
      votes[parent]++;
    }
    int best = -1;
    for (const auto& [p, n] : votes)
      if (n > best) best = n, home_ = p;
  }

  bool set(const std::string& field, const Json& v) {
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
        out = hf_value(field, v);
      return replace(it->second, out);
    }
    return add(field, v);
  }

  std::string apply() {
    std::string out = text_;
    std::sort(edits_.begin(), edits_.end(),
              [](const Edit& a, const Edit& b) { return a.begin != b.begin ? a.begin > b.begin : a.seq > b.seq; });
    for (const auto& e : edits_) out.replace(e.begin, e.end - e.begin, e.text);
    return out;
  }

 private:
  bool replace(const Origin& o, const Json& v) {
    edits_.push_back({o.begin, o.end, render(v, cfg_.format), seq_++});
    return true;
  }
  void insert(int64_t at, std::string t) { edits_.push_back({at, at, std::move(t), seq_++}); }

  // Keyword arguments go last (a keyword before a positional argument is a SyntaxError).
  bool insert_kwarg(const SourceAnchor& a, const std::string& key, const Json& v) {
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

  // A new top-level python statement after the imports.
  void python_statement(const std::string& stmt) {
    int64_t at = scan_.after_imports;
    insert(at, at == 0 ? stmt + "\n" : "\n" + stmt);
  }

  bool yaml_add(const std::vector<std::string>& block, const std::string& key, const Json& v) {
    const SourceAnchor* a = find_anchor(scan_, "yaml_block", block);
    if (!a || a->flow) a = find_anchor(scan_, "yaml_block", {});
    std::string line = std::string(a ? a->indent : 0, ' ') + key + ": " + render(v, ConfigFormat::Yaml);
    if (!a || a->path.empty()) {
      std::string pre = (!text_.empty() && text_.back() != '\n') ? "\n" : "";
      insert(static_cast<int64_t>(text_.size()), pre + line + "\n");
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
    Json v = hf_value(field, v0);
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
          python_statement(std::string("torch.backends.cuda.matmul.allow_tf32 = ") +
                           (v == Json(true) ? "True" : "False"));
          if (!scan_.imports_torch) python_statement("import torch");
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
        std::string pre = (!text_.empty() && text_.back() != '\n') ? "\n" : "";
        insert(static_cast<int64_t>(text_.size()), pre + "env:\n  " + name + ": " + Json(val).dump() + "\n");
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
        python_statement("os.environ[" + Json(name).dump() + "] = " + Json(val).dump());
        if (!scan_.imports_os && !os_added_) {
          python_statement("import os");
          os_added_ = true;
        }
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
  std::vector<Edit> edits_;
  std::vector<std::string> home_;
  int seq_ = 0;
  bool os_added_ = false;
};

}  // namespace

Result<std::string> edit_config_text(const std::string& text, const WorkloadConfig& cfg,
                                     const std::map<std::string, Json>& edits, std::vector<std::string>* unplaced) {
  auto scan = scan_source(text, cfg.format, cfg.source_file);
  if (!scan) return scan.error();
  Editor ed(text, cfg, *scan);
  for (const auto& [f, v] : edits)
    if (!ed.set(f, v) && unplaced) unplaced->push_back(f);
  return ed.apply();
}

// ---- the patch ----------------------------------------------------------------------------------

Result<PatchOutcome> make_patch(const std::string& config_path, const PatchOptions& opt, const RuleBase& kb) {
  auto text = read_all(config_path);
  if (!text) return text.error();
  auto parsed = parse_config_text(*text, sniff_config_format(config_path, *text), config_path);
  if (!parsed) return parsed.error();
  const WorkloadConfig& cfg = *parsed;
  Evidence ev = evidence_from_metrics(opt.metrics, opt.vendor);

  std::vector<const Rule*> requested;
  for (const auto& id : opt.rule_ids) {
    if (id == "all") {
      for (const auto& r : kb.rules) requested.push_back(&r);
      continue;
    }
    const Rule* r = kb.find(id);
    if (!r) return make_error(ErrorKind::NotFound, "unknown rule id '" + id + "' (see `goblin kb list`)");
    if (std::find(requested.begin(), requested.end(), r) == requested.end()) requested.push_back(r);
  }
  if (requested.empty())
    return make_error(ErrorKind::Usage, "no rules given: pass --rules ID,... (from `goblin kb query`)");

  Json skipped = Json::array(), findings = Json::array();
  std::vector<RuleEval> fired;
  for (const Rule* r : requested) {
    RuleEval e = evaluate_rule(*r, cfg, ev);
    if (!e.fires) {
      skipped.push_back({{"rule_id", r->id}, {"reason", e.reason}});
      continue;
    }
    if (!r->performance || r->advisory) {
      findings.push_back({{"rule_id", r->id},
                          {"title", r->title},
                          {"category", r->category},
                          {"citation", r->citation},
                          {"advice", r->recovery.basis},
                          {"evidence", e.supporting}});
      if (r->transform.empty()) continue;
    }
    fired.push_back(e);
  }
  // Conflict order (docs/audit.md): rules with more observed evidence first, then priority, then
  // the larger high recovery, then id. The first rule to claim a field wins it.
  std::stable_sort(fired.begin(), fired.end(), [](const RuleEval& a, const RuleEval& b) {
    if (a.evidence_observed != b.evidence_observed) return a.evidence_observed > b.evidence_observed;
    if (a.rule->priority != b.rule->priority) return a.rule->priority > b.rule->priority;
    if (a.rule->recovery.high != b.rule->recovery.high) return a.rule->recovery.high > b.rule->recovery.high;
    return a.rule->id < b.rule->id;
  });
  std::map<std::string, Json> edits;
  std::map<std::string, std::string> owner;
  std::vector<RuleEval> applied;
  int conflicts = 0;
  Json conflict_log = Json::array();
  for (const auto& e : fired) {
    bool any = false;
    std::vector<std::string> lost;
    for (const auto& [f, v] : e.rule->transform) {
      auto it = edits.find(f);
      if (it != edits.end() && it->second != v) {
        lost.push_back(f);
        continue;
      }
      if (it == edits.end() && cfg.get(f) == v) continue;  // already set
      edits[f] = v;
      if (!owner.count(f)) owner[f] = e.rule->id;
      any = true;
    }
    for (const auto& f : lost) {
      ++conflicts;
      conflict_log.push_back({{"field", f}, {"winner", owner[f]}, {"loser", e.rule->id}});
    }
    if (any || e.rule->transform.empty())
      applied.push_back(e);
    else
      skipped.push_back({{"rule_id", e.rule->id},
                         {"reason", lost.empty() ? "transform already in the config"
                                                 : "conflict: field " + lost[0] + " taken by " + owner[lost[0]]}});
  }

  WorkloadConfig nc = cfg;
  for (const auto& [f, v] : edits) {
    Status s = nc.set(f, v);
    if (!s) return s.error();
  }
  std::vector<std::string> unplaced;
  auto patched = edit_config_text(*text, cfg, edits, &unplaced);
  if (!patched) return patched.error();
  // Fields with no place in this file are not claimed: the rule becomes advice.
  for (const auto& f : unplaced) {
    (void)nc.set(f, cfg.get(f));
    edits.erase(f);
  }
  if (!unplaced.empty()) {
    std::vector<RuleEval> kept;
    for (const auto& e : applied) {
      bool placed = e.rule->transform.empty();
      for (const auto& [f, v] : e.rule->transform) placed |= edits.count(f) && owner[f] == e.rule->id;
      if (placed) {
        kept.push_back(e);
      } else {
        skipped.push_back({{"rule_id", e.rule->id},
                           {"reason", std::string("no place for its edit in a ") + config_format_name(cfg.format) +
                                          " file; apply by hand"}});
        findings.push_back({{"rule_id", e.rule->id},
                            {"title", e.rule->title},
                            {"citation", e.rule->citation},
                            {"advice", "apply by hand: " + rule_to_json(*e.rule)["transform"].dump()}});
      }
    }
    applied = kept;
  }

  // Recovery per bucket: fractions combine as 1 - prod(1 - f) (never more than the bucket).
  double T = ev.step_time_s;
  std::map<std::string, std::vector<const RuleEval*>> by_bucket;
  for (const auto& e : applied)
    if (e.rule->performance) by_bucket[e.rule->targets_bucket].push_back(&e);
  double R_low = 0, R_high = 0;
  int overclaimed = 0;
  std::map<std::string, std::pair<double, double>> rule_rec;
  Json bucket_caps = Json::array();
  for (const auto& [b, rs] : by_bucket) {
    auto bit = ev.bucket_s.find(b);
    double sum_high = 0, keep_low = 1, keep_high = 1;
    for (const auto* e : rs) {
      sum_high += e->rule->recovery.high;
      keep_low *= 1 - e->rule->recovery.low;
      keep_high *= 1 - e->rule->recovery.high;
    }
    if (sum_high > 1) ++overclaimed;
    if (bit == ev.bucket_s.end()) {
      bucket_caps.push_back({{"bucket", b}, {"observed", false}});
      for (const auto* e : rs) rule_rec[e->rule->id] = {NAN, NAN};
      continue;
    }
    double B = bit->second, lo = B * (1 - keep_low), hi = B * (1 - keep_high);
    R_low += lo;
    R_high += hi;
    double sl = 0, sh = 0;
    for (const auto* e : rs) sl += e->rule->recovery.low, sh += e->rule->recovery.high;
    for (const auto* e : rs)
      rule_rec[e->rule->id] = {sl > 0 ? lo * e->rule->recovery.low / sl : 0,
                               sh > 0 ? hi * e->rule->recovery.high / sh : 0};
    bucket_caps.push_back({{"bucket", b},
                           {"observed", true},
                           {"bucket_seconds", round_to(B, 6)},
                           {"recovered_low_s", round_to(lo, 6)},
                           {"recovered_high_s", round_to(hi, 6)},
                           {"rules", rs.size()}});
  }

  // Parse the patched file back: it must give the patched config.
  Json roundtrip_mismatch = Json::array();
  auto back = parse_config_text(*patched, cfg.format, config_path);
  if (!back) {
    roundtrip_mismatch.push_back({{"error", back.error().describe()}});
  } else {
    for (const auto& f : config_fields())
      if (back->get(f.name) != nc.get(f.name))
        roundtrip_mismatch.push_back(
            {{"field", f.name}, {"patched_config", nc.get(f.name)}, {"file_parses_to", back->get(f.name)}});
    for (const auto& [k, v] : edits)
      if (k.rfind("env.", 0) == 0 && back->get(k) != nc.get(k))
        roundtrip_mismatch.push_back({{"field", k}, {"patched_config", nc.get(k)}, {"file_parses_to", back->get(k)}});
  }

  // Confidence = evidence_coverage × rule_consistency (docs/audit.md).
  int ev_total = 0, ev_obs = 0, n_perf = 0;
  for (const auto& e : applied)
    if (e.rule->performance) ev_total += e.evidence_total, ev_obs += e.evidence_observed, ++n_perf;
  double coverage = ev_total > 0 ? static_cast<double>(ev_obs) / ev_total : 0.0;
  double consistency =
      n_perf > 0
          ? std::max(0.0, 1.0 - static_cast<double>(conflicts + overclaimed) / static_cast<double>(n_perf + conflicts))
          : 1.0;

  Json res;
  res["source_file"] = config_path;
  res["format"] = config_format_name(cfg.format);
  res["new_config"] = config_to_json(nc, false);
  res["edits"] = Json::object();
  for (const auto& [f, v] : edits) res["edits"][f] = {{"from", cfg.get(f)}, {"to", v}, {"rule_id", owner[f]}};
  std::vector<Redaction> red;
  std::string diff = unified_diff(*text, *patched, "a/" + config_path, "b/" + config_path);
  res["diff"] = redact_secret_assignments(redact(diff, -1, &red));
  res["patched_file"] = redact_secret_assignments(redact(*patched, -1, nullptr));
  res["rationale"] = Json::array();
  for (const auto& e : applied) {
    auto rr = rule_rec.count(e.rule->id) ? rule_rec[e.rule->id] : std::pair<double, double>{NAN, NAN};
    Json est =
        std::isnan(rr.second) ? Json() : Json({{"low", round_to(rr.first, 6)}, {"high", round_to(rr.second, 6)}});
    res["rationale"].push_back(
        {{"rule_id", e.rule->id},
         {"title", e.rule->title},
         {"citation", e.rule->citation},
         {"targets_bucket", e.rule->targets_bucket},
         {"estimated_recovery_seconds", est},
         {"expected_recovery_fraction", {{"low", e.rule->recovery.low}, {"high", e.rule->recovery.high}}},
         {"basis", e.rule->recovery.basis},
         {"evidence", e.supporting},
         {"unverified", e.unverified},
         {"transform", rule_to_json(*e.rule)["transform"]}});
  }
  res["skipped"] = skipped;
  res["findings"] = findings;
  res["conflicts"] = conflict_log;
  res["bucket_caps"] = bucket_caps;
  res["step_time_s"] = T > 0 ? Json(round_to(T, 6)) : Json();
  bool predictable = T > 0 && !by_bucket.empty() && R_high > 0;
  res["expected_speedup_low"] = predictable ? Json(round_to(T / (T - std::min(R_low, T * 0.999)), 3)) : Json();
  res["expected_speedup_high"] = predictable ? Json(round_to(T / (T - std::min(R_high, T * 0.999)), 3)) : Json();
  if (!predictable)
    res["speedup_note"] = applied.empty()
                              ? "no rule applied: the config changes nothing, so there is nothing to predict"
                          : T > 0 ? "the targeted waste buckets were not observed in the metrics"
                                  : "no metrics given (--metrics): speedup cannot be predicted without a waste budget";
  res["evidence_coverage"] = round_to(coverage, 3);
  res["rule_consistency"] = round_to(consistency, 3);
  res["confidence"] = round_to(coverage * consistency, 3);
  res["unplaced_fields"] = unplaced;
  res["roundtrip_ok"] = roundtrip_mismatch.empty();
  res["roundtrip_mismatch"] = roundtrip_mismatch;
  res["evidence"] = {{"have_metrics", ev.have_metrics}, {"vendor", ev.vendor}, {"arch", ev.arch}};
  PatchOutcome out;
  out.result = std::move(res);
  out.patched_text = *patched;
  out.new_config = nc;
  return out;
}

}  // namespace goblin::audit
