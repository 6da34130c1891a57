// rocprofiler-compute database reader on the real MI350 (gfx950) run: dispatches, per-kernel
// metric values, the device and the roofline benchmark; another database is refused by name.
#include <gtest/gtest.h>

#include "core/test_support.h"
#include "trace/readers.h"
#include "trace/rocprof/rocprof_test_files.h"

namespace goblin::trace {
namespace {

using testing::exec_sql;
using testing::fixture;
using testing::private_tmp_dir;

TEST(RocprofCompute, Mi350Database) {
  Timeline tl;
  Status s = read_path(fixture("rocprof_compute/mi350_monte_carlo_pi.db"), tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(tl.meta.formats.size(), 1u);
  EXPECT_EQ(tl.meta.formats[0], Format::RocprofCompute);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 10u);  // 10 dispatches of 7 kernels
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].arch, "gfx950");
  EXPECT_EQ(tl.meta.devices[0].name, "AMD Instinct MI350");
  EXPECT_EQ(tl.meta.devices[0].num_sms, 256);
  EXPECT_EQ(tl.meta.devices[0].warp_size, 64);
  EXPECT_EQ(tl.meta.versions.at("rocprofiler_compute"), "3.5.0");
  ASSERT_TRUE(tl.meta.extra.count("rocprof_compute_roofline_bench"));
  EXPECT_NE(tl.meta.extra.at("rocprof_compute_roofline_bench").find("\"HBMBw\""), std::string::npos);
  // Every non-empty value of the 48,405 is a counter row.
  EXPECT_GT(tl.counters.size(), 40000u);
  bool found = false;
  for (size_t i = 0; i < tl.counters.size(); ++i) {
    if (tl.counters.kernel_key[i] == 4 && tl.str(tl.counters.counter[i]) == "2.1.11 VALU Utilization") {
      EXPECT_NEAR(tl.counters.value[i], 5.46744884005352, 1e-12);
      EXPECT_EQ(tl.str(tl.counters.unit[i]), "Percent");
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(RocprofCompute, MissingTableIsNamed) {
  const std::string p = (private_tmp_dir("rocprof_compute_missing") / "c.db").string();
  ASSERT_EQ(exec_sql(p,
                     "CREATE TABLE compute_workload (workload_id INTEGER, sys_info_extdata TEXT, "
                     "roofline_bench_extdata TEXT);"),
            "");
  Timeline tl;
  Status s = read_path(p, tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("no table compute_kernel"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace goblin::trace
