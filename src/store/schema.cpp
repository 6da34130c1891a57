// The migration steps (docs/store.md § Schema lists every table and column).
#include "store/schema.h"

#include <algorithm>
#include <cctype>

namespace goblin::store {

const std::vector<std::string>& migrations() {
  static const std::vector<std::string> steps = {
      // 0 -> 1: experiments, trials, runs and their summary tables.
      "CREATE TABLE experiments (id TEXT PRIMARY KEY, created TEXT NOT NULL);"
      "CREATE TABLE trials (experiment_id TEXT NOT NULL REFERENCES experiments(id), id TEXT NOT NULL,"
      " created TEXT NOT NULL, PRIMARY KEY (experiment_id, id));"
      "CREATE TABLE runs (id {id}, content_key TEXT NOT NULL UNIQUE, created TEXT NOT NULL,"
      " verb TEXT NOT NULL, source TEXT NOT NULL, workload TEXT NOT NULL,"
      " goblin_version TEXT NOT NULL, goblin_commit TEXT NOT NULL,"
      " gpu TEXT NOT NULL, driver TEXT NOT NULL, cuda TEXT NOT NULL, rocm TEXT NOT NULL, pytorch TEXT NOT NULL,"
      " clocks TEXT NOT NULL,"
      " experiment_id TEXT NOT NULL, trial_id TEXT NOT NULL, observed_arch TEXT NOT NULL, arch_match TEXT NOT NULL,"
      " hardware_relevance_reason TEXT NOT NULL, rocm_version TEXT NOT NULL, base_image TEXT NOT NULL,"
      " resource_class TEXT NOT NULL, gpu_device_ids TEXT NOT NULL, gpu_clocks_mhz TEXT NOT NULL,"
      " preflight_passed TEXT NOT NULL, server_flags TEXT NOT NULL, benchmark_config_hash TEXT NOT NULL,"
      " model_name TEXT NOT NULL, profile_stage TEXT NOT NULL, source_trace_path TEXT NOT NULL,"
      " FOREIGN KEY (experiment_id, trial_id) REFERENCES trials(experiment_id, id));"
      "CREATE INDEX runs_by_workload ON runs(workload, id);"
      "CREATE INDEX runs_by_trial ON runs(experiment_id, trial_id);"
      "CREATE INDEX runs_by_created ON runs(created);"
      "CREATE TABLE run_tags (run_id BIGINT NOT NULL REFERENCES runs(id), tag TEXT NOT NULL,"
      " PRIMARY KEY (run_id, tag));"
      "CREATE INDEX run_tags_by_tag ON run_tags(tag);"
      "CREATE TABLE run_metrics (run_id BIGINT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
      " value {real} NOT NULL, PRIMARY KEY (run_id, name));"
      "CREATE TABLE run_inputs (run_id BIGINT NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,"
      " path TEXT NOT NULL, sha256 TEXT NOT NULL, bytes BIGINT NOT NULL, PRIMARY KEY (run_id, idx));"
      "CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, bytes BIGINT NOT NULL, content TEXT);"
      "CREATE TABLE run_artifacts (run_id BIGINT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
      " sha256 TEXT NOT NULL REFERENCES blobs(sha256), PRIMARY KEY (run_id, name));"
      "CREATE INDEX run_artifacts_by_hash ON run_artifacts(sha256);"
      "CREATE TABLE run_steps (run_id BIGINT NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,"
      " name TEXT NOT NULL, wall_s {real}, busy_s {real}, PRIMARY KEY (run_id, idx));"
      "CREATE TABLE run_categories (run_id BIGINT NOT NULL REFERENCES runs(id), category TEXT NOT NULL,"
      " time_s {real}, pct {real}, PRIMARY KEY (run_id, category));"
      "CREATE TABLE run_kernels (run_id BIGINT NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,"
      " name TEXT NOT NULL, category TEXT NOT NULL, time_s {real}, pct {real}, launches BIGINT NOT NULL,"
      " PRIMARY KEY (run_id, idx));"
      "CREATE TABLE run_waste (run_id BIGINT NOT NULL REFERENCES runs(id), bucket TEXT NOT NULL,"
      " seconds {real}, PRIMARY KEY (run_id, bucket));"
      "CREATE TABLE run_audit_rounds (run_id BIGINT NOT NULL REFERENCES runs(id), round INTEGER NOT NULL,"
      " rules TEXT NOT NULL, gpu TEXT NOT NULL, method TEXT NOT NULL, predicted_low {real}, predicted_high {real},"
      " measured {real}, ci_low {real}, ci_high {real}, significant INTEGER, held TEXT NOT NULL,"
      " PRIMARY KEY (run_id, round));"
      "CREATE TABLE run_audit_rules (run_id BIGINT NOT NULL REFERENCES runs(id), round INTEGER NOT NULL,"
      " rule_id TEXT NOT NULL, PRIMARY KEY (run_id, round, rule_id));"
      "CREATE INDEX run_audit_rules_by_rule ON run_audit_rules(rule_id);"
      "CREATE TABLE run_kernel_iterations (run_id BIGINT NOT NULL REFERENCES runs(id), version INTEGER NOT NULL,"
      " change TEXT NOT NULL, metric TEXT NOT NULL, value {real}, pct_of_target {real}, masked INTEGER NOT NULL,"
      " correct INTEGER NOT NULL, PRIMARY KEY (run_id, version));"
      "CREATE TABLE run_ranks (run_id BIGINT NOT NULL REFERENCES runs(id), rank INTEGER NOT NULL,"
      " gpu TEXT NOT NULL, step_time_s {real}, steps BIGINT NOT NULL, collectives BIGINT NOT NULL,"
      " PRIMARY KEY (run_id, rank));",
  };
  return steps;
}

const std::vector<std::string>& table_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {kMetaTable};
    static const std::string kCreate = "CREATE TABLE ";
    for (const auto& step : migrations())
      for (size_t at = step.find(kCreate); at != std::string::npos; at = step.find(kCreate, at + 1)) {
        size_t b = at + kCreate.size();
        if (step.compare(b, 14, "IF NOT EXISTS ") == 0) b += 14;
        size_t e = b;
        while (e < step.size() && (std::isalnum(static_cast<unsigned char>(step[e])) || step[e] == '_')) ++e;
        if (e > b && std::find(out.begin(), out.end(), step.substr(b, e - b)) == out.end())
          out.push_back(step.substr(b, e - b));
      }
    return out;
  }();
  return names;
}

std::string dialect(const std::string& sql, EngineKind k) {
  const bool pg = k == EngineKind::Postgres;
  std::string out = sql;
  auto repl = [&](const std::string& from, const std::string& to) {
    for (size_t p = out.find(from); p != std::string::npos; p = out.find(from, p + to.size()))
      out.replace(p, from.size(), to);
  };
  repl("{id}", pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
  repl("{real}", pg ? "DOUBLE PRECISION" : "REAL");
  repl("{blob}", pg ? "BYTEA" : "BLOB");
  return out;
}

}  // namespace goblin::store
