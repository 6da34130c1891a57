// goblin ranks on real per-rank traces (two ranks of a 128-rank NCCL job, HTA's fixtures) and on
// bad input: ranks of different workloads, a rank given twice, a missing rank, a corrupt rank.
#include "analysis/ranks.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io.h"
#include "core/test_support.h"

using namespace goblin;

namespace {

const std::string kFix = std::string(GOBLIN_FIXTURES) + "/kineto/";
const std::string kR0 = kFix + "nccl_sampled_rank-0.json.gz";
const std::string kR1 = kFix + "nccl_sampled_rank-1.json.gz";

bool note_has(const Json& j, const std::string& part) {
  for (const auto& n : j["notes"])
    if (n.get<std::string>().find(part) != std::string::npos) return true;
  return false;
}

// A copy of a rank trace with its distributedInfo rank (and optionally world size) changed.
std::string rank_copy(const std::string& src, int64_t from, int64_t to, const std::string& dir, int64_t world = 128) {
  auto text = read_all(src);
  EXPECT_TRUE(text.ok());
  std::string t = *text;
  const std::string a = "\"rank\": " + fmt::to_string(from) + ", \"world_size\": 128";
  auto p = t.find(a);
  EXPECT_NE(p, std::string::npos);
  t.replace(p, a.size(), "\"rank\": " + fmt::to_string(to) + ", \"world_size\": " + fmt::to_string(world));
  const std::string out = dir + "/trace_" + fmt::to_string(to) + ".json";
  EXPECT_TRUE(write_file(out, t).ok());
  return out;
}

}  // namespace

TEST(Ranks, RankFromName) {
  EXPECT_EQ(analysis::rank_from_name("nccl_sampled_rank-1.json.gz"), 1);
  EXPECT_EQ(analysis::rank_from_name("trace_rank_12.json"), 12);
  EXPECT_EQ(analysis::rank_from_name("RANK3.pt.trace.json"), 3);
  EXPECT_EQ(analysis::rank_from_name("trace.json"), -1);
}

TEST(Ranks, TwoRanksOfARealNcclJob) {
  auto r = analysis::analyse_ranks({kR0, kR1});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const Json& j = r->result;
  EXPECT_EQ(j["ranks_analysed"], 2);
  EXPECT_EQ(j["world_size"], 128);
  EXPECT_EQ(j["ranks"][0]["rank"], 0);
  EXPECT_EQ(j["ranks"][0]["rank_from"], "distributedInfo");
  EXPECT_EQ(j["ranks"][1]["rank"], 1);
  // 126 ranks of the job were not given: said, not an error.
  EXPECT_EQ(j["missing_ranks"].size(), 126u);
  EXPECT_TRUE(note_has(j, "126 rank(s) of world size 128 not read (2-127)"));
  // Both ProfilerSteps line up by name; the ten SendRecv kernels by order (no collective ids).
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["steps"][0]["step"], "ProfilerStep#551");
  EXPECT_EQ(j["collectives"]["matched_by"], "step + process group + type + size, in order");
  EXPECT_EQ(j["collectives"]["matched"], 10);
  // Per step and rank: the figures partition the step (busy + idle = wall; comm = exposed + hidden).
  for (const auto& s : j["steps"])
    for (const auto& x : s["ranks"]) {
      EXPECT_NEAR(x["busy_s"].get<double>() + x["idle_s"].get<double>(), x["wall_s"].get<double>(), 1e-8);
      EXPECT_GE(x["wait_in_collectives_s"].get<double>(), 0);
      EXPECT_GE(x["hidden_comm_s"].get<double>(), 0);
    }
  // Exactly one rank is last at each collective where the durations differ.
  const auto& pr = j["collectives"]["per_rank"];
  EXPECT_LE(pr[0]["arrived_last"].get<int>() + pr[1]["arrived_last"].get<int>(), 10);
  EXPECT_FALSE(j["straggler"]["summary"].get<std::string>().empty());
  EXPECT_EQ(j["skew"]["step_time"]["per_rank"].size(), 2u);
  EXPECT_TRUE(note_has(j, "collective sizes unknown"));
  EXPECT_NE(r->human.find("per rank, mean per step"), std::string::npos);
}

TEST(Ranks, DirectoryOfRanks) {
  auto dir = goblin::testing::private_tmp_dir("ranks_dir");
  std::filesystem::copy_file(kR0, dir / "nccl_sampled_rank-0.json.gz");
  std::filesystem::copy_file(kR1, dir / "nccl_sampled_rank-1.json.gz");
  write_file((dir / "README.md").string(), "not a trace").ok();
  auto r = analysis::analyse_ranks({dir.string()});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->result["ranks_analysed"], 2);
  EXPECT_TRUE(note_has(r->result, "README.md (not a trace file name)"));
}

TEST(Ranks, RocprofPerProcessFilesAreOneRankEach) {
  // rocprofv3 writes PID_kernel_trace.csv, PID_memory_copy_trace.csv, ... per process under a
  // host folder: each PID is one rank.
  auto dir = goblin::testing::private_tmp_dir("ranks_rocprof");
  const std::string rp = std::string(GOBLIN_FIXTURES) + "/rocprof/";
  std::filesystem::create_directories(dir / "host");
  for (const char* pid : {"1111", "2222"}) {
    std::filesystem::copy_file(rp + "rocprofv3_kernel_trace.csv",
                               dir / "host" / (std::string(pid) + "_kernel_trace.csv"));
    std::filesystem::copy_file(rp + "rocprofv3_memory_copy_trace.csv",
                               dir / "host" / (std::string(pid) + "_memory_copy_trace.csv"));
  }
  std::vector<std::string> notes;
  auto in = analysis::enumerate_ranks({dir.string()}, &notes);
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->size(), 2u);
  EXPECT_EQ((*in)[0].files.size(), 2u);
  auto r = analysis::analyse_ranks({dir.string()});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->result["ranks_analysed"], 2);
  EXPECT_EQ(r->result["ranks"][0]["rank_from"], "order");
  EXPECT_EQ(r->result["ranks"][0]["vendor"], "amd");
}

