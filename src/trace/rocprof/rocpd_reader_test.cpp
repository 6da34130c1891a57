// rocpd reader: the database built with the official DDL from our real gfx950 rocprofv3 JSON run
// (tests/fixtures/rocpd, tools/rocpd_from_rocprofv3_json.py) gives the JSON's figures; a small
// hand-built run covers regions, markers, copies and counters; other databases are refused with
// the missing table or column named.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>

#include "core/io.h"
#include "core/test_support.h"
#include "trace/readers.h"
#include "trace/rocpd_rank.h"
#include "trace/rocprof/rocpd.h"
#include "trace/rocprof/rocprof_test_files.h"

namespace goblin::trace {
namespace {

using testing::exec_sql;
using testing::fixture;
using testing::has_warning;
using testing::private_tmp_dir;

std::string repo_file(const std::string& rel) { return std::string(GOBLIN_SOURCE_DIR) + "/" + rel; }

// The committed fixture is gzip (1.7 MB, 17.8 MB inflated); SQLite reads plain files only.
std::string gfx950_rocpd() {
  static const std::string path = [] {
    auto text = read_all(repo_file("tests/fixtures/rocpd/rocprofv3_gfx950_from_json.rocpd.db.gz"));
    EXPECT_TRUE(text.ok());
    const std::string p = (private_tmp_dir("rocpd_gfx950") / "gfx950.rocpd.db").string();
    std::ofstream(p, std::ios::binary) << *text;
    return p;
  }();
  return path;
}

// Busy time per device: the union of its kernels' intervals.
std::map<int32_t, int64_t> busy(const Timeline& tl) {
  std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> iv;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
    if (tl.gpu_ops.kind[i] == GpuOpKind::Kernel)
      iv[tl.gpu_ops.device[i]].push_back({tl.gpu_ops.start_ns[i], tl.gpu_ops.start_ns[i] + tl.gpu_ops.dur_ns[i]});
  std::map<int32_t, int64_t> out;
  for (auto& [dev, v] : iv) {
    std::sort(v.begin(), v.end());
    int64_t total = 0, s = v[0].first, e = v[0].second;
    for (const auto& [a, b] : v) {
      if (a > e) {
        total += e - s;
        s = a;
        e = b;
      } else {
        e = std::max(e, b);
      }
    }
    out[dev] = total + (e - s);
  }
  return out;
}

std::map<std::string, int64_t> kernel_counts(const Timeline& tl) {
  std::map<std::string, int64_t> n;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
    if (tl.gpu_ops.kind[i] == GpuOpKind::Kernel) ++n[std::string(tl.str(tl.gpu_ops.name[i]))];
  return n;
}

TEST(Rocpd, SniffedFromTheTableNames) {
  Timeline tl;
  Status s = read_path(gfx950_rocpd(), tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(tl.meta.formats.size(), 1u);
  EXPECT_EQ(tl.meta.formats[0], Format::Rocpd);
  EXPECT_EQ(tl.meta.trace_clock, ClockDomain::BootTime);
  EXPECT_EQ(tl.meta.versions.at("rocpd_schema"), "3");
}

// The same run through both readers: kernel counts exact, busy time equal, devices equal.
TEST(Rocpd, Gfx950SameFiguresAsTheJsonItWasBuiltFrom) {
  Timeline json, db;
  ASSERT_TRUE(read_path(fixture("rocprof/rocprofv3_gfx950_results.json.gz"), json).ok());
  Status s = read_path(gfx950_rocpd(), db);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(db.gpu_ops.count(GpuOpKind::Kernel), 43915u);
  EXPECT_EQ(db.gpu_ops.count(GpuOpKind::Kernel), json.gpu_ops.count(GpuOpKind::Kernel));
  EXPECT_EQ(kernel_counts(db), kernel_counts(json));
  const auto bj = busy(json), bd = busy(db);
  ASSERT_EQ(bj.size(), bd.size());
  for (const auto& [dev, ns] : bj) {
    ASSERT_TRUE(bd.count(dev)) << dev;
    EXPECT_LE(std::abs(static_cast<double>(bd.at(dev) - ns)), 1e-9 * static_cast<double>(ns)) << dev;
  }
  ASSERT_EQ(db.meta.devices.size(), json.meta.devices.size());
  for (size_t i = 0; i < db.meta.devices.size(); ++i) {
    EXPECT_EQ(db.meta.devices[i].id, json.meta.devices[i].id);
    EXPECT_EQ(db.meta.devices[i].name, "AMD Instinct MI350X");
    EXPECT_EQ(db.meta.devices[i].arch, "gfx950");
    EXPECT_EQ(db.meta.devices[i].num_sms, 256);
    EXPECT_EQ(db.meta.devices[i].warp_size, 64);
  }
  // Row by row: the same rows (start, duration, device, stream, grid, block, LDS, correlation, name);
  // compared as sorted lists, since kernels with equal start keep their read order.
  auto rows = [](const Timeline& tl) {
    std::vector<std::tuple<int64_t, int64_t, int32_t, int64_t, std::array<uint32_t, 3>, std::array<uint32_t, 3>,
                           int64_t, int64_t, std::string>>
        out;
    for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
      out.emplace_back(tl.gpu_ops.start_ns[i], tl.gpu_ops.dur_ns[i], tl.gpu_ops.device[i], tl.gpu_ops.stream[i],
                       tl.gpu_ops.grid[i], tl.gpu_ops.block[i], tl.gpu_ops.shared_mem_bytes[i],
                       tl.gpu_ops.correlation[i], std::string(tl.str(tl.gpu_ops.name[i])));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_TRUE(rows(db) == rows(json));
}

// A small run by hand: the tables and columns the reader selects, suffix "_0a".
std::string small_run(const std::string& name, const std::string& extra_sql = "") {
  const std::string p = (private_tmp_dir("rocpd_" + name) / (name + ".db")).string();
  const std::string sql = R"(
    CREATE TABLE rocpd_metadata_0a (id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
    INSERT INTO rocpd_metadata_0a VALUES (1, 'schema_version', '3');
    CREATE TABLE rocpd_string_0a (id INTEGER PRIMARY KEY, guid TEXT, string TEXT);
    INSERT INTO rocpd_string_0a VALUES (1, 'g', 'HIP_RUNTIME_API'), (2, 'g', 'hipLaunchKernel'),
      (3, 'g', 'MARKER_CORE_RANGE_API'), (4, 'g', 'step 7'), (5, 'g', 'MEMORY_COPY_HOST_TO_DEVICE'),
      (6, 'g', 'hipDeviceSynchronize'), (7, 'g', 'HSA_CORE_API'), (8, 'g', 'hsa_signal_wait');
    CREATE TABLE rocpd_info_process_0a (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER);
    INSERT INTO rocpd_info_process_0a VALUES (4242, 1, 4242);
    CREATE TABLE rocpd_info_thread_0a (id INTEGER PRIMARY KEY, tid INTEGER);
    INSERT INTO rocpd_info_thread_0a VALUES (4243, 4243);
    CREATE TABLE rocpd_info_agent_0a (id INTEGER PRIMARY KEY, type TEXT, logical_index INTEGER, name TEXT,
      product_name TEXT, extdata TEXT);
    INSERT INTO rocpd_info_agent_0a VALUES (0, 'CPU', 0, 'EPYC', 'EPYC', '{}'),
      (5, 'GPU', 1, 'gfx942', 'AMD Instinct MI300X', '{"cu_count": 304, "wave_front_size": 64}');
    CREATE TABLE rocpd_info_kernel_symbol_0a (id INTEGER PRIMARY KEY, kernel_name TEXT, display_name TEXT);
    INSERT INTO rocpd_info_kernel_symbol_0a VALUES (3, 'Cijk_gemm.kd', ''), (4, 'x.kd', 'vector_add');
    CREATE TABLE rocpd_event_0a (id INTEGER PRIMARY KEY, category_id INTEGER, stack_id INTEGER,
      correlation_id INTEGER);
    INSERT INTO rocpd_event_0a VALUES (1, 1, 10, 0), (2, 1, 10, 0), (3, 3, 0, 0), (4, 5, 11, 0), (5, 1, 12, 0),
      (6, 7, 13, 0), (7, 1, 14, 77);
    CREATE TABLE rocpd_kernel_dispatch_0a (id INTEGER PRIMARY KEY, agent_id INTEGER, kernel_id INTEGER,
      dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, start INTEGER, "end" INTEGER,
      group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER,
      grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, event_id INTEGER);
    INSERT INTO rocpd_kernel_dispatch_0a VALUES (1, 5, 3, 1, 9, 0, 1000, 3000, 512, 256, 1, 1, 1024, 1, 1, 2),
      (2, 5, 4, 2, 9, 33, 4000, 5000, 0, 64, 1, 1, 100, 1, 1, 7);
    CREATE TABLE rocpd_region_0a (id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "end" INTEGER,
      name_id INTEGER, event_id INTEGER);
    INSERT INTO rocpd_region_0a VALUES (1, 4242, 4243, 900, 950, 2, 1), (2, 4242, 4243, 100, 9000, 4, 3),
      (3, 4242, 4243, 5000, 6000, 6, 5), (4, 4242, 4243, 6000, 6100, 8, 6);
    CREATE TABLE rocpd_memory_copy_0a (id INTEGER PRIMARY KEY, start INTEGER, "end" INTEGER, name_id INTEGER,
      dst_agent_id INTEGER, src_agent_id INTEGER, size INTEGER, stream_id INTEGER, event_id INTEGER);
    INSERT INTO rocpd_memory_copy_0a VALUES (1, 200, 700, 5, 5, 0, 4096, 33, 4);
    CREATE TABLE rocpd_info_pmc_0a (id INTEGER PRIMARY KEY, name TEXT, units TEXT);
    INSERT INTO rocpd_info_pmc_0a VALUES (1, 'SQ_WAVES', '');
    CREATE TABLE rocpd_pmc_event_0a (id INTEGER PRIMARY KEY, event_id INTEGER, pmc_id INTEGER, value REAL);
    INSERT INTO rocpd_pmc_event_0a VALUES (1, 2, 1, 64.0);
    CREATE TABLE rocpd_memory_allocate_0a (id INTEGER PRIMARY KEY, start INTEGER, "end" INTEGER);
    INSERT INTO rocpd_memory_allocate_0a VALUES (1, 1, 2);
    CREATE VIEW rocpd_kernel_dispatch AS SELECT * FROM rocpd_kernel_dispatch_0a;
  )";
  EXPECT_EQ(exec_sql(p, sql + extra_sql), "");
  return p;
}

TEST(Rocpd, RegionsMarkersCopiesAndCounters) {
  Timeline tl;
  Status s = read_path(small_run("small"), tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(tl.meta.formats[0], Format::Rocpd);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2u);
  const size_t k0 = tl.gpu_ops.nth(GpuOpKind::Kernel, 0), k1 = tl.gpu_ops.nth(GpuOpKind::Kernel, 1);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[k0]), "Cijk_gemm");  // empty display_name: kernel_name without .kd
  EXPECT_EQ(tl.gpu_ops.device[k0], 1);                  // agent id 5 → logical index 1
  EXPECT_EQ(tl.gpu_ops.stream[k0], 9);                  // stream 0: the queue
  EXPECT_EQ(tl.gpu_ops.grid[k0], (std::array<uint32_t, 3>{4, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[k0], 512);
  EXPECT_EQ(tl.gpu_ops.correlation[k0], 10);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[k1]), "vector_add");
  EXPECT_EQ(tl.gpu_ops.stream[k1], 33);
  EXPECT_EQ(tl.gpu_ops.grid[k1], (std::array<uint32_t, 3>{2, 1, 1}));  // a partial last workgroup counts
  EXPECT_EQ(tl.gpu_ops.external_id[k1], 77);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 1u);
  const size_t m = tl.gpu_ops.nth(GpuOpKind::Memcpy, 0);
  EXPECT_EQ(tl.gpu_ops.copy_kind[m], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.device[m], 1);
  EXPECT_EQ(tl.gpu_ops.bytes[m], 4096);
  ASSERT_EQ(tl.runtime.size(), 3u);
  EXPECT_EQ(tl.str(tl.runtime.name[0]), "hipLaunchKernel");
  EXPECT_EQ(tl.runtime.correlation[0], 10);
  EXPECT_EQ(tl.runtime.pid[0], 4242);
  EXPECT_EQ(tl.runtime.tid[0], 4243);
  EXPECT_FALSE(tl.runtime.is_sync[0]);
  EXPECT_TRUE(tl.runtime.is_sync[1]);
  EXPECT_TRUE(tl.runtime.is_driver[2]);  // HSA_CORE_API
  ASSERT_EQ(tl.annotations.size(), 1u);
  EXPECT_EQ(tl.str(tl.annotations.name[0]), "step 7");
  ASSERT_EQ(tl.counters.size(), 1u);
  EXPECT_EQ(tl.counters.kernel_key[0], 1);
  EXPECT_EQ(tl.str(tl.counters.counter[0]), "SQ_WAVES");
  EXPECT_EQ(tl.counters.value[0], 64.0);
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].num_sms, 304);
  EXPECT_EQ(tl.meta.devices[0].arch, "gfx942");
  EXPECT_TRUE(has_warning(tl, "rocpd_memory_allocate rows read but not analysed"));
}

