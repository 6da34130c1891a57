// One run as the store keeps it (docs/store.md § Schema): what was run on what, by which goblin, on
// which machine, linked to which experiment and trial, the artifacts by content hash, and the
// summary tables the dashboard and `goblin gate` query. extract.cpp fills one from a verb's result
// JSON or a folder of earlier results; store.cpp writes and reads it.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace goblin::store {

inline constexpr const char* kUnknown = "unknown";

// Seed 002's linkage contract, in this order (columns of `runs`; "unknown" when nothing said).
const std::vector<std::string>& linkage_fields();

struct InputFile {
  std::string path, sha256;
  int64_t bytes = 0;
};
struct Artifact {
  std::string name, sha256;
  int64_t bytes = 0;
  std::optional<std::string> content;  // text artifacts are kept; binary ones by hash only
};
struct StepRow {
  std::string name;
  std::optional<double> wall_s, busy_s;
};
struct CategoryRow {
  std::string category;
  std::optional<double> time_s, pct;
};
struct KernelRow {
  std::string name, category;
  std::optional<double> time_s, pct;
  int64_t count = 0;
};
struct WasteRow {
  std::string bucket;
  std::optional<double> seconds;  // null: not observed
};
struct AuditRoundRow {
  int round = 1;
  std::vector<std::string> rules;
  std::string gpu, method, held;
  std::optional<double> predicted_low, predicted_high, measured, ci_low, ci_high;
  std::optional<bool> significant;
};
struct IterationRow {
  int version = 0;
  std::string change;
  std::optional<double> value, pct_of_target;  // value in the workspace's target metric
  std::string metric;
  bool masked = false, correct = true;
};
struct RankRow {
  int rank = 0;
  std::string gpu;
  std::optional<double> step_time_s;
  int64_t steps = 0, collectives = 0;
};

struct RunRecord {
  int64_t id = 0;                                 // set by the store
  std::string content_key;                        // sha256 of what makes the run this run (a second add is a no-op)
  std::string created;                            // ISO 8601 UTC
  std::string verb, workload = kUnknown, source;  // source: "verb" | "import:<kind>"
  std::string goblin_version = kUnknown, goblin_commit = kUnknown;
  // Environment fingerprint.
  std::string gpu = kUnknown, driver = kUnknown, cuda = kUnknown, rocm = kUnknown, pytorch = kUnknown,
              clocks = kUnknown;
  std::map<std::string, std::string> linkage;  // every linkage_fields() name, "unknown" when absent
  std::vector<std::string> tags;
  std::map<std::string, double> metrics;  // step_time_s, tokens_per_sec, mfu_pct, gpu_util_pct, ...
  std::vector<InputFile> inputs;
  std::vector<Artifact> artifacts;
  std::vector<StepRow> steps;
  std::vector<CategoryRow> categories;
  std::vector<KernelRow> kernels;
  std::vector<WasteRow> waste;
  std::vector<AuditRoundRow> audit_rounds;
  std::vector<IterationRow> iterations;
  std::vector<RankRow> ranks;
};

Json run_to_json(const RunRecord& r, bool with_tables);

// Fills the summary tables, environment, linkage and metrics from one result JSON (a RunMetrics,
// a triage/breakdown/ranks/diff result, an audit report, a kernel workspace status): whichever
// of the known keys it holds. Unknown shapes add nothing.
void summarize_json(const Json& j, RunRecord& r);
// Fills the fields nothing set with "unknown" and derives experiment/trial linkage.
void finish_record(RunRecord& r);

// SHA-256 (content hashes of inputs and artifacts), lower-case hex.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::string hex();  // once, at the end

 private:
  std::array<uint32_t, 8> h_;
  std::array<unsigned char, 64> buf_{};
  size_t fill_ = 0;
  uint64_t total_ = 0;
};
std::string sha256_hex(std::string_view bytes);
// The hash of a file's bytes as they are on disk (a .gz is hashed compressed), read in blocks.
Result<InputFile> hash_file(const std::string& path);

}  // namespace goblin::store
