#include "mcp/isolate.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>

namespace goblin::mcp {

std::mutex& fork_mutex() {
  static std::mutex m;
  return m;
}

Error stop_error(const std::string& tool, const CallContext& ctx) {
  switch (ctx.stop_cause()) {
    case StopCause::Deadline: {
      return make_error(ErrorKind::Workload,
                        fmt::format("{} was stopped at its deadline of {:g} s (the server's tool timeout); the server "
                                    "goes on serving. Ask for less: one file or rank instead of several, a smaller "
                                    "top",
                                    tool, ctx.deadline_s));
    }
    case StopCause::Shutdown:
      return make_error(ErrorKind::Workload,
                        tool + " was stopped: the client closed stdin and the server's shutdown grace ran out");
    default:
      return make_error(ErrorKind::Workload, tool + " was cancelled by the client (notifications/cancelled)");
  }
}

namespace {

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    off += static_cast<size_t>(w);
  }
}

// In the child: the tool's outcome as one JSON document on `fd`, then _exit (no atexit handlers,
// no static destructors, no second flush of buffers copied from the server).
[[noreturn]] void child_main(int fd, const std::function<ToolOutcome()>& fn, const std::string& tool) {
  ToolOutcome o;
  try {
    o = fn();
  } catch (const std::exception& e) {
    o.error = make_error(ErrorKind::Internal, std::string("unexpected failure in ") + tool + ": " + e.what());
  } catch (...) {
    o.error = make_error(ErrorKind::Internal, "unexpected failure in " + tool);
  }
  Json j = {{"result", std::move(o.result)}, {"text", o.text}};
  if (o.error) j["error"] = error_to_json(*o.error);
  write_all(fd, j.dump(-1, ' ', false, Json::error_handler_t::replace));
  ::_exit(0);
}

void close_from(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
#endif
  const long max = std::min<long>(::sysconf(_SC_OPEN_MAX), 1 << 20);
  for (int fd = first; fd < max; ++fd) ::close(fd);
}

ToolOutcome decode(const std::string& data, const std::string& tool) {
  ToolOutcome o;
  Json j = Json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    o.error = make_error(ErrorKind::Internal, tool + " ended without an answer (its process sent no result)");
    return o;
  }
  o.result = j.value("result", Json());
  o.text = j.value("text", std::string());
  if (j.contains("error") && j["error"].is_object()) {
    const Json& e = j["error"];
    Error err;
    int code = e.value("exit_code", 1);
    err.kind = code >= 1 && code <= 8 ? static_cast<ErrorKind>(code) : ErrorKind::Internal;
    err.message = e.value("message", std::string());
    err.file = e.value("file", std::string());
    err.byte_offset = e.value("byte_offset", int64_t{-1});
    err.line = e.value("line", int64_t{-1});
    o.error = err;
  }
  return o;
}

}  // namespace

ToolOutcome run_isolated(const std::string& tool, const std::function<ToolOutcome()>& fn, const CallContext& ctx,
                         size_t max_bytes) {
  ToolOutcome o;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    o.error =
        make_error(ErrorKind::Environment, std::string("cannot start the tool's process: ") + std::strerror(errno));
    return o;
  }
  const pid_t parent = ::getpid();
  pid_t pid;
  {
    std::lock_guard<std::mutex> l(fork_mutex());
    pid = ::fork();
  }
  if (pid == 0) {
    // Dies with the server (a SIGKILLed server leaves no tool running), in its own process group
    // so that killing the group ends what it started too. stdin/stdout are the protocol: never
    // the child's.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(2, 1);
    // Only the result pipe stays open (as fd 3): a copy of another end the server holds — the
    // write end of its own stdin when it runs in-process, a live run's pipes — must not outlive
    // the server's use of it (EOF would never come).
    ::dup2(fds[1], 3);
    close_from(4);
    child_main(3, fn, tool);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    o.error =
        make_error(ErrorKind::Environment, std::string("cannot start the tool's process: ") + std::strerror(errno));
    return o;
  }
  ::setpgid(pid, pid);  // also here: a kill right after fork must reach the group
  std::string data;
  bool stopped = false, too_big = false;
  char buf[65536];
  for (;;) {
    if (ctx.is_cancelled()) {
      stopped = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = ::poll(&p, 1, 50);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;  // the child is done (or gone)
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > max_bytes) {
      too_big = true;
      break;
    }
  }
  ::close(fds[0]);
  if (stopped || too_big) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (stopped) {
    o.error = stop_error(tool, ctx);
    return o;
  }
  if (too_big) {
    o.error = make_error(ErrorKind::Usage, fmt::format("{}'s result passed {} bytes before any cut; ask for less (a "
                                                       "smaller top, one rank) or use the CLI",
                                                       tool, max_bytes));
    return o;
  }
  if (WIFSIGNALED(st)) {
    o.error =
        make_error(ErrorKind::Internal,
                   fmt::format("{} crashed (signal {}); the server goes on serving. Please report it with the input",
                               tool, WTERMSIG(st)));
    return o;
  }
  return decode(data, tool);
}

}  // namespace goblin::mcp
