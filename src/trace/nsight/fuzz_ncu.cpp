// corpus: nsight
// libFuzzer target: Nsight Compute CSV (raw and details pages) from arbitrary bytes. Any crash,
// sanitizer report or leak is a bug; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/nsight/ncu_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  goblin::Timeline tl;
  goblin::Status s =
      goblin::trace::parse_ncu_csv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv", tl);
  (void)s;
  return 0;
}