TEST(Rocpd, MissingTableOrColumnIsNamed) {
  {
    Timeline tl;
    Status s = read_path(small_run("no_event", "DROP TABLE rocpd_event_0a;"), tl);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
    EXPECT_NE(s.error().message.find("no table rocpd_event_0a"), std::string::npos) << s.error().message;
  }
  {
    Timeline tl;
    Status s = read_path(small_run("newer",
                                   "ALTER TABLE rocpd_kernel_dispatch_0a RENAME COLUMN start TO begin_ns;"
                                   "UPDATE rocpd_metadata_0a SET value = '4';"),
                         tl);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("rocpd_kernel_dispatch_0a has no column \"start\""), std::string::npos)
        << s.error().message;
    EXPECT_TRUE(has_warning(tl, "schema_version 4"));
  }
  {
    // Only the metadata of a run: a rocpd database, but not one with dispatches to read.
    const std::string p = (private_tmp_dir("rocpd_meta_only") / "m.db").string();
    ASSERT_EQ(exec_sql(p, "CREATE TABLE rocpd_metadata_1b (id INTEGER, tag TEXT, value TEXT);"), "");
    Timeline tl;
    Status s = read_path(p, tl);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("rocpd_kernel_dispatch_1b"), std::string::npos) << s.error().message;
  }
}

