// Serving stages (seed 002's profile_stage): the trace split into prefill, decode and mixed
// batches from the annotations serving engines write around each forward pass
// (data/serving_stages.yaml), with a table per stage.
//
// Attribution: a GPU op belongs to the innermost stage annotation open on its launching thread
// at its launch (kernel_table.h's LaunchAttribution; graph replays at the graph launch); ops
// launched outside every stage annotation, or with no launch record, are "unstaged".
// Per stage: batches = stage annotations not nested in another stage annotation; ops and
// op_time = Σ dur of its GPU ops; busy = |∪ its ops| (all streams); window = first start .. last
// end of its ops; categories = op time per taxonomy category; top kernels by op time.
// Without stage annotations, the attention op names (serving_stages.yaml § attention_op_names)
// give only the trace-level profile_stage (no per-op split: there are no batch boundaries).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/kernel_table.h"
#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct StageRow {
  std::string stage;  // prefill | decode | mixed | idle | verify | draft_extend | unstaged
  int64_t batches = 0;
  std::vector<std::string> examples;  // up to 3 annotation names
  int64_t ops = 0, op_time_ns = 0, busy_ns = 0;
  int64_t window_start_ns = 0, window_end_ns = 0;
  std::map<std::string, int64_t> category_ns;
  std::vector<std::pair<std::string, int64_t>> top_kernels;  // canonical name, ns (up to 5)
};

struct StageSplit {
  std::vector<StageRow> stages;  // prefill, decode, mixed, ... then unstaged; only stages with ops or batches
  std::string profile_stage;     // prefill | decode | mixed; "" when the trace does not say
  std::string method;            // how the stages were found (documented in the output)
  bool from_annotations = false;
  std::vector<int16_t> op_stage;  // per gpu_ops row: index into stages, -1 unstaged
};

// data/serving_stages.yaml parsed (defined in stages.cpp; the knowledge context holds one).
struct StagePatterns;
Result<std::shared_ptr<const StagePatterns>> load_stage_patterns();

StageSplit split_stages(const Timeline& tl, const LaunchAttribution& la, const KernelTableResult& kt,
                        const StagePatterns& patterns);
// The same with the process's knowledge (analysis_knowledge()); errors only when a data file is
// unusable. For tests and one-shot tools.
Result<StageSplit> split_stages(const Timeline& tl, const LaunchAttribution& la, const KernelTableResult& kt);

Json stage_split_to_json(const StageSplit& s);  // stage_table.json, `breakdown --by stage`
std::string stage_split_markdown(const StageSplit& s, int top);

}  // namespace goblin::analysis
