// Internal to the config module: a POSIX-ish shell tokenizer good enough to find a launch command
// (`python train.py --bf16`, `torchrun ... train.py`, `accelerate launch ...`) in a shell script, a
// Slurm batch script, a Makefile or a README's shell code blocks, with the byte span of every word
// so a patch can edit a flag in place. Quotes ('...', "..." with \ escapes), backslash-newline
// continuations, `#` comments at a word's start, $(...) / ${...} / `...` kept inside a word, heredoc
// bodies skipped, operators (; & | < > ( )) ending a command. Not an interpreter: an expansion
// ($VAR) stays text and the word is marked as not literal.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::config {

struct ShellWord {
  std::string text;              // the word's value with quotes removed (expansions kept as written)
  int64_t begin = -1, end = -1;  // raw span in the source, quotes included
  bool quoted = false;           // some part was quoted
  bool expands = false;          // holds an unquoted or double-quoted $ or ` (its value is not the text)
  int64_t line = -1;             // 1-based line of its first byte
};

struct ShellCommand {
  std::vector<ShellWord> words;
  int64_t line = -1;                // line of the first word
  bool continued = false;           // spans lines through backslash-newline
  std::string continuation_indent;  // leading blanks of the command's last continuation line
};

enum class ShellDialect { Shell, Makefile, Markdown };

// The simple commands of `text` in order. Markdown: only fenced code blocks whose info string is
// empty or a shell (bash, sh, shell, console, zsh), a leading `$ ` prompt dropped. Makefile: recipe
// prefixes (@ - +) dropped from the first word. Errors (file and line): an unterminated quote,
// $( or ${, or a word or line past the limits of core/limits.h.
Result<std::vector<ShellCommand>> shell_commands(const std::string& text, ShellDialect dialect,
                                                 const std::string& file);

// The shell spelling of `value`: as is when it holds only safe characters, else single-quoted
// ('...' with ' written as '\'').
std::string shell_quote(const std::string& value);

}  // namespace goblin::config
