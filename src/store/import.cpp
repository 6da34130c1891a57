// Results into runs (docs/store.md § Adding runs). A run's content key is the hash of what it is —
// verb, input hashes, its artifacts' hashes, experiment and trial — so adding the same thing twice
// finds the stored run and adds nothing.
#include "store/import.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "analysis/ranks_heatmap.h"
#include "core/build_info.h"
#include "core/io.h"
#include "core/limits.h"

namespace goblin::store {
namespace {

namespace fs = std::filesystem;

constexpr uintmax_t kMaxKeptArtifactBytes = 8u << 20;  // text artifacts up to this size keep their content
constexpr size_t kMaxFolderFiles = 4096;               // a folder with more is not a goblin result

bool text_name(const std::string& n) {
  for (const char* e :
       {".json", ".md", ".txt", ".yaml", ".yml", ".csv", ".svg", ".diff", ".patch", ".py", ".log", ".html"})
    if (n.size() >= std::string_view(e).size() &&
        n.compare(n.size() - std::string_view(e).size(), std::string::npos, e) == 0)
      return true;
  return false;
}

Result<Artifact> artifact_of(const std::string& path, const std::string& name) {
  ASSIGN_OR_RETURN(InputFile f, hash_file(path));
  Artifact a{name, f.sha256, f.bytes, std::nullopt};
  if (text_name(name) && static_cast<uintmax_t>(f.bytes) <= kMaxKeptArtifactBytes) {
    ASSIGN_OR_RETURN(std::string body, read_all(path));
    if (body.find('\0') == std::string::npos && sha256_hex(body) == f.sha256) a.content = std::move(body);
  }
  return a;
}

Result<Json> read_json_file(const std::string& path) {
  // Size and type first: a device (/dev/zero), a FIFO or a file past the limit is refused before
  // a byte is read, and the read itself is bounded in case the file grows meanwhile.
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec) return make_error(ErrorKind::Io, "store: cannot read: " + ec.message(), path);
  if (!fs::is_regular_file(st))
    return make_error(ErrorKind::Usage, "store: not a regular file (a device, FIFO or socket is not a goblin result)",
                      path);
  const uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > limits::kMaxJsonInputBytes)
    return make_error(ErrorKind::Malformed,
                      fmt::format("store: {} bytes is larger than the {}-byte limit for a JSON result", size,
                                  limits::kMaxJsonInputBytes),
                      path);
  IoLimits bounded;
  bounded.max_inflated_bytes = limits::kMaxJsonInputBytes;
  ASSIGN_OR_RETURN(std::string text, read_all(path, bounded));
  ASSIGN_OR_RETURN(Json j, parse_json_text(text, path));
  // A --json envelope: the result inside it.
  if (j.is_object() && j.contains("ok") && j.contains("result") && j["result"].is_object()) return j["result"];
  return j;
}

// Every regular file of a folder (recursively, in name order), as artifacts named by relative path.
Result<std::vector<Artifact>> folder_artifacts(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path().string());
    if (files.size() > kMaxFolderFiles)
      return make_error(ErrorKind::Malformed,
                        fmt::format("store: more than {} files: not a goblin result folder", kMaxFolderFiles), dir);
  }
  if (ec) return make_error(ErrorKind::Io, "store: cannot list the folder: " + ec.message(), dir);
  std::sort(files.begin(), files.end());
  std::vector<Artifact> out;
  for (const auto& f : files) {
    ASSIGN_OR_RETURN(Artifact a, artifact_of(f, fs::relative(f, dir).string()));
    out.push_back(std::move(a));
  }
  return out;
}

void apply_linkage(RunRecord& r, const Linkage& link) {
  if (!link.experiment_id.empty()) r.linkage["experiment_id"] = link.experiment_id;
  if (!link.trial_id.empty()) r.linkage["trial_id"] = link.trial_id;
  if (!link.workload.empty()) r.workload = link.workload;
  r.tags.insert(r.tags.end(), link.tags.begin(), link.tags.end());
}

std::string key_of(const RunRecord& r) {
  Sha256 h;
  h.update(r.verb + "\n" + r.source + "\n");
  for (const auto& i : r.inputs) h.update(i.sha256 + "\n");
  for (const auto& a : r.artifacts) h.update(a.name + "=" + a.sha256 + "\n");
  for (const char* k : {"experiment_id", "trial_id"}) {
    auto it = r.linkage.find(k);
    h.update(std::string(k) + "=" + (it == r.linkage.end() ? "" : it->second) + "\n");
  }
  return h.hex();
}

