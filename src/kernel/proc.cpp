#include "kernel/proc.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>

#include "core/confine.h"
#include "core/io.h"
#include "core/process.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

namespace {
std::string_view trim_ws(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}
}  // namespace

Result<ProcOut> run_capture(const std::vector<std::string>& argv, const std::string& cwd, double timeout_s,
                            const std::string& stdout_path, bool timeout_is_result) {
  static int counter = 0;
  // The captured output is read back through open_for_read: under a door's confinement (MCP) it
  // goes where the door may write and read (its --out), not to the system's temporary directory.
  const Confinement& conf = current_confinement();
  const fs::path tmp_dir =
      conf.active() && !conf.write_roots.empty() ? fs::path(conf.write_roots.front()) : fs::temp_directory_path();
  std::string tmp = (tmp_dir / (fmt::format("goblin-kernel-{}", getpid()) + fmt::format("-{}", counter++))).string();
  ProcSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.stdout_path = stdout_path.empty() ? tmp + ".out" : stdout_path;
  spec.stderr_path = tmp + ".err";
  spec.timeout_s = timeout_s;
  auto r = run_process(spec);
  ProcOut o;
  std::error_code ec;
  if (stdout_path.empty()) {
    if (auto t = read_all(spec.stdout_path); t.ok()) o.out = *t;
    fs::remove(spec.stdout_path, ec);
  }
  if (auto t = read_all(spec.stderr_path); t.ok()) o.err = *t;
  fs::remove(spec.stderr_path, ec);
  if (!r.ok()) return r.error();
  if (r->exec_failed)
    return make_error(ErrorKind::Environment, argv[0] + " not found on PATH (needed for: " +
                                                  (argv.size() > 1 ? argv[1] : std::string("?")) + ")");
  if (r->timed_out && timeout_is_result) {
    o.timed_out = true;
    return o;
  }
  if (r->timed_out)
    return make_error(ErrorKind::Workload, argv[0] + fmt::format(" ran past its {}", int(timeout_s)) +
                                               " s limit and was killed; stderr tail: " + o.err.substr(0, 2000));
  o.code = r->term_signal ? 128 + r->term_signal : r->exit_code;
  o.term_signal = r->term_signal;
  return o;
}

namespace {
// Repository settings that make git run a program of the repository's choosing while goblin adds
// and commits a workspace an agent writes into: hooks, the fsmonitor, clean/smudge filters (run
// by `git add` for paths .gitattributes names) and included config files that could set any of
// them. Found in the workspace's own config, the commit is refused.
bool executes_programs(std::string_view key) {
  const std::string k = [&] {
    std::string l(key);
    for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return l;
  }();
  return k.rfind("filter.", 0) == 0 || k.rfind("include.", 0) == 0 || k.rfind("includeif.", 0) == 0 ||
         k == "core.fsmonitor" || k == "core.hookspath" || k == "core.sshcommand" || k == "core.pager" ||
         k == "core.editor" || k == "diff.external" || k.rfind("credential", 0) == 0;
}
}  // namespace

Result<ProcOut> git(const std::string& ws, const std::vector<std::string>& args) {
  // Hooks and the fsmonitor off whatever the repository says (a hook planted in .git/hooks would
  // otherwise run with goblin's rights on every record).
  std::vector<std::string> argv = {"git", "-C", ws, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_capture(argv, "", 60);
}

Status refuse_executing_config(const std::string& ws) {
  // `git config --list` only reads; --includes is off for --local, so an include is listed, not followed.
  ASSIGN_OR_RETURN(auto r, run_capture({"git", "-C", ws, "config", "--local", "--no-includes", "--list"}, "", 60));
  if (r.code != 0) return {};  // no local config at all
  std::string_view all = r.out;
  while (!all.empty()) {
    const size_t nl = all.find('\n');
    std::string_view line = all.substr(0, nl);
    all = nl == std::string_view::npos ? std::string_view() : all.substr(nl + 1);
    const std::string_view key = line.substr(0, line.find('='));
    if (executes_programs(key))
      return make_error(ErrorKind::Usage,
                        "the workspace's git config sets '" + std::string(key) +
                            "', which would make git run a program while goblin commits; remove it from .git/config",
                        ws + "/.git/config");
  }
  return {};
}

Status require_git_repo(const std::string& ws) {
  std::error_code ec;
  if (!fs::is_directory(ws, ec)) return make_error(ErrorKind::Io, "no such workspace directory", ws);
  ASSIGN_OR_RETURN(auto r, git(ws, {"rev-parse", "--show-toplevel"}));
  if (r.code != 0 || fs::weakly_canonical(fs::path(std::string(trim_ws(r.out))), ec) != fs::weakly_canonical(ws, ec))
    return make_error(ErrorKind::Io,
                      "not a git repository (a kernel workspace is one: `goblin kernel init` creates it, "
                      "or run `git init` there)",
                      ws);
  return {};
}

Result<std::string> git_commit_all(const std::string& ws, const std::string& message) {
  RETURN_IF_ERROR(refuse_executing_config(ws));
  ASSIGN_OR_RETURN(auto a, git(ws, {"add", "-A"}));
  if (a.code != 0) return make_error(ErrorKind::Io, "git add failed: " + a.err, ws);
  // A fixed identity so a fresh machine without git config can still commit.
  ASSIGN_OR_RETURN(auto c, git(ws, {"-c", "user.name=goblin kernel", "-c", "user.email=goblin@localhost", "commit",
                                    "-q", "--no-verify", "--no-gpg-sign", "-m", message}));
  if (c.code != 0) return make_error(ErrorKind::Io, "git commit failed: " + c.err + c.out, ws);
  ASSIGN_OR_RETURN(auto h, git(ws, {"rev-parse", "--short", "HEAD"}));
  return std::string(trim_ws(h.out));
}

}  // namespace goblin::kernel
