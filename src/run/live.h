// Live runs of a workload on this machine's GPU: GPU detection, telemetry collection, the
// workload command (CONFIG → python3 workloads/train.py CONFIG ..., or any `-- CMD`), failure
// classification (crash, hang, OOM, no GPU, profiler missing → an Error with the documented exit
// code), the environment fingerprint and the bench result cache. docs/live.md is the user guide.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "core/process.h"
#include "core/status.h"

namespace goblin::run {

// ---- GPU and telemetry ------------------------------------------------------------------------

struct GpuInfo {
  std::string vendor = "none";  // nvidia | amd | none
  std::string name, driver;
  std::string detail;  // why none / which tool answered
};
// nvidia-smi, then amd-smi (AMD path untested here: no AMD hardware was available).
GpuInfo detect_gpu();
// The ROCm release `amd-smi version` names ("7.0.2"); empty when amd-smi is absent or silent.
std::string rocm_version();

struct TelemetrySummary {
  bool observed = false;
  std::string source;  // "nvidia-smi" | "amd-smi"
  std::string parser;  // which parser read the CSV
  int samples = 0;
  double sm_clock_mhz_median = 0, sm_clock_mhz_min = 0, sm_clock_mhz_max = 0;
  double power_w_median = 0, power_w_max = 0, temp_c_max = 0, gpu_util_pct_mean = 0, mem_used_gb_max = 0;
  std::string note;
};
Json telemetry_to_json(const TelemetrySummary& t);
// Reads an nvidia-smi CSV (--query-gpu ... --format=csv); goblin's nvidia-smi reader first, a
// built-in parser when that reader is unavailable.
TelemetrySummary summarize_nvidia_smi_csv(const std::string& path);
// Reads `amd-smi metric ... --csv [-w N]` output (banner, repeated headers, N/A) through goblin's
// amd-smi reader: the same summary, so run.json's telemetry is observed on AMD too.
TelemetrySummary summarize_amd_smi_csv(const std::string& path);

// Polls nvidia-smi (~200 ms) or amd-smi (1 s) into a CSV file in the background.
class TelemetryCollector {
 public:
  // False (and a note) when the vendor's tool is missing: telemetry is then "unobserved".
  bool start(const std::string& vendor, const std::string& csv_path);
  TelemetrySummary stop();

 private:
  Background bg_;
  std::string vendor_, path_, note_;
};

// ---- workloads --------------------------------------------------------------------------------

struct WorkloadSpec {
  std::string config;                // CONFIG mode (train.py CONFIG ...)
  std::vector<std::string> command;  // `-- CMD...` mode
  std::string workload_py;           // train.py (resolved)
  std::string python = "python3";
  int steps = 20, warmup = 5;
  double timeout_s = 600;
  std::optional<long long> tokens_per_step;  // for -- CMD mode when the command does not say
  // --script mode: `command` runs the user's unmodified script; goblin's hook (sitecustomize)
  // times its optimizer steps and writes the result JSON (GOBLIN_HOOK_RESULT=1), then ends the
  // process once the measured window is complete (GOBLIN_EXIT_AFTER_RESULT=1).
  std::string script;
  bool hook_result = false;
};

// --script SCRIPT [ARGS...] for CONFIG (docs/live.md § Any script): python SCRIPT ARGS with every
// "{config}" in ARGS (or an ARG equal to CONFIG as given) replaced by `config_file`, or
// `SCRIPT config_file` without ARGS. Tokens per step = batch_size x seq_len x grad_accum_steps
// (1 when unset) of the config; unknown (no tokens/s) without batch or sequence length.
Result<WorkloadSpec> script_workload(const std::string& config_file, const std::string& given_config,
                                     const std::string& script, const std::vector<std::string>& args);

// A command-line config (docs/audit.md § Command lines): a shell or Slurm script (or the file
// `audit --command` wrote) runs whole under bash, so its exports and cd's hold; a Makefile's or
// README's launch command runs alone (`bash -c COMMAND`). goblin's hook times the optimizer steps
// as with --script; tokens per step as script_workload's.
Result<WorkloadSpec> command_workload(const std::string& config_file);

// Finds train.py: --workload, $GOBLIN_WORKLOAD, CONFIG's ../train.py or ./train.py,
// <source>/workloads/train.py. Python: $GOBLIN_PYTHON or python3.
Result<WorkloadSpec> resolve_workload(const std::string& config, const std::string& workload_flag);
std::string hook_dir_for(const WorkloadSpec& w);

struct RunOutcome {
  ProcResult proc;
  Json result;  // the workload's result JSON (null when none)
  std::optional<Error> error;
  std::string stdout_path, stderr_path;
};

// Runs the workload once, results under `dir` (stdout.log, stderr.log, result.json).
RunOutcome run_workload(const WorkloadSpec& w, const std::string& dir, const std::map<std::string, std::string>& env,
                        const std::string& progress_label);

// Turns a finished process into an error, or nothing when it succeeded.
std::optional<Error> classify_failure(const ProcResult& p, double timeout_s, const std::string& stderr_path);

// "gpu=...;driver=...;python=...;torch=...;cuda=...;host=..." — what decides whether a cached
// timing still holds.
std::string environment_fingerprint(const std::string& python, const GpuInfo& gpu);
// The versions the fingerprint holds, as RunMetrics.versions keys: pytorch, cuda or rocm (hip),
// driver, gpu, python. Empty values are left out. Used when the workload does not report its own
// (the validity footer then still names driver/CUDA/PyTorch: goblin ran it).
std::map<std::string, std::string> versions_from_fingerprint(const std::string& fingerprint);
// `versions` (a JSON object, possibly null) with every key the fingerprint knows and it lacks.
Json fill_versions(Json versions, const std::string& fingerprint);

// ---- cache ------------------------------------------------------------------------------------

// FNV-1a 64 over the parts, hex.
std::string hash_parts(const std::vector<std::string>& parts);
// $GOBLIN_CACHE_DIR, else $XDG_CACHE_HOME/goblin, else ~/.cache/goblin.
std::string cache_dir();
std::optional<Json> cache_get(const std::string& key);
void cache_put(const std::string& key, const Json& value);

std::string goblin_version();
Status make_dirs(const std::string& path);

}  // namespace goblin::run