TEST(Rocpd, AViewStandingInForARunTableIsRefused) {
  Timeline tl;
  Status s = read_path(small_run("view",
                                 "DROP TABLE rocpd_region_0a; CREATE VIEW rocpd_region_0a AS WITH RECURSIVE "
                                 "c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x AS start FROM c;"),
                       tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("rocpd_region_0a"), std::string::npos) << s.error().message;
}

TEST(Rocpd, TwoRunsInOneDatabaseAreBothRead) {
  // A merged database: the second run's tables under another suffix, same ids.
  std::string second;
  for (const char* t : {"rocpd_metadata", "rocpd_string", "rocpd_info_process", "rocpd_info_thread", "rocpd_info_agent",
                        "rocpd_info_kernel_symbol", "rocpd_event", "rocpd_kernel_dispatch"}) {
    second += fmt::format("CREATE TABLE {0}_1b AS SELECT * FROM {0}_0a;", t);
  }
  second += "UPDATE rocpd_info_process_1b SET id = 5151, pid = 5151;";
  Timeline tl;
  Status s = read_path(small_run("two_runs", second), tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 4u);
  EXPECT_TRUE(has_warning(tl, "2 processes in one database"));
}

// The two-process fixture (tools/rocprofv3_json_two_processes.py → tools/rocpd_from_rocprofv3_json.py):
// pid 908 = the first 3000 dispatches of the real gfx950 run, pid 909 = a constructed slower copy.
std::string two_process_rocpd() {
  static const std::string path = [] {
    auto text = read_all(repo_file("tests/fixtures/rocpd/two_process_gfx950.rocpd.db.gz"));
    EXPECT_TRUE(text.ok());
    const std::string p = (private_tmp_dir("rocpd_two") / "two.rocpd.db").string();
    std::ofstream(p, std::ios::binary) << *text;
    return p;
  }();
  return path;
}

