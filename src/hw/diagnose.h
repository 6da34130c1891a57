// Kernel bottleneck diagnosis from Nsight Compute counters: a deterministic diagnosis (the two
// strongest bottlenecks of distinct categories, each with evidence metrics and fixes), the
// prompts of an LLM judge (KernelAgent's diagnose module, docs/hardware.md), and validation of the
// judge's JSON answer.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "hw/gpu_specs.h"
#include "hw/ncu_analysis.h"

namespace goblin::hw {

struct Fix {
  std::string fix, rationale;
};
struct Bottleneck {
  std::string category;  // memory | compute | underutilized
  double severity = 0;   // 0-100: share of peak in use (memory/compute) or estimated idle share
  std::string summary;
  std::string reasoning;
  std::string cause;
  std::vector<Evidence> evidence;
  std::vector<Fix> fixes;
};
struct KernelDiagnosis {
  NcuClassification cls;
  std::vector<Bottleneck> bottlenecks;  // at most two, strongest first, distinct categories
};

// All candidate bottlenecks are scored; the two strongest of distinct categories are kept.
// `sm_count` (from the GPU spec or the CSV) enables the small-grid estimate. The fixes are worded
// for `vendor` ("nvidia" | "amd": data/ncu_rules.yaml § remedies; other values read as NVIDIA).
KernelDiagnosis diagnose_kernel(const CounterKernel& k, const NcuRules& rules, int sm_count,
                                const std::string& vendor = "nvidia");
// The judge's JSON shape (an array of bottlenecks), from a deterministic diagnosis.
Json diagnosis_to_json(const KernelDiagnosis& d);

struct MetricSchemaEntry {
  std::string label, key, unit;
};
struct MetricSchemaSection {
  std::string name;
  std::vector<MetricSchemaEntry> metrics;
};
// Parses data/ncu_metric_schema.yaml's text (hw::HwKnowledge::load reads the file).
Result<std::vector<MetricSchemaSection>> parse_metric_schema(const std::string& text);
// The schema of the process's hardware knowledge (tests, one-shot tools); code with a context
// reads k.ncu_metric_schema.
Result<std::vector<MetricSchemaSection>> load_metric_schema();

// Seed 003's judge prompts: system prompt (role, categories, rules, output schema) and user
// prompt (problem, kernel source, GPU specs from the database with their sources, metrics by
// schema section). Missing metrics print "N/A" without a unit.
struct JudgePrompt {
  std::string system, user;
};
JudgePrompt build_judge_prompt(const CounterKernel& k, const std::vector<MetricSchemaSection>& schema,
                               const GpuSpec* gpu, const std::string& kernel_source, const std::string& problem);

// Pulls the judge's JSON out of free text: the whole text, fenced blocks (```json / ```), then
// every balanced [...] / {...} in order; an object holding a "bottlenecks" array, or a single
// bottleneck object, is accepted as well as an array.
struct ExtractedJson {
  Json value;
  std::string how;  // "whole text" | "fenced block" | "embedded array" | "embedded object"
};
std::optional<ExtractedJson> extract_judge_json(const std::string& text);
// Validates against the schema; each problem as "<path>: <what>", e.g.
// "[1].root_causes[0].evidence: missing". Empty when valid.
std::vector<std::string> validate_judge_json(const Json& v, size_t expected_items = 2);

}  // namespace goblin::hw
