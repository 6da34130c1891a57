#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/workload_config.h"
#include "core/confine.h"
#include "core/io.h"
#include "core/json.h"
#include "core/limits.h"
#include "trace/jax/jax.h"
#include "trace/op_shapes.h"
#include "trace/readers.h"
#include "trace/rocpd_rank.h"
#include "trace/rocprof_pair.h"
#include "trace/summary_sniff.h"

namespace goblin::trace {

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
  if (trace::sniff_jax(prefix)) return Format::Jax;  // a Chrome trace too: before Kineto
  if (sniff_kineto(prefix)) return Format::Kineto;
  if (sniff_ncu_csv(prefix)) return Format::NcuCsv;
  if (sniff_rocprofv3_csv(prefix)) return Format::RocprofV3Csv;
  if (sniff_nvidia_smi(prefix)) return Format::NvidiaSmi;
  if (sniff_amd_smi(prefix)) return Format::AmdSmi;
  if (sniff_rocm_smi(prefix)) return Format::RocmSmi;
  return Format::Unknown;
}

namespace {
Status read_by_format(Format f, const std::string& path, Timeline& tl, const ReadOptions& opt) {
  switch (f) {
    case Format::Kineto:
      return read_kineto(path, tl, opt);
    case Format::RocprofV3Csv:
      return read_rocprofv3_csv(path, tl, opt);
    case Format::RocprofV3Json:
      return read_rocprofv3_json(path, tl, opt);
    case Format::RocprofV1:
      return read_rocprof_v1(path, tl, opt);
    case Format::Rocpd:
      return read_rocpd(path, tl, opt);
    case Format::RocprofCompute:
      return read_rocprof_compute(path, tl, opt);
    case Format::NsysSqlite:
      return read_nsys_sqlite(path, tl, opt);
    case Format::Jax:
      return trace::read_jax(path, tl, opt);
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

// The clock domain of the rows one read added, by format: telemetry readers store epoch ns when
// the output has wall time, else a sample index; a Kineto trace is on its own relative clock
// unless its timestamps are epoch ns themselves (no baseTimeNanoseconds to add).
ClockDomain clock_of(Format f, const Timeline& tl, size_t samples_before) {
  constexpr int64_t kEpochFloor = 1'000'000'000'000'000'000;  // 2001-09-09 in ns
  switch (f) {
    case Format::Kineto:
      return tl.meta.clock_is_epoch && tl.meta.clock_base_ns == 0 ? ClockDomain::Epoch : ClockDomain::KinetoTrace;
    case Format::RocprofV3Csv:
    case Format::RocprofV3Json:
    case Format::RocprofV1:
    case Format::Rocpd:
    case Format::RocprofCompute:
      return ClockDomain::BootTime;
    case Format::NsysSqlite:
      return ClockDomain::NsysSession;
    case Format::Jax:
      return ClockDomain::JaxTrace;
    case Format::NvidiaSmi:
    case Format::AmdSmi:
    case Format::RocmSmi:
      for (size_t i = samples_before; i < tl.samples.size(); ++i)
        if (tl.samples.ts_ns[i] < kEpochFloor) return ClockDomain::SampleIndex;
      return ClockDomain::Epoch;
    case Format::NcuCsv:  // counters only: no times
    case Format::Unknown:
      break;
  }
  return ClockDomain::Unknown;
}
}  // namespace

namespace {
bool is_telemetry(Format f) { return f == Format::NvidiaSmi || f == Format::AmdSmi || f == Format::RocmSmi; }

// A device name as the tools print it, folded for comparison: lower case, spaces/-/_ dropped.
std::string folded_name(std::string_view n) {
  std::string out;
  for (char c : n)
    if (c != ' ' && c != '-' && c != '_' && c != '\t')
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

// Why telemetry's device `t` is not the trace's device `d` of the same id, or "" when nothing
// contradicts: both names given and neither holds the other ("AMD Instinct MI300X" holds
// "MI300X"), memory sizes more than 10 % apart, or nvidia-smi beside a 64-wide wavefront.
std::string device_conflict(const DeviceInfo& d, const DeviceInfo& t, Format telemetry) {
  const std::string a = folded_name(d.name), b = folded_name(t.name);
  if (!a.empty() && !b.empty() && a.find(b) == std::string::npos && b.find(a) == std::string::npos)
    return fmt::format("name '{}' vs the trace's '{}'", t.name, d.name);
  if (d.total_memory_bytes > 0 && t.total_memory_bytes > 0) {
    const double x = static_cast<double>(d.total_memory_bytes), y = static_cast<double>(t.total_memory_bytes);
    if (std::abs(x - y) > 0.1 * std::max(x, y))
      return fmt::format("memory {:.1f} GB vs the trace's {:.1f} GB", y / 1e9, x / 1e9);
  }
  if (telemetry == Format::NvidiaSmi && d.warp_size == 64)
    return "nvidia-smi output beside a device with 64-wide wavefronts (AMD)";
  return "";
}

// Telemetry never changes a trace's GPU identity (issue 46): the devices a telemetry file listed
// (`tele`) join the trace's (`tl.meta.devices`, read before it) only where they agree. With no
// trace device at all, telemetry's devices are the run's. A telemetry device of a trace device's
// id fills what the trace left unknown (name, memory) when nothing contradicts; on a
// contradiction the trace's device is kept as it is. Devices only telemetry lists
// are not added: the trace's GPUs are the run's, and telemetry's samples keep their device ids.
void merge_telemetry_devices(Timeline& tl, std::vector<DeviceInfo> tele, Format f, const std::string& path) {
  if (tl.meta.devices.empty()) {
    tl.meta.devices = std::move(tele);
    return;
  }
  for (const DeviceInfo& t : tele) {
    auto d =
        std::find_if(tl.meta.devices.begin(), tl.meta.devices.end(), [&](const DeviceInfo& x) { return x.id == t.id; });
    if (d == tl.meta.devices.end()) continue;
    if (std::string why = device_conflict(*d, t, f); !why.empty()) {
      // Kept as the trace says, and said: telemetry of another GPU is probably another run's.
      tl.warn(W::telemetry_device_mismatch,
              fmt::format("{} describes device {} as another GPU than the trace does ({}); the trace's device is kept",
                          std::filesystem::path(path).filename().string(), t.id, why),
              path);
      continue;
    }
    if (d->name.empty()) d->name = t.name;
    if (d->total_memory_bytes == kNone) d->total_memory_bytes = t.total_memory_bytes;
    if (d->arch.empty()) d->arch = t.arch;
  }
}
}  // namespace

Status read_file_as(Format f, const std::string& path, Timeline& tl, const ReadOptions& opt) {
  tl.meta.formats.push_back(f);
  tl.meta.sources.push_back(path);
  const size_t samples_before = tl.samples.size();
  const size_t ops_before = tl.cpu_ops.size(), annotations_before = tl.annotations.size();
  // A telemetry reader lists its devices apart from those already read (a trace's), merged below.
  const bool telemetry = is_telemetry(f);
  std::vector<DeviceInfo> read_before;
  if (telemetry) read_before = std::exchange(tl.meta.devices, {});
  Status s = read_by_format(f, path, tl, opt);
  if (telemetry) {
    std::vector<DeviceInfo> tele = std::exchange(tl.meta.devices, std::move(read_before));
    // amd-smi and rocm-smi name no device, but their samples hold its memory size (total_vram):
    // enough to tell an MI250's telemetry from an MI300X trace.
    for (DeviceInfo& t : tele) {
      if (t.total_memory_bytes != kNone) continue;
      for (size_t i = samples_before; i < tl.samples.size(); ++i)
        if (tl.samples.device[i] == t.id && tl.str(tl.samples.metric[i]) == "mem_total_bytes")
          t.total_memory_bytes = std::max<int64_t>(t.total_memory_bytes == kNone ? 0 : t.total_memory_bytes,
                                                   static_cast<int64_t>(tl.samples.value[i]));
    }
    merge_telemetry_devices(tl, std::move(tele), f, path);
  }
  // goblin's tracer recorded input shapes in each window's first step only: the later steps'
  // ops get them by their op sequence (op_shapes.h).
  if (f == Format::Kineto) map_first_step_shapes(tl, ops_before, annotations_before);
  // Each source records its clock; the timeline keeps the first trace clock and the first
  // telemetry clock (a second one on another clock is warned of by the run-directory read).
  const ClockDomain c = clock_of(f, tl, samples_before);
  tl.meta.clocks.push_back(c);
  ClockDomain& kept = telemetry ? tl.meta.sample_clock : tl.meta.trace_clock;
  if (kept == ClockDomain::Unknown) kept = c;
  return s;
}

namespace {
Status read_one_file(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto prefix = read_prefix(path, kSniffBytes);
  if (!prefix) return prefix.error();
  if (prefix->empty()) return make_error(ErrorKind::Malformed, "file is empty", path, 0);
  Format f = sniff_format(*prefix, path);
  if (f == Format::Unknown && is_sqlite(*prefix)) {
    if (auto why = sqlite_damage(path))
      return make_error(ErrorKind::Malformed,
                        "SQLite file is damaged (truncated or a corrupt page): " + *why +
                            "; an Nsight Systems or rocprof export must be copied whole",
                        path, 0);
  }
  if (f == Format::Unknown && trace::sniff_rank_summary(*prefix)) {
    // A summary holds one rank's figures, not its events: no Timeline can be made from it.
    return make_error(ErrorKind::Usage,
                      "a goblin rank summary (written by goblin summarize): only goblin ranks reads it; give this "
                      "verb the trace the summary was made from",
                      path, 0);
  }
  if (f == Format::Unknown && trace::sniff_group_summary(*prefix)) {
    return make_error(ErrorKind::Usage,
                      "a goblin group summary (written by goblin summarize --merge): only goblin ranks reads it; "
                      "give this verb one rank's trace",
                      path, 0);
  }
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

namespace {
// A copy of a pipe's bytes in a private temporary file, removed with this object.
struct SpooledStream {
  std::string path;
  ~SpooledStream() {
    if (!path.empty()) std::remove(path.c_str());
  }
};

// Copies a FIFO / pipe / device (`<(zcat t.json.gz)`) once into a temporary file: the sniffer reads
// the head and the reader reads again from the start, which a stream cannot do.
Status spool_stream(const std::string& path, SpooledStream& out) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "goblin_stream_XXXXXX").string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return make_error(ErrorKind::Io, "cannot create a temporary file to copy the stream into", path);
  out.path = tmpl;
  FILE* dst = ::fdopen(fd, "wb");
  auto opened = open_for_read(path);  // confined: a stream is refused here, without blocking on it
  if (!opened.ok()) {
    if (dst) std::fclose(dst);
    return opened.error();
  }
  FILE* src = ::fdopen(*opened, "rb");
  if (!dst || !src) {
    if (dst) std::fclose(dst);
    if (src) std::fclose(src);
    return make_error(ErrorKind::Io, std::string("cannot open: ") + std::strerror(errno), path);
  }
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  size_t n;
  Status st;
  while ((n = std::fread(buf.data(), 1, buf.size(), src)) > 0) {
    total += n;
    if (total > limits::kMaxStreamBytes) {
      st = make_error(ErrorKind::Malformed,
                      fmt::format("stream is larger than {} bytes, the most goblin copies from a pipe; save it to a "
                                  "file",
                                  limits::kMaxStreamBytes),
                      path, static_cast<int64_t>(limits::kMaxStreamBytes));
      break;
    }
    if (std::fwrite(buf.data(), 1, n, dst) != n) {
      st = make_error(ErrorKind::Io, "cannot write the stream's temporary copy (disk full?)", path);
      break;
    }
  }
  if (st.ok() && std::ferror(src)) st = make_error(ErrorKind::Io, "read failed on the pipe", path);
  std::fclose(src);
  if (std::fclose(dst) != 0 && st.ok()) st = make_error(ErrorKind::Io, "cannot write the stream's copy", path);
  return st;
}

// The spooled file's name replaced by the name the user gave, wherever the read recorded it.
void rename_source(Timeline& tl, Status& st, const std::string& from, const std::string& to) {
  for (auto& s : tl.meta.sources)
    if (s == from) s = to;
  for (auto& w : tl.warnings)
    if (w.file == from) w.file = to;
  if (!st.ok() && st.error().file == from) {
    Error e = st.error();
    e.file = to;
    st = e;
  }
}

// Rows each table held before one file of a run directory was read.
struct RowMarks {
  size_t gpu_ops, runtime, cpu_ops, annotations, samples;
};
RowMarks row_marks(const Timeline& tl) {
  return {tl.gpu_ops.size(), tl.runtime.size(), tl.cpu_ops.size(), tl.annotations.size(), tl.samples.size()};
}
template <class T>
void widen(std::pair<int64_t, int64_t>& s, bool& any, const T& c, size_t from) {
  for (size_t i = from; i < c.size(); ++i) {
    const int64_t a = c.start_ns[i], b = c.start_ns[i] + std::max<int64_t>(c.dur_ns[i], 0);
    s = any ? std::pair{std::min(s.first, a), std::max(s.second, b)} : std::pair{a, b};
    any = true;
  }
}

// The time one file of a run directory covers: [first start, last end] of the rows it added.
struct FileSpan {
  std::string file;
  int64_t begin, end;  // on `clock`: epoch ns for "epoch"
  std::string clock;   // "epoch", or the reader's own clock (a boot or relative clock) by format
};
std::optional<FileSpan> rows_span(const Timeline& tl, const RowMarks& m, const std::string& file) {
  std::pair<int64_t, int64_t> s{0, 0};
  bool any = false;
  widen(s, any, tl.gpu_ops, m.gpu_ops);
  widen(s, any, tl.runtime, m.runtime);
  widen(s, any, tl.cpu_ops, m.cpu_ops);
  widen(s, any, tl.annotations, m.annotations);
  for (size_t i = m.samples; i < tl.samples.size(); ++i) {
    s = any ? std::pair{std::min(s.first, tl.samples.ts_ns[i]), std::max(s.second, tl.samples.ts_ns[i])}
            : std::pair{tl.samples.ts_ns[i], tl.samples.ts_ns[i]};
    any = true;
  }
  if (!any) return std::nullopt;
  return FileSpan{file, s.first, s.second, std::string()};  // clock: set by place_on_clock
}

std::string human_duration(int64_t ns) {
  const double s = static_cast<double>(ns) / 1e9;
  if (s >= 2 * 86400.0 * 365) return fmt::format("{:.0f} years", s / (86400.0 * 365.25));
  if (s >= 2 * 86400.0) return fmt::format("{:.0f} days", s / 86400.0);
  if (s >= 7200.0) return fmt::format("{:.1f} hours", s / 3600.0);
  return fmt::format("{:.0f} s", s);
}

// The clock a file's rows are on, and its span on it. Telemetry is stamped with the wall clock;
// a trace is on the wall clock when its reader found an epoch base (Kineto's
// baseTimeNanoseconds, an Nsight session start) or epoch timestamps; otherwise on a clock of its
// own (rocprofv3's boot clock, an old Kineto trace's relative clock), comparable only with files
// of its format.
void place_on_clock(FileSpan& sp, Format f, const Timeline& tl) {
  const bool telemetry = is_telemetry(f);
  constexpr int64_t kEpochFloor = 1'000'000'000'000'000'000;  // 2001-09-09 in ns
  if (telemetry || sp.begin >= kEpochFloor) {
    sp.clock = "epoch";
  } else if (tl.meta.clock_is_epoch && tl.meta.clock_base_ns > 0) {
    sp.clock = "epoch";
    sp.begin += tl.meta.clock_base_ns;
    sp.end += tl.meta.clock_base_ns;
  } else {
    sp.clock = format_name(f);
  }
}

// Files of one run share a clock and a time: files on one clock whose spans lie more than
// kRunGapNs apart (two runs from different days or machines, telemetry from another day) cannot
// be one timeline. Returns the refusal, naming a file of each group, or ok.
constexpr int64_t kRunGapNs = 3600LL * 1'000'000'000;
Status check_one_clock(std::vector<FileSpan> spans, const std::string& dir) {
  if (spans.size() < 2) return Status::Ok();
  std::sort(spans.begin(), spans.end(), [](const FileSpan& a, const FileSpan& b) { return a.begin < b.begin; });
  std::vector<std::vector<const FileSpan*>> groups{{&spans[0]}};
  int64_t end = spans[0].end;
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].begin > end && spans[i].begin - end > kRunGapNs) groups.emplace_back();
    groups.back().push_back(&spans[i]);
    end = std::max(end, spans[i].end);
  }
  if (groups.size() == 1) return Status::Ok();
  std::string msg = "the files of this run directory do not belong to one run: ";
  for (size_t g = 0; g < groups.size(); ++g) {
    const FileSpan& f = *groups[g].front();
    fmt::format_to(std::back_inserter(msg), "{}{}{} starts at {} ns", g ? "; " : "",
                   std::filesystem::path(f.file).filename().string(),
                   groups[g].size() > 1 ? fmt::format(" (+{} more)", groups[g].size() - 1) : std::string(), f.begin);
  }
  msg += " — " + human_duration(spans.back().begin - spans.front().begin) +
         " apart on one clock (two different runs, or telemetry from another day). Merged they would make one "
         "meaningless span; read each file on its own";
  return make_error(ErrorKind::Malformed, msg, dir);
}

// A trace's own metadata is the workload's to write: a W&B key, an hf_ token or a recorded
// command line with --aws_secret_access_key in it would otherwise reach every output that shows
// metadata (info, triage's profile_metadata.json, MCP). Redacted once here, where every reader's
// timeline is finished, so nothing downstream holds them (config/workload_config.h redact_json).
void redact_metadata(Timeline& tl) {
  for (auto& [key, text] : tl.meta.extra) {
    Json v = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (v.is_discarded()) v = text;  // not JSON: a bare string value
    const Json before = v;
    if (v.is_string() && config::is_secret_key(key) &&
        config::is_redactable_secret_value(v.get_ref<const std::string&>()))
      v = "<redacted>";
    else
      config::redact_json(v);
    if (v != before) text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

// Formats of which one file is one process's whole recording; the files of a CSV family
// (rocprofv3's per-domain CSVs, legacy rocprof's results) are one recording together; telemetry
// and counters (Nsight Compute) are not a recording of their own.
bool whole_recording(Format f) {
  return f == Format::Kineto || f == Format::Jax || f == Format::RocprofV3Json || f == Format::Rocpd ||
         f == Format::NsysSqlite;
}
bool csv_family(Format f) { return f == Format::RocprofV3Csv || f == Format::RocprofV1; }

// A folder is read as one run. Several recordings in it (the before and the after trace of a
// change, one trace per rank) would be merged into one meaningless timeline: refused with the
// files named and the verb that reads them.
template <class Rel>
Status check_one_recording(const std::vector<std::pair<std::string, Format>>& files, const std::string& dir,
                           const Rel& rel) {
  std::vector<std::string> runs;
  std::string family;
  for (const auto& [f, fmt] : files) {
    if (whole_recording(fmt))
      runs.push_back(fmt::format("{} ({})", rel(f), format_name(fmt)));
    else if (csv_family(fmt) && family.empty())
      family = fmt::format("{} and the other {} files", rel(f), format_name(fmt));
  }
  if (!family.empty()) runs.push_back(family);
  if (runs.size() < 2) return Status::Ok();
  constexpr size_t kNamed = 8;
  std::string names;
  for (size_t i = 0; i < runs.size() && i < kNamed; ++i) names += (i ? ", " : "") + runs[i];
  if (runs.size() > kNamed) names += fmt::format(" and {} more", runs.size() - kNamed);
  return make_error(ErrorKind::Usage,
                    fmt::format("this folder holds {} runs ({}), and a folder is read as one run (what one process "
                                "recorded under one clock), never merged: give one of them as the path, compare "
                                "two runs with `goblin diff BEFORE AFTER`, or read the ranks of one job with "
                                "`goblin ranks {}`",
                                runs.size(), names, dir),
                    dir);
}

// The classic AMD folder, a Kineto trace beside a rocprof recording of the same process: the
// rocprof files are moved from `readable` into `side`, to cross-check the Kineto kernels only
// (rocprof_pair.h). Returns the Kineto file, "" (and `side` empty) unless the folder holds
// exactly one Kineto trace.
std::string set_aside_rocprof(std::vector<std::pair<std::string, Format>>& readable,
                              std::vector<std::pair<std::string, Format>>& side) {
  std::string kineto;
  int n = 0;
  for (const auto& [f, fmt] : readable)
    if (fmt == Format::Kineto) kineto = f, ++n;
  if (n != 1) return "";
  auto at = std::stable_partition(readable.begin(), readable.end(),
                                  [](const auto& x) { return !is_rocprof_format(x.second); });
  side.assign(at, readable.end());
  readable.erase(at, readable.end());
  return kineto;
}

}  // namespace

Status read_path(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  if (is_stream_path(path)) {
    SpooledStream copy;
    Status s = spool_stream(path, copy);
    if (!s.ok()) return s;
    s = read_path(copy.path, tl, opt);
    rename_source(tl, s, copy.path, path);
    return s;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    Status s = read_one_file(path, tl, opt);
    // A read that stopped early but kept rows says so in the timeline too: the analyses that
    // cannot trust the trace's end (the last step, analysis/steps.cpp) read it there.
    if (!s.ok() &&
        (tl.gpu_ops.size() + tl.runtime.size() + tl.cpu_ops.size() + tl.annotations.size() + tl.samples.size()) > 0)
      tl.warn(W::input_damaged,
              "the read stopped early, what was read before the damage is kept: " + s.error().describe(), path,
              s.error().byte_offset, s.error().line);
    redact_metadata(tl);
    tl.finish();
    tl.release_spare_capacity();
    return s;
  }
  // The directory itself may be a link out of a confined root (its files are checked as opened).
  RETURN_IF_ERROR(check_readable(path, /*allow_directory=*/true));
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
  // Pass 1: what each file is. Files goblin does not read are named in their warning.
  auto rel = [&path](const std::string& f) {
    std::error_code e;
    std::string r = std::filesystem::relative(f, path, e).string();
    return e || r.empty() ? f : r;
  };
  Status first_damage;
  Status first_refusal;  // a file the door's confinement would not open (core/confine.h)
  // Every file is sniffed first; the traces are read before the telemetry, so telemetry's devices
  // meet the trace's devices and never stand in for them (merge_telemetry_devices).
  std::vector<std::pair<std::string, Format>> readable;
  for (const auto& f : files) {
    auto prefix = read_prefix(f, kSniffBytes);
    if (!prefix && prefix.error().kind == ErrorKind::Usage) {
      tl.warn(W::input_refused, "skipped " + rel(f) + ": " + prefix.error().message, f);
      if (first_refusal.ok()) first_refusal = prefix.error();
      continue;
    }
    if (!prefix) {
      tl.warn(W::input_skipped, "skipped " + rel(f) + ": cannot read it (" + prefix.error().message + ")", f);
      continue;
    }
    if (prefix->empty()) {
      tl.warn(W::input_skipped, "skipped " + rel(f) + ": the file is empty", f);
      continue;
    }
    Format fmt = sniff_format(*prefix, f);
    if (fmt == Format::Unknown && is_sqlite(*prefix)) {
      if (auto why = sqlite_damage(f)) {
        Error e = make_error(ErrorKind::Malformed, "SQLite file is damaged (truncated or a corrupt page): " + *why, f);
        tl.warn(W::input_damaged, "skipped " + rel(f) + ": " + e.describe(), f);
        if (first_damage.ok()) first_damage = e;
        continue;
      }
    }
    if (fmt == Format::Unknown) {
      tl.warn(W::input_skipped, "skipped " + rel(f) + ": not a format goblin reads", f);
      continue;
    }
    readable.emplace_back(f, fmt);
  }
  // One run is what one process recorded under one clock (docs/metrics.md § One run): a folder
  // holding several recordings is refused before anything is read, never merged.
  std::vector<std::pair<std::string, Format>> rocprof_side;
  const std::string kineto_file = set_aside_rocprof(readable, rocprof_side);
  RETURN_IF_ERROR(check_one_recording(rocprof_side, path, rel));
  RETURN_IF_ERROR(check_one_recording(readable, path, rel));
  std::stable_partition(readable.begin(), readable.end(), [](const auto& x) { return !is_telemetry(x.second); });
  // Pass 2: read them into one timeline, traces before telemetry.
  size_t read = 0;
  std::vector<FileSpan> spans;
  for (const auto& [f, fmt] : readable) {
    const RowMarks before = row_marks(tl);
    Status s = read_file_as(fmt, f, tl, opt);
    ++read;
    if (auto sp = rows_span(tl, before, f)) {
      place_on_clock(*sp, fmt, tl);
      spans.push_back(*sp);
    }
    if (!s.ok()) {
      // Keep going: one damaged file should not hide the rest of the run.
      tl.warn(W::input_damaged, s.error().describe(), f, s.error().byte_offset, s.error().line);
      if (first_damage.ok()) first_damage = s;
    }
  }
  Status pair;
  if (!rocprof_side.empty()) {
    auto checked = cross_check_rocprof(tl, kineto_file, rocprof_side, path);
    if (!checked) pair = checked.error();
  }
  redact_metadata(tl);
  if (read == 0) {
    if (!first_refusal.ok()) return first_refusal;
    return make_error(ErrorKind::UnknownFormat,
                      fmt::format("directory has no file goblin can read ({} files looked at)", files.size()),

                      path);
  }
  // Files are compared with the files on their clock; files on clocks that cannot be compared
  // (a trace on its own clock beside wall-clock telemetry) are kept, and the warning says their
  // times do not line up.
  std::map<std::string, std::vector<FileSpan>> by_clock;
  for (const auto& sp : spans) by_clock[sp.clock].push_back(sp);
  Status clock = pair;
  for (auto& [name, group] : by_clock)
    if (clock.ok()) clock = check_one_clock(group, path);
  if (clock.ok() && by_clock.size() > 1) {
    std::string which;
    for (const auto& [name, group] : by_clock)
      which += (which.empty() ? "" : ", ") + std::filesystem::path(group.front().file).filename().string() + " (" +
               (name == "epoch" ? std::string("wall clock") : name + " clock") + ")";
    tl.warn(W::clocks_incomparable,
            "the files of this run are on clocks that cannot be compared: " + which +
                "; their times do not line up, so telemetry gives values (memory, utilisation), not timing",
            path);
  }
  if (!clock.ok()) {
    // Refused: no analysis may run over the merged rows. What was read stays described (formats,
    // sources, devices, warnings).
    Timeline described;
    described.meta = std::move(tl.meta);
    described.warnings = std::move(tl.warnings);
    tl = std::move(described);
    return clock;
  }
  tl.finish();
  tl.release_spare_capacity();
  return first_damage;
}

Status read_rocpd_rank(const std::string& path, const RocpdProcess& process, Timeline& tl) {
  tl.meta.formats.push_back(Format::Rocpd);
  tl.meta.sources.push_back(path);
  Status s = read_rocpd_process(path, process, tl);
  tl.meta.clocks.push_back(ClockDomain::BootTime);
  if (tl.meta.trace_clock == ClockDomain::Unknown) tl.meta.trace_clock = ClockDomain::BootTime;
  redact_metadata(tl);
  tl.finish();
  tl.release_spare_capacity();
  return s;
}

}  // namespace goblin::trace
