// Generated scripts and manifests (goblin slurm-script's sbatch scripts, submit.sh, Kubernetes Job
// YAML, the trace list) carry names that come from the user's file system or from an MCP caller.
// Each value goes through the one writer for the place it lands: a POSIX shell word, a YAML
// scalar, an #SBATCH directive value, a line of a line-per-item list. What a target cannot hold
// safely (a newline in a file name, a space in a partition) is refused with a message naming the
// value, never written: one newline would otherwise add a shell command, a YAML document or a line
// to the list.
#pragma once
#include <string>
#include <string_view>

#include "core/status.h"

namespace goblin {

// A word for a POSIX shell (sh, bash): as it is when plainly safe, else single-quoted with each
// `'` written as '\''. Any byte is safe inside single quotes; the callers refuse control
// characters first so that a script stays readable and line-oriented.
std::string sh_word(std::string_view s);

// A YAML double-quoted scalar: `"` and `\` escaped, control characters and newlines written as
// YAML escapes (\n, \t, \x1b, \u0085), so the value is one line whatever it holds and parses
// back to the same bytes. `s` must be valid UTF-8 (check with script_line).
std::string yaml_scalar(std::string_view s);

// A value that becomes one line of a script or list (a trace path in traces.txt, a path in a
// shell command): refused when it holds a control character (newline, CR, ESC, DEL, C1) or is
// not valid UTF-8. `what` names it in the message ("trace file name", "--goblin").
Status script_line(std::string_view what, std::string_view s);

// A value written after `#SBATCH --option=`: sbatch reads the directive up to whitespace and
// expands `%` in file names, so only printable ASCII without whitespace, quotes, backslash, `#`
// or `%` is taken; anything else is refused (message naming `what` and the character).
Status sbatch_value(std::string_view what, std::string_view s);

}  // namespace goblin
