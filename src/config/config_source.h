// Internal to the config module: the positional scan of a config file that both the parser
// (values → WorkloadConfig) and the patcher (edit values in place, insert missing keys) use.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "config/workload_config.h"

namespace goblin::config {

// One scalar read from the source.
struct SourceEntry {
  std::vector<std::string> path;  // yaml/json key path; python: {kwarg} or {"__arg0"}; env: {"env", NAME}
  Json value;                     // literal value (null for an expression goblin does not evaluate)
  std::string raw;                // value text as written
  bool literal = true;
  int64_t line = -1, begin = -1, end = -1;  // value span
  std::string context;                      // python: call name ("TrainingArguments", "DataLoader", "os.environ")
  int64_t call_index = -1;                  // python: index into SourceScan::calls
  // python: `args.bf16 = False` after `args = TrainingArguments(...)`: the attribute write is what
  // the script runs with, so it wins over the call's keyword (and is what a patch must edit).
  bool overrides = false;
  // command lines: the whole flag as written (`--bf16`, `--lr 3e-4`, `--lr=3e-4`: [begin, end) from
  // the flag word to its value's end), whether it stands alone (a boolean switch), its spelling.
  struct Flag {
    int64_t begin = -1, end = -1;
    bool bare = false, equals = false;  // `--x` alone / `--x=v` in one word
    std::string spelled;                // "--per_device_train_batch_size"
  } flag;
  // command lines: an argparse default read from the launched script, not from this text (its
  // path; line is the add_argument's line there, begin/end -1).
  std::string file;
};

// The launch command a command-line source runs (scan_command.cpp).
struct ArgparseArg {
  std::string spelled;  // "--batch_size"
  std::string action;   // "store_true", "store_false", "" (stores a value)
  Json default_value;   // null: none
  bool literal = true;
  int64_t line = -1;
};
struct CommandLaunch {
  bool found = false;
  int64_t line = -1;
  int64_t begin = -1, end = -1;  // first word's start, last word's end (a new flag goes at `end`)
  int64_t program_begin = -1;    // the launcher or interpreter word (a VAR=value prefix goes before it)
  bool continued = false;        // backslash-newline continuations: a new flag goes on a line of its own
  std::string continuation_indent;
  std::string launcher;     // python | torchrun | accelerate | deepspeed | direct
  std::string script;       // the script word as written ("" for python -m MODULE)
  std::string script_path;  // where it was found ("" when not found)
  // argparse: add_argument calls found in the script; hf: HfArgumentParser / TrainingArguments;
  // "": the script was not found or declares neither.
  std::string style;
  std::map<std::string, ArgparseArg> args;  // flag name (lower-case, '-' as '_') → declaration
  std::vector<int64_t> other_lines;         // the file's other launch commands (read, not the config)
  std::string deepspeed_json;               // `--deepspeed X.json` as found ("" when none)
};

// A place new keys can be inserted: a YAML block, a JSON object, a Python call.
struct SourceAnchor {
  std::string kind;               // "yaml_block", "json_object", "python_call"
  std::vector<std::string> path;  // yaml/json: block path ({} = root); python: {call name}
  int64_t insert_at = -1;         // byte offset where a new entry goes
  int64_t line = -1;
  int indent = 0;      // indentation of the block's entries
  bool empty = false;  // json object / python call without members
  bool flow = false;   // yaml flow map: not insertable
  // python calls only
  std::string target;     // `model = X.from_pretrained(...)` → "model"
  int64_t stmt_end = -1;  // offset just after the call's closing paren
  // `**common` among the arguments (the unpacked expression's text): a keyword added to this call
  // may already be in it, and Python then raises "got multiple values for keyword argument".
  std::string kwargs_unpack;
};

struct SourceScan {
  ConfigFormat format = ConfigFormat::Yaml;
  std::vector<SourceEntry> entries;
  std::vector<SourceAnchor> anchors;
  std::vector<Warning> warnings;  // each names its catalogue entry (model/warnings.h)
  // python: where new top-level statements go (after the imports) and whether `import os` exists
  int64_t after_imports = 0;
  bool imports_os = false;
  bool imports_torch = false;
  // python: the variable handed to a trainer as its arguments (`Trainer(args=training_args)`,
  // `SFTTrainer(model, training_args)`), the last such call's; empty when none names one.
  std::string trainer_args;
  int64_t trainer_args_line = -1;
  CommandLaunch launch;  // command lines only
};

Result<SourceScan> scan_source(const std::string& text, ConfigFormat fmt, const std::string& file);
// One scanner per format (scan_<format>.cpp); scan_source picks by format.
Result<SourceScan> scan_yaml(const std::string& text, const std::string& file);
Result<SourceScan> scan_json(const std::string& text, const std::string& file);
Result<SourceScan> scan_python(const std::string& text, const std::string& file);
Result<SourceScan> scan_env(const std::string& text, const std::string& file);
// Shell scripts, Slurm batch scripts, Makefiles, README code blocks, a `--command` line: the first
// launch command's flags (scan_command.cpp).
Result<SourceScan> scan_command(const std::string& text, const std::string& file);
// True when `path` is a shell script, Makefile or Markdown file and `text` holds a launch
// command goblin reads (python/torchrun/accelerate/deepspeed with a script).
bool holds_launch_command(const std::string& path, const std::string& text);
// The command-line editor (command_editor.cpp): edit_config_text for kCommandFormat.
struct ConfigKnowledge;
Result<std::string> edit_command_text(const std::string& text, const WorkloadConfig& cfg, const SourceScan& scan,
                                      const ConfigKnowledge& kn, const std::map<std::string, Json>& edits,
                                      std::vector<std::string>* unplaced, std::map<std::string, std::string>* refused);

// Line (1-based) of a byte offset. One pass over the text: for a single lookup (an error).
int64_t line_of(const std::string& text, int64_t offset);

// Line numbers for many offsets: the line starts once, then a binary search per lookup (a
// scanner that called line_of per value would be quadratic in the file's size).
class LineIndex {
 public:
  explicit LineIndex(const std::string& text);
  int64_t line(int64_t offset) const;  // 1-based
  const std::vector<int64_t>& starts() const { return starts_; }

 private:
  std::vector<int64_t> starts_;
};

}  // namespace goblin::config
