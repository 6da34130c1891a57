#include "run/live.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "config/command_line.h"
#include "config/workload_config.h"
#include "core/io.h"
#include "core/locate.h"
#include "hw/gpu_specs.h"
#include "model/timeline.h"
#include "run/stats.h"
#include "trace/readers.h"

#ifndef GOBLIN_VERSION
#define GOBLIN_VERSION "0.0.0"
#endif

namespace fs = std::filesystem;

namespace goblin::run {
namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream ss(s);
  while (std::getline(ss, cur, sep)) out.push_back(cur);
  return out;
}

double to_num(const std::string& s) {
  try {
    size_t i = 0;
    std::string t = trim(s);
    double v = std::stod(t, &i);
    return v;
  } catch (...) {
    return std::nan("");
  }
}

bool contains(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

std::string goblin_version() { return GOBLIN_VERSION; }

Status make_dirs(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create directory: " + ec.message(), path);
  return Status::Ok();
}

// ---- GPU ----------------------------------------------------------------------------------

namespace {
// `amd-smi version` prints one line of "key: value" fields split by '|': "AMDSMI Tool: 26.0.2 |
// AMDSMI Library version: 26.0.2 | ROCm version: 7.0.2 | amdgpu version: 6.14.14" (amdsmi_cli's
// version command; the amdgpu field appears with the kernel driver loaded). The ROCm release and
// the amdgpu driver are what an AMD run's validity footer names; nvidia-smi gives the driver in
// the detection query itself.
// Asked once per process: GPU detection wants the driver, the environment fingerprint the ROCm
// release, and both read the same line.
std::string amd_smi_version_field(const std::string& key) {
  static const std::string line = capture({"amd-smi", "version"}, 30).value_or("");
  for (const std::string& part : split(line, '|')) {
    auto colon = part.find(':');
    if (colon != std::string::npos && trim(part.substr(0, colon)) == key) return trim(part.substr(colon + 1));
  }
  return {};
}
}  // namespace

std::string rocm_version() { return amd_smi_version_field("ROCm version"); }

GpuInfo detect_gpu() {
  GpuInfo g;
  auto d = hw::detect_local_gpus();
  if (!d) {
    // The callers say "no GPU on this machine (<detail>)": keep only what was tried.
    g.detail = d.error().message;
    const std::string lead = "no GPU detected on this machine: ";
    if (g.detail.rfind(lead, 0) == 0) g.detail = g.detail.substr(lead.size());
    if (auto hint = g.detail.find(". Name the GPU instead"); hint != std::string::npos) g.detail.resize(hint);
    return g;
  }
  g.vendor = d->vendor;
  g.name = d->devices.front().name;
  g.driver = d->driver;
  if (g.vendor == "amd" && g.driver.empty()) g.driver = amd_smi_version_field("amdgpu version");
  g.detail = d->tool;
  return g;
}

// ---- telemetry ------------------------------------------------------------------------------

Json telemetry_to_json(const TelemetrySummary& t) {
  Json j;
  j["observed"] = t.observed;
  j["source"] = t.source;
  j["parser"] = t.parser;
  j["samples"] = t.samples;
  if (t.observed) {
    j["sm_clock_mhz"] = Json{{"median", round_to(t.sm_clock_mhz_median, 0)},
                             {"min", round_to(t.sm_clock_mhz_min, 0)},
                             {"max", round_to(t.sm_clock_mhz_max, 0)}};
    j["power_w"] = Json{{"median", round_to(t.power_w_median, 1)}, {"max", round_to(t.power_w_max, 1)}};
    j["temp_c_max"] = round_to(t.temp_c_max, 0);
    j["gpu_util_pct_mean"] = round_to(t.gpu_util_pct_mean, 1);
    j["mem_used_gb_max"] = round_to(t.mem_used_gb_max, 2);
  }
  if (!t.note.empty()) j["note"] = t.note;
  return j;
}

namespace {
void fill_summary(TelemetrySummary& t, std::vector<double>& clk, std::vector<double>& pw, std::vector<double>& temp,
                  std::vector<double>& util, std::vector<double>& mem_gb) {
  // Idle samples (before the workload touched the GPU / after it ended) would drag clocks and
  // power down: summarise the busy samples when there are any.
  std::vector<size_t> keep;
  for (size_t i = 0; i < util.size(); ++i)
    if (util[i] > 0) keep.push_back(i);
  auto pick = [&](const std::vector<double>& v) {
    if (keep.empty() || v.size() != util.size()) return v;
    std::vector<double> o;
    for (size_t i : keep) o.push_back(v[i]);
    return o;
  };
  auto c = pick(clk), p = pick(pw);
  t.samples = static_cast<int>(util.size());
  t.observed = t.samples > 0;
  if (!c.empty()) {
    t.sm_clock_mhz_median = median(c);
    t.sm_clock_mhz_min = *std::min_element(c.begin(), c.end());
    t.sm_clock_mhz_max = *std::max_element(c.begin(), c.end());
  }
  if (!p.empty()) {
    t.power_w_median = median(p);
    t.power_w_max = *std::max_element(p.begin(), p.end());
  }
  if (!temp.empty()) t.temp_c_max = *std::max_element(temp.begin(), temp.end());
  auto u = pick(util);
  if (!u.empty()) {
    double s = 0;
    for (double x : u) s += x;
    t.gpu_util_pct_mean = s / static_cast<double>(u.size());
  }
  if (!mem_gb.empty()) t.mem_used_gb_max = *std::max_element(mem_gb.begin(), mem_gb.end());
  if (!keep.empty() && keep.size() < util.size())
    t.note = fmt::format("clock, power and utilisation summarise the {} busy samples (util > 0)", keep.size());
}
}  // namespace

// One summary row per (time, device) of the normalised samples a telemetry reader wrote
// (trace/readers.h: gpu_util_pct, sm_clock_mhz, power_w, temp_c, mem_used_bytes), the same for
// every vendor's tool.
void summarize_samples(const Timeline& tl, TelemetrySummary& t) {
  std::map<std::pair<int64_t, int32_t>, std::map<std::string, double>> by_ts;
  for (size_t i = 0; i < tl.samples.size(); ++i)
    by_ts[{tl.samples.ts_ns[i], tl.samples.device[i]}][std::string(tl.str(tl.samples.metric[i]))] = tl.samples.value[i];
  std::vector<double> clk, pw, temp, util, mem;
  for (auto& [ts, m] : by_ts) {
    util.push_back(m.count("gpu_util_pct") ? m["gpu_util_pct"] : 0);
    clk.push_back(m.count("sm_clock_mhz") ? m["sm_clock_mhz"] : 0);
    pw.push_back(m.count("power_w") ? m["power_w"] : 0);
    if (m.count("temp_c")) temp.push_back(m["temp_c"]);
    if (m.count("mem_used_bytes")) mem.push_back(m["mem_used_bytes"] / double(1ull << 30));
  }
  fill_summary(t, clk, pw, temp, util, mem);
}

TelemetrySummary summarize_nvidia_smi_csv(const std::string& path) {
  TelemetrySummary t;
  t.source = "nvidia-smi";
  // goblin's own reader first.
  {
    Timeline tl;
    Status st = trace::read_nvidia_smi(path, tl, trace::ReadOptions{});
    if (st.ok() && tl.samples.size() > 0) {
      t.parser = "goblin nvidia-smi reader";
      summarize_samples(tl, t);
      return t;
    }
    t.parser =
        "built-in CSV parser (goblin nvidia-smi reader: " + (st.ok() ? std::string("no samples") : st.error().message) +
        ")";
  }
  auto text = read_all(path);
  if (!text) {
    t.note = "telemetry file unreadable: " + text.error().message;
    return t;
  }
  auto lines = split(*text, '\n');
  if (lines.empty()) return t;
  auto header = split(lines[0], ',');
  int i_clk = -1, i_pw = -1, i_temp = -1, i_util = -1, i_mem = -1;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    std::string h = trim(header[static_cast<size_t>(i)]);
    if (h.rfind("clocks.current.sm", 0) == 0 || h.rfind("clocks.sm", 0) == 0)
      i_clk = i;
    else if (h.rfind("power.draw", 0) == 0)
      i_pw = i;
    else if (h.rfind("temperature.gpu", 0) == 0)
      i_temp = i;
    else if (h.rfind("utilization.gpu", 0) == 0)
      i_util = i;
    else if (h.rfind("memory.used", 0) == 0)
      i_mem = i;
  }
  std::vector<double> clk, pw, temp, util, mem;
  for (size_t l = 1; l < lines.size(); ++l) {
    if (trim(lines[l]).empty() || lines[l].rfind("timestamp", 0) == 0) continue;
    auto c = split(lines[l], ',');
    auto get = [&](int i) {
      return i >= 0 && static_cast<size_t>(i) < c.size() ? to_num(c[static_cast<size_t>(i)]) : std::nan("");
    };
    double u = get(i_util);
    util.push_back(std::isnan(u) ? 0 : u);
    double v = get(i_clk);
    clk.push_back(std::isnan(v) ? 0 : v);
    v = get(i_pw);
    pw.push_back(std::isnan(v) ? 0 : v);
    v = get(i_temp);
    if (!std::isnan(v)) temp.push_back(v);
    v = get(i_mem);
    if (!std::isnan(v)) mem.push_back(v / 1024.0);  // MiB → GiB
  }
  fill_summary(t, clk, pw, temp, util, mem);
  return t;
}

