// The Timeline's generated columns: every column is pushed, reserved, appended and re-interned
// (the two-thread Kineto read relies on append giving exactly one read's rows), and the
// correlation indexes follow the tables they index.
#include "model/timeline.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>

#include "core/phases.h"

namespace goblin {
namespace {

// A value for row `row` of a column, distinct per row and column.
template <class T>
T value_for(size_t row, const char* column) {
  const size_t salt = std::hash<std::string>{}(column) % 1000;
  if constexpr (std::is_same_v<T, Dim3>) {
    return Dim3{static_cast<uint32_t>(row), static_cast<uint32_t>(row + salt), 7};
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>((row + salt) % 2);
  } else {
    return static_cast<T>(row * 1000 + salt + 1);
  }
}

// Pushes rows [from, to) into every column of every table; string columns intern "<column>#<row>"
// (in reverse row order when `reverse_interning`, so two timelines get different ids).
void fill(Timeline& tl, size_t from, size_t to, bool reverse_interning = false) {
  if (reverse_interning)
    for (size_t r = to; r-- > from;) tl.strings.intern(fmt::format("name#{}", r));
  tl.for_each_table([&](const char*, auto& table) {
    table.for_each_column([&](const char* column, auto& col, ColumnKind kind) {
      using T = typename std::decay_t<decltype(col)>::value_type;
      for (size_t r = from; r < to; ++r) {
        if (kind == ColumnKind::String) {
          if constexpr (std::is_same_v<T, StrId>)
            col.push_back(tl.strings.intern(std::string(column) + fmt::format("#{}", r)));
        } else {
          if constexpr (std::is_integral_v<T>) {
            if (std::string_view(column) == "track") {
              // gpu_ops.track is derived by finish(), never read: a read leaves it kNone, and
              // append() resets it.
              col.push_back(static_cast<T>(kNone));
              continue;
            }
            if (std::string_view(column) == "cpu_op") {
              // python_frames.cpu_op is a row of this timeline's cpu_ops (filled just before): the
              // frame of row r points at row r, which append() must shift past the rows before it.
              col.push_back(static_cast<T>(tl.cpu_ops.size() - (to - from) + (r - from)));
              continue;
            }
          }
          col.push_back(value_for<T>(r, column));
        }
      }
    });
  });
}

// Every column of `a` equals `b`'s, string columns compared by text.
void expect_same_rows(const Timeline& a, const Timeline& b) {
  std::vector<std::function<void()>> checks;
  int columns = 0;
  a.for_each_table([&](const char* table, const auto& ta) {
    using Table = std::decay_t<decltype(ta)>;
    const Table* tb = nullptr;
    b.for_each_table([&](const char* name, const auto& t) {
      if constexpr (std::is_same_v<std::decay_t<decltype(t)>, Table>)
        if (std::string(name) == table) tb = &t;
    });
    ASSERT_NE(tb, nullptr) << table;
    ASSERT_EQ(ta.size(), tb->size()) << table;
    std::vector<const void*> cols_b;
    tb->for_each_column([&](const char*, const auto& col, ColumnKind) { cols_b.push_back(&col); });
    size_t k = 0;
    ta.for_each_column([&](const char* column, const auto& col, ColumnKind kind) {
      ++columns;
      const auto& other = *static_cast<const std::decay_t<decltype(col)>*>(cols_b[k++]);
      ASSERT_EQ(col.size(), other.size()) << table << "." << column;
      for (size_t r = 0; r < col.size(); ++r) {
        if constexpr (std::is_same_v<typename std::decay_t<decltype(col)>::value_type, StrId>) {
          if (kind == ColumnKind::String) {
            EXPECT_EQ(a.str(col[r]), b.str(other[r])) << table << "." << column << " row " << r;
            continue;
          }
        }
        EXPECT_TRUE(col[r] == other[r]) << table << "." << column << " row " << r;
      }
    });
  });
  EXPECT_GE(columns, 60);  // every table's every column was compared
}

TEST(Timeline, AppendOfTwoHalvesEqualsOneRead) {
  Timeline whole;
  fill(whole, 0, 6);
  ASSERT_EQ(whole.column_mismatch(), "");
  Timeline first, second;
  fill(first, 0, 3);
  fill(second, 3, 6, /*reverse_interning=*/true);
  first.append(std::move(second));
  EXPECT_EQ(first.column_mismatch(), "");
  expect_same_rows(first, whole);
  // The appended timeline's columns were freed as they were copied.
  EXPECT_EQ(second.gpu_ops.size(), 0u);
  EXPECT_EQ(second.cpu_ops.name.capacity(), 0u);
}

TEST(Timeline, AppendOnTwoThreadsEqualsOneThread) {
  Timeline a, b, a2, b2;
  fill(a, 0, 4);
  fill(b, 4, 9, true);
  fill(a2, 0, 4);
  fill(b2, 4, 9, true);
  a.append(std::move(b), /*two_threads=*/false);
  a2.append(std::move(b2), /*two_threads=*/true);
  expect_same_rows(a, a2);
}

TEST(Timeline, AppendFoldsWarnings) {
  Timeline a, b;
  a.warn(W::kineto_damaged_event, "bad event", "f.json", 10);
  b.warn(W::kineto_damaged_event, "bad event", "f.json", 99);
  b.warn(W::kineto_damaged_event, "bad event", "f.json", 120);
  b.warn(W::kineto_missing_dur, "other", "f.json", 5);
  a.append(std::move(b));
  ASSERT_EQ(a.warnings.size(), 2u);
  EXPECT_EQ(a.warnings[0].count, 3);
  EXPECT_EQ(a.warnings[0].byte_offset, 10);
  EXPECT_EQ(a.warnings[1].message, "other");
  // Folding keeps each entry's catalogue id (JSON's "id").
  EXPECT_EQ(a.warnings[0].id, W::kineto_damaged_event);
  EXPECT_EQ(a.warnings[1].id, W::kineto_missing_dur);
}

TEST(Timeline, ColumnMismatchNamesTheColumn) {
  Timeline tl;
  fill(tl, 0, 2);
  tl.gpu_ops.graph_id.push_back(5);
  EXPECT_EQ(tl.column_mismatch(), "gpu_ops.graph_id has 3 rows, the table 2");
}

TEST(Timeline, RowPushFillsEveryColumn) {
  Timeline tl;
  GpuOpRow k;
  k.start_ns = 5;
  k.dur_ns = 7;
  k.grid = {4, 2, 1};
  k.graph_id = 9;
  tl.gpu_ops.push(k);
  RuntimeRow r;
  r.is_sync = true;
  tl.runtime.push(r);
  tl.samples.push(1, 0, tl.strings.intern("power_w"), 300.5);
  tl.counters.push(3, kNoStr, tl.strings.intern("sm__throughput"), kNoStr, 51.0);
  EXPECT_EQ(tl.column_mismatch(), "");
  EXPECT_EQ(tl.gpu_ops.end_ns(0), 12);
  EXPECT_EQ(tl.gpu_ops.grid[0], (Dim3{4, 2, 1}));
  EXPECT_EQ(tl.gpu_ops.graph_id[0], 9);
  EXPECT_EQ(tl.gpu_ops.device[0], kNone);  // the row's defaults reach the columns
  EXPECT_EQ(tl.runtime.is_sync[0], 1);
  EXPECT_EQ(tl.runtime.is_driver[0], 0);
  EXPECT_EQ(tl.str(tl.samples.metric[0]), "power_w");
  EXPECT_DOUBLE_EQ(tl.counters.value[0], 51.0);
}

TEST(Timeline, IndexesFollowTheTables) {
  Timeline tl;
  RuntimeRow r;
  r.correlation = 42;
  tl.runtime.push(r);
  // No build_indexes() call: the lookup builds them.
  ASSERT_TRUE(tl.runtime_by_correlation(42).has_value());
  EXPECT_EQ(*tl.runtime_by_correlation(42), 0u);
  EXPECT_FALSE(tl.runtime_by_correlation(43).has_value());
  // Rows pushed after a lookup are found too.
  r.correlation = 43;
  tl.runtime.push(r);
  ASSERT_TRUE(tl.runtime_by_correlation(43).has_value());
  EXPECT_EQ(*tl.runtime_by_correlation(43), 1u);
  CpuOpRow op;
  op.external_id = 7;
  tl.cpu_ops.push(op);
  op.kind = CpuOpKind::PythonFunction;  // python frames are not ops: never found by External id
  op.external_id = 8;
  tl.cpu_ops.push(op);
  EXPECT_TRUE(tl.cpu_op_by_external_id(7).has_value());
  EXPECT_FALSE(tl.cpu_op_by_external_id(8).has_value());
}

TEST(Timeline, MovedTimelineKeepsWorkingIndexes) {
  Timeline a;
  RuntimeRow r;
  r.correlation = 1;
  a.runtime.push(r);
  ASSERT_TRUE(a.runtime_by_correlation(1));
  Timeline b = std::move(a);
  EXPECT_TRUE(b.runtime_by_correlation(1));
  b.runtime.correlation[0] = 2;
  b.build_indexes();  // an in-place edit keeps the table's size: rebuild explicitly
  EXPECT_TRUE(b.runtime_by_correlation(2));
  EXPECT_FALSE(b.runtime_by_correlation(1));
}

TEST(Timeline, ConcurrentFirstLookupsAllSeeTheIndex) {
  Timeline tl;
  for (int64_t c = 0; c < 20000; ++c) {
    RuntimeRow r;
    r.correlation = c;
    tl.runtime.push(r);
  }
  // Several analyses may look up the same timeline at once; the first lookups race to build.
  std::vector<std::thread> threads;
  std::vector<int> found(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int64_t c = 0; c < 20000; c += 7) found[t] += tl.runtime_by_correlation(c).has_value();
    });
  for (auto& th : threads) th.join();
  for (int f : found) EXPECT_EQ(f, (20000 + 6) / 7);
}

