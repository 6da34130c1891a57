// Other accelerators (issue #34): an MTIA trace's device events (mtia_ccp_events) give busy/idle,
// steps and the kernel table; what goblin does not cover for MTIA is said in a warning. The
// fixture tests/fixtures/mtia/mtia_synthetic.json has the shape of HTA's MTIA test traces
// (tests/data/mtia_trace_single_rank, mtia_inference_trace): "MTIA 17" device process, ops named
// <op>-dtype_<Type> with args.correlation/stream, dma_request with args.direction/size,
// event_record/event_wait stream markers, mtia_runtime launches. Three 1 ms ProfilerSteps, each
// with add-dtype_Float (200 us), fc-dtype_Float (300 us), a 50 us DMA and a 100 us event_wait.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/run_metrics.h"
#include "analysis/step_time.h"
#include "analysis/steps.h"
#include "core/data.h"
#include "trace/readers.h"

using namespace goblin;

namespace {
const std::string kMtia = std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/mtia/mtia_synthetic.json";
}

TEST(Mtia, DeviceEventsAreOpsCopiesAndMarkers) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(kMtia, tl).ok());
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 6u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 3u);
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    const std::string n(tl.str(tl.gpu_ops.name[i]));
    EXPECT_TRUE(n != "event_wait" && n != "event_record") << "a stream marker is not work: " << n;
    if (tl.gpu_ops.kind[i] == GpuOpKind::Memcpy) {
      EXPECT_EQ(tl.gpu_ops.copy_kind[i], CopyKind::DtoH);
      EXPECT_EQ(tl.gpu_ops.bytes[i], 4096);
    } else {
      EXPECT_EQ(tl.gpu_ops.device[i], 17);
      EXPECT_EQ(tl.gpu_ops.stream[i], 102);
    }
  }
  // Launches are linked by correlation, like CUDA's.
  EXPECT_EQ(tl.runtime.size(), 6u);
}

TEST(Mtia, BusyIdleStepsAndKernelTableWithWhatIsNotSupported) {
  set_data_dir(GOBLIN_DATA_DIR);
  Timeline tl;
  ASSERT_TRUE(trace::read_path(kMtia, tl).ok());
  const analysis::StepDetection sd = analysis::find_steps(tl);
  ASSERT_EQ(sd.steps.size(), 3u);
  auto m = analysis::compute_run_metrics(tl);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_TRUE(m->gpu_activity);
  // Busy 200 + 50 + 300 us of each 1 ms step.
  EXPECT_NEAR(m->step_time_s, 0.001, 1e-9);
  EXPECT_NEAR(m->step_time_s, analysis::step_time(sd).seconds(), 1e-12);
  EXPECT_NEAR(m->gpu_util_pct, 55.0, 0.01);
  ASSERT_GE(m->top_kernels.size(), 2u);
  EXPECT_EQ(m->top_kernels[0].name, "fc-dtype_Float");
  EXPECT_EQ(m->top_kernels[0].family, "MTIA");
  EXPECT_NEAR(m->top_kernels[0].pct_time, 60.0, 0.01);
  EXPECT_EQ(m->top_kernels[1].name, "add-dtype_Float");
  // No MFU for a device goblin has no spec of; what is not covered is said.
  EXPECT_FALSE(m->mfu_pct);
  bool said = false;
  for (const auto& w : tl.warnings) said |= w.message.find("MTIA accelerator trace") != std::string::npos;
  EXPECT_TRUE(said);
}
