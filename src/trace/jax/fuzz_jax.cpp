// corpus: repo:tests/fixtures/jax
// libFuzzer target for the JAX (XProf) trace reader. The reader takes paths and inflates gzip
// (the corpus is the committed .trace.json.gz fixtures), so each input is written to a
// per-process temp file, read in small chunks so events straddle the splitter's reads, and the
// Timeline is finished (sorted, validated). Any crash, leak or sanitizer report is a bug; errors
// are expected.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "trace/jax/jax.h"

namespace {
const std::string& scratch_path() {
  static const std::string p = fmt::format("/tmp/goblin_fuzz_jax_{}", getpid());
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
  opt.chunk_bytes = 97;
  goblin::Timeline tl;
  (void)goblin::trace::read_jax(path, tl, opt);
  tl.finish();
  return 0;
}
