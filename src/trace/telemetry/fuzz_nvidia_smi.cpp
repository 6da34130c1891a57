// corpus: telemetry
// libFuzzer target: nvidia-smi query CSV and dmon text from arbitrary bytes. Any crash,
// sanitizer report or leak is a bug; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/telemetry/nvidia_smi.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  goblin::Timeline tl;
  goblin::Status s =
      goblin::trace::nvsmi::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt", tl);
  (void)s;
  return 0;
}
