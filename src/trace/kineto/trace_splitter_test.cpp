// The splitter that finds event boundaries in a Kineto trace: strings with escapes and brackets,
// bare arrays, structural errors.
#include "trace/kineto/trace_splitter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/io.h"
#include "trace/kineto/kineto.h"
#include "trace/kineto/kineto_test_util.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

TEST(KinetoSplitter, EscapedQuotesAndBracketsInStrings) {
  const std::string doc =
      "\xEF\xBB\xBF {\"a\": \"x}\\\"]\", \"traceEvents\": [ {\"name\": \"q\\\"}{[\\\\\", \"args\": {\"v\": [1, {\"w\": "
      "\"]\"}]}} ,{\"name\":\"\\\\\"}\n], \"traceName\": \"t\\\\\", \"n\": -1.5e3}  \n";
  for (size_t step : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{1000}}) {
    SCOPED_TRACE(step);
    Collect c;
    Status st = split(doc, c, step);
    ASSERT_TRUE(st.ok()) << st.error().describe();
    ASSERT_EQ(c.events.size(), 2u);
    EXPECT_EQ(c.events[0], "{\"name\": \"q\\\"}{[\\\\\", \"args\": {\"v\": [1, {\"w\": \"]\"}]}}");
    EXPECT_EQ(c.events[1], "{\"name\":\"\\\\\"}");
    ASSERT_EQ(c.keys, (std::vector<std::string>{"a", "traceName", "n"}));
    EXPECT_EQ(c.values[0], "\"x}\\\"]\"");
    EXPECT_EQ(c.values[1], "\"t\\\\\"");
    EXPECT_EQ(c.values[2], "-1.5e3");
    EXPECT_TRUE(c.notes.empty());
  }
}

TEST(KinetoSplitter, BareArrayAndTrailingGarbage) {
  Collect c;
  ASSERT_TRUE(split("[{\"ph\":\"X\"},{\"ph\":\"M\"}] xyz", c, 4).ok());
  EXPECT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.notes.size(), 1u);
}

TEST(KinetoSplitter, StructuralErrorsAreMalformed) {
  Collect c;
  Status s = split("{\"traceEvents\": [{\"a\":1}], 5}", c, 3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().byte_offset, 27);  // the stray 5
  EXPECT_EQ(c.events.size(), 1u);
  Collect d;
  EXPECT_FALSE(split("{\"schemaVersion\": 1}", d, 100).ok());  // no traceEvents at all
  // A stray '}' where an event should start (found by the fuzzer: it used to loop forever).
  for (std::string_view bad : {"{\"traceEvents\": [}", "{\"traceEvents\": [{}, 1 }", "[ : ]"}) {
    Collect e;
    Status st = split(bad, e, 2);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.error().kind, ErrorKind::Malformed);
  }
}

// ---- damaged input -----------------------------------------------------------------------------

}  // namespace
}  // namespace goblin::trace
