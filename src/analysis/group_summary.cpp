// The group summary: its fields (declared once below; the rank's profile by the rank summary's
// field lists), folding ranks in and out, and its gzip'd file. docs/scale.md § Two-level reduce.
#include "analysis/group_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/rank_summary.h"
#include "analysis/rank_summary_fields.h"
#include "core/io.h"
#include "core/limits.h"
#include "trace/summary_sniff.h"

namespace goblin::fields {

template <>
struct List<analysis::GroupRank> {
  using T = analysis::GroupRank;
  static inline const auto fields = std::tuple{field("host", &T::host), field("kernel_names", &T::kernel_names),
                                               field("profile", &T::profile, Required)};
};

// The first key is the schema version: the sniffer recognises a group summary by it.
template <>
struct List<analysis::GroupSummary> {
  using T = analysis::GroupSummary;
  static inline const auto fields =
      std::tuple{field("goblin_group_summary", &T::version, Required), field("inputs", &T::inputs),
                 field("kernel_name_sets", &T::kernel_name_sets), field("ranks", &T::ranks, Required)};
};

}  // namespace goblin::fields

namespace goblin::analysis {

void add_group_rank(GroupSummary& g, ReadRank r) {
  GroupRank gr;
  gr.host = std::move(r.host);
  std::vector<std::string> names = std::move(r.profile.kernel_names);
  r.profile.kernel_names.clear();
  gr.profile = std::move(r.profile);
  if (!names.empty()) {
    // Ranks of one job share one list: a linear search over the few distinct lists a group has.
    auto it = std::find(g.kernel_name_sets.begin(), g.kernel_name_sets.end(), names);
    if (it == g.kernel_name_sets.end()) it = g.kernel_name_sets.insert(it, std::move(names));
    gr.kernel_names = it - g.kernel_name_sets.begin();
  }
  g.ranks.push_back(std::move(gr));
}

std::vector<ReadRank> group_ranks(GroupSummary g) {
  std::vector<ReadRank> out;
  out.reserve(g.ranks.size());
  for (GroupRank& r : g.ranks) {
    ReadRank rr{std::move(r.profile), std::move(r.host)};
    if (r.kernel_names >= 0) rr.profile.kernel_names = g.kernel_name_sets[static_cast<size_t>(r.kernel_names)];
    out.push_back(std::move(rr));
  }
  return out;
}

Json group_summary_json(const GroupSummary& g) { return fields::to_json(g); }

Result<GroupSummary> group_summary_from_json(const Json& j, const std::string& file) {
  if (!j.is_object() || !j.contains("goblin_group_summary"))
    return make_error(ErrorKind::Malformed, "not a goblin group summary (no goblin_group_summary key)", file);
  const Json& v = j["goblin_group_summary"];
  if (!v.is_number_integer() || v.get<int64_t>() != kGroupSummaryVersion)
    return make_error(ErrorKind::Malformed,
                      fmt::format("group summary schema version {} is not one this goblin reads (it reads {}): "
                                  "merge the rank summaries again with this goblin",
                                  v.dump(), kGroupSummaryVersion),
                      file);
  auto r = fields::from_json<GroupSummary>(j, "group summary");
  if (!r.ok()) {
    Error e = r.error();
    e.file = file;
    return e;
  }
  if (static_cast<int64_t>(r->ranks.size()) > limits::kMaxRanks)
    return make_error(ErrorKind::Malformed,
                      fmt::format("group summary: {} ranks is beyond {}", r->ranks.size(), limits::kMaxRanks), file);
  for (size_t s = 0; s < r->kernel_name_sets.size(); ++s)
    if (!std::is_sorted(r->kernel_name_sets[s].begin(), r->kernel_name_sets[s].end()))
      return make_error(ErrorKind::Malformed, fmt::format("group summary: kernel_name_sets[{}] is not sorted", s),
                        file);
  for (size_t i = 0; i < r->ranks.size(); ++i) {
    const GroupRank& g = r->ranks[i];
    if (g.kernel_names < -1 || g.kernel_names >= static_cast<int64_t>(r->kernel_name_sets.size()))
      return make_error(
          ErrorKind::Malformed,
          fmt::format("group summary: ranks[{}].kernel_names {} names no kernel_name_sets entry", i, g.kernel_names),
          file);
    RETURN_IF_ERROR(check_summary_profile(g.profile, fmt::format("group summary: ranks[{}]", i), file));
  }
  return r;
}

Result<GroupSummary> parse_group_summary(const std::string& text, const std::string& file) {
  ASSIGN_OR_RETURN(auto j, parse_json_text(text, file, "group summary is not valid JSON"));
  return group_summary_from_json(j, file);
}

Result<GroupSummary> read_group_summary_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxJsonInputBytes}));
  return parse_group_summary(text, path);
}

Result<int64_t> write_group_summary_file(const GroupSummary& g, const std::string& path) {
  return write_gzip_json_file(group_summary_json(g).dump(), path);
}

bool is_group_summary_file(const std::string& path) {
  auto prefix = read_prefix(path, 256);
  return prefix.ok() && trace::sniff_group_summary(*prefix);
}

}  // namespace goblin::analysis