// Kernels, memcpys and memsets are rows of one table; the kind says which, and the other kinds'
// columns hold their defaults.
TEST(Timeline, OneGpuOpTableWithAKindColumn) {
  Timeline tl;
  GpuOpRow k;
  k.start_ns = 10;
  k.grid = {8, 1, 1};
  tl.gpu_ops.push(k);
  GpuOpRow c;
  c.kind = GpuOpKind::Memcpy;
  c.start_ns = 20;
  c.bytes = 4096;
  c.copy_kind = CopyKind::HtoD;
  tl.gpu_ops.push(c);
  GpuOpRow m;
  m.kind = GpuOpKind::Memset;
  m.start_ns = 30;
  m.bytes = 64;
  tl.gpu_ops.push(m);
  EXPECT_EQ(tl.gpu_op_count(), 3u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 1u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memset), 1u);
  EXPECT_EQ(tl.gpu_ops.bytes[0], kNone);           // a kernel has no bytes
  EXPECT_EQ(tl.gpu_ops.grid[1], (Dim3{0, 0, 0}));  // a memcpy has no grid
  EXPECT_EQ(tl.gpu_ops.copy_kind[1], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.copy_kind[2], CopyKind::Unknown);
  EXPECT_STREQ(gpu_op_kind_name(tl.gpu_ops.kind[2]), "memset");
}

