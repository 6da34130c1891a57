#include "core/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace goblin {
namespace {

std::mutex g_mu;
std::set<int> g_groups;  // live process-group ids (== leader pid)

void unregister_group(int pgid) {
  std::lock_guard<std::mutex> l(g_mu);
  g_groups.erase(pgid);
}

void on_signal(int sig) {
  // Only async-signal-safe calls: kill() and _exit(). Reads the set without the lock (the
  // process is going down; a torn read at worst misses a group that is being registered).
  for (int g : g_groups) kill(-g, SIGKILL);
  _exit(128 + sig);
}

void install_handlers_once() {
  static bool done = false;
  if (done) return;
  done = true;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

int open_out(const std::string& path) {
  if (path.empty()) return open("/dev/null", O_WRONLY);
  return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

// fork + setsid + exec. Returns the child pid or an Error.
Result<int> spawn(const ProcSpec& spec) {
  if (spec.argv.empty()) return make_error(ErrorKind::Usage, "no command to run");
  int out = open_out(spec.stdout_path);
  int err = open_out(spec.stderr_path);
  if (out < 0 || err < 0) {
    if (out >= 0) close(out);
    if (err >= 0) close(err);
    return make_error(ErrorKind::Io, "cannot open the run's output files for writing",
                      spec.stdout_path.empty() ? spec.stderr_path : spec.stdout_path);
  }
  std::vector<std::string> envs;
  std::map<std::string, std::string> merged;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : spec.env) merged[k] = v;
  for (const auto& [k, v] : merged) envs.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);

  install_handlers_once();
  std::lock_guard<std::mutex> l(g_mu);  // no signal-handler kill between fork and register
  pid_t pid = fork();
  if (pid < 0) {
    close(out);
    close(err);
    return make_error(ErrorKind::Environment, std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setsid();
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) _exit(126);
    // execvpe: PATH lookup with our environment.
    execvpe(argv[0], argv.data(), envp.data());
    const char* msg = "goblin: cannot execute the command: ";
    (void)!write(2, msg, std::strlen(msg));
    (void)!write(2, argv[0], std::strlen(argv[0]));
    (void)!write(2, "\n", 1);
    _exit(127);
  }
  setpgid(pid, pid);     // also from the parent, so the group exists before we might kill it
  g_groups.insert(pid);  // under g_mu, taken before fork()
  close(out);
  close(err);
  return static_cast<int>(pid);
}

}  // namespace

std::string file_tail(const std::string& path, size_t n) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  f.seekg(0, std::ios::end);
  auto size = static_cast<size_t>(f.tellg());
  size_t from = size > n ? size - n : 0;
  f.seekg(static_cast<std::streamoff>(from));
  std::string s(size - from, '\0');
  f.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

Result<ProcResult> run_process(const ProcSpec& spec) {
  auto t0 = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(auto pid_r, spawn(spec));
  int pid = pid_r;
  ProcResult r;
  int status = 0;
  double last_tick = 0;
  bool term_sent = false;
  double term_at = 0;
  for (;;) {
    int w = waitpid(pid, &status, WNOHANG);
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (spec.timeout_s > 0 && el > spec.timeout_s && !term_sent) {
      r.timed_out = true;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_at = el;
    }
    if (term_sent && el - term_at > spec.kill_grace_s) kill(-pid, SIGKILL);
    if (spec.on_tick && el - last_tick >= 1.0) {
      last_tick = el;
      spec.on_tick(el);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The leader is gone; end whatever it left behind in its group (workers, grandchildren).
  kill(-pid, SIGKILL);
  unregister_group(pid);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.term_signal = WTERMSIG(status);
  }
  r.stderr_tail = spec.stderr_path.empty() ? "" : file_tail(spec.stderr_path);
  if (r.exit_code == 127 && r.stderr_tail.find("goblin: cannot execute the command") != std::string::npos)
    r.exec_failed = true;
  return r;
}

Status Background::start(const ProcSpec& spec) {
  stop();
  ASSIGN_OR_RETURN(auto pid_r, spawn(spec));
  pid_ = pid_r;
  return Status::Ok();
}

void Background::stop() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 100; ++i) {  // up to 2 s
    if (waitpid(pid_, &status, WNOHANG) == pid_) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (i == 99) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  kill(-pid_, SIGKILL);
  unregister_group(pid_);
  pid_ = -1;
}

void kill_all_children() {
  std::lock_guard<std::mutex> l(g_mu);
  for (int g : g_groups) kill(-g, SIGKILL);
}

bool on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* p = std::getenv("PATH");
  if (!p) return false;
  std::istringstream ss(p);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string full = dir + "/" + name;
    struct stat st {};
    if (stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(full.c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string temp_path(const std::string& tag) {
  static std::atomic<int> n{0};
  const char* t = std::getenv("TMPDIR");
  return fmt::format("{}/goblin-{}-{}-{}", t && *t ? t : "/tmp", getpid(), tag, n++);
}

std::optional<std::string> capture(const std::vector<std::string>& argv, double timeout_s) {
  if (argv.empty() || !on_path(argv[0])) return std::nullopt;
  ProcSpec s;
  s.argv = argv;
  s.stdout_path = temp_path("out");
  s.stderr_path = temp_path("err");
  s.timeout_s = timeout_s;
  auto r = run_process(s);
  std::optional<std::string> out;
  if (r && r->exit_code == 0) {
    std::ifstream f(s.stdout_path, std::ios::binary);
    out = std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  std::remove(s.stdout_path.c_str());
  std::remove(s.stderr_path.c_str());
  return out;
}

}  // namespace goblin
