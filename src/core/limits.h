// Documented input limits (docs/robustness.md, "Limits"). Each bounds the time and memory one
// hostile input can cost: past a limit the parser stops with a Malformed error (exit 5) that
// names the limit, never a crash, a hang or a silent truncation. Real inputs stay far below them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace goblin::limits {

// Nesting of arrays/objects in a JSON document goblin parses (metrics, compare inputs, MCP
// requests, judge answers, JSON configs). Real documents nest fewer than 20 levels.
inline constexpr int kMaxJsonDepth = 512;

// The longest name (kernel, op, annotation, metadata value) goblin keeps: longer ones are cut
// with a note of how much was dropped. Real demangled C++ template names reach ~10 KB; one
// 100 MiB name would otherwise be kept, copied into every table and written into every output.
inline constexpr size_t kMaxNameBytes = 64u << 10;

// Config files (YAML, JSON, Python, env): size on disk (after gzip), nesting of blocks, and the
// number of nodes a YAML document expands to once its aliases are followed ("billion laughs").
inline constexpr uint64_t kMaxConfigBytes = 8ull << 20;
inline constexpr int kMaxConfigDepth = 128;
inline constexpr size_t kMaxConfigNodes = 200'000;

// An LLM judge's answer (diagnose --parse-response, the MCP diagnose tool): size, and nesting of
// the JSON taken from it (a judge answer nests 4 levels).
inline constexpr uint64_t kMaxJudgeResponseBytes = 4ull << 20;
inline constexpr int kMaxJudgeDepth = 32;

// Small JSON inputs read whole (RunMetrics, a patch JSON, compare's inputs).
inline constexpr uint64_t kMaxJsonInputBytes = 256ull << 20;

// A FIFO, pipe or other stream given where a file is expected (`<(zcat t.json.gz)`) is copied
// once into a private temporary file, up to this many bytes, and read from there.
inline constexpr uint64_t kMaxStreamBytes = 8ull << 30;

// SQLite inputs (Nsight Systems exports, rocprof results.db): a file is a program as much as data
// (a view can recurse forever or build 50 MB per row), so it is opened read-only and immutable,
// views and triggers are disabled, and every read is bounded. A value (string or blob) longer
// than kMaxSqliteValueBytes stops the read (real names are < 100 KB; the string pool keeps 64
// KiB of one). Rows read from one file: at most kMaxSqliteRows. Work: at most
// kSqliteStepsBase + kSqliteStepsPerByte x file size SQLite VM steps (a plain scan costs < 1 step
// per byte; the budget only stops work that does not end) and kMaxSqliteSeconds of wall time.
inline constexpr uint64_t kMaxSqliteValueBytes = 1ull << 20;
inline constexpr uint64_t kMaxSqliteRows = 1ull << 30;
inline constexpr uint64_t kSqliteStepsBase = 100'000'000;
inline constexpr uint64_t kSqliteStepsPerByte = 64;
inline constexpr int64_t kMaxSqliteSeconds = 1800;

// Timestamps: int64 ns cover +-292 years, so an event at +-9e15 us (a damaged Kineto ts) still
// parses but its end, or the span from it to a real event, overflows. Events further than this
// from the clock's origin (146 years: epoch clocks are at ~56 years) are clamped into range with
// duration 0 and a warning (Timeline::validate), so any span between two events fits in int64.
inline constexpr int64_t kMaxAbsTimestampNs = int64_t{1} << 62;

// A tensor shape a trace records and goblin computes sizes from (the Input Dims of a Kineto user
// annotation: a collective's message): at most 2^48 elements a tensor (256 Ti, beyond any device's
// memory), so element and byte counts stay exact in int64 and double. A shape past it is refused.
inline constexpr uint64_t kMaxTensorElements = uint64_t{1} << 48;

// Ranks of one job: the most a rank summary or group summary may claim (rank number, world size),
// and the digits a rank number found in a file name may have (rank<N>, --rank-regex). Far above
// any job that has run (the largest published ones are ~10^5 GPUs); a hostile summary claiming
// 10^18 ranks is refused before anything is sized by it.
inline constexpr int64_t kMaxRanks = 10'000'000;
inline constexpr size_t kMaxRankDigits = 7;  // kMaxRanks - 1 has 7 digits

}  // namespace goblin::limits
