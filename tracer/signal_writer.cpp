// The signal path of goblin's CUPTI tracer: a terminating signal with its default disposition,
// or a crash, gets the trace written before the process ends (docs/tracer.md).
#include "signal_writer.h"

#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace goblin::tracer {
namespace {

SignalHooks g_hooks;
int g_pipe[2] = {-1, -1};
std::atomic<int> g_signal{0};
struct sigaction g_prev[65];
const int kTermSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
const int kCrashSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};

bool is_term(int sig) {
  for (int s : kTermSignals)
    if (s == sig) return true;
  return false;
}

void reraise(int sig) {
  sigaction(sig, &g_prev[sig], nullptr);
  raise(sig);  // pending until this handler returns, then the previous disposition acts
}

// Async-signal-safe: getpid, write, nanosleep, sigaction, raise and atomics only. The flush and
// the file writing happen on the watcher thread.
void on_signal(int sig, siginfo_t* info, void* uctx) {
  const struct sigaction& prev = g_prev[sig];
  const bool prev_is_fn = (prev.sa_flags & SA_SIGINFO) ? prev.sa_sigaction != nullptr
                                                       : (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN);
  if (getpid() != *g_hooks.owner || g_hooks.state->load() != 1) {
    reraise(sig);
    return;
  }
  if (is_term(sig)) {
    if (prev_is_fn) {
      // The program handles this signal itself (Python's SIGINT → KeyboardInterrupt): it decides
      // whether to exit, and exit() writes the trace through atexit.
      if (prev.sa_flags & SA_SIGINFO)
        prev.sa_sigaction(sig, info, uctx);
      else
        prev.sa_handler(sig);
      return;
    }
    if (prev.sa_handler == SIG_IGN) return;
  }
  // Default disposition (the process is about to end) or a crash: the watcher writes the trace.
  int expected = 0;
  if (g_signal.compare_exchange_strong(expected, sig)) {
    char b = static_cast<char>(sig);
    ssize_t w = write(g_pipe[1], &b, 1);
    (void)w;
  }
  if (is_term(sig)) {
    // Return at once: this thread may hold a driver lock the flush needs. The program runs on
    // until the watcher has written the trace and re-sends the signal with its old disposition.
    return;
  }
  // A crash cannot run on (SIGSEGV would fault again, abort() re-raises): wait here, bounded.
  timespec ten_ms{0, 10'000'000};
  for (int i = 0; i < 3000; ++i) {  // at most 30 s, then die regardless
    int s = g_hooks.state->load();
    if (s == 3 || s == 4) break;
    nanosleep(&ten_ms, nullptr);
  }
  reraise(sig);
}

void* watcher(void*) {
  char b = 0;
  while (true) {
    ssize_t n = read(g_pipe[0], &b, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return nullptr;
  }
  const int sig = static_cast<int>(static_cast<unsigned char>(b));
  char reason[32];
  std::snprintf(reason, sizeof reason, "signal %d", sig);
  g_hooks.write(reason);
  if (is_term(sig)) {
    sigaction(sig, &g_prev[sig], nullptr);  // default disposition (checked in on_signal)
    kill(getpid(), sig);
  }
  return nullptr;
}

}  // namespace

void install_signals(const SignalHooks& hooks) {
  g_hooks = hooks;
  if (pipe(g_pipe) != 0) return;
  fcntl(g_pipe[0], F_SETFD, FD_CLOEXEC);
  fcntl(g_pipe[1], F_SETFD, FD_CLOEXEC);
  // The watcher blocks every signal so a process-directed signal never lands on it (it would
  // then wait for itself).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t th;
  int rc = pthread_create(&th, nullptr, watcher, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) return;
  pthread_detach(th);
  auto install = [](int sig) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, &g_prev[sig]);
  };
  for (int s : kTermSignals) install(s);
  for (int s : kCrashSignals) install(s);
}

}  // namespace goblin::tracer
