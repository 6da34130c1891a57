// The data-only pickle reader and the memory snapshot reader: the real H100 snapshots
// (tests/fixtures/memory, recorded by workloads/memory_snapshot.py) and hostile pickles.
#include "trace/memory_snapshot.h"

#include <gtest/gtest.h>

#include "core/io.h"
#include "trace/pickle.h"

namespace goblin::trace {
namespace {

using K = PickleDoc::Kind;

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(Pickle, ReadsTheDataSubset) {
  // pickle.dumps({'a': [1, -2, 300, 70000, 2**40, -2**40], 'b': (1.5, True, None), 'c': b'x'}, protocol=4)
  const std::string p = bytes({0x80, 0x04, 0x95, 0x40, 0,    0,    0,   0,    0, 0, 0,  // PROTO 4, FRAME
                               0x7d, 0x94, 0x28,                                        // EMPTY_DICT MEMOIZE MARK
                               0x8c, 0x01, 'a',  0x94,                                  // 'a'
                               0x5d, 0x94, 0x28,                                        // EMPTY_LIST MEMOIZE MARK
                               0x4b, 0x01,                                              // BININT1 1
                               0x4a, 0xfe, 0xff, 0xff, 0xff,                            // BININT -2
                               0x4d, 0x2c, 0x01,                                        // BININT2 300
                               0x4a, 0x70, 0x11, 0x01, 0x00,                            // BININT 70000
                               0x8a, 0x06, 0,    0,    0,    0,    0,   0x01,           // LONG1 2**40
                               0x8a, 0x06, 0,    0,    0,    0,    0,   0xff,           // LONG1 -2**40
                               0x65,                                                    // APPENDS
                               0x8c, 0x01, 'b',  0x94,                                  // 'b'
                               0x47, 0x3f, 0xf8, 0,    0,    0,    0,   0,    0,        // BINFLOAT 1.5
                               0x88, 0x4e, 0x87, 0x94,                                  // True None TUPLE3
                               0x8c, 0x01, 'c',  0x94, 0x43, 0x01, 'x', 0x94,           // 'c' SHORT_BINBYTES
                               0x75, 0x2e});                                            // SETITEMS STOP
  auto d = parse_pickle(p, "t.pickle");
  ASSERT_TRUE(d.ok()) << d.error().message;
  const auto a = d->get(d->root(), "a");
  ASSERT_TRUE(d->is(a, K::List));
  ASSERT_EQ(d->items(a).size(), 6u);
  EXPECT_EQ(d->integer(d->items(a)[0]), 1);
  EXPECT_EQ(d->integer(d->items(a)[1]), -2);
  EXPECT_EQ(d->integer(d->items(a)[2]), 300);
  EXPECT_EQ(d->integer(d->items(a)[3]), 70000);
  EXPECT_EQ(d->integer(d->items(a)[4]), int64_t{1} << 40);
  EXPECT_EQ(d->integer(d->items(a)[5]), -(int64_t{1} << 40));
  const auto b = d->get(d->root(), "b");
  ASSERT_TRUE(d->is(b, K::Tuple));
  EXPECT_DOUBLE_EQ(d->number(d->items(b)[0]), 1.5);
  EXPECT_TRUE(d->is(d->items(b)[1], K::Bool));
  EXPECT_TRUE(d->is(d->items(b)[2], K::None));
  EXPECT_EQ(d->str(d->get(d->root(), "c")), "x");
}

TEST(Pickle, RefusesEveryOpcodeThatImportsOrCalls) {
  // GLOBAL 'os\nsystem\n', STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, PERSID, BINPERSID, EXT1
  for (int op : {int{'c'}, 0x93, int{'R'}, int{'b'}, int{'i'}, int{'o'}, 0x81, 0x92, int{'P'}, int{'Q'}, 0x82}) {
    std::string p = bytes({0x80, 0x04, op});
    p += "os\nsystem\n.";
    auto d = parse_pickle(p, "evil.pickle");
    ASSERT_FALSE(d.ok()) << op;
    EXPECT_EQ(d.error().kind, ErrorKind::Malformed);
    EXPECT_EQ(d.error().byte_offset, 2);
    EXPECT_NE(d.error().message.find("never imports or calls"), std::string::npos) << d.error().message;
  }
}

TEST(Pickle, DamagedInputIsMalformedNeverACrash) {
  const std::vector<std::string> bad = {
      bytes({0x80, 0x04}),                                               // no STOP
      bytes({0x80, 0x04, 0x2e}),                                         // STOP on an empty stack
      bytes({0x80, 0x04, 0x58, 0xff, 0xff, 0xff}),                       // BINUNICODE past the end
      bytes({0x80, 0x04, 0x68, 0x05, 0x2e}),                             // BINGET of nothing stored
      bytes({0x80, 0x04, 0x65, 0x2e}),                                   // APPENDS without a MARK
      bytes({0x80, 0x04, 0x4b, 0x01, 0x4b, 0x02, 0x61, 0x2e}),           // APPEND to an int
      bytes({0x80, 0x04, 0x7d, 0x28, 0x4b, 0x01, 0x75, 0x2e}),           // SETITEMS with an odd count
      bytes({0x80, 0x04, 0x8a, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x2e}),  // a 72-bit integer
      bytes({0x80, 0x04, 0x30, 0x2e}),                                   // POP of nothing
      bytes({0x80, 0x04, 0x28, 0x74, 0x61, 0x2e}),                       // APPEND to a tuple
  };
  for (const auto& p : bad) {
    auto d = parse_pickle(p, "bad.pickle");
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().kind, ErrorKind::Malformed) << d.error().message;
  }
}

TEST(Pickle, SharedValuesAreNotCopied) {
  // A list holding itself 1000 times through the memo: O(bytes) values, not O(2^n).
  std::string p = bytes({0x80, 0x04, 0x5d, 0x94, 0x28});
  for (int i = 0; i < 1000; ++i) p += bytes({0x68, 0x00});
  p += bytes({0x65, 0x2e});
  auto d = parse_pickle(p, "self.pickle");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->items(d->root()).size(), 1000u);
  EXPECT_EQ(d->size(), 1u);
}

