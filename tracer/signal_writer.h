// Writing the trace when the process is ending on a signal (goblin's CUPTI tracer).
//
// Terminating signals (SIGTERM, SIGINT, SIGHUP, SIGQUIT) with their default disposition: the
// handler returns at once and a watcher thread writes the trace, then re-sends the signal with
// its old disposition. A program's own handler keeps the signal (exit() then writes through
// atexit). Crashes (SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL): the faulting thread waits, at most
// 30 s, for the watcher to write, then the signal is re-raised. SIGKILL cannot be caught.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <atomic>

namespace goblin::tracer {

struct SignalHooks {
  // The tracer's state (1: tracing; 3, 4: written or failed) and the process that owns it (a
  // forked child only re-raises), read from the handler: async-signal-safe reads only.
  const std::atomic<int>* state = nullptr;
  const pid_t* owner = nullptr;
  bool (*write)(const char* reason) = nullptr;  // called on the watcher thread
};

// Starts the watcher thread and installs the handlers (once, at injection).
void install_signals(const SignalHooks& hooks);

}  // namespace goblin::tracer
