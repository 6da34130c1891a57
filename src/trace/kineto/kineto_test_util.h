// Shared by the Kineto reader's tests: the fixture golden counts, readers of a file or text in
// given chunk sizes, a splitter event collector, one minimal event.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/io.h"
#include "trace/kineto/kineto.h"
#include "trace/kineto/trace_splitter.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

const std::string kDir = std::string(GOBLIN_FIXTURES) + "/kineto/";

struct Golden {
  const char* file;
  size_t kernels, memcpy, memset, runtime, cpu_ops, annotations, flows;
  int64_t span_ns, gpu_span_ns;
};

// python3 script in the test header comment; spans in exact ns from the decimal text.
const Golden kGolden[] = {
    {"a100_alexnet_cuda_sync.json.gz", 79, 16, 3, 402, 359, 8, 500, 43425365000, 12920244000},
    {"cpu_only_rank-34.json.gz", 0, 0, 0, 0, 4, 11, 0, 1283027080, 0},
    {"gpu_user_annotation_steps.json.gz", 130, 10, 0, 180, 643, 20, 320, 9990000, 7737000},
    {"h100_llama_bf16_sdpa_w4.json.gz", 4036, 76, 276, 4817, 21724, 24, 14021, 254368078, 253528317},
    {"h100_llama_fp32_eager_w0.json.gz", 7582, 89, 239, 7477, 28772, 24, 21011, 884980990, 884906600},
    {"h100_qwen05b_inference_stack.json.gz", 1465, 1, 241, 1922, 8448, 2, 3629, 49779532, 49652832},
    {"h100_torch211_export_chrome_trace.json", 40, 6, 2, 63, 196, 10, 139, 7489522, 4882859},
    {"h100_torch211_tensorboard_handler.pt.trace.json.gz", 40, 6, 2, 63, 759, 12, 139, 6754169, 5081410},
    {"kineto_2021_computeProperties.json", 30, 2, 0, 42, 179, 1, 64, 13681000, 11946000},
    {"kineto_2021_legacy_resnet50.json.gz", 9329, 338, 466, 15754, 33535, 0, 20266, 5295420000, 5243667000},
    {"kineto_2026_occupancy_cuda_sync.json", 1, 0, 0, 3, 4, 0, 4, 130, 20},
    {"large_integer_rank-70.json.gz", 1, 0, 0, 0, 1, 0, 0, 200000, 50000},
    {"mi250_rocm62_minitoy_train.json.gz", 14, 2, 0, 21, 70, 5, 45, 9583086, 8911887},
    {"nccl_sampled_rank-0.json.gz", 1154, 40, 10, 1204, 2329, 73, 0, 1230289000, 1222847000},
    {"nccl_sampled_rank-1.json.gz", 1104, 40, 10, 1154, 2302, 65, 0, 1238593000, 1231186000},
    {"triton_example.json.gz", 1, 0, 0, 2, 3, 1, 3, 13336315805, 1760},
};

inline Status read(const std::string& file, Timeline& tl, size_t chunk = 8u << 20) {
  ReadOptions opt;
  opt.chunk_bytes = chunk;
  return read_kineto(kDir + file, tl, opt);
}

inline Status read_text(std::string_view text, Timeline& tl, size_t max_read = SIZE_MAX, size_t chunk = 8u << 20) {
  auto src = kineto::memory_source("mem.json", text, max_read);
  ReadOptions opt;
  opt.chunk_bytes = chunk;
  return kineto::read_source(*src, tl, opt);
}

struct Collect : kineto::TraceSplitter::Handler {
  std::vector<std::string> events, keys, values, notes;
  void on_event(std::string_view j, uint64_t) override { events.emplace_back(j); }
  void on_top_level(std::string_view k, std::string_view v, uint64_t) override {
    keys.emplace_back(k);
    values.emplace_back(v);
  }
  void on_note(std::string m, uint64_t) override { notes.push_back(std::move(m)); }
};

inline Status split(std::string_view text, Collect& c, size_t step) {
  kineto::TraceSplitter sp(c, "t.json");
  for (size_t i = 0; i < text.size(); i += step) {
    Status s = sp.feed(text.data() + i, std::min(step, text.size() - i));
    if (!s.ok()) return s;
  }
  return sp.finish();
}

const std::string kEv =
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10.5, \"dur\": 2.25, "
    "\"args\": {\"stream\": 7, \"correlation\": 3, \"grid\": [1, 2, 3]}}";

}  // namespace
}  // namespace goblin::trace
