// The Kineto reader's [memory] events (profile_memory=True): one Timeline::memory_events row per
// allocation or free; a damaged one is a warning with its byte offset, never a silent row; the
// fast path and the simdjson path read them alike; the committed H100 fixture's peak is the
// recorded torch.cuda.max_memory_allocated().
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/json.h"
#include "trace/kineto/event_parser.h"
#include "trace/kineto/kineto_test_util.h"

namespace goblin::trace {
namespace {

std::string mem_event(std::string_view args, std::string_view ts = "100.5") {
  return fmt::format(
      R"({{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 5, "tid": 9, "ts": {}, "args": {{{}}}}})",
      ts, args);
}

std::string trace_of(const std::vector<std::string>& events) {
  std::string t = "{\"traceEvents\": [";
  for (size_t i = 0; i < events.size(); ++i) t += (i ? ",\n" : "") + events[i];
  return t + "]}";
}

const std::string kAlloc =
    R"("Total Reserved": 2097152, "Total Allocated": 1024, "Bytes": 1024, "Device Id": 0, "Device Type": 1, "Addr": 140099337584640, "finished": false, "Ev Idx": 7)";
const std::string kFree =
    R"("Total Reserved": 2097152, "Total Allocated": 0, "Bytes": -1024, "Device Id": 0, "Device Type": 1, "Addr": 140099337584640)";
const std::string kHost =
    R"("Total Reserved": 0, "Total Allocated": 72, "Bytes": 8, "Device Id": -1, "Device Type": 0, "Addr": 7)";

TEST(KinetoMemory, EventsBecomeRows) {
  Timeline tl;
  ASSERT_TRUE(read_text(trace_of({mem_event(kAlloc), mem_event(kFree, "101"), mem_event(kHost, "99"), kEv}), tl).ok());
  tl.finish();
  const auto& m = tl.memory_events;
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.device_type[0], 0);  // sorted by time: the host event at 99 µs first
  EXPECT_EQ(m.device[0], -1);
  EXPECT_EQ(m.ts_ns[1], 100500);
  EXPECT_EQ(m.device[1], 0);
  EXPECT_EQ(m.device_type[1], 1);
  EXPECT_EQ(m.addr[1], 140099337584640);
  EXPECT_EQ(m.bytes[1], 1024);
  EXPECT_EQ(m.total_allocated[1], 1024);
  EXPECT_EQ(m.total_reserved[1], 2097152);
  EXPECT_EQ(m.pid[1], 5);
  EXPECT_EQ(m.tid[1], 9);
  EXPECT_EQ(m.bytes[2], -1024);
  EXPECT_EQ(m.total_allocated[2], 0);
  EXPECT_EQ(tl.gpu_ops.size(), 1u);  // the other events are read as before
}

TEST(KinetoMemory, DamagedArgsAreWarningsWithOffsets) {
  const std::vector<std::string> bad = {
      mem_event(R"("Total Allocated": 1024, "Device Type": 1, "Device Id": 0)"),                   // no Bytes
      mem_event(R"("Bytes": "many", "Total Allocated": 1024, "Device Type": 1, "Device Id": 0)"),  // not a number
      mem_event(R"("Bytes": 512, "Total Allocated": {}, "Device Type": 1, "Device Id": 0)"),       // an object
      mem_event(R"("Bytes": 512, "Total Allocated": -5, "Device Type": 1, "Device Id": 0)"),       // negative total
      mem_event(R"("Bytes": 512, "Total Allocated": 512, "Device Id": 0)"),                        // no Device Type
      mem_event(R"("Bytes": NaN, "Total Allocated": 512, "Device Type": 1, "Device Id": 0)"),      // not JSON
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE(bad[i]);
    Timeline tl;
    const std::string text = trace_of({kEv, bad[i]});
    (void)read_text(text, tl);
    EXPECT_EQ(tl.memory_events.size(), 0u);
    bool warned = false;
    for (const auto& w : tl.warnings)
      if (w.id == W::kineto_damaged_event) {
        warned = true;
        EXPECT_EQ(w.byte_offset, static_cast<int64_t>(text.find("{\"ph\": \"i\"")));
      }
    EXPECT_TRUE(warned);
  }
}

TEST(KinetoMemory, FastPathAndSimdjsonPathAgree) {
  const std::string text = trace_of(
      {mem_event(kAlloc), mem_event(kFree, "101"), mem_event(kHost, "99"),
       mem_event(R"("Addr": "0x7f", "Bytes": "2048", "Total Allocated": 4096, "Device Id": 1, "Device Type": 1)")});
  Timeline a, b;
  ASSERT_TRUE(read_text(text, a).ok());
  kineto::set_fast_path_enabled(false);
  Status sb = read_text(text, b);
  kineto::set_fast_path_enabled(true);
  ASSERT_TRUE(sb.ok());
  ASSERT_EQ(a.memory_events.size(), 4u);
  ASSERT_EQ(b.memory_events.size(), 4u);
  EXPECT_EQ(a.memory_events.addr[3], 0x7f);
  EXPECT_EQ(a.memory_events.bytes[3], 2048);
  a.memory_events.for_each_column([&](const char* name, const auto& col, ColumnKind) {
    b.memory_events.for_each_column([&](const char* n2, const auto& col2, ColumnKind) {
      if constexpr (std::is_same_v<decltype(col), decltype(col2)>) {
        if (std::string_view(name) == n2) {
          EXPECT_TRUE(col == col2) << name;
        }
      }
    });
  });
}

// tests/fixtures/memory/kineto_memory_train.json.gz: workloads/train.py on the H100 under
// profile_memory=True from before the model was built (workloads/memory_kineto.py).
TEST(KinetoMemory, FixturePeakIsMaxMemoryAllocated) {
  const std::string dir = GOBLIN_SOURCE_DIR "/tests/fixtures/memory/";
  Timeline tl;
  ASSERT_TRUE(read_kineto(dir + "kineto_memory_train.json.gz", tl, {}).ok());
  auto meta = read_all(dir + "kineto_memory_train_meta.json");
  ASSERT_TRUE(meta.ok());
  const Json rec = Json::parse(*meta);
  int64_t peak = 0, reserved = 0;
  size_t cuda = 0;
  for (size_t i = 0; i < tl.memory_events.size(); ++i)
    if (tl.memory_events.device_type[i] == 1) {
      ++cuda;
      peak = std::max(peak, tl.memory_events.total_allocated[i]);
      reserved = std::max(reserved, tl.memory_events.total_reserved[i]);
    }
  EXPECT_EQ(tl.memory_events.size(), 2768u);
  EXPECT_EQ(cuda, 2426u);
  EXPECT_EQ(peak, rec["max_memory_allocated"].get<int64_t>());
  EXPECT_EQ(reserved, rec["max_memory_reserved"].get<int64_t>());
  for (const auto& w : tl.warnings) EXPECT_NE(w.id, W::kineto_damaged_event) << w.message;
}

}  // namespace
}  // namespace goblin::trace
