// The rank summary: its fields declared once (the field lists below write and read it), the
// extras taken from a rank's Timeline, and the file's gzip'd form. docs/scale.md.
#include "analysis/rank_summary.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "analysis/kernel_table.h"
#include "core/atomic_file.h"
#include "core/fields.h"
#include "core/io.h"
#include "trace/summary_sniff.h"

// ---- the field lists ------------------------------------------------------------------------

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

namespace goblin::analysis {

void fill_summary_extras(RankSummary& s, const Timeline& tl, const Taxonomy& tax) {
  for (const auto& d : tl.meta.devices) s.devices.push_back({d.id, d.name, d.arch});
  // Kernel time by category and the top kernels (by canonical name).
  std::unordered_map<StrId, std::pair<std::string, std::string>> names;  // id → (canonical, category)
  std::map<std::string, SummaryKernel> kernels;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    const int64_t d = tl.gpu_ops.end_ns(i) - tl.gpu_ops.start_ns[i];
    const GpuOpKind k = tl.gpu_ops.kind[i];
    if (k != GpuOpKind::Kernel) {
      s.category_ns[k == GpuOpKind::Memcpy ? "memcpy" : "memset"] += d;
      continue;
    }
    auto it = names.find(tl.gpu_ops.name[i]);
    if (it == names.end()) {
      const std::string_view n = tl.str(tl.gpu_ops.name[i]);
      it = names.emplace(tl.gpu_ops.name[i], std::pair{canonical_kernel_name(n), tax.classify(n).category}).first;
    }
    s.category_ns[it->second.second] += d;
    SummaryKernel& sk = kernels[it->second.first];
    sk.count += 1;
    sk.total_ns += d;
    sk.category = it->second.second;
  }
  std::vector<SummaryKernel> all;
  all.reserve(kernels.size());
  for (auto& [n, k] : kernels) {
    k.name = n;
    all.push_back(std::move(k));
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const SummaryKernel& a, const SummaryKernel& b) { return a.total_ns > b.total_ns; });
  if (all.size() > kTopKernels) all.resize(kTopKernels);
  s.top_kernels = std::move(all);
  s.clock.domain = clock_domain_name(tl.meta.trace_clock);
  s.clock.epoch = tl.meta.clock_is_epoch;
  s.clock.epoch_base_ns = tl.meta.clock_base_ns;
  const auto [first, last] = tl.gpu_span();
  s.clock.first_ns = first;
  s.clock.last_ns = last;
}

void fill_summary_busbw(RankSummary& s, const CollectiveKnowledge& ck) {
  s.collective_busbw_gbps.clear();
  for (const RankCollective& c : s.profile.collectives) {
    std::optional<double> bw;
    const CollectiveKnowledge::Type* t = nullptr;
    for (const auto& x : ck.types)
      if (x.type == c.type) t = &x;
    if (t && c.bytes != kNone && c.end_ns > c.start_ns)
      if (auto f = CollectiveKnowledge::factor(t->busbw_factor, c.group_size))
        bw = round_to(static_cast<double>(c.bytes) / static_cast<double>(c.end_ns - c.start_ns) * *f, 3);
    s.collective_busbw_gbps.push_back(bw);
  }
}

void fill_summary_groups(RankSummary& s) {
  std::map<std::string, SummaryGroup> groups;
  for (const RankCollective& c : s.profile.collectives) {
    SummaryGroup& g = groups[c.group];
    g.name = c.group;
    if (c.group_size != kNone) g.size = c.group_size;
    g.collectives += 1;
    if (c.bytes != kNone) g.bytes += c.bytes;
    g.time_ns += c.end_ns - c.start_ns;
  }
  s.process_groups.clear();
  for (auto& [n, g] : groups) s.process_groups.push_back(std::move(g));
}

Json rank_summary_json(const RankSummary& s) { return fields::to_json(s); }

