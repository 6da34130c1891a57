// WorkloadConfig (parse_config's result, docs/audit.md): the knobs of a training/inference workload,
// each with where it came from (file, line, byte span of the value) so a patch can edit the
// user's own file in place.
//
// Inputs: YAML / JSON shaped like HF TrainingArguments (flat or with nested `dataloader:`,
// `env:`, `model:`, `lora:` blocks), Python training scripts (a tokenizer-level scanner, not an
// interpreter), env files and shell `export` lines. Secrets are redacted and listed.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "model/warnings.h"

namespace goblin::config {

enum class FieldType { String, Int, Number, Bool, Enum };

struct FieldSpec {
  const char* name;
  FieldType type;
  std::vector<std::string> enum_values;  // for Enum
  const char* doc;
};

// Every WorkloadConfig field, in output order. `env.NAME` addresses one environment variable.
const std::vector<FieldSpec>& config_fields();
const FieldSpec* find_field(const std::string& name);
// True for a known field or `env.NAME` with a valid variable name.
bool is_known_field(const std::string& name);

enum class ConfigFormat { Yaml, Json, Python, Env };
const char* config_format_name(ConfigFormat f);

// Where one value sits in the source file. [begin, end) is the byte span of the value text (the
// part a patch replaces); `key` is the key/kwarg as the user spelled it.
struct Origin {
  std::string file;
  int64_t line = -1;  // 1-based
  int64_t begin = -1, end = -1;
  std::string key;
  std::string context;  // yaml/json: dotted parent path; python: the call name ("TrainingArguments")
  // The value is an expression goblin does not evaluate (`bf16=USE_BF16`): its text. A patch never
  // overwrites it with a literal (the script's logic would be lost), and the field is unknown,
  // not "not set".
  std::string expression;
};

struct Redaction {
  std::string kind;  // hf_token, openai_key, github_token, bearer, home_path, s3_uri, ws_uri
  int64_t line = -1;
  std::string replacement;
};

struct WorkloadConfig {
  std::string source_file;
  ConfigFormat format = ConfigFormat::Yaml;
  // Known fields by name (config_fields()); absent = not set in the source.
  std::map<std::string, Json> values;
  std::map<std::string, std::string> env_vars;
  std::map<std::string, std::string> extras;  // other keys, dotted path → scalar text
  std::vector<Redaction> redactions;
  std::vector<Warning> warnings;  // each names its catalogue entry (model/warnings.h)
  // Field (or "env.NAME", or a source key such as "precision.bf16") → where it was read.
  std::map<std::string, Origin> origins;

  // Field value: known field, or env.NAME (string) — null when unset.
  Json get(const std::string& field) const;
  bool has(const std::string& field) const { return !get(field).is_null(); }
  // Sets a field after checking its type; env.NAME sets an env var.
  Status set(const std::string& field, const Json& v);
};

// The config as the WorkloadConfig JSON of docs/audit.md: every field (null when unset) plus env_vars,
// extras, redactions and `origins`.
Json config_to_json(const WorkloadConfig& c, bool with_origins = true);
// Reads it back (fields, env_vars, extras) — used when a patch JSON carries `new_config`.
Result<WorkloadConfig> config_from_json(const Json& j);

// Bytes of a UTF-8 byte-order mark at the start of `text` (3), else 0. Config text is scanned and
// edited after it, and a patched file gets it back, so offsets and the first key are the file's.
size_t utf8_bom_size(std::string_view text);

// Parses text in the given format. Errors carry the file and line.
Result<WorkloadConfig> parse_config_text(const std::string& text, ConfigFormat fmt, const std::string& file);
// Reads a file and sniffs its format (extension first, then content).
Result<WorkloadConfig> parse_config_file(const std::string& path);
ConfigFormat sniff_config_format(const std::string& path, const std::string& text);

// Secret redaction (config/secrets.cpp), for every output that shows config values or file text.
// By shape: tokens (hf_, sk-, ghp_, github_pat_, glpat-, xox?-, AKIA...), bearer headers,
// user:password@ in URLs, PEM private keys, home paths, s3:// and ws:// URIs; one Redaction per hit.
std::string redact(const std::string& s, int64_t line, std::vector<Redaction>* out);
// By key name: true when a key names a credential (password, secret, api_key, access_key,
// hub_token, HF_TOKEN, ...; camelCase and any separator), false for tokenizer keys (pad_token,
// max_tokens, tokenizer_name).
bool is_secret_key(std::string_view key);
// False for values that hold no secret even under a secret key: booleans, null, empty, a
// placeholder (<your-key>), a reference ($VAR, ${VAR}, os.environ[...]) or text already redacted.
bool is_redactable_secret_value(std::string_view value);
// Line by line: the value of every assignment whose key names a secret (`KEY: v`, `KEY=v`,
// `"KEY": "v"`, `export KEY=v`, `key="v"` keyword arguments, `["KEY"] = "v"`,
// setdefault("KEY", "v"); a diff's +/- prefix allowed) becomes <redacted>. For texts that show
// raw file lines (a patch's diff and patched file, reports).
std::string redact_secret_assignments(const std::string& text);
// Both: redact() then redact_secret_assignments(). What any raw config text gets before it is shown.
std::string redact_text(const std::string& text);

// What every front door's output gets (app/registry.h run_verb): credentials by shape (tokens,
// keys, JWTs, Authorization credentials, user:password@ and ?api_key= in URLs, private keys) and
// by name (`KEY=v`, `key: v`, `--secret-flag v`), but not the privacy shapes of redact() (home
// paths, bucket URIs): a result about the user's own files names them.
std::string redact_credentials(const std::string& text);
// The same over every string of a JSON document, plus: an object member whose key names a
// credential has its string value replaced, and in an array the element after a credential flag
// ("--hf-token", "hf_xxx") is replaced (a recorded argv).
void redact_json(Json& j);

// Human summary, one field a line with its origin.
std::string config_to_text(const WorkloadConfig& c);

}  // namespace goblin::config
