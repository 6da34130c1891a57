// corpus: repo:tests/robustness/secrets
// libFuzzer target for core/escape.h: whatever bytes a recording or config holds, the escaped
// Markdown has no raw HTML, no line break and is valid UTF-8; a fenced block cannot be closed
// from inside; only http(s) becomes a link; terminal text carries no control character. A violated invariant aborts (a
// finding), as a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/escape.h"
#include "core/text.h"

namespace {
void check(bool ok) {
  if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const std::string t = goblin::md_text(in, 200);
  check(t.find('<') == std::string::npos && t.find('>') == std::string::npos);
  check(t.find('\n') == std::string::npos && !goblin::first_invalid_utf8(t));
  for (size_t i = 0; i < t.size(); ++i)  // every `[`, `]`, `|` and backtick is escaped
    if (t[i] == '[' || t[i] == ']' || t[i] == '|' || t[i] == '`') check(i > 0 && t[i - 1] == '\\');
  // Terminal text: valid UTF-8 with no C0/DEL control byte and no C1 control (0xC2 0x80-0x9F).
  const std::string p = goblin::plain_text(in, 200);
  check(!goblin::first_invalid_utf8(p));
  for (size_t i = 0; i < p.size(); ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    check(c >= 0x20 && c != 0x7f);
    if (c == 0xC2 && i + 1 < p.size()) check(static_cast<unsigned char>(p[i + 1]) > 0x9F);
  }
  const std::string f = goblin::md_fence(in, "diff");
  const std::string fence = f.substr(0, f.find("diff"));
  // The closing fence is the only line inside the block that starts with the fence.
  check(f.find("\n" + fence, f.find('\n')) == f.size() - fence.size() - 2);
  const std::string h = goblin::html_link("x", in);
  if (!goblin::is_web_link(in)) check(h.find("<a ") == std::string::npos);
  // A link's href is the URL it was given, starting with http(s) (a "javascript:" later in an
  // https URL's path is just text of that URL).
  if (h.find("<a ") != std::string::npos) check(goblin::ascii_lower(h.substr(0, 13)) == "<a href=\"http");
  return 0;
}
