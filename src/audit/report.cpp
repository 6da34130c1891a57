// The Report for people: terminal text and Markdown (the HTML page is report_html.cpp), and the
// report files. Everything is read from the Report struct; JSON only for report.json.
#include "audit/report.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iterator>

#include "audit/report_diff.h"
#include "audit/report_render.h"
#include "audit/what_if.h"
#include "core/escape.h"
#include "core/io.h"
#include "core/text.h"

namespace goblin::audit {

namespace render {

std::string num(std::optional<double> v, int d) { return v ? format_fixed(*v, d) : "n/a"; }

std::string times(std::optional<double> v) { return v && std::isfinite(*v) ? format_fixed(*v, 2) + "x" : "n/a"; }

namespace {
bool in_seconds(const DeltaRow& row) { return row.unit == "s" || row.unit == "s/step"; }
}  // namespace

// Table cell: seconds are shown in milliseconds (waste buckets are often well under 1 ms).
std::string delta_cell(const DeltaRow& row, std::optional<double> v, bool is_pct, int digits) {
  if (!v) return "n/a";
  return format_fixed(*v * (!is_pct && in_seconds(row) ? 1e3 : 1.0), digits);
}

std::string unit_label(const DeltaRow& row) {
  return row.unit == "s" ? "ms" : row.unit == "s/step" ? "ms/step" : row.unit;
}

int digits_for(const std::string& unit) {
  return unit == "s" || unit == "s/step"             ? 3
         : unit == "tokens/s"                        ? 0
         : unit == "images/s" || unit == "samples/s" ? 1
                                                     : 2;
}

std::string scale_unit(const DeltaRow& row, std::optional<double> v) {
  if (!v) return "n/a";
  const std::string& u = row.unit;
  if (u == "s" || u == "s/step") return format_fixed(*v * 1e3, 2) + " ms";
  if (u == "tokens/s") return format_fixed(*v, 0);
  return format_fixed(*v, 2) + (u == "%" ? " %" : " " + u);
}

std::string perturbation_line(const Report& r) {
  if (!r.profiler_perturbation) return "";
  const Perturbation& p = *r.profiler_perturbation;
  return fmt::format("profiled step {} ms vs unprofiled {} ms ({}{} %, {})", format_fixed(p.profiled_step_s * 1e3, 1),
                     format_fixed(p.unprofiled_step_s * 1e3, 1), p.pct > 0 ? "+" : "", format_fixed(p.pct, 1),
                     p.within_10pct ? "within 10 %" : "over 10 %: the profile's buckets are relative");
}

}  // namespace render

using namespace render;

namespace {

std::string speedup_block(const Report& r) {
  const SpeedupDetail& d = r.speedup_actual_detail;
  std::string s = "actual " + times(r.speedup_actual);
  auto out = std::back_inserter(s);
  if (d.ci_low && d.ci_high)
    fmt::format_to(out, " (95% CI {}-{})", format_fixed(*d.ci_low, 2), format_fixed(*d.ci_high, 2));
  fmt::format_to(out, " from {}", d.basis);
  if (d.interleaved)
    fmt::format_to(out, "{}{}", *d.interleaved ? ", runs interleaved" : ", runs in blocks",
                   d.run_order ? " " + *d.run_order : std::string());
  fmt::format_to(out, "; predicted {} .. {}; prediction {}", times(r.speedup_predicted_low),
                 times(r.speedup_predicted_high), r.prediction_held);
  return s;
}

}  // namespace

std::string report_text(const Report& r) {
  std::string s;
  auto out = std::back_inserter(s);
  fmt::format_to(out, "== goblin audit report: {} ==\n{}\n\n", r.workload_name, r.summary_line);
  fmt::format_to(out, "speedup: {}\n  {}\n", speedup_block(r), r.prediction_note);
  if (r.critical_path_what_if)
    fmt::format_to(out, "  critical-path what-if (second opinion): {}\n", opinion_line(*r.critical_path_what_if));
  if (auto p = perturbation_line(r); !p.empty()) fmt::format_to(out, "profiler perturbation: {}\n", p);
  fmt::format_to(out, "confidence: {} = evidence_coverage {} x rule_consistency {} ({})\n\n", num(r.confidence),
                 num(r.confidence_detail.evidence_coverage), num(r.confidence_detail.rule_consistency),
                 calibration_phrase(r));
  s += "metric                     before          after           change\n";
  for (const auto& row : r.metric_deltas) {
    if (!row.before && !row.after) continue;
    std::string pct = row.pct ? format_fixed(*row.pct, 1) + " %" : "";
    fmt::format_to(out, "  {:<24} {:<15} {:<15} {}\n", row.metric, scale_unit(row, row.before),
                   scale_unit(row, row.after), pct);
  }
  if (auto k = kernel_diff_lines(r); !k.empty()) {
    s += "\nwhat got faster (goblin diff of the before and after traces):\n";
    for (const auto& l : k) fmt::format_to(out, "  {}\n", l);
  }
  s += "\nrules applied:\n";
  for (const auto& x : r.rules) fmt::format_to(out, "  {} -> {}  {}\n", x.rule_id, x.targets_bucket, x.citation);
  if (!r.findings.empty()) {
    s += "\nfindings:\n";
    for (const auto& f : r.findings) fmt::format_to(out, "  [{}] {}: {}\n", f.severity, f.title, f.detail);
  }
  if (!r.notes.empty()) {
    s += "\nnotes:\n";
    for (const auto& n : r.notes) fmt::format_to(out, "  - {}\n", n);
  }
  s += audit_sections_text(r);
  fmt::format_to(out, "\ndiff:\n{}\nvalidity: {}\n", r.diff, r.validity_footer.text);
  return s;
}

std::string report_markdown(const Report& r) {
  // Names, notes and values come from recordings and configs: escaped for Markdown (core/escape.h).
  std::string s;
  auto out = std::back_inserter(s);
  fmt::format_to(out, "# goblin audit report: {}\n\n**{}**\n\n", md_text(r.workload_name), md_text(r.summary_line));
  s += "## Speedup\n\n| | value |\n|---|---|\n";
  const SpeedupDetail& d = r.speedup_actual_detail;
  fmt::format_to(out, "| actual | {} ({}) |\n", times(r.speedup_actual), md_text(d.basis));
  if (d.ci_low && d.ci_high)
    fmt::format_to(out, "| actual 95% CI | {}-{} ({}) |\n", format_fixed(*d.ci_low, 2), format_fixed(*d.ci_high, 2),
                   md_text(d.ci_method.value_or("n/a")));
  if (!d.run_order_note.empty())
    fmt::format_to(out, "| run order | {}{} |\n", d.run_order ? md_text(*d.run_order) + ": " : std::string(),
                   md_text(d.run_order_note));
  if (auto p = perturbation_line(r); !p.empty()) fmt::format_to(out, "| profiler perturbation | {} |\n", p);
  fmt::format_to(out, "| predicted | {} .. {} |\n", times(r.speedup_predicted_low), times(r.speedup_predicted_high));
  if (r.critical_path_what_if)
    fmt::format_to(out, "| critical-path what-if (second opinion) | {} |\n",
                   md_text(opinion_line(*r.critical_path_what_if)));
  fmt::format_to(out, "| prediction | **{}**: {} |\n", md_text(r.prediction_held), md_text(r.prediction_note));
  fmt::format_to(out, "| confidence | {} = evidence_coverage {} x rule_consistency {} ({}) |\n\n",
                 md_text(num(r.confidence)), md_text(num(r.confidence_detail.evidence_coverage)),
                 md_text(num(r.confidence_detail.rule_consistency)), calibration_phrase(r));
  s += "## Metrics\n\n| metric | before | after | delta | % |\n|---|---:|---:|---:|---:|\n";
  for (const auto& row : r.metric_deltas) {
    int dg = digits_for(row.unit);
    fmt::format_to(out, "| {} ({}) | {} | {} | {} | {} |\n", md_text(row.metric), unit_label(row),
                   delta_cell(row, row.before, false, dg), delta_cell(row, row.after, false, dg),
                   delta_cell(row, row.delta, false, dg), delta_cell(row, row.pct, true, 1));
  }
  if (auto k = kernel_diff_lines(r); !k.empty()) {
    s += "\n## What got faster\n\n";
    // Each line names kernels and ops from the traces: untrusted text (core/escape.h).
    for (const auto& l : k) fmt::format_to(out, "- {}\n", md_text(l));
  }
  s += "\n## Rules applied\n\n";
  // An empty list is a result (the tuned config's audit), not a missing section.
  if (r.rules.empty())
    s += "None: no rule's detect holds against this config and its measured evidence (`goblin kb query` lists "
         "the candidates; the trajectory's propose_patch step says why each was skipped).\n";
  for (const auto& x : r.rules) {
    fmt::format_to(out, "- {} {} (bucket {}): {}", md_code(x.rule_id), md_text(x.title), md_text(x.targets_bucket),
                   md_link(x.citation, x.citation));
    // The measured evidence the rule fired on (a fallback metric says it stood in for another).
    for (size_t i = 0; i < x.evidence.size(); ++i)
      fmt::format_to(out, "{}{}", i ? "; " : "; evidence: ", md_text(x.evidence[i]));
    s += "\n";
  }
  if (!r.findings.empty()) {
    s += "\n## Findings\n\n";
    for (const auto& f : r.findings) {
      fmt::format_to(out, "- **{}** {}: {}", md_text(f.severity), md_text(f.title), md_text(f.detail));
      if (!f.citation.empty()) fmt::format_to(out, " ({})", md_link("source", f.citation));
      s += "\n";
    }
  }
  if (!r.notes.empty()) {
    s += "\n## Notes\n\n";
    for (const auto& n : r.notes) fmt::format_to(out, "- {}\n", md_text(n));
  }
  s += audit_sections_markdown(r);
  if (r.trajectory) {
    s += "\n## Trajectory\n\n";
    int i = 1;
    for (const auto& st : *r.trajectory)
      fmt::format_to(out, "{}. {}: {} -> {}\n", i++, md_code(st.tool), md_text(st.thought), md_text(st.outcome));
  }
  fmt::format_to(out, "\n## Diff\n\n{}\n---\n*{}*\n", md_fence(r.diff, "diff"), md_text(r.validity_footer.text));
  return s;
}

Status write_report_files(const Report& report, const std::string& dir, std::vector<std::string>* written) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the report directory: " + ec.message(), dir);
  struct F {
    const char* name;
    std::string body;
  } files[] = {{"report.json", report_to_json(report).dump(2) + "\n"},
               {"report.md", report_markdown(report)},
               {"report.html", report_html(report)}};
  for (const auto& f : files) {
    std::string p = (std::filesystem::path(dir) / f.name).string();
    Status s = write_file(p, f.body);
    if (!s) return s;
    if (written) written->push_back(p);
  }
  return Status::Ok();
}

}  // namespace goblin::audit
