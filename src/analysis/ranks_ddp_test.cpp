// goblin ranks on the real 2-rank DDP traces recorded on two H200s (examples/ddp_h200): the slow
// rank and its cause are named on the straggler runs; collectives carry PyTorch's metadata, so
// they are matched by process group and bandwidth is computed.
#include <gtest/gtest.h>

#include "analysis/ranks.h"

using namespace goblin;

namespace {

const std::string kDdp = std::string(GOBLIN_SOURCE_DIR) + "/examples/ddp_h200/";

Json ranks_of(const std::string& folder) {
  auto r = analyse_ranks({kDdp + folder});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
  if (!r.ok()) return Json();
  EXPECT_FALSE(r->damage.has_value());
  return r->result;
}

}  // namespace

TEST(RanksDdp, DataLoadingStragglerIsRank1) {
  Json j = ranks_of("straggler_data");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["ranks_analysed"], 2);
  EXPECT_EQ(j["world_size"], 2);
  EXPECT_TRUE(j["missing_ranks"].empty());
  EXPECT_EQ(j["collectives"]["matched_by"], "process group + order in the group");
  EXPECT_GT(j["collectives"]["matched"].get<int>(), 10);
  const Json& s = j["straggler"];
  EXPECT_EQ(s["named"], true) << s.dump(2);
  EXPECT_EQ(s["rank"], 1) << s.dump(2);
  EXPECT_EQ(s["cause"], "data_wait") << s.dump(2);
  EXPECT_NE(s["summary"].get<std::string>().find("rank 1 is the straggler"), std::string::npos);
  // Rank 0 is the one waiting inside the collectives.
  const Json& pr = j["collectives"]["per_rank"];
  EXPECT_GT(pr[0]["wait_in_collectives_s"].get<double>(), 10 * pr[1]["wait_in_collectives_s"].get<double>());
  // Sizes are known: all-reduce bandwidth with NCCL's factor 2(n-1)/n = 1 for two ranks.
  bool allreduce = false;
  for (const auto& b : j["skew"]["bandwidth"])
    if (b["type"] == "allreduce") {
      allreduce = true;
      EXPECT_EQ(b["busbw_factor"], "2(n-1)/n");
      EXPECT_NEAR(b["transfer"]["busbw_gbps"].get<double>(), b["transfer"]["algbw_gbps"].get<double>(), 1e-3);
      EXPECT_GT(b["transfer"]["algbw_gbps"].get<double>(), 0);
    }
  EXPECT_TRUE(allreduce);
}

TEST(RanksDdp, HostSleepStragglerIsRank0) {
  Json j = ranks_of("straggler_sleep");
  ASSERT_FALSE(j.is_null());
  const Json& s = j["straggler"];
  EXPECT_EQ(s["named"], true) << s.dump(2);
  EXPECT_EQ(s["rank"], 0) << s.dump(2);
  EXPECT_EQ(s["cause"], "host_gap") << s.dump(2);
}
