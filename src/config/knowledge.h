// The config module's knowledge: which WorkloadConfig field a source key maps to
// (data/config_keys.yaml) and the attention implementations (data/attention.yaml). Parsed once
// per process and data directory by config_knowledge() and shared read-only (DEVELOPING.md §
// Knowledge is data); the audit's knowledge context holds the same parse (audit/knowledge.h).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::config {

// data/config_keys.yaml: the file's header describes the order of the checks field_for runs.
struct ConfigKeys {
  struct Call {
    std::map<std::string, std::string> keys;  // lower-cased argument → field
    std::string other;                        // any other argument ("" = nothing)
  };
  struct Rule {
    std::string field;
    std::vector<std::string> keys;  // lower-cased
    std::vector<std::string> parent_in, parent_not;
    size_t depth = 0;  // 0: any
  };
  std::vector<std::string> env_variables;   // a variable directly under one of these roots: env.NAME
  std::vector<std::string> env_hide_below;  // anything deeper under these: nothing
  std::map<std::string, Call> calls;        // call name as written → its arguments
  std::vector<Rule> rules;                  // in the file's order; the first that matches wins

  // Which WorkloadConfig field a source key maps to ("" = extras): `path` is the key path
  // (python: {kwarg}, {"__arg0"}, {"__name"}, {"__call"}; env: {"env", NAME}), `context` the call
  // the key is an argument of (config_source.h's SourceEntry::context).
  std::string field_for(const std::vector<std::string>& path, const std::string& context) const;

  // Malformed (origin, line) on a structural problem: a section of the wrong shape, a rule
  // without field or keys, a key or parent that is not lower-case.
  static Result<ConfigKeys> parse(const std::string& yaml_text, const std::string& origin);
};

// data/attention.yaml: the attention implementations goblin names.
struct AttentionImpls {
  struct Impl {
    std::string name;
    bool fused = false;                // one fused attention kernel (sdpa, flash)
    std::string hf_name;               // the attn_implementation a patch writes ("" = name)
    std::vector<std::string> aliases;  // lower-cased spellings
  };
  std::vector<Impl> impls;
  std::string unknown = "unknown";  // the name of a spelling listed nowhere

  // The name of a config's spelling (matched lower-cased), `unknown` when none lists it.
  std::string normalise(const std::string& spelling) const;
  // Whether the implementation named `name` (exactly) is fused; false for a name listed nowhere.
  bool fused(const std::string& name) const;
  // The attn_implementation value to write for `name`; `name` itself when it has no hf_name.
  std::string hf_name(const std::string& name) const;

  static Result<AttentionImpls> parse(const std::string& yaml_text, const std::string& origin);
};

struct ConfigKnowledge {
  ConfigKeys keys;
  AttentionImpls attention;
  static Result<ConfigKnowledge> load();  // both files now (no cache)
};

// The process's config knowledge: loaded on first use (per data directory), then shared;
// thread-safe; a failed load is not cached (core/data.h DataDirCache).
Result<std::shared_ptr<const ConfigKnowledge>> config_knowledge();

}  // namespace goblin::config
