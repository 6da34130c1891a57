// Where a command's time goes, phase by phase (`--phase-times`, docs/scale.md § Threads): each
// phase adds its wall and CPU seconds to one process-wide table, printed to stderr at the end.
// Off by default, when a phase costs one relaxed atomic load. Phases timed on several threads at
// once (the Kineto block workers) add up their threads' seconds, so the table says both how
// long the command waited and how much work each phase was.
//
// The worker-thread count of the process lives here too: the CLI's --threads sets it once, and
// every reader and analysis that splits its work asks for it (0: nobody set it, the caller's own
// default applies).
#pragma once
#include <cstdint>
#include <string>

namespace goblin {

void set_phase_times(bool on);
bool phase_times_on();

// Adds one timed stretch of `name` (a string literal: kept by pointer).
void add_phase_time(const char* name, double wall_s, double cpu_s);

// Times its own scope as `name` on the calling thread (wall clock and this thread's CPU time).
class PhaseTimer {
 public:
  explicit PhaseTimer(const char* name);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  const char* name_;
  int64_t wall0_ = 0, cpu0_ = 0;
};

// The table: one line per phase in first-seen order (wall s, CPU s, times entered), then the
// process's own wall, CPU and peak RSS. Empty when phase times are off.
std::string phase_times_text();

// Threads a process may give one input (the CLI's --threads; 1 = one thread). 0 when unset.
void set_worker_threads(int n);
int worker_threads();
// The default of --threads: the machine's cores, at most 16 (beyond that the block reader's
// serial merge bounds the gain; docs/scale.md § Threads).
int default_worker_threads();

}  // namespace goblin
