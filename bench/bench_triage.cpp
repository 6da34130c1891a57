// bench_triage: `goblin triage` end to end on a large Kineto trace — read (streaming reader) +
// every triage analysis + writing the five artifacts — reporting MB/s of input and peak RSS.
// Input: $GOBLIN_BENCH_TRACE, else bench/data/scale_kineto.json (bench/make_scale_files.sh).
// Counters: bytes_per_second (input file bytes / wall time of one full triage),
// read_s / analyse_s / write_s (wall seconds per phase), peak_rss_mb (getrusage ru_maxrss of the
// whole process), rss_over_file (peak RSS / input file size). Acceptance (issue 3): ≥ 300 MB/s,
// rss_over_file ≤ 0.5.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "analysis/triage_artifacts.h"
#include "trace/readers.h"

namespace {

std::string bench_trace() {
  if (const char* p = std::getenv("GOBLIN_BENCH_TRACE")) return p;
  return std::string(GOBLIN_SOURCE_DIR) + "/bench/data/scale_kineto.json";
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // Linux: KiB
}

void BM_TriageEndToEnd(benchmark::State& state) {
  std::string path = bench_trace();
  std::error_code ec;
  auto bytes = std::filesystem::file_size(path, ec);
  if (ec) {
    state.SkipWithError(("missing " + path + ": run bench/make_scale_files.sh or set GOBLIN_BENCH_TRACE").c_str());
    return;
  }
  std::string out = (std::filesystem::temp_directory_path() / "goblin_bench_triage").string();
  using clk = std::chrono::steady_clock;
  double rd = 0, an = 0, wr = 0;
  for (auto _ : state) {
    auto t0 = clk::now();
    goblin::Timeline tl;
    goblin::Status st = goblin::trace::read_path(path, tl);
    if (!st) {
      state.SkipWithError(st.error().describe().c_str());
      return;
    }
    auto t1 = clk::now();
    goblin::analysis::TriageOptions opt;
    opt.source_path = path;
    auto rep = goblin::analysis::run_triage(tl, opt);
    if (!rep) {
      state.SkipWithError(rep.error().describe().c_str());
      return;
    }
    auto t2 = clk::now();
    goblin::Status ws = goblin::analysis::write_triage_artifacts(*rep, out);
    if (!ws) {
      state.SkipWithError(ws.error().describe().c_str());
      return;
    }
    auto t3 = clk::now();
    rd += std::chrono::duration<double>(t1 - t0).count();
    an += std::chrono::duration<double>(t2 - t1).count();
    wr += std::chrono::duration<double>(t3 - t2).count();
    benchmark::DoNotOptimize(rep->kernels.total_ns);
  }
  double n = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  state.counters["file_mb"] = bytes / 1e6;
  state.counters["read_s"] = rd / n;
  state.counters["analyse_s"] = an / n;
  state.counters["write_s"] = wr / n;
  state.counters["peak_rss_mb"] = peak_rss_mb();
  state.counters["rss_over_file"] = peak_rss_mb() * 1024 * 1024 / static_cast<double>(bytes);
}
BENCHMARK(BM_TriageEndToEnd)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
