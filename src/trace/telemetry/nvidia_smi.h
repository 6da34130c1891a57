// nvidia-smi output (`--query-gpu ... --format=csv[,noheader][,nounits]` and `dmon`) into
// Timeline samples. read_nvidia_smi() in trace/readers.h is the entry point; these in-memory
// variants serve the tests and the fuzzer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "model/timeline.h"

namespace goblin::trace::nvsmi {

// Either shape: dmon text (starts with '#') or query CSV.
Status parse(std::string_view text, const std::string& path, Timeline& tl);
Status parse_query_csv(std::string_view text, const std::string& path, Timeline& tl);
Status parse_dmon(std::string_view text, const std::string& path, Timeline& tl);

// nvidia-smi writes local time without a zone ("2026/11/22 06:05:38.730"). We cannot know the
// zone, so the wall-clock fields are read as if they were UTC ("UTC-naive"): ns since
// 1970-01-01T00:00 of that wall-clock time. Samples of one file stay exact relative to each
// other; aligning with an epoch-based trace needs the machine's UTC offset.
std::optional<int64_t> parse_timestamp(std::string_view text);
// dmon's "-o DT" columns: date "20261122" and time "06:05:40" (either may be empty).
std::optional<int64_t> parse_dmon_time(std::string_view yyyymmdd, std::string_view hhmmss);

// "117.82 W" → 117.82, "2 %" → 2, "0x0000000000000004" → 4, "P0" → 0; nullopt for text.
std::optional<double> parse_value(std::string_view cell);
// A GPU index cell ("0", "3"): a small non-negative integer, else nullopt.
std::optional<int32_t> parse_gpu_index(std::string_view cell);

// "[N/A]", "[Not Supported]", "[Unknown Error]", "N/A", "-" (dmon): a reading that is absent.
bool is_unavailable(std::string_view cell);

// Normalised SampleTable metric name for an nvidia-smi query field (after alias expansion,
// without its " [unit]"), e.g. "utilization.gpu" → "gpu_util_pct"; other fields keep their
// own name.
std::string metric_name(std::string_view field);

}  // namespace goblin::trace::nvsmi
