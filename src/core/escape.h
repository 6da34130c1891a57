// Untrusted text (kernel names from recordings, config values, citations from a patch file or an
// MCP argument) lands in Markdown and HTML that people open in renderers which run scripts and
// fetch images. Every such string goes through one of these, chosen by where it lands; nothing
// from a recording or a config is written raw.
#pragma once
#include <string>
#include <string_view>

namespace goblin {

// Inline Markdown text (a paragraph, a list item, a table cell): HTML-significant characters
// become entities (so `<script>` and `<img src=...>` are text), Markdown-significant characters
// are backslash-escaped (no emphasis, links, images or headings from a name), newlines and `|`
// cannot break a table row. `max_bytes` > 0 cuts with "..." on a character boundary.
std::string md_text(std::string_view s, size_t max_bytes = 0);

// Plain text for a terminal or an MCP text block, which are not Markdown: the name as recorded
// (no entities, no backslashes), with control characters (C0, DEL, C1: what could move a terminal's
// cursor or start an escape sequence) and newlines shown as '?' and ' ', and invalid UTF-8 repaired.
// `max_bytes` > 0 cuts with "..." on a character boundary, as md_text does.
std::string plain_text(std::string_view s, size_t max_bytes = 0);

// Multi-line text for a terminal (a verb's readable output, an error, a progress line): newlines
// and tabs kept, every other control character (C0 such as ESC, DEL, C1 such as CSI) shown
// escaped as \x1b / \x7f / \u009b, so a name from a recording cannot move the cursor, retitle
// the window or start an escape sequence; invalid UTF-8 repaired. goblin writes no escape
// sequences of its own, so nothing legitimate is lost.
std::string terminal_text(std::string_view s);

// A CSV cell a spreadsheet would read as a formula (first character = + - @, tab or CR:
// CWE-1236) gets a leading ' so it is shown as text; anything else is returned unchanged.
std::string csv_text(std::string_view s);

// A code span `...` whose fence is longer than the longest backtick run inside.
std::string md_code(std::string_view s);

// A fenced block (```lang ... ```) whose fence is longer than any backtick run in `body`, so a
// line of three backticks in a config cannot close the diff block.
std::string md_fence(std::string_view body, std::string_view lang);

// Only http(s) URLs are links; `javascript:`, `data:`, `file:` and anything else is shown as text.
bool is_web_link(std::string_view url);
// A Markdown link to `url` labelled `label` when it is a web link, otherwise the escaped text.
std::string md_link(std::string_view label, std::string_view url);

// HTML text and attribute values (& < > " ').
std::string html_text(std::string_view s);
// An <a href> when `url` is a web link, otherwise the escaped text.
std::string html_link(std::string_view label, std::string_view url);

}  // namespace goblin