TEST(Pickle, LimitsAreMalformed) {
  PickleLimits lim;
  lim.max_values = 10;
  std::string p = bytes({0x80, 0x04, 0x5d, 0x28});
  for (int i = 0; i < 20; ++i) p += bytes({0x4b, 0x01});
  p += bytes({0x65, 0x2e});
  auto d = parse_pickle(p, "big.pickle", lim);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::Malformed);
}

TEST(MemorySnapshot, ReadsTheH100Snapshot) {
  auto s = read_memory_snapshot(GOBLIN_SOURCE_DIR "/tests/fixtures/memory/snapshot_b8.pickle");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->has_history);
  EXPECT_TRUE(s->default_rounding);
  EXPECT_FALSE(s->segments.empty());
  EXPECT_EQ(s->events.size(), 3083u);  // len(snapshot['device_traces'][0])
  size_t allocs = 0;
  for (const auto& e : s->events) allocs += e.action == MemAction::Alloc;
  EXPECT_EQ(allocs, 1116u);
  ASSERT_FALSE(s->annotations.empty());
  EXPECT_EQ(s->annotations[0].name, "Optimizer.step#AdamW.step");
  // Frames are read once per shared (memoised) object and deduplicated.
  EXPECT_LT(s->frames.size(), 200u);
  bool forward = false;
  for (const auto& f : s->frames) forward = forward || f.name == "multi_head_attention_forward";
  EXPECT_TRUE(forward);
}

TEST(MemorySnapshot, NotAPickleIsUnknownFormat) {
  auto s = parse_memory_snapshot("{\"traceEvents\": []}", "t.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::UnknownFormat);
  // A pickle of a plain int is not a snapshot.
  auto t = parse_memory_snapshot(bytes({0x80, 0x04, 0x4b, 0x01, 0x2e}), "int.pickle");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind, ErrorKind::Malformed);
}

}  // namespace
}  // namespace goblin::trace