// finish() sorts every timed table by start (GPU ops: ties by kind, then read order) and
// remaps the rows that point into a sorted table.
TEST(Timeline, FinishSortsByStartAndRemapsReferences) {
  Timeline tl;
  auto op = [&](int64_t start, GpuOpKind kind, const char* name) {
    GpuOpRow r;
    r.start_ns = start;
    r.dur_ns = 1;
    r.kind = kind;
    r.name = tl.strings.intern(name);
    r.device = 0;
    r.stream = 7;
    tl.gpu_ops.push(r);
  };
  op(300, GpuOpKind::Kernel, "c");
  op(100, GpuOpKind::Memset, "a-memset");
  op(100, GpuOpKind::Kernel, "a-kernel");
  op(200, GpuOpKind::Memcpy, "b");
  op(100, GpuOpKind::Kernel, "a-kernel-2");
  for (int64_t start : {50, 10, 30}) {
    CpuOpRow c;
    c.start_ns = start;
    c.dur_ns = 5;
    c.kind = CpuOpKind::PythonFunction;
    c.name = tl.strings.intern(fmt::format("frame{}", start));
    tl.cpu_ops.push(c);
  }
  tl.python_frames.push(PythonFrameRow{0, 500, kNone});  // the frame that starts at 50
  tl.python_frames.push(PythonFrameRow{1, 100, kNone});  // ... at 10
  tl.python_frames.push(PythonFrameRow{2, 300, kNone});  // ... at 30
  tl.samples.push(2000, 0, tl.strings.intern("power_w"), 2);
  tl.samples.push(1000, 0, tl.strings.intern("power_w"), 1);
  EXPECT_EQ(tl.unsorted_table(), "gpu_ops");
  tl.finish();
  EXPECT_EQ(tl.unsorted_table(), "");
  EXPECT_EQ(tl.column_mismatch(), "");
  std::vector<std::string> names;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) names.emplace_back(tl.str(tl.gpu_ops.name[i]));
  EXPECT_EQ(names, (std::vector<std::string>{"a-kernel", "a-kernel-2", "a-memset", "b", "c"}));
  // Frames follow their ops: each still points at the op row with its own start.
  ASSERT_EQ(tl.python_frames.size(), 3u);
  for (size_t f = 0; f < 3; ++f) {
    const size_t row = static_cast<size_t>(tl.python_frames.cpu_op[f]);
    EXPECT_EQ(tl.python_frames.python_id[f], tl.cpu_ops.start_ns[row] * 10) << f;
  }
  EXPECT_EQ(tl.python_frames.cpu_op[0], 0);  // frames in the order of their ops
  EXPECT_DOUBLE_EQ(tl.samples.value[0], 1);
  // A second finish() changes nothing.
  tl.finish();
  EXPECT_EQ(tl.str(tl.gpu_ops.name[0]), "a-kernel");
}

