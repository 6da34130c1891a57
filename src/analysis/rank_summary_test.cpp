// Rank summaries (goblin summarize; docs/scale.md): goblin ranks gives the same result from the
// summaries as from the real 2-rank H200 DDP traces they were made from (every recorded scenario),
// from a mix of the two, and refuses damaged or foreign summaries with an error naming the field.
#include "analysis/rank_summary.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "analysis/group_summary.h"
#include "analysis/knowledge.h"
#include "analysis/ranks.h"
#include "analysis/ranks_scale.h"
#include "analysis/summarize.h"
#include "core/io.h"
#include "core/test_support.h"
#include "trace/readers.h"
#include "trace/summary_sniff.h"

using namespace goblin;
namespace fs = std::filesystem;

namespace {

const std::string kDdp = std::string(GOBLIN_SOURCE_DIR) + "/examples/ddp_h200/";

// Without a host (a trace does not name one), so the results from summaries and traces can be
// compared whole.
std::vector<analysis::SummarizedRank> summarize(const std::vector<std::string>& paths, const fs::path& out,
                                                const std::string& host = "") {
  auto k = analysis::analysis_knowledge();
  EXPECT_TRUE(k.ok());
  analysis::SummarizeOptions o;
  o.out_dir = out.string();
  o.host = host;
  auto r = analysis::summarize_ranks(paths, **k, o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
  return r.ok() ? *r : std::vector<analysis::SummarizedRank>{};
}

analysis::RanksResult ranks(const std::vector<std::string>& paths) {
  auto r = analysis::analyse_ranks(paths);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
  return r.ok() ? *r : analysis::RanksResult{};
}

}  // namespace

TEST(RankSummary, RanksFromSummariesEqualsRanksFromTraces) {
  for (const char* folder : {"straggler_data", "straggler_sleep", "straggler_gpu", "balanced", "balanced_gpu"}) {
    SCOPED_TRACE(folder);
    const fs::path out = goblin::testing::private_tmp_dir(std::string("sum_") + folder);
    auto written = summarize({kDdp + folder}, out);
    ASSERT_EQ(written.size(), 2u);
    for (const auto& w : written) {
      EXPECT_TRUE(w.usable);
      EXPECT_TRUE(fs::path(w.summary).filename().string().starts_with("rank"));
      // The summary is at most 1 % of the (gzip'd) trace it was made from.
      EXPECT_LE(w.summary_bytes * 100, w.source_bytes)
          << w.summary << ": " << w.summary_bytes << " of " << w.source_bytes;
    }
    const analysis::RanksResult a = ranks({kDdp + folder});
    const analysis::RanksResult b = ranks({out.string()});
    EXPECT_EQ(a.result.dump(), b.result.dump());
    EXPECT_EQ(a.human, b.human);
    // A mix: rank 0 from its trace, rank 1 from its summary.
    const analysis::RanksResult c =
        ranks({kDdp + folder + "/rank0.pt.trace.json.gz", (out / "rank1.summary.json.gz").string()});
    EXPECT_EQ(a.result.dump(), c.result.dump());
  }
}

TEST(RankSummary, HoldsTheRankAndItsExtras) {
  const fs::path out = goblin::testing::private_tmp_dir("sum_extras");
  summarize({kDdp + "straggler_data/rank1.pt.trace.json.gz"}, out, "node-a");
  auto s = analysis::read_rank_summary_file((out / "rank1.summary.json.gz").string());
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->version, analysis::kRankSummaryVersion);
  EXPECT_EQ(s->profile.rank, 1);
  EXPECT_EQ(s->profile.rank_from, "distributedInfo");
  EXPECT_EQ(s->host, "node-a");
  ASSERT_FALSE(s->devices.empty());
  EXPECT_NE(s->devices.front().name.find("H200"), std::string::npos);
  ASSERT_FALSE(s->process_groups.empty());
  EXPECT_GT(s->process_groups.front().collectives, 0);
  EXPECT_GT(s->category_ns["communication"], 0);
  EXPECT_FALSE(s->top_kernels.empty());
  EXPECT_LE(s->top_kernels.size(), analysis::kTopKernels);
  EXPECT_TRUE(s->clock.epoch);
  bool busbw = false;
  ASSERT_EQ(s->collective_busbw_gbps.size(), s->profile.collectives.size());
  for (const auto& b : s->collective_busbw_gbps) busbw = busbw || (b && *b > 0);
  EXPECT_TRUE(busbw);
  // Written and read back: the same document.
  const Json j = analysis::rank_summary_json(*s);
  auto back = analysis::rank_summary_from_json(j, "x");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(analysis::rank_summary_json(*back).dump(), j.dump());
}

