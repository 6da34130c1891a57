// The field lists of the rank summary (rank_summary.h) and of the group summary
// (group_summary.h, which holds the same RankProfile per rank): declared once here, the writer
// and the reader of both files are generated from them (core/fields.h). Included by their .cpp
// files only.
#pragma once
#include <tuple>

#include "analysis/rank_summary.h"
#include "core/fields.h"

namespace goblin::fields {

// An error as error_to_json writes it; read back by its exit code (the kind).
struct ErrCodec {
  Json write(const Error& e) const { return error_to_json(e); }
  Status read(const Json& j, Error& e, const std::string& at) const {
    if (!j.is_object()) return type_error(at, "object", j);
    const auto code = j.value("exit_code", 1);
    e.kind = code >= 1 && code <= 9 ? static_cast<ErrorKind>(code) : ErrorKind::Internal;
    auto str = [&](const char* k) {
      auto it = j.find(k);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto num = [&](const char* k) {
      auto it = j.find(k);
      return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{-1};
    };
    e.message = str("message");
    e.file = str("file");
    e.byte_offset = num("byte_offset");
    e.line = num("line");
    return Status::Ok();
  }
};

template <>
struct List<PreArrival> {
  static inline const auto fields =
      std::tuple{field("compute_ns", &PreArrival::compute_ns), field("other_gpu_ns", &PreArrival::other_gpu_ns),
                 field("data_wait_ns", &PreArrival::data_wait_ns), field("host_gap_ns", &PreArrival::host_gap_ns)};
};

template <>
struct List<RankCollective> {
  static inline const auto fields = std::tuple{field("type", &RankCollective::type, Required),
                                               field("name", &RankCollective::name),
                                               field("group", &RankCollective::group),
                                               field("seq", &RankCollective::seq),
                                               field("bytes", &RankCollective::bytes),
                                               field("group_size", &RankCollective::group_size),
                                               field("start_ns", &RankCollective::start_ns, Required),
                                               field("end_ns", &RankCollective::end_ns, Required),
                                               field("step", &RankCollective::step),
                                               field("synchronizes", &RankCollective::synchronizes),
                                               field("before_arrival", &RankCollective::pre)};
};

template <>
struct List<RankStep> {
  static inline const auto fields = std::tuple{field("key", &RankStep::key, Required),
                                               field("name", &RankStep::name),
                                               field("start_ns", &RankStep::start_ns, Required),
                                               field("end_ns", &RankStep::end_ns, Required),
                                               field("partial", &RankStep::partial),
                                               field("busy_ns", &RankStep::busy_ns),
                                               field("compute_ns", &RankStep::compute_ns),
                                               field("comm_ns", &RankStep::comm_ns),
                                               field("exposed_comm_ns", &RankStep::exposed_comm_ns),
                                               field("data_wait_ns", &RankStep::data_wait_ns),
                                               field("category_ns", &RankStep::category_ns)};
};

template <>
struct List<RankProfile> {
  static inline const auto fields = std::tuple{field("rank", &RankProfile::rank, Required),
                                               field("rank_from", &RankProfile::rank_from),
                                               field("world_size", &RankProfile::world_size),
                                               field("backend", &RankProfile::backend),
                                               field("label", &RankProfile::label),
                                               field("files", &RankProfile::files),
                                               field("gpu", &RankProfile::gpu),
                                               field("vendor", &RankProfile::vendor),
                                               field("usable", &RankProfile::usable, Required),
                                               field("damage", &RankProfile::damage, Opt<ErrCodec>{}),
                                               field("step_method", &RankProfile::step_method),
                                               field("collective_metadata", &RankProfile::collective_metadata),
                                               field("epoch_base_ns", &RankProfile::epoch_base_ns),
                                               field("notes", &RankProfile::notes),
                                               field("kernel_names", &RankProfile::kernel_names),
                                               field("steps", &RankProfile::steps, Required),
                                               field("collectives", &RankProfile::collectives, Required)};
};

template <>
struct List<analysis::SummaryDevice> {
  using T = analysis::SummaryDevice;
  static inline const auto fields = std::tuple{field("id", &T::id), field("name", &T::name), field("arch", &T::arch)};
};

template <>
struct List<analysis::SummaryGroup> {
  using T = analysis::SummaryGroup;
  static inline const auto fields =
      std::tuple{field("name", &T::name), field("size", &T::size), field("collectives", &T::collectives),
                 field("bytes", &T::bytes), field("time_ns", &T::time_ns)};
};

template <>
struct List<analysis::SummaryKernel> {
  using T = analysis::SummaryKernel;
  static inline const auto fields = std::tuple{field("name", &T::name), field("category", &T::category),
                                               field("count", &T::count), field("total_ns", &T::total_ns)};
};

template <>
struct List<analysis::SummaryClock> {
  using T = analysis::SummaryClock;
  static inline const auto fields =
      std::tuple{field("domain", &T::domain), field("epoch", &T::epoch), field("epoch_base_ns", &T::epoch_base_ns),
                 field("first_ns", &T::first_ns), field("last_ns", &T::last_ns)};
};

// The first key is the schema version: the sniffer recognises a summary by it.
template <>
struct List<analysis::RankSummary> {
  using T = analysis::RankSummary;
  static inline const auto fields = std::tuple{field("goblin_rank_summary", &T::version, Required),
                                               field("source", &T::source),
                                               field("source_bytes", &T::source_bytes),
                                               field("host", &T::host),
                                               field("devices", &T::devices),
                                               field("process_groups", &T::process_groups),
                                               field("category_ns", &T::category_ns),
                                               field("top_kernels", &T::top_kernels),
                                               field("clock", &T::clock),
                                               field("collective_busbw_gbps", &T::collective_busbw_gbps),
                                               field("profile", &T::profile, Required)};
};

}  // namespace goblin::fields