TelemetrySummary summarize_amd_smi_csv(const std::string& path) {
  TelemetrySummary t;
  t.source = "amd-smi";
  t.parser = "goblin amd-smi reader";
  Timeline tl;
  Status st = trace::read_amd_smi(path, tl, trace::ReadOptions{});
  if (tl.samples.size() == 0) {
    t.note = "amd-smi output has no samples" + (st.ok() ? std::string() : ": " + st.error().describe());
    return t;
  }
  summarize_samples(tl, t);
  // A damaged tail (the watch killed mid-row) keeps the rows read before it, and says so.
  if (!st.ok()) t.note += (t.note.empty() ? "" : "; ") + std::string("read stopped early: ") + st.error().describe();
  return t;
}

bool TelemetryCollector::start(const std::string& vendor, const std::string& csv_path) {
  vendor_ = vendor;
  path_ = csv_path;
  ProcSpec s;
  s.stdout_path = csv_path;
  if (vendor == "nvidia" && on_path("nvidia-smi")) {
    s.argv = {"nvidia-smi",
              "--query-gpu=timestamp,index,name,utilization.gpu,utilization.memory,memory.used,memory.total,"
              "power.draw,power.limit,temperature.gpu,clocks.sm,clocks.mem",
              "--format=csv", "-lms", "200"};
  } else if (vendor == "amd" && on_path("amd-smi")) {
    // UNTESTED (no AMD hardware here): amd-smi's watch mode polls once a second at best.
    s.argv = {"amd-smi", "metric", "--usage", "--power", "--clock", "--temperature", "--mem-usage", "--csv", "-w", "1"};
  } else {
    note_ = vendor == "none" ? "no GPU telemetry tool" : vendor + " telemetry tool not on PATH";
    return false;
  }
  Status st = bg_.start(s);
  if (!st.ok()) {
    note_ = st.error().message;
    return false;
  }
  return true;
}

