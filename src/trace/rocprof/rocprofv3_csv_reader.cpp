// rocprofv3 CSV reader: streams one CSV file, decides its domain from the header and hands the
// rows to that domain's row reader (rocprofv3_csv_domains.cpp). Timestamps are CLOCK_BOOTTIME
// ns and are kept as they are.
#include <fmt/format.h>

#include <algorithm>

#include "core/csv.h"
#include "trace/readers.h"
#include "trace/rocprof/rocprof_fields.h"
#include "trace/rocprof/rocprof_stats.h"
#include "trace/rocprof/rocprofv3_csv_domains.h"

namespace goblin::trace {

using namespace rocprof;

Status read_rocprofv3_csv(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto src = open_source(path, opt.io);
  if (!src) return src.error();
  CsvReader csv(std::move(*src));
  std::vector<std::string_view> f;
  if (!csv.next(f)) {
    if (csv.error()) return *csv.error();
    return make_error(ErrorKind::Malformed, "file is empty: expected a rocprofv3 CSV header line", path, 0, 1);
  }
  Columns cols(f);
  const int64_t header_line = csv.line();
  const std::string header = header_text(f);
  CsvDomain domain = classify_header(cols);
  if (domain == CsvDomain::Unknown) {
    return make_error(ErrorKind::Malformed,
                      "unrecognised rocprofv3 CSV header (expected kernel_trace, memory_copy_trace, an *_api_trace, "
                      "counter_collection, *_stats, memory_allocation, scratch_memory, pc_sampling or agent_info "
                      "columns): " +
                          header,
                      path, csv.offset(), header_line);
  }
  if (domain == CsvDomain::Stats) return read_stats_rows(csv, cols, path, tl);

  auto reader = make_row_reader(domain, tl, path, cols, header_line, header);
  if (!reader) return reader.error();
  const std::string where = std::string("rocprofv3 ") + csv_domain_name(domain);
  while (csv.next(f)) {
    // No rocprofv3 field holds a newline: a record over several lines is a quote left open (a
    // hand-edited or cut file) that swallowed the rows after it, with every column shifted.
    if (csv.lines_spanned() > 1 &&
        std::any_of(f.begin(), f.end(), [](std::string_view x) { return x.find('\n') != std::string_view::npos; })) {
      tl.warn(W::rocprof_unclosed_quote,
              fmt::format("{}: a quoted field runs over {} lines (an unclosed quote?); those lines were skipped", where,
                          csv.lines_spanned()),

              path, csv.offset(), csv.line());
      continue;
    }
    if (f.size() < cols.size()) {
      tl.warn(W::rocprof_row_short,
              where + ": row has fewer fields than the header (truncated?); missing fields read as absent", path,
              csv.offset(), csv.line());
    } else if (f.size() > cols.size()) {
      tl.warn(W::rocprof_row_long, where + ": row has more fields than the header; extra fields ignored", path,
              csv.offset(), csv.line());
    }
    (*reader)->row(f, csv.line());
  }
  (*reader)->finish();
  if (csv.error()) return *csv.error();  // rows before the damage stay in the timeline
  return Status::Ok();
}

}  // namespace goblin::trace
