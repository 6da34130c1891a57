// goblin ranks: which files are which rank, and data/collectives.yaml.
#include <fmt/format.h>
#include <glob.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>

#include "analysis/ranks.h"
#include "analysis/ranks_scale.h"
#include "core/data.h"
#include "core/dir_walk.h"
#include "core/limits.h"
#include "core/io.h"
#include "core/text.h"
#include "trace/readers.h"

namespace goblin::analysis {

namespace fs = std::filesystem;

int64_t rank_from_name(const std::string& file_name) {
  static const std::regex re(fmt::format("rank[-_]?([0-9]{{1,{}}})", limits::kMaxRankDigits), std::regex::icase);
  std::smatch m;
  if (!std::regex_search(file_name, m, re)) return -1;
  return std::stoll(m[1].str());
}

int64_t rank_from_name(const std::string& file_name, const std::string& rank_regex) {
  if (rank_regex.empty()) return goblin::analysis::rank_from_name(file_name);
  try {
    const std::regex re(rank_regex);
    std::smatch m;
    if (!std::regex_search(file_name, m, re)) return -1;
    const std::string n = m.size() > 1 ? m[1].str() : m[0].str();
    if (n.empty() || n.size() > limits::kMaxRankDigits || !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return -1;
    return std::stoll(n);
  } catch (const std::regex_error&) {
    return -1;  // enumerate_ranks refuses a pattern that does not compile before any name is matched
  }
}

int64_t rank_of(const Timeline& tl, const std::string& path, std::string* from) {
  if (tl.meta.distributed.rank >= 0) {
    if (from) *from = "distributedInfo";
    return tl.meta.distributed.rank;
  }
  const int64_t r = rank_from_name(fs::path(path).filename().string());
  if (from) *from = r >= 0 ? "file name" : "";
  return r;
}

namespace {

bool trace_like(const std::string& name) {
  std::string n = ascii_lower(name);
  auto ends = [&](const char* s) {
    std::string_view x(s);
    return n.size() >= x.size() && n.compare(n.size() - x.size(), x.size(), x) == 0;
  };
  return ends(".json") || ends(".json.gz") || ends(".gz") || ends(".sqlite") || ends(".csv");
}

// rocprofv3 writes one set of files per process: PID_kernel_trace.csv, PID_hip_api_trace.csv,
// PID_results.json, ... (possibly under a host-name folder).
bool rocprof_pid(const std::string& name, std::string* pid) {
  static const std::regex re("^([0-9]+)_[A-Za-z0-9_]*(trace|info|stats|results|collection)\\.(csv|json)$");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return false;
  *pid = m[1].str();
  return true;
}

// A rocpd database holding several processes (a merged multi-rank run): one rank per process,
// numbered in (node, pid) order. False (nothing added) for any other file, or a database of one
// process, which is read whole like any trace.
bool add_rocpd_processes(const std::string& path, std::vector<RankInput>& out) {
  auto prefix = read_prefix(path, 16);
  if (!prefix || prefix->substr(0, 16) != std::string_view("SQLite format 3\0", 16)) return false;
  if (trace::sniff_sqlite(path) != Format::Rocpd) return false;
  auto procs = trace::rocpd_processes(path);
  if (!procs || procs->size() < 2) return false;
  bool nodes = false;
  for (const auto& p : *procs) nodes |= p.node != procs->front().node;
  for (size_t i = 0; i < procs->size(); ++i) {
    const trace::RocpdProcess& p = (*procs)[i];
    RankInput r;
    r.files.push_back(path);
    r.label = nodes ? fmt::format("{}#node{}/pid{}", path, p.node, p.pid) : fmt::format("{}#pid{}", path, p.pid);
    r.rank_hint = static_cast<int64_t>(i);
    r.rocpd_process = p;
    out.push_back(std::move(r));
  }
  return true;
}

void add_dir(const fs::path& dir, std::vector<RankInput>& out, std::vector<std::string>* notes,
             const analysis::RankDiscovery& d) {
  const std::vector<fs::path> files = regular_files_under(dir);  // core/dir_walk.h: the one folder walk
  std::map<std::string, size_t> by_pid;  // "dir/pid" → index in out
  for (const fs::path& f : files) {
    const std::string name = f.filename().string();
    std::string pid;
    if (rocprof_pid(name, &pid)) {
      const std::string key = (f.parent_path() / pid).string();
      auto [it, ins] = by_pid.try_emplace(key, out.size());
      if (ins) {
        RankInput r;
        r.label = key;
        out.push_back(r);
      }
      out[it->second].files.push_back(f.string());
      continue;
    }
    if (add_rocpd_processes(f.string(), out)) continue;
    if (!trace_like(name)) {
      if (notes) notes->push_back("skipped " + f.string() + " (not a trace file name)");
      continue;
    }
    RankInput r;
    r.files.push_back(f.string());
    r.label = f.string();
    r.rank_hint = analysis::rank_from_name(name, d.rank_regex);
    out.push_back(std::move(r));
  }
}

// A path that does not exist and holds a wildcard: the files it matches, sorted; nullopt when it
// is not a pattern.
std::optional<std::vector<std::string>> expand_glob(const std::string& p) {
  if (p.find_first_of("*?[") == std::string::npos) return std::nullopt;
  glob_t g{};
  std::vector<std::string> out;
  if (::glob(p.c_str(), GLOB_NOSORT, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::vector<RankInput>> enumerate_ranks(const std::vector<std::string>& paths, std::vector<std::string>* notes) {
  return analysis::enumerate_ranks(paths, notes, {});
}

Result<std::vector<RankInput>> enumerate_ranks(const std::vector<std::string>& given, std::vector<std::string>* notes,
                                               const RankDiscovery& d) {
  std::vector<RankInput> out;
  if (given.empty()) return make_error(ErrorKind::Usage, "no rank traces given");
  if (!d.rank_regex.empty()) {
    try {
      std::regex re(d.rank_regex);
    } catch (const std::regex_error& e) {
      return make_error(ErrorKind::Usage,
                        fmt::format("--rank-regex {}: not a regular expression ({})", d.rank_regex, e.what()));
    }
  }
  std::vector<std::string> paths;
  for (const std::string& p : given) {
    std::error_code ec;
    if (!fs::exists(p, ec))
      if (auto m = expand_glob(p)) {
        if (m->empty()) return make_error(ErrorKind::Io, "no file matches this pattern", p);
        paths.insert(paths.end(), m->begin(), m->end());
        continue;
      }
    paths.push_back(p);
  }
  for (const std::string& p : paths) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) return make_error(ErrorKind::Io, "no such file or directory", p);
    if (fs::is_directory(st)) {
      const size_t before = out.size();
      add_dir(p, out, notes, d);
      if (out.size() == before) return make_error(ErrorKind::Io, "the directory holds no trace files", p);
    } else if (!add_rocpd_processes(p, out)) {
      RankInput r;
      r.files.push_back(p);
      r.label = p;
      r.rank_hint = rank_from_name(fs::path(p).filename().string(), d.rank_regex);
      out.push_back(std::move(r));
    }
  }
  return out;
}

// ---- data/collectives.yaml ------------------------------------------------------------------

Result<CollectiveKnowledge> CollectiveKnowledge::load() {
  const char* file = "collectives.yaml";
  ASSIGN_OR_RETURN(auto text, load_data_file(file));
  CollectiveKnowledge ck;
  const std::string origin = data_file_origin(file);
  try {
    YAML::Node root = YAML::Load(text);
    ck.bandwidth_source = root["bandwidth_source"].as<std::string>("");
    for (const auto& t : root["types"]) {
      Type ty;
      ty.type = t["type"].as<std::string>();
      for (const auto& m : t["match"]) ty.match.push_back(ascii_lower(m.as<std::string>()));
      ty.busbw_factor = t["busbw_factor"].as<std::string>("none");
      ty.synchronizes = t["synchronizes"].as<bool>(false);
      ty.source = t["source"].as<std::string>("");
      if (ty.busbw_factor != "2(n-1)/n" && ty.busbw_factor != "(n-1)/n" && ty.busbw_factor != "1" &&
          ty.busbw_factor != "none")
        return make_error(ErrorKind::Malformed,
                          "collective type " + ty.type + ": busbw_factor must be 2(n-1)/n, (n-1)/n, 1 or none", origin);
      ck.types.push_back(std::move(ty));
    }
    for (const auto& kv : root["dtype_bytes"])
      ck.dtype_bytes[ascii_lower(kv.first.as<std::string>())] = kv.second.as<int>();
    if (auto s = root["straggler"]) {
      ck.min_late_share = s["min_late_share"].as<double>(ck.min_late_share);
      ck.min_wait_fraction_of_step = s["min_wait_fraction_of_step"].as<double>(ck.min_wait_fraction_of_step);
    }
    ck.min_kernel_overlap = root["min_kernel_overlap"].as<double>(ck.min_kernel_overlap);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, "collectives data: " + e.msg, origin, -1,
                      e.mark.line >= 0 ? e.mark.line + 1 : -1);
  }
  if (ck.types.empty()) return make_error(ErrorKind::Malformed, "collectives data: no `types`", origin);
  return ck;
}

const CollectiveKnowledge::Type* CollectiveKnowledge::type_of(std::string_view name) const {
  const std::string n = ascii_lower(name);
  for (const Type& t : types)
    for (const std::string& m : t.match)
      if (n.find(m) != std::string::npos) return &t;
  return nullptr;
}

std::optional<double> CollectiveKnowledge::factor(const std::string& f, int64_t n) {
  if (f == "1") return 1.0;
  if (n < 1) return std::nullopt;
  const double d = static_cast<double>(n);
  if (f == "2(n-1)/n") return 2.0 * (d - 1) / d;
  if (f == "(n-1)/n") return (d - 1) / d;
  return std::nullopt;
}

}  // namespace goblin::analysis
