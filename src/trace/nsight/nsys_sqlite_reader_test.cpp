// Nsight Systems SQLite reader on the real nsys 2026.1 export (4 kernels, 44 runtime calls,
// 12 memcpys, 1 sync record; golden values read off the file with the sqlite3 shell), plus
// synthetic exports for the tables that fixture lacks (NVTX_EVENTS, MEMSET, old columns) and
// damaged files.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/io.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

const std::string kExport = std::string(GOBLIN_FIXTURES) + "/nsight/nsys_2026_export.sqlite";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / fmt::format("goblin_nsys_test_{}_{}", ::getpid(), name)).string();
}

TEST(NsysSqlite, RealExport) {
  Timeline tl;
  Status s = read_nsys_sqlite(kExport, tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 4u);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]),
            "add_parallel(const float *, const float *, float *, int)");
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1453545934);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1453680134 - 1453545934);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 13);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 133);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{97657, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.block[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 16);
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  EXPECT_EQ(tl.gpu_ops.graph_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], kNone);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 3)], 16);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 3)], 134327);

  ASSERT_EQ(tl.runtime.size(), 44u);
  EXPECT_EQ(tl.str(tl.runtime.name[0]), "cuModuleGetLoadingMode");
  EXPECT_EQ(tl.runtime.is_driver[0], 1);  // eventClass 1
  EXPECT_EQ(tl.runtime.pid[0], 17068);    // globalTid 281761330250412
  EXPECT_EQ(tl.runtime.tid[0], 17068);
  size_t launches = 0, syncs = 0;
  tl.build_indexes();
  for (size_t i = 0; i < tl.runtime.size(); ++i) {
    if (tl.str(tl.runtime.name[i]) == "cudaLaunchKernel") ++launches;
    if (tl.runtime.is_sync[i]) {
      ++syncs;
      EXPECT_EQ(tl.str(tl.runtime.name[i]), "cudaEventSynchronize");
      EXPECT_EQ(tl.runtime.correlation[i], 148);
    }
  }
  EXPECT_EQ(launches, 4u);
  EXPECT_EQ(syncs, 1u);
  auto launch = tl.runtime_by_correlation(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]);
  ASSERT_TRUE(launch);
  EXPECT_EQ(tl.str(tl.runtime.name[*launch]), "cudaLaunchKernel");
  EXPECT_EQ(tl.runtime.is_driver[*launch], 0);

  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 12u);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.bytes[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 100000000);
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 1429496338);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 1437157542 - 1429496338);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 2)], CopyKind::DtoH);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Memcpy, 2)]), "[CUDA memcpy Device-to-Host]");
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memset), 0u);  // no MEMSET table in this export
  EXPECT_EQ(tl.annotations.size(), 0u);                // nor NVTX_EVENTS

  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].name, "NVIDIA GeForce RTX 4060 Ti");
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_89");
  EXPECT_EQ(tl.meta.devices[0].num_sms, 34);
  EXPECT_EQ(tl.meta.devices[0].total_memory_bytes, 8585216000);
  EXPECT_EQ(tl.meta.devices[0].warp_size, 32);
  EXPECT_EQ(tl.meta.clock_base_ns, 1769308002162486533);
  EXPECT_TRUE(tl.meta.clock_is_epoch);
  EXPECT_EQ(tl.meta.versions["nsys"], "2026.1.1.204");
  EXPECT_EQ(tl.meta.versions["nsys_export_schema"], "3.24.14");
  EXPECT_EQ(tl.meta.versions["driver"], "560.94");
  EXPECT_EQ(tl.meta.versions["cuda_driver"], "12.6");
}

// A small export in an older/other shape: kernel table without shortName/graphId, NVTX with
// text in StringIds, a MEMSET table, NULL timestamps.
class SyntheticExport : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = temp_path("synthetic.sqlite");
    std::remove(path_.c_str());
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    const char* sql = R"(
      CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO StringIds VALUES (1,'gemm_kernel'),(2,'train_step'),(3,'cudaDeviceSynchronize_v3020'),
                                   (4,'cuLaunchKernel');
      CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT,
        correlationId INT, demangledName INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT,
        blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100,300,1,7,11,1,8,4,1,128,1,1,1024,2048),
                                                    (NULL,400,1,7,12,1,1,1,1,1,1,1,0,0),
                                                    (500,600,1,7,13,99,1,1,1,1,1,1,NULL,NULL);
      CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER(start INT, end INT, globalTid INT, correlationId INT, nameId INT);
      INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (90,99,)"
                      "281761330250412"
                      R"(,11,4);
      CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT, correlationId INT, nameId INT);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (700,900,NULL,20,3);
      CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INT, end INT, deviceId INT, streamId INT,
        correlationId INT, value INT, bytes INT);
      INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (310,320,1,7,14,0,4096);
      CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT, deviceId INT, streamId INT,
        correlationId INT, bytes INT, copyKind INT);
      INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (330,340,1,7,15,64,8),(350,360,1,7,16,64,10),
                                                    (370,380,1,7,17,64,NULL);
      CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT, globalTid INT, textId INT);
      INSERT INTO NVTX_EVENTS VALUES (50,950,59,NULL,281761330250412,2),(60,NULL,34,'checkpoint',NULL,NULL),
                                     (0,NULL,75,'my_domain',NULL,NULL);
    )";
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_close(db);
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_;
};

