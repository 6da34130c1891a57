// corpus: repo:tests/scale/summaries
// libFuzzer target for the rank summary reader (goblin summarize's output, read by goblin ranks)
// and the group summary reader (summarize --merge): the input is the summary's JSON text. A
// summary that reads must write back to the same document and read again (the field lists are one
// declaration), and two ranks made of it (a group: its ranks) must go through the whole
// cross-rank analysis. Errors are expected; crashes, hangs, sanitizer reports and an
// abort below are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analysis/group_summary.h"
#include "analysis/knowledge.h"
#include "analysis/rank_summary.h"
#include "analysis/ranks.h"
#include "trace/summary_sniff.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto k = goblin::analysis::analysis_knowledge();
  if (!k.ok()) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (goblin::trace::sniff_group_summary(text)) {
    auto g = goblin::analysis::parse_group_summary(text, "fuzz.json");
    if (!g.ok()) return 0;
    const goblin::Json j = goblin::analysis::group_summary_json(*g);
    auto back = goblin::analysis::group_summary_from_json(j, "fuzz.json");
    if (!back.ok() || goblin::analysis::group_summary_json(*back) != j) std::abort();
    std::vector<goblin::analysis::RankProfile> ranks;
    for (auto& r : goblin::analysis::group_ranks(std::move(*g))) ranks.push_back(std::move(r.profile));
    (void)goblin::analysis::analyse_rank_profiles(std::move(ranks), (*k)->collectives, {});
    return 0;
  }
  auto s = goblin::analysis::parse_rank_summary(text, "fuzz.json");
  if (!s.ok()) return 0;
  const goblin::Json j = goblin::analysis::rank_summary_json(*s);
  auto back = goblin::analysis::rank_summary_from_json(j, "fuzz.json");
  if (!back.ok() || goblin::analysis::rank_summary_json(*back) != j) std::abort();
  (void)j.dump(-1, ' ', false, goblin::Json::error_handler_t::replace);
  std::vector<goblin::analysis::RankProfile> two{s->profile, s->profile};
  two[0].rank = 0;
  two[1].rank = 1;
  two[0].usable = two[1].usable = true;
  (void)goblin::analysis::analyse_rank_profiles(std::move(two), (*k)->collectives, {});
  return 0;
}
