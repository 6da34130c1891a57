// Whole query tables read column by column for the Python door's DataFrames (TableData::scan):
// `SELECT * FROM t`'s rows in the same order with the same values, without SQLite. The large
// table, gpu_ops, is read from the Timeline's own arrays a whole trace at a time (Bulk: typed
// copies, texts as codes of each distinct pool id or class), not by 5 M × 26 getter calls; ids
// and small counts come out as int32 where every value fits (docs/python.md § Column types).
#include <atomic>
#include <optional>
#include <thread>

#include "query/table_state.h"

namespace goblin::query {

using namespace detail;

namespace {
// Below this many rows a whole-table read stays on one thread (threads cost more than they save).
constexpr size_t kParallelScanRows = 100'000;

std::optional<int64_t> present(int64_t v) { return v == kNone ? std::nullopt : std::optional<int64_t>(v); }

}  // namespace

// gpu_ops read whole (Bulk): each column straight from the GpuOpTable, the same values as its
// getter. Text columns map each distinct id (pool id, class, enum) to its code once per trace.
void detail::add_gpu_op_bulk(Table& t) {
  auto index = [&](const char* name) {
    for (size_t c = 0; c < t.info.columns.size(); ++c)
      if (t.info.columns[c].name == name) return static_cast<int>(c);
    return -1;
  };
  auto ints = [&](const char* name, bool narrow, auto get) {  // get(g, r): the value, nullopt for NULL
    t.bulk[index(name)] = Bulk{[get](TraceState& st, ColumnBuilder& b) {
                                 const GpuOpTable& g = st.tl().gpu_ops;
                                 b.integers(g.size(), [&](size_t r) { return get(g, r); });
                               },
                               narrow};
  };
  constexpr uint32_t kNull = UINT32_MAX;
  // ids(st): ids are < this; id(st, r): the row's id (kNull for NULL); text(st, id).
  auto texts = [&](const char* name, auto ids, auto id, auto text) {
    t.bulk[index(name)] = Bulk{[=](TraceState& st, ColumnBuilder& b) {
      const size_t n = st.tl().gpu_ops.size();
      std::vector<int32_t> code(n ? ids(st) : 0, -2);  // an id's code, -2 until met
      b.codes(n, [&](size_t r) -> int32_t {
        const uint32_t i = id(st, r);
        if (i == kNull) return -1;
        if (code[i] == -2) code[i] = b.text_code(text(st, i));
        return code[i];
      });
    }};
  };
  using G = const GpuOpTable&;
  ints("id", true, [](G, size_t r) { return std::optional<int64_t>(static_cast<int64_t>(r)); });
  texts(
      "kind", [](TraceState&) { return size_t{256}; },
      [](TraceState& st, size_t r) { return static_cast<uint32_t>(st.tl().gpu_ops.kind[r]); },
      [](TraceState&, uint32_t i) { return std::string_view(gpu_op_kind_name(static_cast<GpuOpKind>(i))); });
  ints("device", true, [](G g, size_t r) { return present(g.device[r]); });
  ints("stream", true, [](G g, size_t r) { return present(g.stream[r]); });
  ints("track", true, [](G g, size_t r) { return present(g.track[r]); });
  ints("start_ns", false, [](G g, size_t r) { return std::optional<int64_t>(g.start_ns[r]); });
  ints("dur_ns", false, [](G g, size_t r) { return std::optional<int64_t>(g.dur_ns[r]); });
  ints("end_ns", false, [](G g, size_t r) { return std::optional<int64_t>(g.end_ns(r)); });
  texts(
      "name", [](TraceState& st) { return st.tl().strings.size(); },
      [](TraceState& st, size_t r) {
        const StrId id = st.tl().gpu_ops.name[r];
        return id == kNoStr ? kNull : id;
      },
      [](TraceState& st, uint32_t i) { return st.tl().str(i); });
  for (int second = 0; second < 2; ++second)
    texts(
        second ? "family" : "category",
        [](TraceState& st) {
          st.op_cls(0);
          return st.classes.size();
        },
        [](TraceState& st, size_t r) { return st.op_class[r]; },
        [second](TraceState& st, uint32_t i) -> std::string_view {
          return second ? st.classes[i].second : st.classes[i].first;
        });
  ints("correlation", true, [](G g, size_t r) { return present(g.correlation[r]); });
  ints("external_id", true, [](G g, size_t r) { return present(g.external_id[r]); });
  ints("graph_id", true, [](G g, size_t r) { return present(g.graph_id[r]); });
  const char* dims[2][3] = {{"grid_x", "grid_y", "grid_z"}, {"block_x", "block_y", "block_z"}};
  for (int block = 0; block < 2; ++block)
    for (size_t d = 0; d < 3; ++d)
      ints(dims[block][d], true, [block, d](G g, size_t r) -> std::optional<int64_t> {
        const Dim3& v = block ? g.block[r] : g.grid[r];
        if (!v[0]) return std::nullopt;
        return v[d];
      });
  ints("registers_per_thread", true, [](G g, size_t r) { return present(g.registers_per_thread[r]); });
  ints("shared_mem_bytes", false, [](G g, size_t r) { return present(g.shared_mem_bytes[r]); });
  ints("bytes", false, [](G g, size_t r) { return present(g.bytes[r]); });
  texts(
      "copy_kind", [](TraceState&) { return size_t{256}; },
      [](TraceState& st, size_t r) {
        const GpuOpTable& g = st.tl().gpu_ops;
        return g.kind[r] == GpuOpKind::Memcpy ? static_cast<uint32_t>(g.copy_kind[r]) : kNull;
      },
      [](TraceState&, uint32_t i) { return std::string_view(copy_kind_name(static_cast<CopyKind>(i))); });
  t.bulk[index("step")] = Bulk{[](TraceState& st, ColumnBuilder& b) {
                                 if (!st.stepped) st.step_gpu_ops();
                                 b.integers(st.gpu_step.size(), [&](size_t r) { return present(st.gpu_step[r]); });
                               },
                               true};
}

std::vector<ColumnData> TableData::scan(size_t t) {
  const Table& table = tables()[t];
  const TableInfo& info = table.info;
  std::vector<size_t> rows_of(trace_count());
  size_t total = 0;
  for (size_t tr = 0; tr < trace_count(); ++tr) total += rows_of[tr] = rows(t, tr);
  const size_t ncols = info.columns.size();
  std::vector<ColumnData> out(ncols);
  auto read_column = [&](size_t c) {
    const auto fast = table.bulk.find(static_cast<int>(c));
    const Bulk* bulk = fast == table.bulk.end() ? nullptr : &fast->second;
    ColumnBuilder b(info.columns[c].name, c == 0 || (bulk && bulk->narrow));  // rank: narrow
    b.reserve(total);
    b.declare(info.columns[c].type == SqlType::Integer ? ColumnData::Kind::Integer
              : info.columns[c].type == SqlType::Real  ? ColumnData::Kind::Real
                                                       : ColumnData::Kind::Text);
    Out o;
    o.b = &b;
    for (size_t tr = 0; tr < trace_count(); ++tr) {
      TraceState& st = impl_->traces[tr];
      if (rows_of[tr] == 0) continue;
      if (c == 0) {
        b.integers(rows_of[tr], [&](size_t) { return std::optional<int64_t>(st.ref.rank); });
      } else if (c == 1) {
        const int32_t code = b.text_code(st.ref.path);
        b.codes(rows_of[tr], [&](size_t) { return code; });
      } else if (bulk) {
        bulk->append(st, b);
      } else {
        for (size_t r = 0; r < rows_of[tr]; ++r) write(*impl_, t, tr, r, static_cast<int>(c), o);
      }
    }
    out[c] = b.finish();
  };
  // Columns are independent, so a large table is read by a few threads, a column each at a
  // time. The getters compute their analyses on first use (TraceState's classification,
  // steps, triage), each as a whole: one value of every column, read first on this thread,
  // leaves nothing lazy for the threads to race on.
  const size_t threads = std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()), 4, ncols});
  if (total < kParallelScanRows || threads < 2) {
    for (size_t c = 0; c < ncols; ++c) read_column(c);
    return out;
  }
  for (size_t tr = 0; tr < trace_count(); ++tr) {
    if (rows_of[tr] == 0) continue;
    ColumnBuilder warm;
    Out o;
    o.b = &warm;
    for (size_t c = 0; c < ncols; ++c) write(*impl_, t, tr, 0, static_cast<int>(c), o);
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t i = 0; i < threads; ++i)
    pool.emplace_back([&] {
      for (size_t c; (c = next.fetch_add(1)) < ncols;) read_column(c);
    });
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace goblin::query