// The goblin that made the result when it says so (an imported report), this one otherwise.
void base(RunRecord& r) {
  if (r.goblin_version == kUnknown) r.goblin_version = build_info().version;
  if (r.goblin_commit == kUnknown) r.goblin_commit = build_info().commit;
}

// A kernel workspace: its iterations from memory/v<N>.json (masked ones included and marked).
Status kernel_workspace(const std::string& dir, RunRecord& r) {
  Json status = {{"iterations", Json::array()}, {"target", Json::object()}};
  if (fs::exists(dir + "/workspace.json")) {
    ASSIGN_OR_RETURN(Json ws, read_json_file(dir + "/workspace.json"));
    status["name"] = ws.value("name", "");
    status["platform"] = ws.value("platform", "");
  }
  std::vector<std::pair<int, std::string>> versions;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir + "/memory", ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 6 && n[0] == 'v' && n.substr(n.size() - 5) == ".json") {
      const std::string digits = n.substr(1, n.size() - 6);
      if (!digits.empty() && digits.size() < 7 && std::all_of(digits.begin(), digits.end(), ::isdigit))
        versions.emplace_back(std::stoi(digits), e.path().string());
    }
  }
  std::sort(versions.begin(), versions.end());
  for (const auto& [v, path] : versions) {
    ASSIGN_OR_RETURN(Json m, read_json_file(path));
    if (!m.is_object()) continue;
    const Json perf = m.value("performance", Json::object());
    if (perf.is_object() && perf.contains("target_metric")) status["target"]["metric"] = perf["target_metric"];
    Json it = {{"version", v}, {"change", m.value("change_summary", "")}, {"masked", m.value("masked", false)}};
    if (perf.is_object())
      for (const char* k : {"tflops", "gbs", "pct_of_target"})
        if (perf.contains(k)) it[k] = perf[k];
    if (m.contains("correctness") && m["correctness"].is_object())
      it["correct"] = m["correctness"].value("passed", true);
    status["iterations"].push_back(std::move(it));
  }
  if (status.value("name", "").empty()) status["name"] = fs::path(dir).filename().string();
  summarize_json(status, r);
  return {};
}

// A ranks run keeps `goblin ranks --html`'s page (the skew heatmaps, the straggler and slow node
// in words, the node table), rendered from the result by the one renderer, so the dashboard shows
// the same page the CLI writes. A result the renderer cannot read (an older or hand-made one)
// keeps no page.
void add_ranks_page(const Json& result, RunRecord& r) {
  if (r.verb != "ranks" || !result.is_object()) return;
  std::string html;
  try {
    html = analysis::ranks_heatmap_html(result);
  } catch (const Json::exception&) {
    return;
  }
  r.artifacts.push_back({kRanksPage, sha256_hex(html), static_cast<int64_t>(html.size()), html});
}

}  // namespace

Result<RunRecord> record_from_result(const std::string& verb, const std::vector<std::string>& inputs,
                                     const Json& result, const Linkage& link) {
  RunRecord r;
  r.verb = verb;
  r.source = "verb";
  for (const auto& p : inputs) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      // A run folder: the hash of its files' hashes.
      ASSIGN_OR_RETURN(auto arts, folder_artifacts(p));
      Sha256 h;
      int64_t bytes = 0;
      for (const auto& a : arts) h.update(a.name + "=" + a.sha256 + "\n"), bytes += a.bytes;
      r.inputs.push_back({p, h.hex(), bytes});
    } else if (fs::exists(p, ec)) {
      ASSIGN_OR_RETURN(InputFile f, hash_file(p));
      r.inputs.push_back(std::move(f));
    }
  }
  const std::string body = result.dump(1);
  r.artifacts.push_back({"result.json", sha256_hex(body), static_cast<int64_t>(body.size()), body});
  // Files the verb wrote (triage's artifact folder).
  if (result.is_object() && result.contains("out_dir") && result["out_dir"].is_string() &&
      result.contains("artifacts") && result["artifacts"].is_array())
    for (const Json& n : result["artifacts"])
      if (n.is_string()) {
        const std::string p = result["out_dir"].get<std::string>() + "/" + n.get<std::string>();
        if (auto a = artifact_of(p, n.get<std::string>())) r.artifacts.push_back(std::move(*a));
      }
  add_ranks_page(result, r);
  if (result.is_array())  // one result per rank: the tables of each (kernels and steps of the first)
    for (const Json& one : result) summarize_json(one, r);
  else
    summarize_json(result, r);
  if (r.workload == kUnknown || r.workload.empty())
    if (!inputs.empty()) r.workload = fs::path(inputs.front()).filename().string();
  apply_linkage(r, link);
  base(r);
  finish_record(r);
  r.content_key = key_of(r);
  return r;
}

