// corpus: nsight
// libFuzzer target: the SQLite readers (Nsight Systems export, rocprof results.db, rocpd, the sniffer)
// on databases built from the fuzz input. The bytes are a small program over a fixed menu of
// statements: tables of both formats (with the columns the readers select, or too few), views
// standing in for them (recursive, 50 MB strings, zeroblobs), triggers, indexes and computed
// columns under the tables' names, rows with extreme or text values, many rows at once, and a
// byte of the finished file overwritten. The file is then read through read_path (sniffing,
// damage check, the reader) under the readers' limits. Any crash, hang, sanitizer report or leak
// is a bug; errors are fine. FUZZ_SQL_DEBUG=1 prints the statements an input builds.
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "trace/readers.h"

namespace {

struct Bytes {
  const uint8_t* p;
  size_t n, i = 0;
  bool more() const { return i < n; }
  uint8_t next() { return i < n ? p[i++] : 0; }
};

// The tables the readers read, with the columns they select.
struct TableDef {
  const char* name;
  const char* columns;  // CREATE TABLE column list
  int ncols;
};
constexpr TableDef kTables[] = {
    {"StringIds", "id INTEGER, value TEXT", 2},
    {"CUPTI_ACTIVITY_KIND_KERNEL",
     "start INTEGER, \"end\" INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER, demangledName "
     "INTEGER, shortName INTEGER, gridX INTEGER, blockX INTEGER, graphId INTEGER",
     10},
    {"CUPTI_ACTIVITY_KIND_RUNTIME",
     "start INTEGER, \"end\" INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER", 6},
    {"CUPTI_ACTIVITY_KIND_MEMCPY",
     "start INTEGER, \"end\" INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER, bytes INTEGER, "
     "copyKind INTEGER",
     7},
    {"NVTX_EVENTS", "start INTEGER, \"end\" INTEGER, eventType INTEGER, text TEXT, textId INTEGER, globalTid INTEGER",
     6},
    {"TARGET_INFO_GPU", "id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER, computeMajor INTEGER", 5},
    {"TARGET_INFO_SESSION_START_TIME", "utcEpochNs INTEGER", 1},
    {"META_DATA_EXPORT", "name TEXT, value TEXT", 2},
    {"HIP", "BeginNs INTEGER, EndNs INTEGER, pid INTEGER, tid INTEGER, Name TEXT, \"Index\" INTEGER", 6},
    {"OPS", "BeginNs INTEGER, EndNs INTEGER, \"dev-id\" INTEGER, \"stream-id\" INTEGER, Name TEXT, \"Index\" INTEGER",
     6},
    {"COPY", "BeginNs INTEGER, EndNs INTEGER, Name TEXT", 3},
    // rocpd (rocprofv3's database): one run's tables, suffix "_ab".
    {"rocpd_metadata_ab", "id INTEGER, tag TEXT, value TEXT", 3},
    {"rocpd_string_ab", "id INTEGER, guid TEXT, string TEXT", 3},
    {"rocpd_info_process_ab", "id INTEGER, nid INTEGER, pid INTEGER", 3},
    {"rocpd_info_agent_ab", "id INTEGER, type TEXT, logical_index INTEGER, name TEXT, product_name TEXT, extdata TEXT",
     6},
    {"rocpd_info_kernel_symbol_ab", "id INTEGER, kernel_name TEXT, display_name TEXT", 3},
    {"rocpd_event_ab", "id INTEGER, category_id INTEGER, stack_id INTEGER, correlation_id INTEGER", 4},
    {"rocpd_kernel_dispatch_ab",
     "start INTEGER, \"end\" INTEGER, agent_id INTEGER, queue_id INTEGER, stream_id INTEGER, kernel_id INTEGER, "
     "group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER, "
     "grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, event_id INTEGER, dispatch_id INTEGER",
     15},
    {"rocpd_region_ab", "start INTEGER, \"end\" INTEGER, pid INTEGER, tid INTEGER, name_id INTEGER, event_id INTEGER",
     6},
    {"rocpd_memory_copy_ab",
     "start INTEGER, \"end\" INTEGER, name_id INTEGER, dst_agent_id INTEGER, src_agent_id INTEGER, size INTEGER, "
     "stream_id INTEGER, event_id INTEGER",
     8},
    {"rocpd_info_pmc_ab", "id INTEGER, name TEXT, units TEXT", 3},
    {"rocpd_pmc_event_ab", "event_id INTEGER, pmc_id INTEGER, value REAL", 3},
};
constexpr size_t kNumTables = sizeof(kTables) / sizeof(kTables[0]);

// What a view standing in for a table computes.
constexpr const char* kViewBodies[] = {
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x, x, x, x, x, x FROM c",
    "SELECT 1, printf('%.*c', 50000000, 'x'), 3, 4, 5, 6",
    "SELECT zeroblob(2000000000), 2, 3",
    "SELECT * FROM sqlite_master",
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 100000) SELECT x, x+5, 0, 1, 'k', x FROM c",
};

