// `goblin roofline --capture`: on the H100 capture/replay pair (tests/fixtures/capture) the
// replayed GEMM and attention kernels get their ops' shapes in place of the lower bounds their
// name's tile and their grid give alone (the kernel_tile tier).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "analysis/knowledge.h"
#include "app/capture_load.h"
#include "app/roofline_run.h"

namespace goblin::app {
namespace {

std::string fx(const char* name) { return std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/capture/" + name; }

TEST(CaptureRoofline, ReplayedKernelsTakeTheirOpsShapesFromTheCapture) {
  auto kr = analysis::analysis_knowledge();
  ASSERT_TRUE(kr.ok());
  RooflineRequest rq;
  rq.path = fx("replay.json.gz");
  const VerbResult plain = run_roofline(rq, **kr);
  ASSERT_FALSE(plain.error) << plain.error->message;
  rq.capture = fx("capture.json.gz");
  const VerbResult joined = run_roofline(rq, **kr);
  ASSERT_FALSE(joined.error) << joined.error->message;
  const double before = plain.result["unmodelled_share"].get<double>();
  const double after = joined.result["unmodelled_share"].get<double>();
  fmt::print("replay.json.gz unmodelled_share: {:.4f} without --capture, {:.4f} with\n", before, after);
  // The GEMM and attention kernels of the replays have no op: alone, only the tile in their name
  // and their grid price them, as lower bounds (kernel_tile); with the capture, their ops' shapes.
  const Json& cov = plain.result["coverage"];
  const double tile = cov["modelled_us_by_source"].value("kernel_tile", 0.0) / cov["gpu_op_time_us"].get<double>();
  fmt::print("kernel_tile share {:.4f} without --capture\n", tile);
  EXPECT_GT(tile, 0.3);
  EXPECT_LE(before, 0.05);
  EXPECT_LE(after, 0.05);
  EXPECT_FALSE(joined.result["coverage"]["modelled_us_by_source"].contains("kernel_tile"));
  EXPECT_LE(joined.result["coverage"]["estimated_share"].get<double>(), 0.05);
  EXPECT_EQ(joined.result["capture"]["ops_joined"].get<int64_t>(), 110);
  EXPECT_FALSE(plain.result.contains("capture"));
  // A capture path that does not exist is the user's error, said as such.
  rq.capture = fx("no_such_capture.json.gz");
  const VerbResult bad = run_roofline(rq, **kr);
  ASSERT_TRUE(bad.error);
  // The roofline reads the capture once itself; its error is the one triage's path form gives.
  Timeline tl;
  auto path_form = attach_capture(tl, rq.capture);
  ASSERT_FALSE(path_form.ok());
  EXPECT_EQ(bad.error->kind, path_form.error().kind);
  EXPECT_EQ(bad.error->message, path_form.error().message);
}

}  // namespace
}  // namespace goblin::app
