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
struct List<analysis::PreArrival> {
  static inline const auto fields = std::tuple{field("compute_ns", &analysis::PreArrival::compute_ns),
                                               field("other_gpu_ns", &analysis::PreArrival::other_gpu_ns),
                                               field("data_wait_ns", &analysis::PreArrival::data_wait_ns),
                                               field("host_gap_ns", &analysis::PreArrival::host_gap_ns)};
};

template <>
struct List<analysis::RankCollective> {
  static inline const auto fields = std::tuple{field("type", &analysis::RankCollective::type, Required),
                                               field("name", &analysis::RankCollective::name),
                                               field("group", &analysis::RankCollective::group),
                                               field("seq", &analysis::RankCollective::seq),
                                               field("bytes", &analysis::RankCollective::bytes),
                                               field("group_size", &analysis::RankCollective::group_size),
                                               field("start_ns", &analysis::RankCollective::start_ns, Required),
                                               field("end_ns", &analysis::RankCollective::end_ns, Required),
                                               field("step", &analysis::RankCollective::step),
                                               field("synchronizes", &analysis::RankCollective::synchronizes),
                                               field("before_arrival", &analysis::RankCollective::pre)};
};

template <>
struct List<analysis::RankStep> {
  static inline const auto fields = std::tuple{field("key", &analysis::RankStep::key, Required),
                                               field("name", &analysis::RankStep::name),
                                               field("start_ns", &analysis::RankStep::start_ns, Required),
                                               field("end_ns", &analysis::RankStep::end_ns, Required),
                                               field("partial", &analysis::RankStep::partial),
                                               field("busy_ns", &analysis::RankStep::busy_ns),
                                               field("compute_ns", &analysis::RankStep::compute_ns),
                                               field("comm_ns", &analysis::RankStep::comm_ns),
                                               field("exposed_comm_ns", &analysis::RankStep::exposed_comm_ns),
                                               field("data_wait_ns", &analysis::RankStep::data_wait_ns),
                                               field("category_ns", &analysis::RankStep::category_ns)};
};

template <>
struct List<analysis::RankProfile> {
  static inline const auto fields =
      std::tuple{field("rank", &analysis::RankProfile::rank, Required),
                 field("rank_from", &analysis::RankProfile::rank_from),
                 field("world_size", &analysis::RankProfile::world_size),
                 field("backend", &analysis::RankProfile::backend),
                 field("label", &analysis::RankProfile::label),
                 field("files", &analysis::RankProfile::files),
                 field("gpu", &analysis::RankProfile::gpu),
                 field("vendor", &analysis::RankProfile::vendor),
                 field("usable", &analysis::RankProfile::usable, Required),
                 field("damage", &analysis::RankProfile::damage, Opt<ErrCodec>{}),
                 field("step_method", &analysis::RankProfile::step_method),
                 field("collective_metadata", &analysis::RankProfile::collective_metadata),
                 field("epoch_base_ns", &analysis::RankProfile::epoch_base_ns),
                 field("notes", &analysis::RankProfile::notes),
                 field("kernel_names", &analysis::RankProfile::kernel_names),
                 field("steps", &analysis::RankProfile::steps, Required),
                 field("collectives", &analysis::RankProfile::collectives, Required)};
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
