// The JSON form of `goblin memory`'s results (docs/memory.md), declared once as field lists
// (core/fields.h).
#include "analysis/memory_json.h"

#include "core/fields.h"

namespace goblin::fields {
using analysis::DeviceMemory;
using analysis::MemoryDelta;
using analysis::MemoryDiff;
using analysis::MemoryGroup;
using analysis::MemoryHeadroom;
using analysis::MemoryPoint;
using analysis::MemoryReport;
using analysis::MemoryStepPeak;

template <>
struct List<analysis::MemoryHeadroom> {
  using H = analysis::MemoryHeadroom;
  static inline const auto fields =
      std::tuple{field("source", &H::source),
                 field("device", &H::device),
                 field("peak_allocated_bytes", &H::peak_allocated),
                 field("peak_reserved_bytes", &H::peak_reserved),
                 field("capacity_bytes", &H::capacity_bytes),
                 field("capacity_basis", &H::capacity_basis),
                 field("fixed_bytes", &H::fixed_bytes),
                 field("per_batch_bytes", &H::per_batch_bytes),
                 field("usable_bytes", &H::usable_bytes),
                 field("headroom_bytes", &H::headroom_bytes),
                 field("batch_scale_fits", &H::batch_scale_fits, Num{3}),
                 field("batch_scale_fits_uncapped", &H::batch_scale_fits_uncapped, Num{3}),
                 field("batch_scale_capped", &H::batch_scale_capped),
                 field("batch_scale_cap", &H::batch_scale_cap),
                 field("basis", &H::basis)};
};

template <>
struct List<analysis::MemoryStepPeak> {
  using S = analysis::MemoryStepPeak;
  static inline const auto fields = std::tuple{field("name", &S::name),
                                               field("start_us", &S::start_us),
                                               field("end_us", &S::end_us),
                                               field("allocated_at_start_bytes", &S::allocated_at_start),
                                               field("peak_allocated_bytes", &S::peak_allocated),
                                               field("peak_reserved_bytes", &S::peak_reserved),
                                               field("events", &S::events)};
};

template <>
struct List<analysis::MemoryPoint> {
  static inline const auto fields = std::tuple{field("time_us", &analysis::MemoryPoint::time_us),
                                               field("allocated_bytes", &analysis::MemoryPoint::allocated),
                                               field("reserved_bytes", &analysis::MemoryPoint::reserved)};
};

template <>
struct List<analysis::MemoryGroup> {
  static inline const auto fields =
      std::tuple{field("category", &analysis::MemoryGroup::category), field("bytes", &analysis::MemoryGroup::bytes),
                 field("count", &analysis::MemoryGroup::count), field("site", &analysis::MemoryGroup::site),
                 field("where", &analysis::MemoryGroup::where)};
};

template <>
struct List<analysis::DeviceMemory> {
  using D = analysis::DeviceMemory;
  static inline const auto fields = std::tuple{field("device", &D::device),
                                               field("has_history", &D::has_history),
                                               field("peak_allocated_bytes", &D::peak_allocated),
                                               field("peak_reserved_bytes", &D::peak_reserved),
                                               field("peak_time_us", &D::peak_time_us),
                                               field("reserved_at_peak_bytes", &D::reserved_at_peak),
                                               field("allocated_at_dump_bytes", &D::allocated_at_dump),
                                               field("reserved_at_dump_bytes", &D::reserved_at_dump),
                                               field("before_history_bytes", &D::before_history),
                                               field("inactive_at_dump_bytes", &D::inactive_at_dump),
                                               field("largest_inactive_at_dump_bytes", &D::largest_inactive_at_dump),
                                               field("fragmentation_at_dump", &D::fragmentation_at_dump, Num{4}),
                                               field("events", &D::events),
                                               field("by_category", &D::by_category),
                                               field("by_stack", &D::by_stack),
                                               field("timeline", &D::timeline),
                                               field("steps", &D::steps)};
};

template <>
struct List<analysis::MemoryReport> {
  static inline const auto fields = std::tuple{
      field("source", &analysis::MemoryReport::source), field("source_kind", &analysis::MemoryReport::source_kind),
      field("devices", &analysis::MemoryReport::devices), field("notes", &analysis::MemoryReport::notes)};
};

template <>
struct List<analysis::MemoryDelta> {
  static inline const auto fields = std::tuple{
      field("category", &analysis::MemoryDelta::category), field("site", &analysis::MemoryDelta::site),
      field("where", &analysis::MemoryDelta::where),       field("before_bytes", &analysis::MemoryDelta::before),
      field("after_bytes", &analysis::MemoryDelta::after), field("delta_bytes", &analysis::MemoryDelta::delta)};
};

template <>
struct List<analysis::MemoryDiff> {
  using D = analysis::MemoryDiff;
  static inline const auto fields = std::tuple{field("device", &D::device),
                                               field("peak_before_bytes", &D::peak_before),
                                               field("peak_after_bytes", &D::peak_after),
                                               field("peak_delta_bytes", &D::peak_delta),
                                               field("peak_reserved_before_bytes", &D::reserved_before),
                                               field("peak_reserved_after_bytes", &D::reserved_after),
                                               field("explained", &D::explained, Num{4}),
                                               field("by_category", &D::by_category),
                                               field("by_stack", &D::by_stack)};
};
}  // namespace goblin::fields

namespace goblin::analysis {
Json memory_report_json(const MemoryReport& r) { return fields::to_json(r); }
Json memory_diff_json(const std::vector<MemoryDiff>& d) {
  Json a = Json::array();
  for (const auto& x : d) a.push_back(fields::to_json(x));
  return a;
}
Json memory_headroom_json(const MemoryHeadroom& h) { return fields::to_json(h); }

}  // namespace goblin::analysis