TelemetrySummary TelemetryCollector::stop() {
  bool was = bg_.running();
  bg_.stop();
  TelemetrySummary t;
  if (!was) {
    t.note = note_.empty() ? "telemetry not collected" : note_;
    return t;
  }
  if (vendor_ == "nvidia") return summarize_nvidia_smi_csv(path_);
  return summarize_amd_smi_csv(path_);
}

// ---- workload -------------------------------------------------------------------------------

Result<WorkloadSpec> resolve_workload(const std::string& config, const std::string& workload_flag) {
  // A shell script, Slurm script, Makefile or README with a launch command runs its own line.
  if (workload_flag.empty()) {
    std::string ext = fs::path(config).extension().string(), base = fs::path(config).filename().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".sh" || ext == ".bash" || ext == ".sbatch" || ext == ".slurm" || ext == ".md" || ext == ".mk" ||
        base == "Makefile" || base == "makefile" || base == "GNUmakefile")
      if (auto text = read_all(config); text && config::sniff_config_format(config, *text) == config::kCommandFormat)
        return command_workload(config);
  }
  WorkloadSpec w;
  w.config = config;
  if (const char* p = std::getenv("GOBLIN_PYTHON"); p && *p) w.python = p;
  std::vector<std::string> cands;
  if (!workload_flag.empty())
    cands.push_back(workload_flag);
  else {
    if (const char* e = std::getenv("GOBLIN_WORKLOAD"); e && *e) cands.push_back(e);
    fs::path cdir = fs::path(config).parent_path();
    if (cdir.empty()) cdir = ".";
    cands.push_back((cdir / ".." / "train.py").string());
    cands.push_back((cdir / "train.py").string());
    // The reference workload shipped with goblin (share/goblin, or the source tree of a build).
    if (std::string f = runtime_file("workloads/train.py"); !f.empty()) cands.push_back(f);
    cands.push_back("workloads/train.py");
  }
  for (const auto& c : cands) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) {
      w.workload_py = fs::weakly_canonical(c, ec).string();
      return w;
    }
  }
  return make_error(ErrorKind::Io,
                    "cannot find the workload script (train.py); pass --workload PATH or set GOBLIN_WORKLOAD",
                    workload_flag.empty() ? config : workload_flag);
}

