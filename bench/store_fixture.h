// The 10,000-run store the store and dashboard benchmarks share (bench_store.cpp, bench_serve.cpp):
// one workload of 1,000 runs, nine others, each run with the summary tables of a real `goblin
// metrics` result. SQLite: a file under $TMPDIR (GOBLIN_BENCH_STORE_KEEP=1 reuses it); PostgreSQL:
// a server this process starts (store/pg_test_server.h).
#pragma once
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "store/pg_test_server.h"
#include "store/store.h"

namespace bench_store_fixture {

using namespace goblin::store;

inline constexpr int kRuns = 10000, kTrendRuns = 1000;

inline RunRecord make_run(int i) {
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
  for (int k = 0; k < 10; ++k)
    r.kernels.push_back({fmt::format("sm90_xmma_gemm_kernel_{}", k), "gemm", 0.01, 5.0, 296});
  for (const char* w : {"useful_gpu", "data_wait", "host_gap", "comm_excess", "memory_headroom", "precision_path",
                        "kernel_shape", "unattributed"})
    r.waste.push_back({w, 0.01});
  return r;
}

struct Fixture {
  std::unique_ptr<Store> store;
  std::string url;
  std::string error;
  int next = kRuns;
};

inline Fixture& fixture(const std::string& engine) {
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
  f.url = url;
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

}  // namespace bench_store_fixture