std::string value(Bytes& b) {
  switch (b.next() % 10) {
    case 0:
      return "NULL";
    case 1:
      return "9223372036854775807";
    case 2:
      return "-9223372036854775808";
    case 3:
      return "9000000000000000000";
    case 4:
      return "-" + fmt::format("{}", b.next()) + "000000000000000";
    case 5:
      return "'" + std::string(b.next() % 8, 'n') + "'";
    case 6:
      // Past the readers' 1 MiB value limit now and then, else up to 4 KB.
      return "printf('%.*c', " + fmt::format("{}", b.next() % 4 == 0 ? 1'500'000 : b.next() * 16) + ", 'x')";
    case 7:
      return "1e308";
    case 8:
      return "X'" + std::string(2 * (b.next() % 4), 'f') + "'";
    default:
      return fmt::format("{}", b.next() * 1000 + b.next());
  }
}

std::string statement(Bytes& b) {
  const TableDef& t = kTables[b.next() % kNumTables];
  const std::string name = t.name;
  switch (b.next() % 9) {
    case 0:
    case 1:
      return "CREATE TABLE IF NOT EXISTS \"" + name + "\"(" + t.columns + ")";
    case 2:
      return "CREATE VIEW \"" + name + "\" AS " + kViewBodies[b.next() % std::size(kViewBodies)];
    case 3:
    case 4: {
      std::string s = "INSERT INTO \"" + name + "\" VALUES (";
      for (int c = 0; c < t.ncols; ++c) s += (c ? ", " : "") + value(b);
      return s + ")";
    }
    case 5: {  // many rows at once
      const int rows = 1 + b.next() * 4;
      std::string s = "INSERT INTO \"" + name +
                      "\" WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT " +
                      fmt::format("{}", rows) + ") SELECT ";
      for (int c = 0; c < t.ncols; ++c) s += std::string(c ? ", " : "") + (c == 1 ? "x + 100" : "x");
      return s + " FROM c";
    }
    case 6:
      return "CREATE TABLE aux_t(a); CREATE TRIGGER \"" + name + "\" AFTER INSERT ON aux_t BEGIN SELECT 1; END";
    case 7:
      return "CREATE TABLE aux_i(a); CREATE INDEX \"" + name + "\" ON aux_i(a)";
    default:  // bounded: the harness computes it on INSERT, and SQLite's printf with a precision of
              // -2^63 runs for minutes inside one VM step (the reader refuses the table unread)
      return "CREATE TABLE \"" + name +
             "\"(a INTEGER, b TEXT GENERATED ALWAYS AS (printf('%.*c', abs(a % 5000), 'x')))";
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("goblin_fuzz_nsys_sqlite_" + fmt::format("{}", ::getpid()) + ".sqlite"))
                                      .string();
  std::remove(path.c_str());
  Bytes b{data, size};
  int corrupt_at = -1;
  uint8_t corrupt_with = 0;
  {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
      sqlite3_close(db);
      return 0;
    }
    // No fsync per statement (the file only has to exist for the read below), and a bounded
    // writer: a row of several 1.5 MB strings or a statement that runs long fails, as it may.
    sqlite3_exec(db, "PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY", nullptr, nullptr, nullptr);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 4 << 20);
    static int steps;
    steps = 0;
    sqlite3_progress_handler(
        db, 1000, [](void*) { return ++steps > 20'000 ? 1 : 0; }, nullptr);
    for (int k = 0; k < 24 && b.more(); ++k) {
      if (b.next() % 16 == 15) {  // overwrite one byte of the finished file
        corrupt_at = b.next() << 8 | b.next();
        corrupt_with = b.next();
        continue;
      }
      const std::string sql = statement(b);
      if (std::getenv("FUZZ_SQL_DEBUG")) std::fprintf(stderr, "%.300s\n", sql.c_str());
      sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);  // failures are part of the game
    }
    sqlite3_close(db);
  }
  if (corrupt_at >= 0) {
    if (FILE* f = std::fopen(path.c_str(), "r+b")) {
      if (std::fseek(f, corrupt_at, SEEK_SET) == 0) std::fputc(corrupt_with, f);
      std::fclose(f);
    }
  }
  goblin::Timeline tl;
  goblin::Status s = goblin::trace::read_path(path, tl);
  (void)s;
  std::remove(path.c_str());
  return 0;
}
