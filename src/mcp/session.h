// What one MCP session knows: its options (roots, live or replay, budget, output directory), the
// audit budget spent so far, the runs it measured (so compare_runs can find how each benchmark
// was measured) and the reports it wrote (served as resources).
#pragma once
#include <fmt/format.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "app/path_roots.h"
#include "audit/replay_runner.h"
#include "config/workload_config.h"
#include "core/confine.h"
#include "core/json.h"
#include "mcp/budget.h"

namespace goblin::mcp {

// The path confinement every confined door shares (app/path_roots.h).
using app::Roots;
using app::scrub;
using app::scrub_text;

struct ServerOptions {
  std::vector<std::string> roots;      // --root (default: the working directory)
  bool allow_live = false;             // --allow-live: profile_run/benchmark may run the workload
  int budget = 8;                      // --budget: audit-tool calls per session (the audit agent's budget, docs/mcp.md)
  std::string replay_dir;              // --replay DIR: recorded runs answer profile_run/benchmark
  std::string out_dir = "goblin-mcp";  // --out: reports, live runs, triage artefacts
  size_t max_message_bytes = 4u << 20;  // one JSON-RPC line
  size_t max_result_bytes = 4u << 20;   // one tool result (structuredContent); larger ones are cut with a note
  int live_repeats = 0;                 // 0: the live runner's default
  double tool_timeout_s = 300;          // --tool-timeout: a tools/call past it is stopped and answered with an error
  double eof_grace_s = 5;               // --eof-grace: after stdin closes, how long what was sent may still run
};

// How one profile_run/benchmark call was measured.
struct RunRecord {
  std::string id;      // "profile-1", "bench-2"
  std::string kind;    // "profile" | "bench"
  std::string runner;  // "replay" | "live"
  config::WorkloadConfig requested;
  std::optional<config::WorkloadConfig> ran;  // the config really run when it differs (replay)
  analysis::RunMetrics metrics;
  std::vector<double> step_time_samples, tokens_samples;  // live: per-run figures
  std::vector<std::string> notes;
};

struct ReportRecord {
  std::string uri;   // goblin://reports/<name>
  std::string name;  // e.g. report-1/report.md
  std::string path;  // on disk
  std::string mime;
};

// Why a running call was stopped: the client cancelled it, it ran past its deadline, or the
// client closed stdin and the shutdown grace ran out.
enum class StopCause : int { None = 0, Client = 1, Deadline = 2, Shutdown = 3 };

// Per-call hooks: progress for long calls, the cancellation flag (notifications/cancelled, the
// deadline, shutdown) and whether the tool runs in a child process (the stdio server's calls).
struct CallContext {
  std::function<void(double progress, const std::string& message)> progress;
  const std::atomic<bool>* cancelled = nullptr;
  const std::atomic<int>* cause = nullptr;  // a StopCause, set before `cancelled`
  double deadline_s = 0;                    // the deadline this call runs under (for the error's words)
  bool isolate = false;                     // run tools that hold no session state in a child process
  bool is_cancelled() const { return cancelled && cancelled->load(); }
  StopCause stop_cause() const { return cause ? static_cast<StopCause>(cause->load()) : StopCause::Client; }
};

class Session {
 public:
  explicit Session(ServerOptions opt, Roots roots)
      : opt_(std::move(opt)), roots_(std::move(roots)), budget_(opt_.budget) {}

  const ServerOptions& options() const { return opt_; }
  const Roots& roots() const { return roots_; }
  Budget& budget() { return budget_; }

  // The replay runner (opened once, on first use); an error when no --replay was given.
  Result<audit::ReplayRunner*> replay();

  std::string next_id(const std::string& kind) { return fmt::format("{}-{}", kind, ++counter_); }

  void record_run(RunRecord r);
  const RunRecord* find_run(const std::string& id) const;
  // The last profile of a config equal to `c` (for the report's profiled-before side).
  const RunRecord* last_profile_of(const config::WorkloadConfig& c) const;

  void add_report(ReportRecord r);
  std::vector<ReportRecord> reports() const;

 private:
  ServerOptions opt_;
  Roots roots_;
  Budget budget_;
  std::unique_ptr<audit::ReplayRunner> replay_;
  std::vector<RunRecord> runs_;
  mutable std::mutex mu_;  // reports_ are read by resources/read while a tool may write them
  std::vector<ReportRecord> reports_;
  int counter_ = 0;
};

// Where a session's tools may read (its roots, plus what the operator named: the replay
// recordings, a --data-dir override, the output folder the server fills) and write (the output
// folder only). The door holds it in a ConfinementScope for the server's life; the output folder
// is created here so that it can be a root.
Confinement confinement_of(const ServerOptions& o, const Roots& roots);

}  // namespace goblin::mcp