// Tokens per step = batch x seq x accumulation of the config; unset without batch or sequence.
static void set_tokens_per_step(WorkloadSpec& w, const std::string& config_file) {
  auto cfg = config::parse_config_file(config_file);
  if (!cfg) return;
  Json b = cfg->get("batch_size"), q = cfg->get("seq_len"), g = cfg->get("grad_accum_steps");
  if (b.is_number() && q.is_number())
    w.tokens_per_step =
        static_cast<long long>(b.get<double>() * q.get<double>() * (g.is_number() ? g.get<double>() : 1.0));
}

Result<WorkloadSpec> script_workload(const std::string& config_file, const std::string& given_config,
                                     const std::string& script, const std::vector<std::string>& args) {
  WorkloadSpec w;
  w.config = config_file;
  if (const char* p = std::getenv("GOBLIN_PYTHON"); p && *p) w.python = p;
  std::error_code ec;
  if (!fs::is_regular_file(script, ec))
    return make_error(ErrorKind::Io, "--script: no such file (the training script to run)", script);
  w.script = fs::weakly_canonical(script, ec).string();
  w.hook_result = true;
  w.command = {w.python, w.script};
  bool placed = false;
  for (const auto& a : args) {
    std::string x = a;
    for (size_t at; (at = x.find("{config}")) != std::string::npos;) {
      x.replace(at, 8, config_file);
      placed = true;
    }
    if (x == given_config && !given_config.empty()) {
      x = config_file;
      placed = true;
    }
    w.command.push_back(x);
  }
  if (args.empty()) {
    w.command.push_back(config_file);
    placed = true;
  }
  if (!placed && config_file != given_config)
    return make_error(ErrorKind::Usage,
                      "--script arguments never name the config (put {config} where the script takes it), so a patched "
                      "config could not reach the script",
                      script);
  set_tokens_per_step(w, config_file);
  return w;
}

Result<WorkloadSpec> command_workload(const std::string& config_file) {
  WorkloadSpec w;
  w.config = config_file;
  w.hook_result = true;
  w.script = "bash";
  std::string ext = fs::path(config_file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".sh" || ext == ".bash" || ext == ".sbatch" || ext == ".slurm") {
    w.command = {"bash", config_file};
  } else {
    ASSIGN_OR_RETURN(auto text, read_all(config_file));
    ASSIGN_OR_RETURN(auto line, config::launch_command_text(text, config_file));
    w.command = {"bash", "-c", line};
  }
  set_tokens_per_step(w, config_file);
  return w;
}

std::string hook_dir_for(const WorkloadSpec& w) {
  if (const char* e = std::getenv("GOBLIN_HOOK_DIR"); e && *e) return e;
  std::vector<std::string> cands;
  if (!w.workload_py.empty()) cands.push_back((fs::path(w.workload_py).parent_path() / "goblin_hook").string());
  if (std::string f = runtime_file("workloads/goblin_hook/sitecustomize.py"); !f.empty())
    cands.push_back(fs::path(f).parent_path().string());
  cands.push_back("workloads/goblin_hook");
  for (const auto& c : cands) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(c) / "sitecustomize.py", ec)) return fs::weakly_canonical(c, ec).string();
  }
  return {};
}

