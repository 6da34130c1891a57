// Ingest benchmark: how fast goblin reads a ~1 GB PyTorch/Kineto trace, plain and .json.gz, and
// how much memory it needs. Make the inputs first with bench/make_scale_files.sh.
//
//   build/bench/bench_ingest --benchmark_filter=Plain    (run one case per process: peak RSS
//   build/bench/bench_ingest --benchmark_filter=Gzip      is a process-wide maximum)
//
// MB/s is reported over *uncompressed* JSON bytes for both cases (the targets:
// ≥ 500 MB/s plain, ≥ 250 MB/s gzip on the 2-core dev machine; peak RSS ≤ 0.5× the file).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/io.h"
#include "trace/readers.h"

namespace {

std::string data_dir() {
  if (const char* d = std::getenv("GOBLIN_BENCH_DATA")) return d;
  return std::string(GOBLIN_SOURCE_DIR) + "/bench/data";
}

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// Decompressed size, measured once outside the timed loop.
uint64_t content_bytes(const std::string& path) {
  auto src = goblin::open_source(path);
  if (!src) return 0;
  std::vector<char> buf(1 << 20);
  uint64_t n = 0;
  for (;;) {
    auto r = (*src)->read(buf.data(), buf.size());
    if (!r || *r == 0) break;
    n += *r;
  }
  return n;
}

void ingest(benchmark::State& state, const std::string& file) {
  const std::string path = data_dir() + "/" + file;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    state.SkipWithError(("missing " + path + ": run bench/make_scale_files.sh first").c_str());
    return;
  }
  const uint64_t bytes = content_bytes(path);
  const uint64_t on_disk = std::filesystem::file_size(path, ec);
  size_t kernels = 0;
  for (auto _ : state) {
    goblin::Timeline tl;
    goblin::Status s = goblin::trace::read_path(path, tl);
    if (!s.ok()) {
      state.SkipWithError(s.error().describe().c_str());
      return;
    }
    kernels = tl.gpu_ops.count(goblin::GpuOpKind::Kernel);
    benchmark::DoNotOptimize(kernels);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  state.counters["json_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["disk_MB"] = static_cast<double>(on_disk) / 1e6;
  state.counters["peak_rss_MB"] = peak_rss_mb();
  state.counters["rss_per_json_byte"] = peak_rss_mb() * 1048576.0 / static_cast<double>(bytes);
  state.counters["kernels"] = static_cast<double>(kernels);
}

void BM_IngestPlain(benchmark::State& state) { ingest(state, "scale_kineto.json"); }
void BM_IngestGzip(benchmark::State& state) { ingest(state, "scale_kineto.json.gz"); }

// Real (wall) time: the gzip path inflates on a second thread, so CPU time of the main thread
// alone would flatter it.
BENCHMARK(BM_IngestPlain)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_IngestGzip)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
