// corpus: rocprof
// libFuzzer target for the AMD profiler readers: every input goes through the rocprofv3 CSV,
// rocprofv3 JSON and legacy rocprof readers (the readers take paths, so it is written to a
// per-process temp file). Any crash, leak or sanitizer report is a bug; errors are expected.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "trace/readers.h"

namespace {
const std::string& scratch_path() {
  static const std::string p = fmt::format("/tmp/goblin_fuzz_rocprof_{}", getpid());
  return p;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = scratch_path();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  goblin::trace::ReadOptions opt;
  opt.io.max_inflated_bytes = 256u << 20;  // keep gzip inputs bounded under the fuzzer
  {
    goblin::Timeline tl;
    (void)goblin::trace::read_rocprofv3_csv(path, tl, opt);
  }
  {
    goblin::Timeline tl;
    (void)goblin::trace::read_rocprofv3_json(path, tl, opt);
  }
  {
    goblin::Timeline tl;
    (void)goblin::trace::read_rocprof_v1(path, tl, opt);
    tl.finish();
  }
  return 0;
}
