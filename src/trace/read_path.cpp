#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/io.h"
#include "core/json.h"
#include "trace/readers.h"

namespace goblin {

namespace {
constexpr size_t kSniffBytes = 64 * 1024;

bool is_sqlite(std::string_view p) { return p.substr(0, 16) == std::string_view("SQLite format 3\0", 16); }

// Files goblin's own runners write into a run directory beside the trace and the telemetry
// (docs/live.md § goblin profile): read by other verbs (compare, the audit), never profiler
// output, so a directory read skips them without a warning.
bool known_run_side_file(const std::filesystem::path& f) {
  static const char* const kNames[] = {"run.json",   "hook.json",   "result.json", "metrics.json",   "stdout.log",
                                       "stderr.log", "metrics.out", "metrics.err", "live_runs.json", "bench.json"};
  const std::string n = f.filename().string();
  for (const char* k : kNames)
    if (n == k) return true;
  return n.rfind("goblin_meta_", 0) == 0 && f.extension() == ".tsv";
}

// A goblin run directory (run.json with schema goblin.run/N and a `files` map): exactly the trace
// and telemetry files it lists that exist, relative to the directory. nullopt when `dir` is not
// one, so the caller walks the directory instead. Other processes' traces a run keeps
// (RUN_DIR/cupti/) are not the run's own and must not be merged into its timeline.
std::optional<std::vector<std::string>> run_directory_files(const std::string& dir) {
  auto text = read_all(dir + "/run.json");
  if (!text) return std::nullopt;
  Json run = Json::parse(*text, nullptr, false);
  if (!run.is_object() || !run.contains("schema") || !run["schema"].is_string() ||
      run["schema"].get<std::string>().rfind("goblin.run/", 0) != 0 || !run.contains("files") ||
      !run["files"].is_object())
    return std::nullopt;
  std::vector<std::string> out;
  for (const char* k : {"trace", "telemetry"}) {
    const Json& f = run["files"].value(k, Json());
    if (!f.is_string()) continue;
    std::error_code ec;
    std::string p = dir + "/" + f.get<std::string>();
    if (std::filesystem::is_regular_file(p, ec)) out.push_back(p);
  }
  return out;
}
}  // namespace

Format sniff_format(std::string_view prefix, const std::string& path) {
  if (is_sqlite(prefix)) return sniff_sqlite(path);
  // Order matters: the more specific JSON shapes first (rocprof v1's results.json and
  // rocprofv3's JSON are also '{'-documents).
  if (sniff_rocprofv3_json(prefix)) return Format::RocprofV3Json;
  if (sniff_rocprof_v1(prefix)) return Format::RocprofV1;
  if (sniff_kineto(prefix)) return Format::Kineto;
  if (sniff_ncu_csv(prefix)) return Format::NcuCsv;
  if (sniff_rocprofv3_csv(prefix)) return Format::RocprofV3Csv;
  if (sniff_nvidia_smi(prefix)) return Format::NvidiaSmi;
  if (sniff_amd_smi(prefix)) return Format::AmdSmi;
  if (sniff_rocm_smi(prefix)) return Format::RocmSmi;
  return Format::Unknown;
}

Status read_file_as(Format f, const std::string& path, Timeline& tl, const ReadOptions& opt) {
  tl.meta.formats.push_back(f);
  tl.meta.sources.push_back(path);
  switch (f) {
    case Format::Kineto:
      return read_kineto(path, tl, opt);
    case Format::RocprofV3Csv:
      return read_rocprofv3_csv(path, tl, opt);
    case Format::RocprofV3Json:
      return read_rocprofv3_json(path, tl, opt);
    case Format::RocprofV1:
      return read_rocprof_v1(path, tl, opt);
    case Format::NsysSqlite:
      return read_nsys_sqlite(path, tl, opt);
    case Format::NcuCsv:
      return read_ncu_csv(path, tl, opt);
    case Format::NvidiaSmi:
      return read_nvidia_smi(path, tl, opt);
    case Format::AmdSmi:
      return read_amd_smi(path, tl, opt);
    case Format::RocmSmi:
      return read_rocm_smi(path, tl, opt);
    case Format::Unknown:
      break;
  }
  return make_error(ErrorKind::UnknownFormat, "not a format goblin reads", path);
}

namespace {
Status read_one_file(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto prefix = read_prefix(path, kSniffBytes);
  if (!prefix) return prefix.error();
  if (prefix->empty()) return make_error(ErrorKind::Malformed, "file is empty", path, 0);
  Format f = sniff_format(*prefix, path);
  if (f == Format::Unknown) {
    return make_error(ErrorKind::UnknownFormat,
                      "not a format goblin reads (expected a PyTorch/Kineto trace .json/.json.gz, rocprofv3 "
                      "CSV/JSON, legacy rocprof results, an Nsight Systems SQLite export, Nsight Compute CSV, "
                      "or nvidia-smi/amd-smi/rocm-smi output)",
                      path, 0);
  }
  return read_file_as(f, path, tl, opt);
}
}  // namespace

Status read_path(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    Status s = read_one_file(path, tl, opt);
    tl.validate();
    return s;
  }
  // A directory is one run: a goblin run directory's listed trace and telemetry, else every
  // file we recognise, recursively, in sorted order (goblin's own side files skipped quietly).
  auto listed = run_directory_files(path);
  std::vector<std::string> files = listed.value_or(std::vector<std::string>{});
  if (!listed) {
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file() && !known_run_side_file(it->path())) files.push_back(it->path().string());
    }
  }
  if (ec) return make_error(ErrorKind::Io, "cannot list directory: " + ec.message(), path);
  std::sort(files.begin(), files.end());
  size_t read = 0;
  Status first_damage;
  for (const auto& f : files) {
    auto prefix = read_prefix(f, kSniffBytes);
    if (!prefix || prefix->empty()) continue;
    Format fmt = sniff_format(*prefix, f);
    if (fmt == Format::Unknown) {
      tl.warn("skipped: not a format goblin reads", f);
      continue;
    }
    Status s = read_file_as(fmt, f, tl, opt);
    ++read;
    if (!s.ok()) {
      // Keep going: one damaged file should not hide the rest of the run.
      tl.warn(s.error().describe(), f, s.error().byte_offset, s.error().line);
      if (first_damage.ok()) first_damage = s;
    }
  }
  if (read == 0) {
    return make_error(ErrorKind::UnknownFormat,
                      "directory has no file goblin can read (" + std::to_string(files.size()) + " files looked at)",
                      path);
  }
  tl.validate();
  return first_damage;
}

}  // namespace goblin
