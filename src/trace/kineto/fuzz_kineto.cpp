// corpus: kineto repo:tests/fixtures/memory
// libFuzzer target: arbitrary bytes through the same splitter + event parser as read_kineto,
// with a small chunk size so chunk-boundary handling is exercised too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/kineto/kineto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  goblin::Timeline tl;
  goblin::trace::ReadOptions opt;
  opt.chunk_bytes = 4096;
  // First byte picks a read size so boundaries land everywhere.
  size_t max_read = size ? 1 + data[0] % 97 : 1;
  auto src = goblin::trace::kineto::memory_source("fuzz.json", bytes, max_read);
  (void)goblin::trace::kineto::read_source(*src, tl, opt);
  tl.finish();
  return 0;
}