Result<RunRecord> record_from_path(const std::string& path, const Linkage& link) {
  RunRecord r;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    ASSIGN_OR_RETURN(r.artifacts, folder_artifacts(path));
    auto has = [&](const char* f) { return fs::is_regular_file(path + "/" + f, ec); };
    if (has("report.json")) {  // goblin audit's folder
      r.verb = "audit", r.source = "import:audit";
      ASSIGN_OR_RETURN(Json j, read_json_file(path + "/report.json"));
      summarize_json(j, r);
    } else if (has("profile_metadata.json")) {  // goblin triage's artifact folder
      r.verb = "triage", r.source = "import:triage";
      ASSIGN_OR_RETURN(Json m, read_json_file(path + "/profile_metadata.json"));
      summarize_json(m, r);
      if (has("kernel_table.json")) {
        ASSIGN_OR_RETURN(Json k, read_json_file(path + "/kernel_table.json"));
        summarize_json(Json{{"top_kernels", k}}, r);
      }
    } else if (fs::is_directory(path + "/memory", ec)) {  // goblin kernel's workspace
      r.verb = "kernel", r.source = "import:kernel";
      RETURN_IF_ERROR(kernel_workspace(path, r));
    } else if (has("run.json")) {  // goblin profile / bench run folder
      r.verb = "profile", r.source = "import:run";
      ASSIGN_OR_RETURN(Json j, read_json_file(path + "/run.json"));
      summarize_json(j, r);
      if (has("metrics.json")) {
        ASSIGN_OR_RETURN(Json m, read_json_file(path + "/metrics.json"));
        summarize_json(m, r);
      }
      if (j.is_object() && j.contains("workload"))
        r.workload = j["workload"].is_string() ? j["workload"].get<std::string>() : r.workload;
    } else {
      return make_error(ErrorKind::Usage,
                        "store: not a goblin result folder (an audit folder with report.json, a triage folder with "
                        "profile_metadata.json, a kernel workspace with memory/, or a run folder with run.json)",
                        path);
    }
  } else {
    if (!fs::exists(path, ec)) return make_error(ErrorKind::Io, "store: no such file or folder", path);
    ASSIGN_OR_RETURN(Json j, read_json_file(path));
    if (!j.is_object())
      return make_error(ErrorKind::Usage, "store: not a goblin result (a JSON object: ranks, diff, metrics, ...)",
                        path);
    if (j.contains("world_size") && j.contains("ranks"))
      r.verb = "ranks";
    else if (j.contains("before") && j.contains("after") && j.contains("speedup"))
      r.verb = "diff";
    else if (j.contains("waste_budget") && j.contains("steps"))
      r.verb = "metrics";
    else if (j.contains("rounds") && j.contains("speedup_model"))
      r.verb = "audit";
    else if (j.contains("iterations") && j.contains("target"))
      r.verb = "kernel";
    else
      r.verb = "json";
    r.source = "import:json";
    ASSIGN_OR_RETURN(Artifact a, artifact_of(path, fs::path(path).filename().string()));
    r.artifacts.push_back(std::move(a));
    add_ranks_page(j, r);
    summarize_json(j, r);
    if (r.verb == "diff" && j.contains("speedup") && j["speedup"].is_number())
      r.metrics["speedup"] = j["speedup"].get<double>();
  }
  if (r.workload == kUnknown || r.workload.empty()) r.workload = fs::path(path).filename().string();
  apply_linkage(r, link);
  base(r);
  finish_record(r);
  r.content_key = key_of(r);
  return r;
}

}  // namespace goblin::store
