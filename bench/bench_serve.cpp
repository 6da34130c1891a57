// bench_serve: the dashboard's JSON API (serve/api.h) on the 10,000-run store of bench_store
// (store_fixture.h), both engines. Each iteration is one whole request as goblin serve handles it
// after the socket: a store connection borrowed from the pool (store/pool.h), the query, the JSON
// written.
//   BM_ApiRuns   GET /api/runs?limit=100: the newest 100 runs with linkage fields, metrics, tags
//                and the total (the target for the runs list API: < 300 ms)
//   BM_ApiTrend  GET /api/trend?workload=llama-8b&metric=step_time_s&n=1000: 1,000 points plus the
//                gate's verdict on the newest (target for a trend over 1,000 runs: < 200 ms)
//   BM_StoreOpen / BM_PoolLease  what the pool saves per request: a store opened for one count
//                query (what every request did before the pool) against the same query on a
//                connection borrowed from a warm pool (liveness check included)
#include <benchmark/benchmark.h>

#include "serve/api.h"
#include "store/pool.h"
#include "store_fixture.h"

namespace {

using namespace bench_store_fixture;

void run(benchmark::State& state, const std::string& engine, const goblin::serve::ApiRequest& rq) {
  Fixture& f = fixture(engine);
  if (!f.store) return state.SkipWithError(f.error.c_str());
  goblin::serve::Api api({f.url, ""});
  for (auto _ : state) {
    auto r = api.handle(rq);
    if (r.status != 200) return state.SkipWithError(r.body.c_str());
    benchmark::DoNotOptimize(r.body.data());
  }
}

void BM_ApiRuns(benchmark::State& state, const std::string& engine) {
  goblin::serve::ApiRequest rq;
  rq.path = "/api/runs";
  rq.query = {{"limit", "100"}};
  run(state, engine, rq);
}

void BM_ApiTrend(benchmark::State& state, const std::string& engine) {
  goblin::serve::ApiRequest rq;
  rq.path = "/api/trend";
  rq.query = {{"workload", "llama-8b"}, {"metric", "step_time_s"}, {"n", "1000"}};
  run(state, engine, rq);
}

goblin::store::RunFilter one_run() {
  goblin::store::RunFilter q;
  q.workload = "llama-8b";
  return q;
}

void BM_StoreOpen(benchmark::State& state, const std::string& engine) {
  Fixture& f = fixture(engine);
  if (!f.store) return state.SkipWithError(f.error.c_str());
  for (auto _ : state) {
    auto s = goblin::store::Store::open(f.url, false, false);
    if (!s) return state.SkipWithError(s.error().describe().c_str());
    auto n = s->count(one_run());
    if (!n) return state.SkipWithError(n.error().describe().c_str());
    benchmark::DoNotOptimize(*n);
  }
}

void BM_PoolLease(benchmark::State& state, const std::string& engine) {
  Fixture& f = fixture(engine);
  if (!f.store) return state.SkipWithError(f.error.c_str());
  goblin::store::StorePool pool(f.url, 2);
  for (auto _ : state) {
    auto s = pool.acquire();
    if (!s) return state.SkipWithError(s.error().describe().c_str());
    auto n = (*s)->count(one_run());
    if (!n) return state.SkipWithError(n.error().describe().c_str());
    benchmark::DoNotOptimize(*n);
  }
}

}  // namespace

BENCHMARK_CAPTURE(BM_StoreOpen, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PoolLease, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StoreOpen, postgresql, std::string("postgresql"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PoolLease, postgresql, std::string("postgresql"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ApiRuns, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ApiTrend, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ApiRuns, postgresql, std::string("postgresql"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ApiTrend, postgresql, std::string("postgresql"))->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
