// corpus: repo:tests/fixtures/memory
// libFuzzer target: arbitrary bytes through the data-only pickle reader and the memory snapshot
// reader (`goblin memory`): Malformed or read, never a crash, a hang or unbounded memory.
#include <cstddef>
#include <cstdint>
#include <string>

#include "trace/memory_snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)goblin::trace::parse_memory_snapshot(std::move(bytes), "fuzz.pickle");
  return 0;
}