TEST(Rocpd, SeveralProcessesAreListedAndReadOneAtATime) {
  auto procs = trace::rocpd_processes(two_process_rocpd());
  ASSERT_TRUE(procs.ok()) << procs.error().describe();
  ASSERT_EQ(procs->size(), 2u);
  EXPECT_EQ((*procs)[0].pid, 908);
  EXPECT_EQ((*procs)[1].pid, 909);
  int64_t busy908 = 0;
  for (const auto& p : *procs) {
    Timeline tl;
    Status s = trace::read_rocpd_rank(two_process_rocpd(), p, tl);
    ASSERT_TRUE(s.ok()) << s.error().describe();
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 3000u);
    EXPECT_FALSE(has_warning(tl, "processes in one database"));
    ASSERT_EQ(tl.meta.formats.size(), 1u);
    EXPECT_EQ(tl.meta.formats[0], Format::Rocpd);
    int64_t sum = 0;
    for (size_t i = 0; i < tl.gpu_ops.size(); ++i) sum += tl.gpu_ops.dur_ns[i];
    if (p.pid == 908) busy908 = sum;
    if (p.pid == 909) {
      EXPECT_GT(sum, busy908);  // the constructed copy runs each kernel 1.25x longer
    }
  }
  Timeline whole;
  ASSERT_TRUE(read_path(two_process_rocpd(), whole).ok());
  EXPECT_EQ(whole.gpu_ops.count(GpuOpKind::Kernel), 6000u);
  EXPECT_TRUE(has_warning(whole, "2 processes in one database"));
}