Result<RankSummary> rank_summary_from_json(const Json& j, const std::string& file) {
  if (!j.is_object() || !j.contains("goblin_rank_summary"))
    return make_error(ErrorKind::Malformed, "not a goblin rank summary (no goblin_rank_summary key)", file);
  const Json& v = j["goblin_rank_summary"];
  if (!v.is_number_integer() || v.get<int64_t>() != kRankSummaryVersion)
    return make_error(ErrorKind::Malformed,
                      fmt::format("rank summary schema version {} is not one this goblin reads (it reads {}): "
                                  "summarize the trace again with this goblin",
                                  v.dump(), kRankSummaryVersion),
                      file);
  auto r = fields::from_json<RankSummary>(j, "rank summary");
  if (!r.ok()) {
    Error e = r.error();
    e.file = file;
    return e;
  }
  // What goblin ranks relies on: steps in time order with ends after starts, collectives whose
  // step index points at a step. A hand-edited or damaged summary is refused, not analysed.
  const RankProfile& p = r->profile;
  // goblin ranks lists the missing ranks below the world size: a number no job has is refused.
  if (p.world_size != kNone && (p.world_size < 1 || p.world_size > kMaxRanks))
    return make_error(ErrorKind::Malformed,
                      fmt::format("rank summary: world_size {} is beyond {} ranks", p.world_size, kMaxRanks), file);
  if (p.rank < -1 || p.rank >= kMaxRanks)
    return make_error(ErrorKind::Malformed, fmt::format("rank summary: rank {} is beyond {} ranks", p.rank, kMaxRanks),
                      file);
  for (size_t i = 0; i < p.steps.size(); ++i)
    if (p.steps[i].end_ns < p.steps[i].start_ns || (i > 0 && p.steps[i].start_ns < p.steps[i - 1].start_ns))
      return make_error(ErrorKind::Malformed, fmt::format("rank summary: steps[{}] is out of order", i), file);
  for (size_t i = 0; i < p.collectives.size(); ++i) {
    const RankCollective& c = p.collectives[i];
    if (c.end_ns < c.start_ns || c.step < -1 || c.step >= static_cast<int64_t>(p.steps.size()) ||
        (i > 0 && c.start_ns < p.collectives[i - 1].start_ns))
      return make_error(ErrorKind::Malformed, fmt::format("rank summary: collectives[{}] is inconsistent", i), file);
  }
  if (!std::is_sorted(p.kernel_names.begin(), p.kernel_names.end()))
    return make_error(ErrorKind::Malformed, "rank summary: kernel_names are not sorted", file);
  return r;
}

Result<RankSummary> parse_rank_summary(const std::string& text, const std::string& file) {
  ASSIGN_OR_RETURN(auto j, parse_json_text(text, file, "rank summary is not valid JSON"));
  return rank_summary_from_json(j, file);
}

Result<RankSummary> read_rank_summary_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxJsonInputBytes}));
  return parse_rank_summary(text, path);
}

Result<int64_t> write_rank_summary_file(const RankSummary& s, const std::string& path) {
  const std::string text = rank_summary_json(s).dump();
  ASSIGN_OR_RETURN(auto file, AtomicFile::create(path));
  gzFile gz = gzdopen(::dup(file.fd()), "wb9");
  if (!gz) return make_error(ErrorKind::Io, "cannot start the gzip stream", path);
  bool ok = true;
  for (size_t at = 0; ok && at < text.size();) {
    const size_t n = std::min<size_t>(text.size() - at, 1u << 20);
    ok = gzwrite(gz, text.data() + at, static_cast<unsigned>(n)) == static_cast<int>(n);
    at += n;
  }
  ok = gzclose(gz) == Z_OK && ok;
  if (!ok) return make_error(ErrorKind::Io, "writing the summary failed", path);
  RETURN_IF_ERROR(file.commit());
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? int64_t{0} : static_cast<int64_t>(n);
}

bool is_rank_summary_file(const std::string& path) {
  auto prefix = read_prefix(path, 256);
  return prefix.ok() && trace::sniff_rank_summary(*prefix);
}

}  // namespace goblin::analysis