TEST(RankSummary, SniffedByContentAndRefusedByTraceVerbs) {
  const fs::path out = goblin::testing::private_tmp_dir("sum_sniff");
  summarize({kDdp + "straggler_sleep/rank0.pt.trace.json.gz"}, out);
  const std::string p = (out / "rank0.summary.json.gz").string();
  auto prefix = read_prefix(p, 4096);
  ASSERT_TRUE(prefix.ok());
  EXPECT_TRUE(trace::sniff_rank_summary(*prefix));
  EXPECT_EQ(trace::sniff_format(*prefix, p), Format::Unknown);  // not a trace format
  Timeline tl;
  Status st = trace::read_path(p, tl);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::Usage);
  EXPECT_NE(st.error().message.find("only goblin ranks reads it"), std::string::npos);
  // Summarizing a summary is refused.
  auto k = analysis::analysis_knowledge();
  analysis::SummarizeOptions o;
  o.out_dir = (out / "again").string();
  auto again = analysis::summarize_ranks({p}, **k, o);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, ErrorKind::Usage);
}

TEST(RankSummary, DamagedSummariesAreRefusedNamingTheField) {
  const fs::path out = goblin::testing::private_tmp_dir("sum_bad");
  summarize({kDdp + "straggler_sleep/rank0.pt.trace.json.gz"}, out);
  auto text = read_all((out / "rank0.summary.json.gz").string());
  ASSERT_TRUE(text.ok());
  Json j = Json::parse(*text);
  auto refused = [](const Json& doc, const std::string& needle) {
    auto r = analysis::rank_summary_from_json(doc, "s.json");
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().file, "s.json");
  };
  Json v2 = j;
  v2["goblin_rank_summary"] = 2;
  refused(v2, "schema version 2");
  Json wrong = j;
  wrong["profile"]["collectives"][0]["seq"] = "three";
  refused(wrong, "profile.collectives[0].seq: expected integer");
  Json step = j;
  step["profile"]["collectives"][0]["step"] = 99;
  refused(step, "collectives[0] is inconsistent");
  Json missing = j;
  missing["profile"].erase("steps");
  refused(missing, "profile.steps");
  auto trunc = analysis::parse_rank_summary(j.dump().substr(0, 500), "t.json");
  ASSERT_FALSE(trunc.ok());
  EXPECT_EQ(trunc.error().kind, ErrorKind::Malformed);
  // goblin ranks reports a damaged summary as a damaged rank (the file named), not a crash.
  const std::string bad = (out / "rank1.summary.json").string();
  Json b = j;
  b["profile"]["rank"] = 1;
  b["profile"]["steps"] = "none";
  ASSERT_TRUE(write_file(bad, b.dump()).ok());
  auto r = analysis::analyse_ranks({(out / "rank0.summary.json.gz").string(), bad});
  ASSERT_FALSE(r.ok());  // fewer than two usable ranks
  EXPECT_NE(r.error().describe().find("rank1.summary.json"), std::string::npos) << r.error().describe();
}

TEST(RankSummary, HostsGiveTheNodeView) {
  // Two summaries of the straggler_data ranks, each on its own host: rank 1's host carries the
  // lateness, from its one rank: the straggler is named, the node is not.
  const fs::path a = goblin::testing::private_tmp_dir("sum_host_a");
  summarize({kDdp + "straggler_data/rank0.pt.trace.json.gz"}, a, "node-a");
  summarize({kDdp + "straggler_data/rank1.pt.trace.json.gz"}, a, "node-b");
  const analysis::RanksResult r = ranks({a.string()});
  const Json& t = r.result["topology"];
  ASSERT_EQ(t["nodes"].size(), 2u) << t.dump(2);
  EXPECT_EQ(t["nodes"][1]["host"], "node-b");
  EXPECT_GT(t["nodes"][1]["late_share"].get<double>(), 0.6);
  EXPECT_TRUE(t["slow_node"]["named"].get<bool>()) << t.dump(2);  // one rank per host: the node is the rank
  EXPECT_EQ(r.result["ranks"][1]["host"], "node-b");
  ASSERT_EQ(t["comm_matrix"].size(), 1u);
  const Json& g = t["comm_matrix"][0];
  EXPECT_EQ(g["links"].size(), 1u);  // two ranks: one link
  EXPECT_TRUE(g["links"][0]["crosses_hosts"].get<bool>());
  EXPECT_GT(g["busbw_gbps"].get<double>(), 0);
}

