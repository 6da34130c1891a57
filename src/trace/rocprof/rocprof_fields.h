// Field-level helpers shared by the AMD profiler readers (rocprofv3 CSV/JSON, legacy rocprof):
// columns found by name (case-insensitively, because rocpd-to-csv renames LDS_Block_Size to
// Lds_Block_Size), strict number parsing that reports where a bad value sits, and the AMD
// encodings of agents, copy directions and kernel-name suffixes.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/text.h"
#include "model/timeline.h"

namespace goblin::trace::rocprof {

// A CSV header: column names and a case-insensitive name → index map.
class Columns {
 public:
  Columns() = default;
  explicit Columns(const std::vector<std::string_view>& header);
  // Index of the first of `names` present, -1 when none is.
  int find(std::initializer_list<std::string_view> names) const;
  bool has(std::string_view name) const { return find({name}) >= 0; }
  size_t size() const { return names_.size(); }
  const std::string& name(int i) const { return names_[static_cast<size_t>(i)]; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> index_;  // lower-cased name → first index
};

// Strict parses: whole field must be the number (surrounding spaces allowed); nullopt otherwise.
std::optional<int64_t> parse_int(std::string_view s);
// Finite decimal/exponent numbers only (NaN and inf are rejected).
std::optional<double> parse_number(std::string_view s);

// rocprofv3 agent ids: "Agent 4" (relative index, the default), "GPU 2" (type-relative), or a
// bare integer (2024 builds). nullopt for "" (memory_allocation FREE rows) and anything else.
std::optional<int64_t> parse_agent(std::string_view s);

// "MEMORY_COPY_HOST_TO_DEVICE" (rocprofv3) or "CopyHostToDevice" (rocprof v1) → CopyKind.
CopyKind copy_kind_from_text(std::string_view s);

// Strips the code-object suffixes legacy rocprof appends to kernel names: " [clone .kd]" (v1)
// and " (.kd)" (rocprofv2). Sets *stripped when it did.
std::string_view strip_kd_suffix(std::string_view name, bool* stripped);

// rocprofv3 Grid_Size counts work-items (HSA dispatch packet); goblin stores grids in blocks
// (CUDA semantics) so analyses compare AMD and NVIDIA launches alike. HSA allows a partial
// last workgroup, hence the ceiling. 0 when either side is unknown.
uint32_t grid_items_to_blocks(int64_t grid_items, int64_t workgroup);

// Profiler clocks (CLOCK_BOOTTIME, HSA system time) never run negative; rejecting negative
// times also keeps every end - start and interval comparison inside int64.
inline bool valid_times(int64_t start, int64_t end) { return start >= 0 && end >= 0; }

// Per-thread registers from arch + accumulation VGPR counts (CDNA has one VGPR file shared by
// both, so occupancy is bounded by their sum). kNone when out of any real range.
inline int32_t register_count(int64_t arch, int64_t accum) {
  if (arch < 0 || accum < 0 || arch > 4096 || accum > 4096) return static_cast<int32_t>(kNone);
  return static_cast<int32_t>(arch + accum);
}

// Adds a DeviceInfo for `id` if the timeline has none yet (name unknown).
void ensure_device(Timeline& tl, int64_t id);

// Reads one CSV row's fields by column index, warning (folded, with the line) about damaged
// values. A field past the end of a short row reads as absent.
class RowFields {
 public:
  RowFields(Timeline& tl, const std::string& path, std::string domain, const Columns& cols)
      : tl_(tl), path_(path), domain_(std::move(domain)), cols_(cols) {}
  void bind(const std::vector<std::string_view>& fields, int64_t line) {
    fields_ = &fields;
    line_ = line;
  }
  std::string_view text(int col) const;
  // Integer at `col`; empty → nullopt silently, non-numeric → nullopt and a warning naming
  // the column and line.
  std::optional<int64_t> integer(int col);
  std::optional<double> number(int col);
  // {start, end} from two timestamp columns when both are integers and valid_times; otherwise
  // nullopt and `skip_warning` as a rocprof_bad_times warning (the caller skips the row).
  std::optional<std::pair<int64_t, int64_t>> times(int start_col, int end_col, std::string_view skip_warning);
  int64_t line() const { return line_; }
  void warn(WarningId id, const std::string& what) { tl_.warn(id, domain_ + ": " + what, path_, -1, line_); }

 private:
  Timeline& tl_;
  const std::string& path_;
  std::string domain_;
  const Columns& cols_;
  const std::vector<std::string_view>* fields_ = nullptr;
  int64_t line_ = -1;
};

// Renders a header for error messages: "Kind,Agent_Id,..." (cut at 200 characters).
std::string header_text(const std::vector<std::string_view>& header);

}  // namespace goblin::trace::rocprof
