// bench_store: the run store at 10,000 runs on both engines (docs/store.md § Performance). A
// store of 10,000 runs (one workload of 1,000 runs, nine others, each run with the summary tables
// of a real `goblin metrics` result: 4 steps, 10 kernels, 8 categories, 8 waste buckets) is built
// once per engine, then:
//   BM_AddRun    adding one run's summary (target < 50 ms)
//   BM_ListRuns  the runs list: the newest 100 runs with their linkage fields, metrics and tags,
//                plus the filtered total (target < 300 ms)
//   BM_Trend     step_time_s over a workload's 1,000 runs (target < 200 ms)
// SQLite: a file under $TMPDIR (kept: GOBLIN_BENCH_STORE_KEEP=1 reuses it). PostgreSQL: a server
// this process starts (store/pg_test_server.h); skipped when the server binaries are absent.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include "store_fixture.h"

namespace {

using namespace bench_store_fixture;

void BM_AddRun(benchmark::State& state, const std::string& engine) {
  Fixture& f = fixture(engine);
  if (!f.store) return state.SkipWithError(f.error.c_str());
  for (auto _ : state) {
    auto a = f.store->add(make_run(f.next++));
    if (!a || !a->added) return state.SkipWithError("add failed");
  }
}

void BM_ListRuns(benchmark::State& state, const std::string& engine) {
  Fixture& f = fixture(engine);
  if (!f.store) return state.SkipWithError(f.error.c_str());
  RunFilter flt;
  flt.limit = 100;
  for (auto _ : state) {
    auto l = f.store->list(flt);
    auto n = f.store->count(flt);
    if (!l || !n || l->size() != 100) return state.SkipWithError("list failed");
    benchmark::DoNotOptimize(l->data());
  }
}

void BM_Trend(benchmark::State& state, const std::string& engine) {
  Fixture& f = fixture(engine);
  if (!f.store) return state.SkipWithError(f.error.c_str());
  for (auto _ : state) {
    auto t = f.store->trend("llama-8b", "step_time_s", kTrendRuns);
    if (!t || t->size() != kTrendRuns) return state.SkipWithError("trend failed");
    benchmark::DoNotOptimize(t->data());
  }
}

BENCHMARK_CAPTURE(BM_AddRun, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ListRuns, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trend, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AddRun, postgresql, std::string("postgresql"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ListRuns, postgresql, std::string("postgresql"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trend, postgresql, std::string("postgresql"))->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
