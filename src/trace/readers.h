// Entry points of the format readers. Every reader appends what it reads to one Timeline and
// returns an error when the input is damaged; what was read before the damage stays in the
// Timeline (partial results), and non-fatal problems go to Timeline::warn.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/io.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::trace {

struct ReadOptions {
  IoLimits io;
  size_t chunk_bytes = 8u << 20;  // streaming readers' read size
  // Kineto traces this large (plain), or a 16th of it (.json.gz, compressed size), are read in
  // blocks parsed on `threads` threads (kineto/batch_reader.cpp); results are identical to the
  // one-thread read. SIZE_MAX turns it off.
  uint64_t parallel_min_bytes = 64ull << 20;
  int threads = 2;
  // A block's target size (cut at the next event boundary). 4 MiB reads as fast as 8 MiB with
  // ~35 MB less peak memory on a 1 GB trace (bench/README.md).
  size_t block_bytes = 4u << 20;
  // Block reading maps plain files instead of read() copies. Off: on the 2-core VMs, mapping a
  // 1 GB trace read it 1.5-1.7x slower than read() (page faults; bench/README.md).
  bool map_plain_files = false;
  // Lean reading, for analyses that need neither CPU ops nor flows (goblin ranks): Kineto cpu_op
  // and python_function events whose name this rejects are skipped unread (no row, no check of
  // their args), and so are flow events when skip_flows is set. Unset: every event is read.
  std::function<bool(std::string_view)> keep_cpu_op;
  bool skip_flows = false;
};

// Format from the first bytes of the (decompressed) content, never the file name.
// `path` is only used for SQLite files, whose tables must be inspected.
Format sniff_format(std::string_view prefix, const std::string& path);

// Reads a file or a directory (a directory is read as one run: every readable file in it,
// e.g. rocprofv3 output or a goblin run directory). Sniffs the format of each file.
Status read_path(const std::string& path, Timeline& tl, const ReadOptions& opt = {});

// Reads one file of a known format.
Status read_file_as(Format f, const std::string& path, Timeline& tl, const ReadOptions& opt = {});

// ---- per-format readers (src/trace/<family>/) ----
Status read_kineto(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_rocprofv3_csv(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_rocprofv3_json(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_rocprof_v1(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_rocpd(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_rocprof_compute(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_nsys_sqlite(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_ncu_csv(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_nvidia_smi(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_amd_smi(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_rocm_smi(const std::string& path, Timeline& tl, const ReadOptions& opt);

// ---- per-format sniffers: true when `prefix` (first ≤64 KiB, decompressed) is that format ----
bool sniff_kineto(std::string_view prefix);
bool sniff_rocprofv3_json(std::string_view prefix);
bool sniff_rocprof_v1(std::string_view prefix);  // results.csv / stats csv / results.json
bool sniff_rocprofv3_csv(std::string_view prefix);
bool sniff_ncu_csv(std::string_view prefix);
bool sniff_nvidia_smi(std::string_view prefix);
bool sniff_amd_smi(std::string_view prefix);
bool sniff_rocm_smi(std::string_view prefix);
// SQLite files: decided from the table names.
Format sniff_sqlite(const std::string& path);
// When `path` is an SQLite file too damaged to list its tables (truncated, corrupt page): SQLite's
// reason. A damaged export is malformed input (exit 5), not an unknown format.
std::optional<std::string> sqlite_damage(const std::string& path);

}  // namespace goblin::trace
