// Renders compare_runs' Report (the struct, audit/report_types.h) for people: terminal text, Markdown, and a
// self-contained HTML page (no external assets: inline CSS and an inline SVG chart of the waste budget before and
// after, the diff escaped and coloured, every rule with its citation as a link).
#pragma once
#include <string>
#include <vector>

#include "audit/report_types.h"
#include "core/status.h"

namespace goblin::audit {

std::string report_text(const Report& report);
std::string report_markdown(const Report& report);
std::string report_html(const Report& report);
// Inline SVG: one stacked bar per run (before, after), buckets in seconds per step.
// A side without a budget is "not observed"; unobserved buckets are left out.
std::string waste_budget_svg(const std::optional<analysis::WasteBudget>& before,
                             const std::optional<analysis::WasteBudget>& after);
// Sections of an audit's report beyond compare's (report_sections.cpp): prediction model, waste
// budget before/after with recovery per bucket, calibration, rounds, profile diff.
std::string audit_sections_text(const Report& report);
std::string audit_sections_markdown(const Report& report);
std::string audit_sections_html(const Report& report);
// "range widened by the history (...)" / "no historical calibration" for the confidence lines.
std::string calibration_phrase(const Report& report);

// Writes DIR/report.json, report.md, report.html (DIR created). `written` gets the paths.
Status write_report_files(const Report& report, const std::string& dir, std::vector<std::string>* written = nullptr);

}  // namespace goblin::audit
