// goblin summarize: trace → rank summary, one rank at a time. docs/scale.md.
#include "analysis/summarize.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "analysis/group_summary.h"
#include "analysis/knowledge.h"
#include "analysis/rank_summary.h"
#include "analysis/ranks_scale.h"
#include "core/data.h"

namespace goblin::analysis {

namespace fs = std::filesystem;

namespace {

// rank<R>.summary.json.gz when the rank is known (goblin ranks takes the rank from the content; the
// name is for people and for the rank-in-file-name fallback), else the trace's name.
std::string summary_name(const RankProfile& p, const std::string& source) {
  if (p.rank >= 0) return fmt::format("rank{}.summary.json.gz", p.rank);
  std::string stem = fs::path(source).filename().string();
  for (const char* ext : {".gz", ".json", ".sqlite", ".csv"})
    if (stem.size() > std::string_view(ext).size() && stem.ends_with(ext))
      stem.resize(stem.size() - std::string_view(ext).size());
  return stem + ".summary.json.gz";
}

}  // namespace

Result<std::shared_ptr<const AnalysisKnowledge>> summarize_knowledge() {
  static DataDirCache<AnalysisKnowledge> cache;
  return cache.get([]() -> Result<AnalysisKnowledge> {
    AnalysisKnowledge k;
    ASSIGN_OR_RETURN(k.taxonomy, Taxonomy::load());
    ASSIGN_OR_RETURN(k.collectives, CollectiveKnowledge::load());
    k.arch = hw::load_arch_names();  // the vendor's kernel markers (rank_profile)
    return k;
  });
}

Result<std::vector<SummarizedRank>> summarize_ranks(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                                    const SummarizeOptions& opt) {
  if (opt.out_dir.empty()) return make_error(ErrorKind::Usage, "summarize needs an output directory (-o DIR)");
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(auto inputs, enumerate_ranks(paths, &notes, opt.discovery));
  for (const RankInput& in : inputs)
    for (const std::string& f : in.files) {
      if (is_rank_summary_file(f))
        return make_error(ErrorKind::Usage, "already a rank summary: summarize reads traces", f);
      if (is_group_summary_file(f))
        return make_error(ErrorKind::Usage, "a group summary: summarize reads traces (--merge folds summaries)", f);
    }
  std::error_code ec;
  fs::create_directories(opt.out_dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the output directory: " + ec.message(), opt.out_dir);
  std::vector<SummarizedRank> out;
  std::set<std::string> written;
  for (const RankInput& in : inputs) {
    RankSummary s;
    s.profile = read_rank(in, k, [&](const Timeline& tl, const GpuOpNames& names) {
                  fill_summary_extras(s, tl, names);
                }).profile;
    fill_summary_groups(s);
    fill_summary_busbw(s, k.collectives);
    s.source = in.label;
    s.host = opt.host;
    for (const std::string& f : in.files) {
      const auto n = fs::file_size(f, ec);
      if (!ec) s.source_bytes += static_cast<int64_t>(n);
    }
    SummarizedRank r;
    r.source = in.label;
    r.rank = s.profile.rank;
    r.rank_from = s.profile.rank_from;
    r.source_bytes = s.source_bytes;
    r.steps = s.profile.steps.size();
    r.collectives = s.profile.collectives.size();
    r.usable = s.profile.usable;
    r.damage = s.profile.damage;
    r.summary = (fs::path(opt.out_dir) / summary_name(s.profile, in.label)).string();
    if (!written.insert(r.summary).second)
      return make_error(ErrorKind::Usage,
                        fmt::format("two inputs would write {} (the same rank given twice?)", r.summary), in.label);
    ASSIGN_OR_RETURN(r.summary_bytes, write_rank_summary_file(s, r.summary));
    out.push_back(std::move(r));
  }
  return out;
}

Result<MergedGroup> merge_summaries(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                    const SummarizeOptions& opt) {
  if (opt.out_dir.empty()) return make_error(ErrorKind::Usage, "summarize --merge needs an output directory (-o DIR)");
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(auto inputs, enumerate_ranks(paths, &notes, opt.discovery));
  for (const RankInput& in : inputs)
    if (in.files.size() != 1 || (!is_rank_summary_file(in.files.front()) && !is_group_summary_file(in.files.front())))
      return make_error(ErrorKind::Usage,
                        "not a goblin summary: summarize --merge folds rank summaries (goblin summarize TRACE "
                        "writes them) or group summaries",
                        in.label);
  GroupSummary g;
  MergedGroup m;
  std::error_code ec;
  for (const RankInput& in : inputs) {
    const std::string& f = in.files.front();
    g.inputs.push_back(in.label);
    const auto n = fs::file_size(f, ec);
    if (!ec) m.input_bytes += static_cast<int64_t>(n);
    if (is_group_summary_file(f)) {
      ASSIGN_OR_RETURN(auto sub, read_group_summary_file(f));
      for (ReadRank& r : group_ranks(std::move(sub))) add_group_rank(g, std::move(r));
      continue;
    }
    ReadRank r = read_rank(in, k);  // a summary: read as goblin ranks reads it, damage kept
    add_group_rank(g, std::move(r));
  }
  int64_t lo = -1, hi = -1;
  for (const GroupRank& r : g.ranks) {
    m.ranks.push_back(r.profile.rank);
    if (r.profile.damage && !r.profile.usable) ++m.damaged;
    if (r.profile.rank < 0) continue;
    lo = lo < 0 ? r.profile.rank : std::min(lo, r.profile.rank);
    hi = std::max(hi, r.profile.rank);
  }
  fs::create_directories(opt.out_dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the output directory: " + ec.message(), opt.out_dir);
  m.inputs = inputs.size();
  m.written = (fs::path(opt.out_dir) / (lo >= 0 ? fmt::format("ranks{}-{}.group.json.gz", lo, hi)
                                                : std::string("ranks-unnumbered.group.json.gz")))
                  .string();
  ASSIGN_OR_RETURN(m.group_bytes, write_group_summary_file(g, m.written));
  return m;
}

Json merged_json(const MergedGroup& g, const std::string& out_dir) {
  int64_t lo = -1, hi = -1;
  for (int64_t r : g.ranks)
    if (r >= 0) lo = lo < 0 ? r : std::min(lo, r), hi = std::max(hi, r);
  return Json{{"out_dir", out_dir},
              {"group",
               {{"written", g.written},
                {"inputs", g.inputs},
                {"ranks", g.ranks.size()},
                {"rank_min", lo},
                {"rank_max", hi},
                {"damaged", g.damaged},
                {"input_bytes", g.input_bytes},
                {"group_bytes", g.group_bytes}}}};
}

std::string merged_human(const MergedGroup& g) {
  return fmt::format("{} rank{} from {} summar{} -> {} ({} bytes, from {} bytes){}\n", g.ranks.size(),
                     g.ranks.size() == 1 ? "" : "s", g.inputs, g.inputs == 1 ? "y" : "ies", g.written, g.group_bytes,
                     g.input_bytes, g.damaged ? fmt::format("; {} damaged", g.damaged) : std::string());
}

Json summarized_json(const std::vector<SummarizedRank>& ranks, const std::string& out_dir) {
  Json a = Json::array();
  for (const SummarizedRank& r : ranks)
    a.push_back(Json{{"rank", r.rank},
                     {"rank_from", r.rank_from},
                     {"source", r.source},
                     {"written", r.summary},
                     {"source_bytes", r.source_bytes},
                     {"summary_bytes", r.summary_bytes},
                     {"size_pct", r.source_bytes > 0 ? round_to(100.0 * static_cast<double>(r.summary_bytes) /
                                                                    static_cast<double>(r.source_bytes),
                                                                3)
                                                     : 0.0},
                     {"steps", r.steps},
                     {"collectives", r.collectives},
                     {"usable", r.usable},
                     {"damage", r.damage ? error_to_json(*r.damage) : Json(nullptr)}});
  return Json{{"out_dir", out_dir}, {"summaries", std::move(a)}};
}

std::string summarized_human(const std::vector<SummarizedRank>& ranks, const std::string& out_dir) {
  std::string s = fmt::format("{} rank summar{} in {}\n", ranks.size(), ranks.size() == 1 ? "y" : "ies", out_dir);
  for (const SummarizedRank& r : ranks) {
    const double pct =
        r.source_bytes > 0 ? 100.0 * static_cast<double>(r.summary_bytes) / static_cast<double>(r.source_bytes) : 0.0;
    fmt::format_to(std::back_inserter(s),
                   "  rank {:>5}  {} -> {}  ({} steps, {} collectives, {:.2f}% of the trace){}\n", r.rank, r.source,
                   fs::path(r.summary).filename().string(), r.steps, r.collectives, pct,
                   r.damage ? "  damaged: " + r.damage->describe() : std::string());
  }
  return s;
}

}  // namespace goblin::analysis