TEST(Rocpd, OneProcessOfARunHoldingSeveralIsFilteredByPid) {
  // One run, two processes: the second run's rows moved under the first run's suffix.
  const std::string cols =
      "agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, \"end\", group_segment_size, workgroup_size_x, "
      "workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id";
  // The hand-built tables lack the schema's pid columns: added, as rocpd_tables.sql has them.
  const std::string sql =
      "ALTER TABLE rocpd_kernel_dispatch_0a ADD COLUMN pid INTEGER DEFAULT 4242;"
      "ALTER TABLE rocpd_memory_copy_0a ADD COLUMN pid INTEGER DEFAULT 4242;"
      "INSERT INTO rocpd_info_process_0a VALUES (5151, 1, 5151);"
      "INSERT INTO rocpd_kernel_dispatch_0a (id, pid, " +
      cols + ") SELECT id + 1000, 5151, " + cols + " FROM rocpd_kernel_dispatch_0a;";
  const std::string db = small_run("one_run_two_procs", sql);
  auto procs = trace::rocpd_processes(db);
  ASSERT_TRUE(procs.ok()) << procs.error().describe();
  ASSERT_EQ(procs->size(), 2u);
  Timeline both;
  ASSERT_TRUE(read_path(db, both).ok());
  for (const auto& p : *procs) {
    Timeline tl;
    Status s = trace::read_rocpd_rank(db, p, tl);
    ASSERT_TRUE(s.ok()) << s.error().describe();
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel) * 2, both.gpu_ops.count(GpuOpKind::Kernel));
  }
}

}  // namespace
}  // namespace goblin::trace