std::optional<Error> classify_failure(const ProcResult& p, double timeout_s, const std::string& stderr_path) {
  std::string tail = p.stderr_tail;
  auto last_lines = [&]() {
    std::string t = trim(tail);
    auto lines = split(t, '\n');
    std::string out;
    size_t from = lines.size() > 6 ? lines.size() - 6 : 0;
    for (size_t i = from; i < lines.size(); ++i) out += "\n    " + lines[i];
    return out;
  };
  if (p.timed_out) {
    return make_error(ErrorKind::Workload,
                      fmt::format("workload hung: no exit within {:.0f} s (--timeout); its whole process group was "
                                  "killed{}",
                                  timeout_s, last_lines()),
                      stderr_path);
  }
  if (p.exec_failed)
    return make_error(ErrorKind::Environment,
                      "cannot start the workload command (not found or not executable)" + last_lines(), stderr_path);
  if (p.exit_code == 0) return std::nullopt;
  if (contains(tail, "out of memory") || contains(tail, "OutOfMemoryError") || contains(tail, "HIP out of memory"))
    return make_error(ErrorKind::Workload,
                      "workload ran out of GPU memory (CUDA out of memory): lower per_device_train_batch_size or "
                      "max_seq_length, or enable gradient_checkpointing" +
                          last_lines(),
                      stderr_path);
  if (p.exit_code == 3 || contains(tail, "torch.cuda.is_available() is False") ||
      contains(tail, "no CUDA/ROCm device") || contains(tail, "Found no NVIDIA driver") ||
      contains(tail, "No CUDA GPUs are available"))
    return make_error(ErrorKind::Environment,
                      "no GPU visible to the workload (PyTorch sees no CUDA/ROCm device); use `goblin audit --replay` "
                      "on recorded artefacts instead" +
                          last_lines(),
                      stderr_path);
  if (contains(tail, "No module named 'torch'"))
    return make_error(ErrorKind::Environment,
                      "PyTorch is not installed for this python (set GOBLIN_PYTHON)" + last_lines(), stderr_path);
  std::string how = p.term_signal ? fmt::format("was killed by signal {}", p.term_signal)
                                  : fmt::format("crashed with exit code {}", p.exit_code);
  return make_error(ErrorKind::Workload, "workload " + how + last_lines(), stderr_path);
}

RunOutcome run_workload(const WorkloadSpec& w, const std::string& dir, const std::map<std::string, std::string>& env,
                        const std::string& label) {
  RunOutcome o;
  std::string result_path = dir + "/result.json";
  std::remove(result_path.c_str());
  ProcSpec s;
  if (!w.command.empty()) {
    s.argv = w.command;
  } else {
    s.argv = {w.python,
              w.workload_py,
              w.config,
              "--steps",
              fmt::format("{}", w.steps),
              "--warmup",
              fmt::format("{}", w.warmup),
              "--result",
              result_path};
  }
  s.env = env;
  if (w.hook_result) {
    // The user's script writes nothing: the hook times the optimizer steps and writes the result.
    std::string hook = hook_dir_for(w);
    if (hook.empty()) {
      o.error =
          make_error(ErrorKind::Environment,
                     "--script needs goblin's hook (workloads/goblin_hook/sitecustomize.py); set GOBLIN_HOOK_DIR");
      return o;
    }
    if (!s.env.count("PYTHONPATH")) {
      const char* pp = std::getenv("PYTHONPATH");
      s.env["PYTHONPATH"] = hook + (pp && *pp ? std::string(":") + pp : "");
    }
    s.env["GOBLIN_TIME_STEPS"] = "1";
    s.env["GOBLIN_HOOK_RESULT"] = "1";
    s.env["GOBLIN_EXIT_AFTER_RESULT"] = "1";
  }
  s.env["GOBLIN_RESULT"] = result_path;
  s.env["GOBLIN_STEPS"] = fmt::format("{}", w.steps);
  s.env["GOBLIN_WARMUP"] = fmt::format("{}", w.warmup);
  s.env["PYTHONUNBUFFERED"] = "1";
  if (w.tokens_per_step) s.env["GOBLIN_TOKENS_PER_STEP"] = fmt::format("{}", *w.tokens_per_step);
  o.stdout_path = s.stdout_path = dir + "/stdout.log";
  o.stderr_path = s.stderr_path = dir + "/stderr.log";
  s.timeout_s = w.timeout_s;
  if (!label.empty()) {
    s.on_tick = [&label](double el) {
      if (static_cast<int>(el) % 10 == 0) std::cerr << fmt::format("  {}: running {} s\n", label, static_cast<int>(el));
    };
  }
  auto r = run_process(s);
  if (!r) {
    o.error = r.error();
    return o;
  }
  o.proc = *r;
  o.error = classify_failure(o.proc, w.timeout_s, o.stderr_path);
  if (o.error) return o;
  auto txt = read_all(result_path);
  if (!txt) {
    o.error = make_error(ErrorKind::Workload,
                         w.hook_result
                             ? fmt::format("the script exited 0 but the hook wrote no result: it saw fewer optimizer "
                                           "steps than warm-up + measured ({} + {}); raise the script's max_steps or "
                                           "lower --steps",
                                           w.warmup, w.steps)
                             : "workload exited 0 but wrote no result JSON ($GOBLIN_RESULT); it must write "
                               "tokens_per_sec and step_time_seconds there (or run it with --script, and goblin's "
                               "hook writes it)",
                         result_path);
    return o;
  }
  try {
    o.result = Json::parse(*txt);
  } catch (const std::exception& e) {
    o.error = make_error(ErrorKind::Workload, std::string("workload result is not JSON: ") + e.what(), result_path);
    return o;
  }
  if (!o.result.contains("step_time_seconds") || !o.result["step_time_seconds"].is_number() ||
      o.result["step_time_seconds"].get<double>() <= 0) {
    o.error = make_error(ErrorKind::Workload, "workload result lacks a positive step_time_seconds", result_path);
  }
  return o;
}