TEST_F(SyntheticExport, OptionalTablesAndMissingColumns) {
  Timeline tl;
  Status s = read_nsys_sqlite(path_, tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2u);  // the NULL-start row is skipped with a warning
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]), "gemm_kernel");
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{8, 4, 1}));
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 3072);
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)],
            kNone);  // column absent in this export
  EXPECT_EQ(tl.gpu_ops.graph_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], kNone);
  EXPECT_EQ(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)], kNoStr);  // dangling StringIds id 99: warned
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)], kNone);
  ASSERT_EQ(tl.runtime.size(), 2u);
  EXPECT_EQ(tl.str(tl.runtime.name[0]), "cudaDeviceSynchronize");
  EXPECT_EQ(tl.runtime.is_sync[0], 1);
  EXPECT_EQ(tl.runtime.pid[0], kNone);
  EXPECT_EQ(tl.str(tl.runtime.name[1]), "cuLaunchKernel");
  EXPECT_EQ(tl.runtime.is_driver[1], 1);
  EXPECT_EQ(tl.runtime.pid[1], 17068);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memset), 1u);
  EXPECT_EQ(tl.gpu_ops.bytes[tl.gpu_ops.nth(GpuOpKind::Memset, 0)], 4096);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 3u);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::DtoD);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 1)], CopyKind::PtoP);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 2)], CopyKind::Unknown);
  ASSERT_EQ(tl.annotations.size(), 2u);  // the domain-create record is not an annotation
  EXPECT_EQ(tl.str(tl.annotations.name[0]), "train_step");
  EXPECT_EQ(tl.annotations.dur_ns[0], 900);
  EXPECT_EQ(tl.annotations.tid[0], 17068);
  EXPECT_EQ(tl.str(tl.annotations.name[1]), "checkpoint");
  EXPECT_EQ(tl.annotations.dur_ns[1], 0);
  EXPECT_EQ(tl.meta.clock_base_ns, 0);  // no session table: base unknown
  bool warned_null = false, warned_dangling = false;
  for (const auto& w : tl.warnings) {
    warned_null |= w.message.find("without start/end") != std::string::npos;
    warned_dangling |= w.message.find("StringIds id that does not exist") != std::string::npos;
  }
  EXPECT_TRUE(warned_null);
  EXPECT_TRUE(warned_dangling);
}

TEST(NsysSqliteBadInput, TruncatedExport) {
  auto bytes = read_all(kExport);
  ASSERT_TRUE(bytes.ok());
  for (size_t keep : {size_t{100}, size_t{4096}, bytes->size() / 3, bytes->size() / 2, bytes->size() - 4096}) {
    std::string p = temp_path("trunc.sqlite");
    ASSERT_TRUE(write_file(p, std::string_view(*bytes).substr(0, keep)).ok());
    Timeline tl;
    Status s = read_nsys_sqlite(p, tl, {});
    std::remove(p.c_str());
    ASSERT_FALSE(s.ok()) << "kept " << keep << " bytes";
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed) << s.error().describe();
    EXPECT_EQ(s.error().file, p);
    EXPECT_NE(s.error().message.find("corrupt or truncated"), std::string::npos) << s.error().message;
  }
}

TEST(NsysSqliteBadInput, CorruptPages) {
  auto bytes = read_all(kExport);
  ASSERT_TRUE(bytes.ok());
  std::string b = *bytes;
  // Keep the 100-byte header valid, scribble over every page after the first.
  for (size_t i = 4096; i < b.size(); i += 7) b[i] = static_cast<char>(0xA5 ^ (i & 0xFF));
  std::string p = temp_path("corrupt.sqlite");
  ASSERT_TRUE(write_file(p, b).ok());
  Timeline tl;
  Status s = read_nsys_sqlite(p, tl, {});
  std::remove(p.c_str());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed) << s.error().describe();
}

TEST(NsysSqliteBadInput, NotAnExportOrMissing) {
  std::string p = temp_path("other.sqlite");
  std::remove(p.c_str());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  Timeline tl;
  Status s = read_nsys_sqlite(p, tl, {});
  std::remove(p.c_str());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("not an Nsight Systems export"), std::string::npos);

  s = read_nsys_sqlite(temp_path("does_not_exist.sqlite"), tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Io);
}

}  // namespace
}  // namespace goblin::trace