TEST(Ranks, RefusesRanksOfDifferentWorkloads) {
  auto r = analysis::analyse_ranks({kR0, kFix + "h100_llama_bf16_sdpa_w4.json.gz"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Usage);
  EXPECT_NE(r.error().message.find("not one job"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("kernel names"), std::string::npos) << r.error().message;
}

// Two real runs of one workload (the same DDP model on the same H200s, recorded minutes apart):
// rank 0 of one and rank 1 of the other are not one job, though their kernels and collectives match.
TEST(Ranks, RefusesRanksOfTwoRunsOfOneWorkload) {
  const std::string ex = std::string(GOBLIN_SOURCE_DIR) + "/examples/ddp_h200/";
  auto r = analysis::analyse_ranks(
      {ex + "balanced_gpu/rank0.pt.trace.json.gz", ex + "straggler_data/rank1.pt.trace.json.gz"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Usage);
  EXPECT_NE(r.error().message.find("minutes apart on the wall clock"), std::string::npos) << r.error().message;
  // The two ranks of one run still go together.
  EXPECT_TRUE(analysis::analyse_ranks(
                  {ex + "straggler_data/rank0.pt.trace.json.gz", ex + "straggler_data/rank1.pt.trace.json.gz"})
                  .ok());
}

TEST(Ranks, RefusesARankGivenTwice) {
  auto r = analysis::analyse_ranks({kR0, kR0});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("rank 0 is given twice"), std::string::npos) << r.error().message;
}

TEST(Ranks, RefusesDifferentWorldSizes) {
  auto dir = goblin::testing::private_tmp_dir("ranks_world");
  std::string r1 = rank_copy(kR1, 1, 1, dir.string(), 64);
  auto r = analysis::analyse_ranks({kR0, r1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("world size 128"), std::string::npos) << r.error().message;
}

TEST(Ranks, OneCorruptRankIsNamedAndTheOthersAnalysed) {
  auto dir = goblin::testing::private_tmp_dir("ranks_corrupt");
  std::string r2 = rank_copy(kR0, 0, 2, dir.string());
  // Rank 3: the same trace cut in the middle of an event (partly readable), rank 4: not JSON.
  auto t = read_all(rank_copy(kR1, 1, 3, dir.string()));
  ASSERT_TRUE(t.ok());
  write_file((dir / "trace_3.json").string(), t->substr(0, t->size() / 2)).ok();
  write_file((dir / "rank4.json").string(), "{\"traceEvents\": [ {\"ph\": \"X\", garbage").ok();
  auto r = analysis::analyse_ranks({kR0, kR1, r2, (dir / "trace_3.json").string(), (dir / "rank4.json").string()});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_TRUE(r->damage.has_value());
  const Json& j = r->result;
  EXPECT_EQ(j["ranks_analysed"], 4);  // 0, 1, 2 and the readable half of 3
  ASSERT_EQ(j["damaged"].size(), 2u);
  EXPECT_NE(j["damaged"].dump().find("trace_3.json (partly read, analysed)"), std::string::npos);
  EXPECT_NE(j["damaged"].dump().find("rank4.json (not analysed)"), std::string::npos);
}

TEST(Ranks, StepsThatDoNotLineUpAreNamed) {
  auto dir = goblin::testing::private_tmp_dir("ranks_steps");
  auto text = read_all(kR1);
  ASSERT_TRUE(text.ok());
  std::string t = *text;
  // Rank 1's second step renamed: only ProfilerStep#551 lines up.
  for (size_t p; (p = t.find("ProfilerStep#552")) != std::string::npos;) t.replace(p, 16, "ProfilerStep#553");
  write_file((dir / "rank-1.json").string(), t).ok();
  auto r = analysis::analyse_ranks({kR0, (dir / "rank-1.json").string()});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->result["steps"].size(), 1u);
  EXPECT_TRUE(note_has(r->result, "steps that do not line up across ranks"));
  EXPECT_TRUE(note_has(r->result, "ProfilerStep#552 only on rank(s) 0"));
}

TEST(Ranks, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(*analysis::CollectiveKnowledge::factor("2(n-1)/n", 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(*analysis::CollectiveKnowledge::factor("(n-1)/n", 4), 0.75);
  EXPECT_DOUBLE_EQ(*analysis::CollectiveKnowledge::factor("1", kNone), 1.0);
  EXPECT_FALSE(analysis::CollectiveKnowledge::factor("none", 8).has_value());
  auto ck = analysis::CollectiveKnowledge::load();
  ASSERT_TRUE(ck.ok()) << ck.error().describe();
  EXPECT_EQ(ck->type_of("ncclDevKernel_AllReduce_Sum_f32_RING_LL")->type, "allreduce");
  EXPECT_EQ(ck->type_of("_reduce_scatter_base")->type, "reducescatter");
  EXPECT_EQ(ck->type_of("_allgather_base")->type, "allgather");
  EXPECT_EQ(ck->type_of("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t")->type, "sendrecv");
  EXPECT_EQ(ck->dtype_bytes.at("bfloat16"), 2);
}