TEST(RankSummary, RankPatternAndGlob) {
  const fs::path d = goblin::testing::private_tmp_dir("sum_glob");
  fs::copy_file(kDdp + "straggler_sleep/rank0.pt.trace.json.gz", d / "job_node1_gpu0.json.gz");
  fs::copy_file(kDdp + "straggler_sleep/rank1.pt.trace.json.gz", d / "job_node1_gpu1.json.gz");
  std::vector<std::string> notes;
  auto in = analysis::enumerate_ranks({(d / "job_*.json.gz").string()}, &notes, {"gpu([0-9]+)"});
  ASSERT_TRUE(in.ok()) << in.error().describe();
  ASSERT_EQ(in->size(), 2u);
  EXPECT_EQ((*in)[1].rank_hint, 1);
  EXPECT_EQ(analysis::rank_from_name("job_node1_gpu7.json", "node1_gpu([0-9]+)"), 7);
  EXPECT_EQ(analysis::rank_from_name("rank12.json", ""), 12);
  auto none = analysis::enumerate_ranks({(d / "nothing_*.json").string()}, &notes, {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no file matches"), std::string::npos);
  auto bad = analysis::enumerate_ranks({d.string()}, &notes, {"gpu(["});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::Usage);
}

// ---- group summaries (summarize --merge; docs/scale.md § Two-level reduce) -------------------

namespace {

analysis::MergedGroup merge(const std::vector<std::string>& paths, const fs::path& out) {
  auto k = analysis::analysis_knowledge();
  EXPECT_TRUE(k.ok());
  analysis::SummarizeOptions o;
  o.out_dir = out.string();
  auto r = analysis::merge_summaries(paths, **k, o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
  return r.ok() ? *r : analysis::MergedGroup{};
}

}  // namespace

TEST(GroupSummary, RanksFromGroupsEqualsRanksFromRankSummaries) {
  for (const char* folder : {"straggler_data", "straggler_sleep", "straggler_gpu", "balanced", "balanced_gpu"}) {
    SCOPED_TRACE(folder);
    const fs::path out = goblin::testing::private_tmp_dir(std::string("grp_") + folder);
    summarize({kDdp + folder}, out / "s", std::string("host-") + folder);
    const auto m = merge({(out / "s").string()}, out / "g");
    EXPECT_EQ(m.ranks.size(), 2u);
    EXPECT_EQ(fs::path(m.written).filename().string(), "ranks0-1.group.json.gz");
    const analysis::RanksResult a = ranks({(out / "s").string()});
    const analysis::RanksResult b = ranks({(out / "g").string()});
    EXPECT_EQ(a.result.dump(), b.result.dump());
    EXPECT_EQ(a.human, b.human);
  }
}

TEST(GroupSummary, SixteenRanksInGroupsOfFourAndAGroupOfGroups) {
  // 16 ranks from the real straggler_data pair (rank 1 the straggler, the others copies of rank
  // 0, shifted in time): four groups of four, and those four folded again into one.
  const fs::path out = goblin::testing::private_tmp_dir("grp_16");
  summarize({kDdp + "straggler_data"}, out / "real");
  auto r0 = analysis::read_rank_summary_file((out / "real/rank0.summary.json.gz").string());
  auto r1 = analysis::read_rank_summary_file((out / "real/rank1.summary.json.gz").string());
  ASSERT_TRUE(r0.ok() && r1.ok());
  fs::create_directories(out / "s");
  for (int i = 0; i < 16; ++i) {
    analysis::RankSummary s = i == 11 ? *r1 : *r0;
    s.profile.rank = i;
    s.profile.world_size = 16;
    s.profile.label = fmt::format("rank{}.json", i);
    s.host = fmt::format("node{}", i / 8);
    for (analysis::RankCollective& c : s.profile.collectives) c.group_size = 16;
    ASSERT_TRUE(
        analysis::write_rank_summary_file(s, (out / "s" / fmt::format("rank{}.summary.json.gz", i)).string()).ok());
  }
  std::vector<std::string> groups;
  for (int g = 0; g < 4; ++g) {
    std::vector<std::string> members;
    for (int i = g * 4; i < g * 4 + 4; ++i)
      members.push_back((out / "s" / fmt::format("rank{}.summary.json.gz", i)).string());
    const auto m = merge(members, out / "g");
    EXPECT_EQ(m.ranks.size(), 4u);
    groups.push_back(m.written);
    // The ranks of one job share one kernel-name list: kept once.
    auto gs = analysis::read_group_summary_file(m.written);
    ASSERT_TRUE(gs.ok()) << gs.error().describe();
    EXPECT_EQ(gs->kernel_name_sets.size(), 1u);
  }
  const auto top = merge(groups, out / "top");
  EXPECT_EQ(top.ranks.size(), 16u);
  const analysis::RanksResult a = ranks({(out / "s").string()});
  EXPECT_EQ(a.result["straggler"]["rank"], 11) << a.result["straggler"].dump();
  EXPECT_EQ(a.result.dump(), ranks({(out / "g").string()}).result.dump());
  EXPECT_EQ(a.result.dump(), ranks({(out / "top").string()}).result.dump());
  // A mix of a group and rank summaries.
  std::vector<std::string> mix{groups[0]};
  for (int i = 4; i < 16; ++i) mix.push_back((out / "s" / fmt::format("rank{}.summary.json.gz", i)).string());
  EXPECT_EQ(a.result.dump(), ranks(mix).result.dump());
}

TEST(GroupSummary, RefusesTracesAndDamageNamingTheField) {
  const fs::path out = goblin::testing::private_tmp_dir("grp_bad");
  auto k = analysis::analysis_knowledge();
  analysis::SummarizeOptions o;
  o.out_dir = (out / "g").string();
  auto trace = analysis::merge_summaries({kDdp + "straggler_data/rank0.pt.trace.json.gz"}, **k, o);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().kind, ErrorKind::Usage);
  summarize({kDdp + "straggler_data"}, out / "s");
  const auto m = merge({(out / "s").string()}, out / "g");
  auto text = read_all(m.written);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(trace::sniff_group_summary(*text));
  Timeline tl;
  Status st = trace::read_path(m.written, tl);  // a trace verb says what it is
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::Usage);
  const Json j = Json::parse(*text);
  auto refused = [](const Json& doc, const std::string& needle) {
    auto r = analysis::group_summary_from_json(doc, "g.json");
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  };
  Json v2 = j;
  v2["goblin_group_summary"] = 2;
  refused(v2, "schema version 2");
  Json idx = j;
  idx["ranks"][1]["kernel_names"] = 7;
  refused(idx, "ranks[1].kernel_names 7");
  Json order = j;
  order["ranks"][0]["profile"]["collectives"][0]["step"] = 99;
  refused(order, "group summary: ranks[0]: collectives[0] is inconsistent");
  Json world = j;
  world["ranks"][0]["profile"]["world_size"] = int64_t{1} << 40;
  refused(world, "is beyond");
  // goblin ranks reports a damaged group as a damaged input naming the file, not a crash.
  const std::string bad = (out / "bad.group.json").string();
  ASSERT_TRUE(write_file(bad, order.dump()).ok());
  auto r = analysis::analyse_ranks({(out / "s/rank0.summary.json.gz").string(), bad});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().describe().find("bad.group.json"), std::string::npos) << r.error().describe();
}

