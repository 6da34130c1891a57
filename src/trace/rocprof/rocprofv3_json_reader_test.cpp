// rocprofv3 JSON reader on the real MI350X fixture (43,915 dispatches) and damaged documents.
#include <gtest/gtest.h>

#include "core/io.h"
#include "trace/readers.h"
#include "trace/rocprof/rocprof_test_files.h"

namespace goblin::trace {

using testing::fixture;
using testing::has_warning;
using testing::TempDir;

TEST(RocprofV3Json, Gfx950FixtureGolden) {
  Timeline tl;
  Status s = read_rocprofv3_json(fixture("rocprof/rocprofv3_gfx950_results.json.gz"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 43915u);
  EXPECT_EQ(tl.runtime.size(), 0u);  // the run traced kernels only
  // 8 GPU agents (logical_node_id 2..9), the 2 CPU agents are not devices.
  ASSERT_EQ(tl.meta.devices.size(), 8u);
  const DeviceInfo& d = tl.meta.devices[0];
  EXPECT_EQ(d.id, 2);
  EXPECT_EQ(d.name, "AMD Instinct MI350X");
  EXPECT_EQ(d.arch, "gfx950");
  EXPECT_EQ(d.num_sms, 256);
  EXPECT_EQ(d.warp_size, 64);
  // First dispatch: kernel_id 8 (__amd_rocclr_copyBuffer), agent handle 37946 (node 2),
  // 63857982592000..63857982594840, workgroup 512, grid 512 work-items = 1 block.
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]), "__amd_rocclr_copyBuffer");
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2);
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 63857982592000);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2840);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.external_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], kNone);  // external 0 = none
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 16);          // stream handle 0: the queue
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.block[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{512, 1, 1}));
  // Dispatch 72 (row 71): grid 221184 x 12 work-items, workgroup 256 x 1 → 864 x 12 blocks.
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 71)], 72);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 71)], (std::array<uint32_t, 3>{864, 12, 1}));
  // Last dispatch: the RCCL kernel with 37664 B of LDS.
  const size_t last = tl.gpu_ops.count(GpuOpKind::Kernel) - 1;
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, last)]),
            "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, last)], 37664);
  EXPECT_EQ(tl.gpu_ops.end_ns(tl.gpu_ops.nth(GpuOpKind::Kernel, last)), 63873104615494);
  auto span = tl.gpu_span();
  EXPECT_EQ(span.first, 63857982592000);
  EXPECT_EQ(span.second, 63873104615494);
  EXPECT_FALSE(has_warning(tl, "missing from kernel_symbols"));
}

TEST(RocprofV3Json, SmallDocumentWithApiCopiesAndMarkers) {
  TempDir dir("v3json");
  // A hand-made document in the rocprofv3 schema, tables after the records that use them.
  std::string doc = R"({"rocprofiler-sdk-tool":[{"metadata":{"pid":42},
    "buffer_records":{
      "kernel_dispatch":[{"kind":3,"operation":1,"thread_id":7,"correlation_id":{"internal":5,"external":9},
        "start_timestamp":1000,"end_timestamp":1500,"dispatch_info":{"agent_id":{"handle":11},"queue_id":{"handle":2},
        "kernel_id":1,"group_segment_size":64,"workgroup_size":{"x":128,"y":1,"z":1},"grid_size":{"x":1000,"y":1,"z":1}},
        "stream_id":{"handle":0}}],
      "hip_api":[{"kind":1,"operation":1,"thread_id":7,"correlation_id":{"internal":5,"external":9},
        "start_timestamp":900,"end_timestamp":950}],
      "memory_copy":[{"kind":2,"operation":1,"correlation_id":{"internal":6,"external":0},"start_timestamp":2000,
        "end_timestamp":2600,"dst_agent_id":{"handle":11},"src_agent_id":{"handle":10},"bytes":4096}],
      "marker_api":[{"kind":4,"operation":0,"thread_id":7,"correlation_id":{"internal":8,"external":0},
        "start_timestamp":800,"end_timestamp":3000}],
      "scratch_memory":[{"kind":9},{"kind":9}]},
    "agents":[{"id":{"handle":10},"type":1,"logical_node_id":0,"name":"cpu"},
              {"id":{"handle":11},"type":2,"logical_node_id":1,"name":"gfx942","product_name":"AMD Instinct MI300X",
               "cu_count":304,"wave_front_size":64}],
    "kernel_symbols":[{"kernel_id":1,"kernel_name":"gemm.kd","formatted_kernel_name":"gemm"}],
    "strings":{"buffer_records":[{"kind":"NONE","operations":[]},
      {"kind":"HIP_RUNTIME_API_EXT","operations":["hipMalloc","hipLaunchKernel"]},
      {"kind":"MEMORY_COPY","operations":["MEMORY_COPY_NONE","MEMORY_COPY_HOST_TO_DEVICE"]},
      {"kind":"KERNEL_DISPATCH","operations":["NONE","ENQUEUE"]},
      {"kind":"MARKER_CORE_API","operations":["roctxRangePushA"]}]}}]})";
  Timeline tl;
  Status s = read_rocprofv3_json(dir.write("r.json", doc), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]), "gemm");
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.external_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 9);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)],
            (std::array<uint32_t, 3>{8, 1, 1}));  // ceil(1000 / 128)
  ASSERT_EQ(tl.runtime.size(), 1u);
  EXPECT_EQ(tl.str(tl.runtime.name[0]), "hipLaunchKernel");
  EXPECT_EQ(tl.runtime.pid[0], 42);
  EXPECT_EQ(tl.runtime.correlation[0], tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 1u);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.bytes[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 4096);
  ASSERT_EQ(tl.annotations.size(), 1u);
  EXPECT_EQ(tl.str(tl.annotations.name[0]), "roctxRangePushA");
  EXPECT_TRUE(has_warning(tl, "2 scratch_memory records read but not analysed"));
}

TEST(RocprofV3Json, TruncatedDocumentKeepsRecordsAndNamesOffset) {
  auto text = read_all(fixture("rocprof/rocprofv3_gfx950_results.json.gz"));
  ASSERT_TRUE(text.ok());
  TempDir dir("v3trunc");
  // Cut in the middle of the kernel_dispatch array.
  size_t cut = text->find("\"kernel_dispatch\"") + 200000;
  Timeline tl;
  Status s = read_rocprofv3_json(dir.write("cut.json", text->substr(0, cut)), tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_GT(tl.gpu_ops.count(GpuOpKind::Kernel), 100u);  // the dispatches before the cut
  EXPECT_LT(tl.gpu_ops.count(GpuOpKind::Kernel), 43915u);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]),
            "__amd_rocclr_copyBuffer");  // names still resolved
}

TEST(RocprofV3Json, WrongShapesAreMalformedNotCrashes) {
  TempDir dir("v3shape");
  for (const char* doc : {"{}", "[1,2]", "{\"rocprofiler-sdk-tool\": 5}", "{\"rocprofiler-sdk-tool\":[{\"agents\":7}]}",
                          "{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[{\"start_timestamp\":"
                          "\"x\"}]}}]}",
                          "nan"}) {
    Timeline tl;
    Status s = read_rocprofv3_json(dir.write("w.json", doc), tl, {});
    EXPECT_FALSE(s.ok()) << doc;
    if (!s.ok()) {
      EXPECT_EQ(s.error().kind, ErrorKind::Malformed) << doc;
    }
  }
  Timeline tl;
  Status s = read_rocprofv3_json(dir.write("e.json", ""), tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
}

}  // namespace goblin::trace
