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

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "store/pg_test_server.h"
#include "store/store.h"

namespace {

using namespace goblin::store;

constexpr int kRuns = 10000, kTrendRuns = 1000;

RunRecord make_run(int i) {
  RunRecord r;
  r.content_key = sha256_hex(fmt::format("bench run {}", i));
  r.created = fmt::format("2026-11-{:02}T{:02}:{:02}:{:02}Z", 1 + i % 25, i / 3600 % 24, i / 60 % 60, i % 60);
  r.verb = "metrics";
  r.source = "verb";
  r.workload = i % 10 == 0 ? "llama-8b" : fmt::format("workload-{}", i % 10);
  r.gpu = "NVIDIA H100 80GB HBM3";
  r.linkage["experiment_id"] = fmt::format("exp{}", i / 500);
  r.linkage["trial_id"] = fmt::format("t{}", i / 50);
  r.tags = {"nightly"};
  const double step = 0.2 + 0.001 * (i % 7);
  r.metrics = {{"step_time_s", step}, {"tokens_per_sec", 40000 / step}, {"mfu_pct", 3.6}, {"gpu_util_pct", 97.1}};
  r.inputs.push_back({"/data/trace.json.gz", sha256_hex(fmt::format("trace {}", i)), 21900000});
  const std::string body = fmt::format("{{\"run\": {}}}", i);
  r.artifacts.push_back({"result.json", sha256_hex(body), static_cast<int64_t>(body.size()), body});
  for (int s = 0; s < 4; ++s) r.steps.push_back({fmt::format("ProfilerStep#{}", s + 1), step, step * 0.95});
  for (const char* c : {"gemm", "elementwise", "softmax", "reduction", "memcpy", "memset", "attention", "other"})
    r.categories.push_back({c, 0.02, 12.5});
  for (int k = 0; k < 10; ++k) r.kernels.push_back({fmt::format("sm90_xmma_gemm_kernel_{}", k), "gemm", 0.01, 5.0, 296});
  for (const char* w : {"useful_gpu", "data_wait", "host_gap", "comm_excess", "memory_headroom", "precision_path",
                        "kernel_shape", "unattributed"})
    r.waste.push_back({w, 0.01});
  return r;
}

struct Fixture {
  std::unique_ptr<Store> store;
  std::string error;
  int next = kRuns;
};

Fixture& fixture(const std::string& engine) {
  static std::map<std::string, Fixture> all;
  auto it = all.find(engine);
  if (it != all.end()) return it->second;
  Fixture& f = all[engine];
  std::string url;
  if (engine == "sqlite") {
    const auto path = std::filesystem::temp_directory_path() / "goblin_bench_store.db";
    if (!std::getenv("GOBLIN_BENCH_STORE_KEEP")) {
      for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
    }
    url = "sqlite://" + path.string();
  } else {
    auto& pg = goblin::store::testing::PgTestServer::get();
    if (!pg.ok()) {
      f.error = pg.why();
      return f;
    }
    url = pg.fresh_database_url();
  }
  auto s = Store::open(url, true);
  if (!s) {
    f.error = s.error().describe();
    return f;
  }
  f.store = std::make_unique<Store>(std::move(*s));
  auto have = f.store->count({});
  for (int i = have ? static_cast<int>(*have) : 0; i < kRuns; ++i)
    if (auto a = f.store->add(make_run(i)); !a) {
      f.error = a.error().describe();
      return f;
    }
  return f;
}

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
