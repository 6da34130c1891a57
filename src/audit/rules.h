// The rule base (data/rules/*.yaml): loading, linting, evaluation against a WorkloadConfig and
// measured evidence (RunMetrics), and offline BM25 retrieval (the audit's query_rocm_kb step (docs/audit.md)).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "analysis/taxonomy.h"
#include "config/workload_config.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::audit {

// One predicate: over a config field (`field`) or a measured metric (`metric`).
// ops: eq ne lt le gt ge in not_in set unset matches (regex).
struct Predicate {
  std::string field, metric, op;
  Json value;
  bool if_unset = false;  // config predicates: the result when the field is unset
  // Config predicates: which config they read. "config" (default): the config being patched (in a
  // later audit round, the previous round's output). "original": the user's config as the audit
  // started from it, for guards about the user's own choices (a batch the user tuned with
  // torch.compile on) that an earlier round's edit must not trip.
  std::string of = "config";
  // Metric predicates: read instead when `metric` was not measured (at most one, itself a metric
  // predicate that may have its own). "This metric if measured, else that proxy": the batch rule
  // reads batch_scale_fits from a memory source and falls back to hbm_peak_frac (docs/audit.md).
  std::vector<Predicate> fallback;
};

struct Recovery {
  double low = 0, high = 0;
  std::string basis;
};

struct Rule {
  std::string id, title, category, vendor = "any";
  bool performance = true;  // false: hygiene/footgun finding, not a speed rule
  bool advisory = false;    // no config transform; reported as advice
  std::vector<std::string> symptoms;
  // guards
  std::vector<std::string> modes, arch;
  std::map<std::string, std::string> version_ranges;  // rocm / cuda / pytorch → ">=6.2", "<6.2", ">=2.0,<2.4"
  std::vector<Predicate> detect_config, detect_evidence, counter_evidence;
  bool require_evidence = false;
  std::map<std::string, Json> transform;  // field → value
  std::string targets_bucket;
  Recovery recovery;
  std::string citation;
  int priority = 50;
  std::string superseded_by;
  std::string deprecated_since, deprecated_reason;
  std::string source_file;  // data/rules/x.yaml
  int64_t source_line = -1;
};

struct RuleBase {
  std::vector<Rule> rules;
  std::vector<Error> problems;  // load problems (lint reports them)
  const Rule* find(const std::string& id) const;
};

// Loads every data/rules/*.yaml (embedded or --data-dir). Structural problems are collected in
// `problems`; a file that is not YAML at all is an error.
Result<RuleBase> load_rule_base();
// Parses one rules file's text (for tests and overrides).
Status parse_rules_yaml(const std::string& text, const std::string& file, RuleBase& out);

// Lint: schema, URL-shaped citations, transforms touch known fields with valid values, detect not
// empty or always-true, buckets known, recovery within [0,1], unique ids, superseded_by exists.
std::vector<Error> lint_rules(const RuleBase& kb);

// Measured evidence derived from RunMetrics (absent metrics = unobserved).
struct Evidence {
  bool have_metrics = false;
  std::map<std::string, Json> metrics;  // observed metric → value
  std::string vendor;                   // amd | nvidia | "" (unknown)
  std::string arch;                     // sm_90, gfx942, ...
  std::map<std::string, std::string> versions;
  double step_time_s = 0;
  std::map<std::string, double> bucket_s;  // observed buckets only
};
const std::vector<std::string>& bucket_names();
// Kernel shares (gemm_share, comm_share, ...) count each top kernel where the taxonomy files it
// (its category and family, data/taxonomy.yaml § rule_evidence).
Evidence evidence_from_metrics(const analysis::RunMetrics* m, const analysis::Taxonomy& tax,
                               const std::string& vendor_hint = "");
// "amd" | "nvidia" | "" for the GPU a run's metrics were measured on: the GPU name first, then
// the runtime versions the trace recorded (rocm/hip, cuda/cuda_runtime/cuda_driver).
std::string vendor_of(const analysis::RunMetrics& m);

struct RuleEval {
  const Rule* rule = nullptr;
  bool fires = false;
  std::string reason;                             // why it fired / why not
  int evidence_total = 0, evidence_observed = 0;  // for evidence_coverage
  std::vector<std::string> supporting;            // observed evidence that held
  std::vector<std::string> unverified;            // guards/evidence that could not be checked
};
// `original`: the user's config before any audit round (predicates with `of: original` read it);
// null means `c` is the original.
RuleEval evaluate_rule(const Rule& r, const config::WorkloadConfig& c, const Evidence& ev,
                       const config::WorkloadConfig* original = nullptr);

// BM25 over rule text. Several queries → deduplicated union (best score kept, queries listed).
struct KbHit {
  const Rule* rule = nullptr;
  double score = 0;
  std::vector<std::string> matched_queries;
};
std::vector<KbHit> kb_query(const RuleBase& kb, const std::vector<std::string>& queries, int top_k);
// One hit as `goblin kb query --json` and the MCP query_kb tool print it (id, score, title,
// vendor, bucket, citation, the queries it matched).
Json kb_hit_to_json(const KbHit& h);

Json rule_to_json(const Rule& r);
// A JSON scalar as text: strings unquoted, anything else dumped (rule reasons, BM25 text).
std::string fmt_json(const Json& j);
Json predicate_to_json(const Predicate& p);

}  // namespace goblin::audit
