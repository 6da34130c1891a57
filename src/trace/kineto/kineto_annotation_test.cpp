// User annotations' recorded tensors (AnnotationTable::input_dims / input_types): a collective's
// "nccl:<name>" range keeps the Input Dims / Input type PyTorch gives it, on both of the event
// parser's paths; hostile ones are refused with a folded warning and the row kept without them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace/kineto/kineto.h"
#include "trace/kineto/kineto_test_util.h"

namespace goblin::trace {
namespace {

std::string doc_of(const std::vector<std::string>& events) {
  std::string d = "{\"schemaVersion\": 1, \"traceEvents\": [";
  for (size_t i = 0; i < events.size(); ++i) d += (i ? ",\n" : "") + events[i];
  return d + "]}";
}

std::string annotation(const std::string& name, const std::string& args) {
  return R"({"ph": "X", "cat": "user_annotation", "name": ")" + name +
         R"(", "pid": 4037, "tid": 23695, "ts": 100, "dur": 10, "args": {"External id": 7)" +
         (args.empty() ? "" : ", " + args) + "}}";
}

// Both paths of the parser (the fast scanner and simdjson) read the same rows and warnings.
template <class F>
void both_paths(const std::string& doc, F&& check) {
  for (bool fast : {true, false}) {
    SCOPED_TRACE(fast ? "fast path" : "simdjson path");
    kineto::set_fast_path_enabled(fast);
    Timeline tl;
    Status s = read_text(doc, tl);
    kineto::set_fast_path_enabled(true);
    ASSERT_TRUE(s.ok()) << s.error().message;
    check(tl);
  }
}

TEST(KinetoAnnotationArgs, KeepsTheTensorsOfACollectivesRange) {
  const std::string doc = doc_of({
      annotation("nccl:all_reduce", R"("Ev Idx": 27620, "Input Dims": [[19618307]], "Input type": ["float"])"),
      annotation("## forward ##", ""),
      annotation("nccl:all_to_all", R"("Input Dims": [[384], []], "Input type": ["long", ""])"),
      R"({"ph": "X", "cat": "gpu_user_annotation", "name": "nccl:all_reduce", "pid": 0, "tid": 7, "ts": 101, "dur": 5, "args": {"device": 0, "stream": 7}})",
  });
  both_paths(doc, [](const Timeline& tl) {
    const AnnotationTable& a = tl.annotations;
    ASSERT_EQ(a.size(), 4u);
    int kept = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (tl.str(a.name[i]) == "nccl:all_reduce" && !a.on_gpu[i]) {
        EXPECT_EQ(tl.str(a.input_dims[i]), "[[19618307]]");
        EXPECT_EQ(tl.str(a.input_types[i]), "[\"float\"]");
        ++kept;
      } else if (tl.str(a.name[i]) == "nccl:all_to_all") {
        EXPECT_EQ(tl.str(a.input_dims[i]), "[[384], []]");
        EXPECT_EQ(tl.str(a.input_types[i]), "[\"long\", \"\"]");
        ++kept;
      } else {  // no args (most annotations), and the GPU-side projection: nothing stored
        EXPECT_EQ(a.input_dims[i], kNoStr);
        EXPECT_EQ(a.input_types[i], kNoStr);
      }
    }
    EXPECT_EQ(kept, 2);
    EXPECT_TRUE(tl.warnings.empty());
  });
}

TEST(KinetoAnnotationArgs, RefusesHostileShapesAndKeepsTheRow) {
  const char* bad[] = {
      R"("Input Dims": [[-1]], "Input type": ["float"])",                       // negative
      R"("Input Dims": [[281474976710657]], "Input type": ["float"])",          // one size over 2^48
      R"("Input Dims": [[99999999999999999999999]], "Input type": ["float"])",  // over int64
      R"("Input Dims": [[16777216, 16777216, 2]], "Input type": ["float"])",    // 2^49 elements
      R"("Input Dims": [[1.5]], "Input type": ["float"])",                      // not an integer
      R"("Input Dims": [[1e3]], "Input type": ["float"])",
      R"("Input Dims": "[[4]]", "Input type": ["float"])",  // not an array
      R"("Input Dims": 4, "Input type": ["float"])",
      R"("Input Dims": {"a": [4]}, "Input type": ["float"])",
      R"("Input Dims": [4], "Input type": ["float"])",  // shapes not lists
      R"("Input Dims": [[[4]]], "Input type": ["float"])",
      R"("Input Dims": [["4"]], "Input type": ["float"])",
      R"("Input Dims": [[4]], "Input type": "float")",  // types not a list
      R"("Input Dims": [[4]], "Input type": [4])",
      R"("Input Dims": [[4]], "Input type": ["fl\"oat"])",
      R"("Input Dims": [[4], [2]], "Input type": ["float"])",  // counts differ
  };
  for (const char* args : bad) {
    SCOPED_TRACE(args);
    const std::string doc = doc_of({annotation("nccl:all_reduce", args), annotation("nccl:all_reduce", args)});
    both_paths(doc, [](const Timeline& tl) {
      ASSERT_EQ(tl.annotations.size(), 2u);  // the rows stay (steps, stages and the SQL table see them)
      for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(tl.annotations.input_dims[i], kNoStr);
        EXPECT_EQ(tl.annotations.input_types[i], kNoStr);
      }
      ASSERT_EQ(tl.warnings.size(), 1u);  // folded
      EXPECT_EQ(tl.warnings[0].id, W::kineto_bad_annotation_args);
      EXPECT_EQ(tl.warnings[0].count, 2);
      EXPECT_GE(tl.warnings[0].byte_offset, 0);
    });
  }
}

TEST(KinetoAnnotationArgs, TheFixturesCollectiveRangesKeepTheirSizes) {
  // nccl_sampled: c10d::allreduce_ records its TensorList as []; the all-reduce's size is on the
  // nccl:all_reduce annotation inside it (4 per rank, 10 annotations with Input Dims each).
  for (const char* f : {"nccl_sampled_rank-0.json.gz", "nccl_sampled_rank-1.json.gz"}) {
    SCOPED_TRACE(f);
    Timeline tl;
    ASSERT_TRUE(read(f, tl).ok());
    int with_dims = 0, all_reduce = 0;
    for (size_t i = 0; i < tl.annotations.size(); ++i) {
      if (tl.annotations.input_dims[i] == kNoStr) continue;
      ++with_dims;
      if (tl.str(tl.annotations.name[i]) == "nccl:all_reduce") {
        ++all_reduce;
        EXPECT_EQ(tl.str(tl.annotations.input_types[i]), "[\"float\"]");
      }
    }
    EXPECT_EQ(with_dims, 10);
    EXPECT_EQ(all_reduce, 4);
  }
}

}  // namespace
}  // namespace goblin::trace
