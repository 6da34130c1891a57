// The rank summary: its fields declared once (rank_summary_fields.h: the field lists write and
// read it), the extras taken from a rank's Timeline, and the file's gzip'd form. docs/scale.md.
#include "analysis/rank_summary.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>

#include "analysis/rank_summary_fields.h"
#include "core/atomic_file.h"
#include "core/io.h"
#include "core/limits.h"
#include "trace/summary_sniff.h"

namespace goblin::analysis {

void fill_summary_extras(RankSummary& s, const Timeline& tl, const GpuOpNames& names) {
  for (const auto& d : tl.meta.devices) s.devices.push_back({d.id, d.name, d.arch});
  // Count and time per distinct kernel name (its slot), memcpy and memset rows apart.
  std::vector<int64_t> count(names.names.size(), 0), total(names.names.size(), 0);
  std::vector<size_t> last_row(names.names.size(), 0);  // the name's last row
  int64_t copy_n = 0, copy_ns = 0, set_n = 0, set_ns = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    const int64_t d = tl.gpu_ops.end_ns(i) - tl.gpu_ops.start_ns[i];
    switch (tl.gpu_ops.kind[i]) {
      case GpuOpKind::Kernel: {
        const uint32_t k = names.slot[tl.gpu_ops.name[i]];
        count[k] += 1;
        total[k] += d;
        last_row[k] = i;
        break;
      }
      case GpuOpKind::Memcpy:
        copy_n += 1, copy_ns += d;
        break;
      default:
        set_n += 1, set_ns += d;
    }
  }
  // A category is listed when any op of it ran (even for 0 ns).
  if (copy_n > 0) s.category_ns["memcpy"] += copy_ns;
  if (set_n > 0) s.category_ns["memset"] += set_ns;
  // By canonical name (several raw names can share one); its category is that of the raw name
  // whose op came last, as a row-by-row pass would leave it.
  std::map<std::string, std::pair<SummaryKernel, size_t>> kernels;
  for (size_t k = 0; k < names.names.size(); ++k) {
    if (count[k] == 0) continue;
    const std::string& cat = names.categories[names.names[k].cat];
    s.category_ns[cat] += total[k];
    auto& [sk, at] = kernels[names.names[k].canonical];
    sk.count += count[k];
    sk.total_ns += total[k];
    if (sk.category.empty() || last_row[k] >= at) sk.category = cat, at = last_row[k];
  }
  std::vector<SummaryKernel> all;
  all.reserve(kernels.size());
  for (auto& [n, k] : kernels) {
    k.first.name = n;
    all.push_back(std::move(k.first));
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
  RETURN_IF_ERROR(check_summary_profile(r->profile, "rank summary", file));
  return r;
}

Status check_summary_profile(const RankProfile& p, std::string_view what, const std::string& file) {
  // What goblin ranks relies on: steps in time order with ends after starts, collectives whose
  // step index points at a step. A hand-edited or damaged summary is refused, not analysed.
  // goblin ranks lists the missing ranks below the world size: a number no job has is refused.
  if (p.world_size != kNone && (p.world_size < 1 || p.world_size > limits::kMaxRanks))
    return make_error(ErrorKind::Malformed,
                      fmt::format("{}: world_size {} is beyond {} ranks", what, p.world_size, limits::kMaxRanks), file);
  if (p.rank < -1 || p.rank >= limits::kMaxRanks)
    return make_error(ErrorKind::Malformed,
                      fmt::format("{}: rank {} is beyond {} ranks", what, p.rank, limits::kMaxRanks), file);
  for (size_t i = 0; i < p.steps.size(); ++i)
    if (p.steps[i].end_ns < p.steps[i].start_ns || (i > 0 && p.steps[i].start_ns < p.steps[i - 1].start_ns))
      return make_error(ErrorKind::Malformed, fmt::format("{}: steps[{}] is out of order", what, i), file);
  for (size_t i = 0; i < p.collectives.size(); ++i) {
    const RankCollective& c = p.collectives[i];
    if (c.end_ns < c.start_ns || c.step < -1 || c.step >= static_cast<int64_t>(p.steps.size()) ||
        (i > 0 && c.start_ns < p.collectives[i - 1].start_ns))
      return make_error(ErrorKind::Malformed, fmt::format("{}: collectives[{}] is inconsistent", what, i), file);
  }
  if (!std::is_sorted(p.kernel_names.begin(), p.kernel_names.end()))
    return make_error(ErrorKind::Malformed, fmt::format("{}: kernel_names are not sorted", what), file);
  return Status::Ok();
}

Result<RankSummary> parse_rank_summary(const std::string& text, const std::string& file) {
  ASSIGN_OR_RETURN(auto j, parse_json_text(text, file, "rank summary is not valid JSON"));
  return rank_summary_from_json(j, file);
}

Result<RankSummary> read_rank_summary_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxJsonInputBytes}));
  return parse_rank_summary(text, path);
}

Result<int64_t> write_gzip_json_file(const std::string& text, const std::string& path) {
  ASSIGN_OR_RETURN(auto file, AtomicFile::create(path));
  // Level 1: the map writes one summary per rank and should run at goblin's ingest rate. On the
  // 64-step bench rank (372 KB of JSON) level 9 took 6.3 ms for 25.2 KB, level 1 1.0 ms for
  // 34.9 KB: still 0.012 % of the trace (docs/scale.md § Figures).
  gzFile gz = gzdopen(::dup(file.fd()), "wb1");
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

Result<int64_t> write_rank_summary_file(const RankSummary& s, const std::string& path) {
  return write_gzip_json_file(rank_summary_json(s).dump(), path);
}

bool is_rank_summary_file(const std::string& path) {
  auto prefix = read_prefix(path, 256);
  return prefix.ok() && trace::sniff_rank_summary(*prefix);
}

}  // namespace goblin::analysis