TEST(GroupSummary, TheReduceKeepsOneKernelNameListPerJobWithTheSameResult) {
  // analyse_ranks keeps each distinct kernel-name list once (docs/scale.md § What the top reduce
  // holds): its result equals the analysis over the profiles as read, each with its own list.
  const fs::path out = goblin::testing::private_tmp_dir("grp_pool");
  summarize({kDdp + "straggler_data"}, out / "s");
  const std::string dir = (out / "s").string();
  auto k = analysis::analysis_knowledge();
  ASSERT_TRUE(k.ok());
  std::vector<std::string> notes;
  auto inputs = analysis::enumerate_ranks({dir}, &notes, {});
  ASSERT_TRUE(inputs.ok());
  std::vector<analysis::RankProfile> own;
  for (const analysis::RankInput& in : *inputs) own.push_back(analysis::read_rank(in, **k).profile);
  auto flat = analysis::analyse_rank_profiles(own, (*k)->collectives, notes, {});
  ASSERT_TRUE(flat.ok()) << flat.error().describe();
  EXPECT_EQ(ranks({dir}).result.dump(), flat->result.dump());
  // Two ranks under one label (the same path on two hosts) with different kernels: each keeps its
  // own list, so the same-job check still sees they are two programs.
  auto r0 = analysis::read_rank_summary_file((out / "s/rank0.summary.json.gz").string());
  ASSERT_TRUE(r0.ok());
  fs::create_directories(out / "same_label");
  for (int i = 0; i < 2; ++i) {
    analysis::RankSummary s = *r0;
    s.profile.rank = i;
    s.profile.label = "/local/trace.json";
    if (i == 1)
      for (std::string& n : s.profile.kernel_names) n = "other_" + n;
    std::sort(s.profile.kernel_names.begin(), s.profile.kernel_names.end());
    ASSERT_TRUE(
        analysis::write_rank_summary_file(s, (out / "same_label" / fmt::format("rank{}.summary.json.gz", i)).string())
            .ok());
  }
  auto refused = analysis::analyse_ranks({(out / "same_label").string()});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("share only 0%"), std::string::npos) << refused.error().message;
}
