#include "core/phases.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace goblin {

namespace {

std::atomic<bool> g_on{false};
std::atomic<int> g_threads{0};

struct Row {
  const char* name;
  double wall = 0, cpu = 0;
  int64_t count = 0;
};
std::mutex g_mu;
std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}

int64_t now_ns(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The process's start, for its own wall time: the first use of this file (the CLI enables phase
// times while parsing its options, before any work).
const int64_t g_start_ns = now_ns(CLOCK_MONOTONIC);

}  // namespace

void set_phase_times(bool on) { g_on.store(on, std::memory_order_relaxed); }
bool phase_times_on() { return g_on.load(std::memory_order_relaxed); }

void add_phase_time(const char* name, double wall_s, double cpu_s) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto& r = rows();
  auto it = std::find_if(r.begin(), r.end(), [&](const Row& x) { return x.name == name; });
  if (it == r.end()) {
    r.push_back(Row{name});
    it = r.end() - 1;
  }
  it->wall += wall_s;
  it->cpu += cpu_s;
  ++it->count;
}

PhaseTimer::PhaseTimer(const char* name) : name_(phase_times_on() ? name : nullptr) {
  if (!name_) return;
  wall0_ = now_ns(CLOCK_MONOTONIC);
  cpu0_ = now_ns(CLOCK_THREAD_CPUTIME_ID);
}

PhaseTimer::~PhaseTimer() {
  if (!name_) return;
  add_phase_time(name_, static_cast<double>(now_ns(CLOCK_MONOTONIC) - wall0_) * 1e-9,
                 static_cast<double>(now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0_) * 1e-9);
}

std::string phase_times_text() {
  if (!phase_times_on()) return {};
  std::string out = "phase times (wall and CPU seconds; a phase run on several threads adds their seconds):\n";
  fmt::format_to(std::back_inserter(out), "  {:<44} {:>9} {:>9} {:>8}\n", "phase", "wall s", "cpu s", "times");
  {
    std::lock_guard<std::mutex> lk(g_mu);
    for (const Row& r : rows())
      fmt::format_to(std::back_inserter(out), "  {:<44} {:>9.3f} {:>9.3f} {:>8}\n", r.name, r.wall, r.cpu, r.count);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  fmt::format_to(std::back_inserter(out), "  {:<44} {:>9.3f} {:>9.3f}\n", "process (all threads)",
                 static_cast<double>(now_ns(CLOCK_MONOTONIC) - g_start_ns) * 1e-9, cpu);
  fmt::format_to(std::back_inserter(out), "  peak RSS {:.1f} MB, {} worker threads\n",
                 static_cast<double>(ru.ru_maxrss) / 1024.0, std::max(1, worker_threads()));
  return out;
}

void set_worker_threads(int n) { g_threads.store(std::max(0, n), std::memory_order_relaxed); }
int worker_threads() { return g_threads.load(std::memory_order_relaxed); }
int default_worker_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(hw == 0 ? 1 : hw, 1, 16));
}

}  // namespace goblin
