// corpus: telemetry
// libFuzzer target for the amd-smi reader (input written to a per-process temp file, since
// readers take paths). Any crash, leak or sanitizer report is a bug; errors are expected.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "trace/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = fmt::format("/tmp/goblin_fuzz_amd_smi_{}", getpid());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  goblin::trace::ReadOptions opt;
  opt.io.max_inflated_bytes = 256u << 20;
  goblin::Timeline tl;
  (void)goblin::trace::read_amd_smi(path, tl, opt);
  return 0;
}