std::string environment_fingerprint(const std::string& python, const GpuInfo& gpu) {
  std::string torch = "unavailable";
  if (auto out = capture({python, "-c",
                          "import torch,sys;print(torch.__version__, torch.version.cuda or '', "
                          "getattr(torch.version,'hip',None) or '', sys.version.split()[0])"},
                         60)) {
    torch = trim(*out);
  }
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  // On AMD the ROCm release from amd-smi comes after torch's HIP version, so it is the one kept.
  const std::string rocm = gpu.vendor == "amd" ? rocm_version() : std::string();
  return "gpu=" + gpu.name + ";driver=" + gpu.driver + ";vendor=" + gpu.vendor + ";python=" + python +
         ";torch,cuda,hip,py=" + torch + (rocm.empty() ? "" : ";rocm=" + rocm) + ";host=" + host;
}

std::map<std::string, std::string> versions_from_fingerprint(const std::string& fp) {
  std::map<std::string, std::string> v;
  for (const std::string& part : split(fp, ';')) {
    auto eq = part.find('=');
    if (eq == std::string::npos) continue;
    std::string k = part.substr(0, eq), val = part.substr(eq + 1);
    if (k == "gpu" || k == "driver" || k == "rocm") {
      if (!trim(val).empty()) v[k] = trim(val);
    } else if (k == "torch,cuda,hip,py") {
      // "torch cuda hip py", space-separated, empty fields kept ("2.11.0+cu130 13.0  3.12.3").
      std::vector<std::string> f = split(val, ' ');
      auto at = [&](size_t i) { return i < f.size() ? trim(f[i]) : std::string(); };
      if (at(0) == "unavailable") continue;
      if (!at(0).empty()) v["pytorch"] = at(0);
      if (!at(1).empty()) v["cuda"] = at(1);
      if (!at(2).empty()) v["rocm"] = at(2);
      if (!at(3).empty()) v["python"] = at(3);
    }
  }
  return v;
}

Json fill_versions(Json versions, const std::string& fingerprint) {
  if (!versions.is_object()) versions = Json::object();
  for (const auto& [k, val] : versions_from_fingerprint(fingerprint)) {
    if (!versions.contains(k) || !versions[k].is_string() || versions[k].get<std::string>().empty()) versions[k] = val;
  }
  return versions;
}

// ---- cache ------------------------------------------------------------------------------------

std::string hash_parts(const std::vector<std::string>& parts) {
  uint64_t h = 1469598103934665603ull;
  for (const auto& p : parts) {
    for (unsigned char c : p) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // separator
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

std::string cache_dir() {
  if (const char* e = std::getenv("GOBLIN_CACHE_DIR"); e && *e) return e;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/goblin";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/goblin";
}

std::optional<Json> cache_get(const std::string& key) {
  auto txt = read_all(cache_dir() + "/bench-" + key + ".json");
  if (!txt) return std::nullopt;
  try {
    return Json::parse(*txt);
  } catch (...) {
    return std::nullopt;
  }
}

void cache_put(const std::string& key, const Json& value) {
  if (!make_dirs(cache_dir()).ok()) return;
  (void)write_file(cache_dir() + "/bench-" + key + ".json", value.dump(1));
}

}  // namespace goblin::run