// One track per (device, stream, rank); every GPU op carries its id, and ids order like the
// (device, stream) pairs.
TEST(Timeline, TracksPerDeviceStreamAndRank) {
  Timeline tl;
  tl.meta.distributed.rank = 3;
  auto op = [&](int64_t start, int32_t device, int64_t stream) {
    GpuOpRow r;
    r.start_ns = start;
    r.dur_ns = 1;
    r.device = device;
    r.stream = stream;
    tl.gpu_ops.push(r);
  };
  op(10, 1, 7);
  op(20, 0, 13);
  op(30, 0, 7);
  op(40, 1, 7);
  EXPECT_EQ(tl.gpu_ops.track[0], kNone);  // derived by finish()
  tl.finish();
  ASSERT_EQ(tl.tracks.size(), 3u);
  EXPECT_EQ(tl.tracks.device[0], 0);
  EXPECT_EQ(tl.tracks.stream[0], 7);
  EXPECT_EQ(tl.tracks.stream[1], 13);
  EXPECT_EQ(tl.tracks.device[2], 1);
  EXPECT_EQ(tl.tracks.rank[2], 3);
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    const auto t = static_cast<size_t>(tl.gpu_ops.track[i]);
    EXPECT_EQ(tl.tracks.device[t], tl.gpu_ops.device[i]);
    EXPECT_EQ(tl.tracks.stream[t], tl.gpu_ops.stream[i]);
  }
  // An append makes the ids stale until the next finish().
  Timeline more;
  more.gpu_ops.push(GpuOpRow{});
  tl.append(std::move(more));
  EXPECT_EQ(tl.tracks.size(), 0u);
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) EXPECT_EQ(tl.gpu_ops.track[i], kNone) << "row " << i;
  tl.finish();
  EXPECT_EQ(tl.tracks.size(), 4u);
  // Appends onto a table without tracks (the block reader's merges) leave every id unset too.
  Timeline blocks;
  std::vector<StrId> remap;
  for (int b = 0; b < 3; ++b) {
    Timeline block;
    block.gpu_ops.push(GpuOpRow{});
    blocks.append_and_clear(block, remap);
  }
  ASSERT_EQ(blocks.gpu_ops.size(), 3u);
  for (size_t i = 0; i < blocks.gpu_ops.size(); ++i) EXPECT_EQ(blocks.gpu_ops.track[i], kNone) << "row " << i;
}

// finish() on worker threads (the CLI's --threads: tables side by side, a large table as sorted
// runs merged) gives exactly the one-thread order, ties included: 40,000 rows per table whose
// starts take 97 values, so stability decides most of the order.
TEST(Timeline, FinishOnWorkerThreadsEqualsOneThread) {
  auto make = [] {
    Timeline tl;
    fill(tl, 0, 40000);
    auto scramble = [](auto& col) {
      for (size_t i = 0; i < col.size(); ++i) col[i] = static_cast<int64_t>((i * 7919) % 97);
    };
    scramble(tl.gpu_ops.start_ns);
    scramble(tl.cpu_ops.start_ns);
    scramble(tl.runtime.start_ns);
    scramble(tl.annotations.start_ns);
    scramble(tl.samples.ts_ns);
    return tl;
  };
  Timeline one = make(), four = make();
  set_worker_threads(1);
  one.finish();
  set_worker_threads(4);
  four.finish();
  set_worker_threads(0);
  EXPECT_EQ(one.unsorted_table(), "");
  expect_same_rows(one, four);
  ASSERT_EQ(one.python_frames.size(), four.python_frames.size());
  for (size_t i = 0; i < one.python_frames.size(); ++i)
    ASSERT_EQ(one.python_frames.cpu_op[i], four.python_frames.cpu_op[i]);
}

}  // namespace
}  // namespace goblin
