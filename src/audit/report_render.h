// Internal to the audit module: the formatting helpers report.cpp (text, Markdown) and
// report_html.cpp share, so a figure reads the same in every rendering of the Report.
#pragma once
#include <optional>
#include <string>

#include "audit/report_types.h"

namespace goblin::audit::render {

// A figure to `d` decimals, "n/a" when absent.
std::string num(std::optional<double> v, int d = 3);
// "2.35x", "n/a" when absent or not finite.
std::string times(std::optional<double> v);
// A metric row's value with its unit (seconds as milliseconds), "n/a" when absent.
std::string scale_unit(const DeltaRow& row, std::optional<double> v);
// A metric row's table cell: seconds in milliseconds, `digits` decimals; "n/a" when absent.
std::string delta_cell(const DeltaRow& row, std::optional<double> v, bool is_pct, int digits);
std::string unit_label(const DeltaRow& row);
int digits_for(const std::string& unit);
// "profiled 231.5 ms vs unprofiled 219.7 ms (+5.4 %, within 10 %)", or "" when not measured.
std::string perturbation_line(const Report& r);

}  // namespace goblin::audit::render
