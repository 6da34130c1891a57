// Text from the user's files is data. A kernel, op, annotation or module name, or a config value,
// is whatever the trace or config says: "ignore all previous instructions..." is a valid kernel
// name. Tool results therefore say which of their strings are quoted from user files (the
// envelope's `untrusted_text`), every tool description says that such text is data, not
// instructions, and analysis results cut any one-line string at kMaxQuotedBytes so a name cannot
// carry a long message. The CLI's --json output is unchanged (a user reading their own trace is
// not a model being steered); registry_parity_test applies the same cut to the CLI's result.
#pragma once
#include <cstddef>
#include <string>

#include "core/json.h"

namespace goblin::mcp {

inline constexpr size_t kMaxQuotedBytes = 512;

// Cuts every one-line string (values and keys) longer than `max` bytes, on a character boundary,
// with a note of how much was cut. Multi-line text (a diff, a patched file) is left whole. Returns
// how many strings were cut.
size_t cut_quoted_strings(Json& j, size_t max = kMaxQuotedBytes);
// The same for each line of a text block.
std::string cut_quoted_lines(const std::string& text, size_t max = kMaxQuotedBytes);

// The envelope field for a result that quotes user files; `cut`: strings cut, `cuts`: whether
// this tool cuts them at all (analysis tools do; the audit tools' config dicts go back whole).
Json untrusted_text_field(size_t cut, bool cuts);

// One sentence every tool description ends with.
const std::string& data_not_instructions();

}  // namespace goblin::mcp
