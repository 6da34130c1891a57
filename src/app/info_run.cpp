#include "app/info_run.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/phases.h"
#include "core/verb_result.h"
#include "model/warning_json.h"
#include "trace/readers.h"

namespace goblin::app {

namespace {

uint64_t input_bytes(const std::string& path) {
  std::error_code ec;
  namespace fs = std::filesystem;
  if (!fs::is_directory(path, ec)) {
    auto n = fs::file_size(path, ec);
    return ec ? 0 : n;
  }
  uint64_t total = 0;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code e2;
    if (!it->is_symlink(e2) && it->is_regular_file(e2)) total += it->file_size(e2);
  }
  return total;
}

Json describe(const std::string& path, const Timeline& tl, const std::optional<Error>& err, double seconds) {
  Json o = Json::object();
  o["path"] = path;
  if (tl.meta.formats.empty()) {
    o["format"] = nullptr;
  } else {
    // One format per file read; a directory of one kind reports it once.
    std::vector<std::string> names;
    for (Format f : tl.meta.formats) {
      std::string n = format_name(f);
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    if (names.size() == 1)
      o["format"] = names[0];
    else
      o["format"] = names;
  }
  if (tl.meta.sources.size() > 1) o["files"] = tl.meta.sources;
  size_t python = 0;
  for (auto k : tl.cpu_ops.kind) python += k == CpuOpKind::PythonFunction;
  size_t gpu_ann = 0;
  for (auto g : tl.annotations.on_gpu) gpu_ann += g;
  o["events"] = {{"kernels", tl.gpu_ops.count(GpuOpKind::Kernel)},
                 {"memcpy", tl.gpu_ops.count(GpuOpKind::Memcpy)},
                 {"memset", tl.gpu_ops.count(GpuOpKind::Memset)},
                 {"runtime", tl.runtime.size()},
                 {"cpu_ops", tl.cpu_ops.size()},
                 {"python_functions", python},
                 {"annotations", tl.annotations.size()},
                 {"gpu_annotations", gpu_ann},
                 {"flows", tl.flows.size() + tl.meta.launch_flows},
                 {"samples", tl.samples.size()},
                 {"counters", tl.counters.size()}};
  // Flow halves in the trace; launch flows (ac2g) are counted, not stored (TraceMetadata).
  o["events"]["launch_flows_not_stored"] = tl.meta.launch_flows;
  // Telemetry on a clock the trace's cannot be lined up with stays out of the span (span() checks
  // the clock domains; a known epoch base converts).
  auto [s0, s1] = tl.span();
  auto [g0, g1] = tl.gpu_span();
  o["span_ns"] = s1 - s0;
  o["start_ns"] = s0;
  o["gpu_span_ns"] = g1 - g0;
  Json devs = Json::array();
  // Kineto lists every GPU of the machine in deviceProperties; `active` says which ran GPU ops in
  // this trace (a one-GPU trace of an 8-GPU host is not an 8-GPU trace, issue #34).
  std::set<int64_t> active;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) active.insert(tl.gpu_ops.device[i]);
  for (const auto& d : tl.meta.devices) {
    Json j = {{"id", d.id}, {"name", d.name}, {"active", active.count(d.id) > 0}};
    if (!d.arch.empty()) j["arch"] = d.arch;
    if (d.total_memory_bytes != kNone) j["memory_bytes"] = d.total_memory_bytes;
    if (d.num_sms > 0) j["sms"] = d.num_sms;
    devs.push_back(std::move(j));
  }
  o["devices"] = std::move(devs);
  const auto& dist = tl.meta.distributed;
  if (dist.rank != kNone || dist.world_size != kNone || !dist.backend.empty()) {
    Json j = Json::object();
    if (dist.rank != kNone) j["rank"] = dist.rank;
    if (dist.world_size != kNone) j["world_size"] = dist.world_size;
    if (!dist.backend.empty()) j["backend"] = dist.backend;
    o["distributed"] = std::move(j);
  }
  if (!tl.meta.versions.empty()) o["versions"] = tl.meta.versions;
  o["clock"] = {{"base_ns", tl.meta.clock_base_ns}, {"is_epoch", tl.meta.clock_is_epoch}};
  if (!tl.meta.extra.empty()) {
    // Workload-written metadata as written; long values (e.g. a whole config) are elided.
    Json extra = Json::object();
    for (const auto& [k, v] : tl.meta.extra) {
      if (v.size() > 200) {
        extra[k] = "(" + fmt::to_string(v.size()) + " bytes of JSON)";
        continue;
      }
      Json parsed = Json::parse(v, nullptr, false);
      extra[k] = parsed.is_discarded() ? Json(v) : parsed;
    }
    o["metadata"] = std::move(extra);
  }
  o["warnings"] = warnings_to_json(tl.warnings);  // model/warning_json.h: the one warning shape
  const uint64_t bytes = input_bytes(path);
  o["read"] = {{"bytes_on_disk", bytes},
               {"seconds", round_to(seconds, 4)},
               {"mb_per_s_on_disk", seconds > 0 ? round_to(static_cast<double>(bytes) / 1e6 / seconds, 1) : 0.0}};
  o["error"] = err ? error_to_json(*err) : Json(nullptr);
  return o;
}

std::string ms(int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

std::string human(const Json& o) {
  std::string s = o["path"].get<std::string>() + ": ";
  const Json& f = o["format"];
  s += f.is_null() ? std::string("(format not recognised)") : f.is_string() ? f.get<std::string>() : f.dump();
  s += "\n";
  const auto& e = o["events"];
  s += "  events: " + e["kernels"].dump() + " kernels, " + e["memcpy"].dump() + " memcpy, " + e["memset"].dump() +
       " memset, " + e["runtime"].dump() + " runtime calls, " + e["cpu_ops"].dump() + " cpu ops (" +
       e["python_functions"].dump() + " python), " + e["annotations"].dump() + " annotations (" +
       e["gpu_annotations"].dump() + " on GPU), " + e["flows"].dump() + " flows, " + e["samples"].dump() +
       " samples, " + e["counters"].dump() + " counters\n";
  s += "  span: " + ms(o["span_ns"].get<int64_t>()) + " (GPU activity " + ms(o["gpu_span_ns"].get<int64_t>()) + ")\n";
  // Devices that ran GPU ops; the others the trace lists are counted, not listed (all are listed
  // when none ran anything).
  size_t n_active = 0;
  for (const auto& d : o["devices"]) n_active += d.value("active", false) ? 1 : 0;
  for (const auto& d : o["devices"]) {
    if (n_active > 0 && !d.value("active", false)) continue;
    s += "  device " + d["id"].dump() + ": " + d["name"].get<std::string>();
    if (d.contains("arch")) s += " (" + d["arch"].get<std::string>() + ")";
    s += "\n";
  }
  if (n_active > 0 && n_active < o["devices"].size())
    s += fmt::format("  ({} more device(s) listed in the trace's device properties ran no GPU op)\n",
                     o["devices"].size() - n_active);
  if (o.contains("distributed")) s += "  distributed: " + o["distributed"].dump() + "\n";
  if (o.contains("versions")) {
    s += "  versions:";
    for (const auto& [k, v] : o["versions"].items()) s += " " + k + "=" + v.get<std::string>();
    s += "\n";
  }
  const auto& w = o["warnings"];
  if (!w.empty()) {
    s += "  warnings (" + fmt::to_string(w.size()) + "):\n";
    for (const auto& x : w) {
      s += "    ";
      if (x.contains("byte_offset"))
        s += "byte " + x["byte_offset"].dump() + ": ";
      else if (x.contains("line"))
        s += "line " + x["line"].dump() + ": ";
      s += x["message"].get<std::string>();
      if (x["count"].get<int64_t>() > 1) s += " (x" + x["count"].dump() + ")";
      s += "\n";
    }
  }
  const auto& r = o["read"];
  // The rate is of file bytes: for a .gz file that is compressed bytes, said so (issue #34).
  const bool gz = o.contains("path") && o["path"].is_string() && o["path"].get<std::string>().ends_with(".gz");
  fmt::format_to(std::back_inserter(s), "  read {:.1f} MB on disk{} in {:.3f} s ({:.0f} MB/s of file bytes)\n",
                 r["bytes_on_disk"].get<double>() / 1e6, gz ? " (compressed)" : "", r["seconds"].get<double>(),
                 r["mb_per_s_on_disk"].get<double>());
  return s;
}

}  // namespace

VerbResult info(const std::vector<std::string>& paths) {
  VerbResult r;
  Json all = Json::array();
  for (const auto& p : paths) {
    Timeline tl;
    auto t0 = std::chrono::steady_clock::now();
    Status st = trace::read_path(p, tl);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::optional<Error> err;
    if (!st.ok()) err = st.error();
    PhaseTimer pt("info: summary");
    Json o = describe(p, tl, err, secs);
    // Nothing read (a missing file, an unknown format): the error alone says it, not a summary of
    // zeros before it.
    if (!(err && tl.meta.formats.empty())) r.human += human(o);
    all.push_back(std::move(o));
    if (err && !r.error) r.error = err;  // the first failure decides the exit code
  }
  r.result = all.size() == 1 ? all[0] : all;
  return r;
}

}  // namespace goblin::app
