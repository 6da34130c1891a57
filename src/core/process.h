// Child processes for live runs: every workload (and every telemetry poller) runs in its own
// process group (setsid), so a timeout, a crash or goblin's own interruption kills the whole
// tree — DataLoader workers, compile workers, shells — and leaves no stray processes.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin {

struct ProcSpec {
  std::vector<std::string> argv;                  // argv[0] is looked up on PATH
  std::map<std::string, std::string> env;         // added to (or replacing in) goblin's environment
  std::string cwd;                                // empty: goblin's cwd
  std::string stdout_path, stderr_path;           // empty: /dev/null
  double timeout_s = 0;                           // 0: none
  double kill_grace_s = 3;                        // SIGTERM → SIGKILL delay
  std::function<void(double elapsed_s)> on_tick;  // called about once a second while running
};

struct ProcResult {
  int exit_code = -1;   // when it exited normally
  int term_signal = 0;  // when a signal ended it
  bool timed_out = false;
  bool exec_failed = false;  // argv[0] not found / not executable (exit 127 from the child)
  double wall_s = 0;
  std::string stderr_tail;  // last ~4 KiB of stderr
};

// Runs to completion (or timeout: SIGTERM then SIGKILL to the whole group). After the leader
// exits, the group is killed too, so nothing it started outlives it.
Result<ProcResult> run_process(const ProcSpec& spec);

// A background process (telemetry poller) in its own group; stop() ends the group.
class Background {
 public:
  Background() = default;
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  ~Background() { stop(); }
  Status start(const ProcSpec& spec);
  void stop();
  bool running() const { return pid_ > 0; }

 private:
  int pid_ = -1;
};

// Last `n` bytes of a file ("" when unreadable).
std::string file_tail(const std::string& path, size_t n = 4096);

// Kills every process group goblin started and has not reaped yet (SIGINT/SIGTERM handler).
void kill_all_children();

// True when `name` resolves to an executable on PATH (or is a path to one).
bool on_path(const std::string& name);

// A fresh path under $TMPDIR (default /tmp) for this process: goblin-<pid>-<tag>-<n>.
std::string temp_path(const std::string& tag);

// Runs a short command (no shell) with a timeout and returns its stdout; nullopt when it is not
// installed, fails, or times out. For tool queries (nvidia-smi, amd-smi, python -c ...).
std::optional<std::string> capture(const std::vector<std::string>& argv, double timeout_s = 30);

}  // namespace goblin
