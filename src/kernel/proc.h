// Small process helper for the workspace: git and python run with a timeout in their own process
// group (run_process), stdout captured to a temporary file and returned as text.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::kernel {

struct ProcOut {
  int code = -1;
  int term_signal = 0;     // the signal that ended it (0: it exited)
  bool timed_out = false;  // killed at the deadline (only with timeout_is_result)
  std::string out, err;
};

// Runs argv in `cwd`; Environment error when argv[0] is missing, Workload error on timeout
// unless `timeout_is_result` (then the ProcOut says timed_out: the caller gives the verdict).
Result<ProcOut> run_capture(const std::vector<std::string>& argv, const std::string& cwd, double timeout_s,
                            const std::string& stdout_path = "", bool timeout_is_result = false);

// git -C ws ARGS (60 s). A non-zero exit is returned, not turned into an error.
Result<ProcOut> git(const std::string& ws, const std::vector<std::string>& args);
// Io error naming `ws` unless it is the top of a git work tree.
Status require_git_repo(const std::string& ws);
// Usage error when the workspace's own git config would make git run a program (filters,
// fsmonitor, hooks path, includes, pager/editor/ssh commands).
Status refuse_executing_config(const std::string& ws);
// git add -A && git commit -m msg, hooks off, refused when the config executes programs; returns
// the new commit's hash.
Result<std::string> git_commit_all(const std::string& ws, const std::string& message);

}  // namespace goblin::kernel
